package reports

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// indentCases are JSON documents with what indenting can get wrong:
// empty and nested containers, escaped quotes and backslashes in strings,
// punctuation inside strings.
var indentCases = []string{
	`{}`, `[]`, `null`, `"a"`, `1.5e-7`,
	`{"a":[],"b":{},"c":[{}],"d":[[]]}`,
	`{"k":"a \"quoted\", [bracket] {brace}: colon","l":"back\\slash\\"}`,
	`[1,[2,[3,{"x":[4,5],"y":{"z":null}}]],true,false]`,
	`{"\u003chtml\u003e":"\u0026amp;","e":"\\\"","t":"\t"}`,
}

// TestIndentAsJSON: appendIndent gives json.Indent's bytes for compact
// JSON, at any prefix.
func TestIndentAsJSON(t *testing.T) {
	for _, doc := range indentCases {
		for _, prefix := range []string{"", "    "} {
			var want bytes.Buffer
			if err := json.Indent(&want, []byte(doc), prefix, "  "); err != nil {
				t.Fatalf("%s: %v", doc, err)
			}
			if d := cmp.Diff(want.String(), string(appendIndent(nil, []byte(doc), prefix, "  "))); d != "" {
				t.Errorf("%s at prefix %q (-json.Indent +appendIndent):\n%s", doc, prefix, d)
			}
		}
	}
}

// FuzzIndentAsJSON: appendIndent gives json.Indent's bytes for any valid
// JSON in the compact form json.Marshal writes.
func FuzzIndentAsJSON(f *testing.F) {
	for _, doc := range indentCases {
		f.Add([]byte(doc), "    ")
	}
	f.Fuzz(func(t *testing.T, doc []byte, prefix string) {
		if !json.Valid(doc) {
			return
		}
		var compact, want bytes.Buffer
		if err := json.Compact(&compact, doc); err != nil {
			t.Fatal(err)
		}
		if err := json.Indent(&want, compact.Bytes(), prefix, "  "); err != nil {
			t.Fatal(err)
		}
		if got := appendIndent(nil, compact.Bytes(), prefix, "  "); !bytes.Equal(want.Bytes(), got) {
			t.Errorf("%q at prefix %q:\njson.Indent  %q\nappendIndent %q", compact.Bytes(), prefix, want.Bytes(), got)
		}
	})
}

// TestF4AsFloat: an F4 is written as json.Marshal writes its float64 (no
// negative zero; null for NaN and infinities).
func TestF4AsFloat(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 0.1183, 1.0 / 3, 1e-7, 123456789, 1e21, 5e-324, math.MaxFloat64} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if v == 0 {
			want = []byte("0")
		}
		got, err := F4(v).MarshalJSON()
		if err != nil || !bytes.Equal(want, got) {
			t.Errorf("F4(%v) = %s, %v; want %s", v, got, err, want)
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got, _ := F4(v).MarshalJSON(); string(got) != "null" {
			t.Errorf("F4(%v) = %s, want null", v, got)
		}
	}
}
