package jsontext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var validSeeds = []string{
	`{}`, `[]`, `{"a":1}`, `[1,-0.5e+3,"x\"y\\z\u00e9",true,false,null,{"b":[]}]`, `"s"`, `0`, `-0`, `1E9`,
	`{"a": 1}`, ` {}`, `{} `, "[1,\n2]", `{"a":"b c"}`, `01`, `1.`, `-`, `1e`, `.5`, `+1`, `{"a":1,}`, `[1,]`,
	`{"a"}`, `{1:2}`, `[1 2]`, `"\x"`, `"\u12g4"`, "\"a\x01\"", `tru`, `nulll`, `{"a":1}}`, `[`, `"`, ``,
	`{"a":[1,{"b":null}],"c":"\ud83d\ude00"}`, "\"\xff\xfe\"", strings.Repeat("[", 70) + strings.Repeat("]", 70),
}

// ValidCompact never accepts what encoding/json would not copy unchanged,
// and accepts the valid compact JSON the encoder writes.
func TestValidCompact(t *testing.T) {
	for _, s := range validSeeds {
		checkValidCompact(t, []byte(s))
	}
	for _, v := range []any{map[string]any{"a": []any{1.5, "x", nil, map[string]any{}}}, map[string]any{"k": "v w"}} {
		var e Encoder
		if raw := e.Encode(v); !ValidCompact(raw) {
			t.Errorf("ValidCompact(%s) = false", raw)
		}
	}
}

func FuzzValidCompact(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkValidCompact(t, raw) })
}

func checkValidCompact(t *testing.T, raw []byte) {
	t.Helper()
	var buf bytes.Buffer
	want := json.Valid(raw) && json.Compact(&buf, raw) == nil && bytes.Equal(buf.Bytes(), raw)
	got := ValidCompact(raw)
	deep := bytes.Count(raw, []byte("["))+bytes.Count(raw, []byte("{")) >= 64
	if got && !want || !got && want && !deep {
		t.Fatalf("ValidCompact(%q) = %v; valid and compact: %v", raw, got, want)
	}
}
