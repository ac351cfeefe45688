package score

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type strictInner struct {
	Name  string   `json:"name"`
	Count int      `json:"count"`
	Score *float64 `json:"score"`
}

type strictOuter struct {
	ID    string         `json:"id"`
	Items []strictInner  `json:"items"`
	Tags  map[string]int `json:"tags"`
	Any   any            `json:"any"`
	Ok    bool           `json:"ok"`
}

func TestDecodeStrictErrors(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		wantErr error
		want    LineError // File and Err left out
	}{
		{"byte order mark", "\xEF\xBB\xBF{\"id\":\"a\"}", ErrBOM,
			LineError{Line: 1, Msg: "starts with a UTF-8 byte order mark: save the file without it"}},
		{"unknown key, nested", "{\"id\":\"a\",\n\"items\":[{\"name\":\"x\"},\n{\"nmae\":\"y\"}]}", ErrUnknownKey,
			LineError{Line: 3, Field: "items[1].nmae", Msg: `unknown key "nmae" (want one of: count, name, score)`}},
		{"key in another case is unknown", `{"ID":"a"}`, ErrUnknownKey,
			LineError{Line: 1, Field: "ID", Msg: `unknown key "ID" (want one of: any, id, items, ok, tags)`}},
		{"duplicate key", "{\"id\":\"a\",\n\"id\":\"b\"}", ErrDuplicateKey,
			LineError{Line: 2, Field: "id", Msg: "key given twice"}},
		{"duplicate key in a map", `{"tags":{"x":1,"x":2}}`, ErrDuplicateKey,
			LineError{Line: 1, Field: "tags.x", Msg: "key given twice"}},
		{"duplicate key inside any", `{"any":[{"k":1,"k":1}]}`, ErrDuplicateKey,
			LineError{Line: 1, Field: "any[0].k", Msg: "key given twice"}},
		{"invalid UTF-8 in a value", "{\"id\":\"a\xffb\"}", ErrInvalidUTF8,
			LineError{Line: 1, Field: "id", Msg: "invalid UTF-8 in a string"}},
		{"invalid UTF-8 in a key", "{\"i\xffd\":\"a\"}", ErrInvalidUTF8,
			LineError{Line: 1, Msg: "invalid UTF-8 in a string"}},
		{"float beyond float64", `{"items":[{"score":1e999}]}`, ErrNonFinite,
			LineError{Line: 1, Field: "items[0].score", Msg: "1e999 is beyond the range of a 64-bit float"}},
		{"negative float beyond float64", `{"any":-2e308}`, ErrNonFinite,
			LineError{Line: 1, Field: "any", Msg: "-2e308 is beyond the range of a 64-bit float"}},
		{"integer with a fraction", `{"items":[{"count":1.5}]}`, ErrBadField,
			LineError{Line: 1, Field: "items[0].count", Msg: "want an integer of 64 bits, got 1.5"}},
		{"integer too large", `{"items":[{"count":9223372036854775808}]}`, ErrBadField,
			LineError{Line: 1, Field: "items[0].count", Msg: "want an integer of 64 bits, got 9223372036854775808"}},
		{"wrong type", `{"id":7}`, ErrBadField,
			LineError{Line: 1, Field: "id", Msg: "want string, got number"}},
		{"null for a string", `{"id":null}`, ErrBadField,
			LineError{Line: 1, Field: "id", Msg: "want string, got null"}},
		{"object for an array", `{"items":{}}`, ErrBadField,
			LineError{Line: 1, Field: "items", Msg: "want array, got object"}},
		{"not an object", "[1]", ErrNotJSON,
			LineError{Line: 1, Msg: "not JSON: want an object, got array"}},
		{"trailing value", "{\"id\":\"a\"}\n{\"id\":\"b\"}", ErrNotJSON,
			LineError{Line: 2, Msg: "not JSON: object after the top-level object"}},
		{"syntax error", "{\"id\":\n\"a\" \"b\"}", ErrNotJSON,
			LineError{Line: 2, Msg: "not JSON: invalid character '\"' after object key:value pair"}},
		{"truncated", `{"items":[{"name":"x"`, ErrNotJSON,
			LineError{Line: 1, Field: "items[0]", Msg: "not JSON: unexpected end of JSON input"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v strictOuter
			_, err := decodeStrict([]byte(tt.input), &v, false)
			if err == nil {
				t.Fatalf("no error; decoded %+v", v)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err.Err, tt.wantErr)
			}
			got := LineError{Line: err.Line, Field: err.Field, Msg: err.Msg}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeStrictAccepts(t *testing.T) {
	input := "{\"id\": \"a\",\n \"items\": [{\"name\": \"x\", \"count\": 2, \"score\": null},\n  {\"name\": \"y\", \"score\": 0.5}],\n \"tags\": {\"k\": 1}, \"any\": {\"n\": [1, \"s\", true, null]}, \"ok\": true}"
	var v strictOuter
	lines, err := decodeStrict([]byte(input), &v, true)
	if err != nil {
		t.Fatal(err)
	}
	want := strictOuter{ID: "a", Items: []strictInner{{Name: "x", Count: 2}, {Name: "y", Score: new(0.5)}},
		Tags: map[string]int{"k": 1}, Any: map[string]any{"n": []any{1.0, "s", true, nil}}, Ok: true}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	for path, line := range map[string]int{"": 1, "id": 1, "items[0].count": 2, "items[1]": 3, "items[1].score": 3, "tags.k": 4,
		"items[1].missing": 3, "nowhere.at.all": 1} {
		if got := lines.line(path); got != line {
			t.Errorf("line(%q) = %d, want %d", path, got, line)
		}
	}
}
