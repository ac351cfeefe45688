package model

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{` { "b" : 1, "a" : [ true, null, "x" ] } `, `{"a":[true,null,"x"],"b":1}`},
		{`{"n":[1.0, 1e0, 100, 1e2, -0, -0.0, 1.5, 12345678901234567890123, 1e21, 0.000001, 1e-7]}`,
			`{"n":[1,1,100,100,0,0,1.5,12345678901234567890123,1e+21,0.000001,1e-7]}`},
		{`"<a & b>"`, `"<a & b>"`},
		{`"\u00e9\u2028"`, "\"\u00e9\\u2028\""},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{`{"z":{"y":{},"x":[]}}`, `{"z":{"x":[],"y":{}}}`},
	}
	for _, tt := range tests {
		got, err := Canonical([]byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("Canonical(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{``, `{`, `1 2`, `{"a":1}x`, `1e999`} {
		if got, err := Canonical([]byte(bad)); err == nil {
			t.Errorf("Canonical(%q) = %s, want an error", bad, got)
		}
	}
}

func TestStripURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pass@api.example.com/v1?api-key=s3cret#frag": "https://api.example.com/v1",
		"http://127.0.0.1:8000/v1":                                 "http://127.0.0.1:8000/v1",
		"http://[::1]:80/v1/?x=1":                                  "http://[::1]:80/v1/",
		"http://host/%zz":                                          "(invalid URL)",
	} {
		if got := StripURL(in); got != want {
			t.Errorf("StripURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHashTools(t *testing.T) {
	a, _ := HashTools([]Tool{{Name: "t", Parameters: json.RawMessage(`{"type":"object","required":["a"]}`)}})
	b, _ := HashTools([]Tool{{Name: "t", Parameters: json.RawMessage("{\n  \"required\": [\"a\"],\n  \"type\": \"object\"\n}")}})
	c, _ := HashTools([]Tool{{Name: "t", Description: "x", Parameters: json.RawMessage(`{"type":"object","required":["a"]}`)}})
	if a != b || a == c || len(a) != 64 {
		t.Errorf("hashes %s %s %s: want formatting ignored, descriptions counted", a, b, c)
	}
	if _, err := HashTools([]Tool{{Name: "t", Parameters: json.RawMessage(`{`)}}); err == nil {
		t.Errorf("bad parameters hashed")
	}
}

// FuzzCanonical: canonical JSON is JSON, has the same value, and is a
// fixed point.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1.0,"x"]}`, `-0`, `"\ud800"`, `[1e308, 5e-324]`, `{"":{"":null}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Canonical([]byte(in))
		if err != nil {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("Canonical(%q) = %s, not JSON", in, got)
		}
		again, err := Canonical(got)
		if err != nil || string(again) != string(got) {
			t.Fatalf("not a fixed point: %s then %s (%v)", got, again, err)
		}
		var a, b any
		if json.Unmarshal([]byte(in), &a) == nil && json.Unmarshal(got, &b) == nil {
			if !reflect.DeepEqual(a, b) && !strings.Contains(in, `\u`) && utf8.ValidString(in) {
				t.Fatalf("value changed: %v vs %v", a, b)
			}
		}
	})
}
