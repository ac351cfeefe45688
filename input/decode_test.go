package input_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/input"
)

// testDoc is a small file format exercising each kind the layer decodes.
type testDoc struct {
	Name    string                 `yaml:"name"`
	Trials  int                    `yaml:"trials"`
	Rate    float64                `yaml:"rate"`
	On      bool                   `yaml:"on"`
	Tags    []string               `yaml:"tags"`
	Weights map[string]float64     `yaml:"weights"`
	Fields  input.Ordered[float64] `yaml:"fields"`
	Any     any                    `yaml:"any"`
	Sub     *struct {
		Level string `yaml:"level"`
	} `yaml:"sub"`
}

func decode(tb testing.TB, src string, opt input.Options) (testDoc, error) {
	tb.Helper()
	var doc testDoc
	d := input.NewDecoder("t.yaml", opt)
	d.Decode([]byte(src), &doc)
	return doc, d.Err()
}

func TestDecode(t *testing.T) {
	src := "name: n\ntrials: 3\nrate: 0.5\non: true\ntags: [a, b]\nweights: {x: 1}\nfields: {z: 1, a: 2}\nany: [1, x, {k: null}]\nsub: {level: hi}\n"
	got, err := decode(t, src, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := testDoc{Name: "n", Trials: 3, Rate: 0.5, On: true, Tags: []string{"a", "b"}, Weights: map[string]float64{"x": 1},
		Any: []any{1.0, "x", map[string]any{"k": nil}}}
	if diff := cmp.Diff(want.Any, got.Any); diff != "" {
		t.Errorf("any (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"z", "a"}, got.Fields.Keys()); diff != "" {
		t.Errorf("ordered keys (-want +got):\n%s", diff)
	}
	if got.Sub == nil || got.Sub.Level != "hi" {
		t.Errorf("sub = %+v, want level hi", got.Sub)
	}
	got.Fields, got.Sub, got.Any, want.Any = nil, nil, nil, nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decode (-want +got):\n%s", diff)
	}
}

// TestDecodeErrors pins the one-line, located error of each broken input.
func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		opt  input.Options
		want string
	}{
		{"unknown key", "nam: x\n", input.Options{}, `t.yaml:1:1: nam: unknown field, did you mean "name"? (want one of name, trials, rate, on, tags, weights, fields, any, sub)`},
		{"duplicate key", "name: a\nname: b\n", input.Options{}, "t.yaml:2:1: name: duplicate key (first at line 1)"},
		{"duplicate nested key", "sub: {level: a, level: b}\n", input.Options{}, "t.yaml:1:17: sub.level: duplicate key (first at line 1)"},
		{"wrong type", "trials: many\n", input.Options{}, `t.yaml:1:9: trials: want an integer, got string "many"`},
		{"not whole", "trials: 1.5\n", input.Options{}, "t.yaml:1:9: trials: want an integer, got number 1.5"},
		{"bool for a string", "name: true\n", input.Options{}, "t.yaml:1:7: name: want a string, got boolean true"},
		{"nan", "rate: .nan\n", input.Options{}, "t.yaml:1:7: rate: want a finite number, got .nan"},
		{"NaN", "rate: .NaN\n", input.Options{}, "t.yaml:1:7: rate: want a finite number, got .NaN"},
		{"inf", "rate: .inf\n", input.Options{}, "t.yaml:1:7: rate: want a finite number, got .inf"},
		{"-Inf", "rate: -.Inf\n", input.Options{}, "t.yaml:1:7: rate: want a finite number, got -.Inf"},
		{"inf in a map", "weights: {x: .inf}\n", input.Options{}, "t.yaml:1:14: weights.x: want a finite number, got .inf"},
		{"inf in any", "any: [1, -.inf]\n", input.Options{}, "t.yaml:1:10: any[1]: want a finite number, got -.inf"},
		{"inf in ordered", "fields: {a: .INF}\n", input.Options{}, "t.yaml:1:13: fields.a: want a finite number, got .INF"},
		{"null document", "~\n", input.Options{}, "t.yaml:1:1: (top level): want a mapping, got null"},
		{"null word document", "null\n", input.Options{}, "t.yaml:1:1: (top level): want a mapping, got null"},
		{"empty", "", input.Options{Kind: "protocol"}, "t.yaml:1: empty protocol"},
		{"list document", "- a\n", input.Options{}, "t.yaml:1:1: (top level): want a mapping, got a list"},
		{"two documents", "name: a\n---\nname: b\n", input.Options{}, "t.yaml:2: more than one YAML document (want one per file)"},
		{"binary", "name: \x00\x01", input.Options{}, "t.yaml:1:7: control character U+0000: not allowed in YAML (is it a text file?)"},
		{"invalid UTF-8", "name: \xff\n", input.Options{}, "t.yaml:1:7: invalid UTF-8 (byte 0xff): not a text file"},
		{"syntax", "name: [a\n", input.Options{}, "t.yaml:1: invalid YAML: did not find expected ',' or ']'"},
		{"too large", "name: " + strings.Repeat("x", 100) + "\n", input.Options{Kind: "protocol", Limits: input.Limits{Bytes: 64}}, "t.yaml: 107 bytes: larger than the 64 bytes a protocol may be"},
		{"long string", "name: " + strings.Repeat("x", 100) + "\n", input.Options{Limits: input.Limits{String: 10}}, "t.yaml:1:7: name: a string of 100 bytes: longer than the 10 bytes a value may be"},
		{"long value not echoed", "trials: " + strings.Repeat("9", 500) + "\n", input.Options{}, `t.yaml:1:9: trials: want an integer, got string "` + strings.Repeat("9", 64) + `"… (500 bytes)`},
		{"alias bomb", "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nany: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n", input.Options{Limits: input.Limits{Values: 500}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decode(t, tt.src, tt.opt)
			if err == nil {
				t.Fatal("want an error")
			}
			if strings.Contains(err.Error(), "\n") && tt.want != "" {
				t.Errorf("error has more than one line:\n%v", err)
			}
			var e *input.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *input.Error", err)
			}
			if tt.want == "" {
				if !strings.Contains(err.Error(), "more than 500 values (aliases expanded)") {
					t.Errorf("got %v, want the value budget spent", err)
				}
				return
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestErrorFlood checks that a file of many problems reports a few dozen
// and counts the rest, so stderr stays short.
func TestErrorFlood(t *testing.T) {
	var b strings.Builder
	for i := range 10000 {
		b.WriteString("k" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "_" + strconv.Itoa(i) + ": 1\n")
	}
	_, err := decode(t, b.String(), input.Options{Limits: input.Limits{Bytes: 1 << 22}})
	var l *input.List
	if !errors.As(err, &l) {
		t.Fatalf("got %T, want *input.List", err)
	}
	if len(l.Errs) != input.DefaultMaxErrors || l.More != 10000-input.DefaultMaxErrors {
		t.Errorf("kept %d, more %d; want %d and %d", len(l.Errs), l.More, input.DefaultMaxErrors, 10000-input.DefaultMaxErrors)
	}
	lines := strings.Split(err.Error(), "\n")
	if last := lines[len(lines)-1]; last != "… and 9975 more problems" {
		t.Errorf("last line %q", last)
	}
	if n := len(err.Error()); n > 20000 {
		t.Errorf("error is %d bytes, want a short one", n)
	}
}

func TestErrorfKeepsLocation(t *testing.T) {
	var doc testDoc
	d := input.NewDecoder("t.yaml", input.Options{})
	d.Decode([]byte("name: n\ntrials: 0\nsub:\n  level: strict\n"), &doc)
	d.Check(doc.Trials >= 1, "trials", "%d: want at least 1", doc.Trials)
	d.OneOf("sub.level", "level", doc.Sub.Level, []string{"loose", "strict2"})
	d.Errorf("weights.x", "missing (required)")
	want := "t.yaml:1:1: weights.x: missing (required)\n" +
		"t.yaml:2:9: trials: 0: want at least 1\n" +
		"t.yaml:4:10: sub.level: unknown level \"strict\", did you mean \"strict2\"? (want one of loose, strict2)"
	if diff := cmp.Diff(want, d.Err().Error()); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"abc", `"abc"`},
		{strings.Repeat("é", 100), `"` + strings.Repeat("é", 32) + `"… (200 bytes)`},
		{"a\nb", `"a\nb"`},
	}
	for _, tt := range tests {
		if got := input.Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{"name: n\ntrials: 3\n", "any: [1, {a: b}]\n", "a: &a [1]\nany: *a\n", "fields: {a: 1, a: 2}\n", "~", "rate: .nan"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var doc testDoc
		d := input.NewDecoder("f.yaml", input.Options{})
		d.Decode([]byte(src), &doc)
		err := d.Err()
		if err == nil {
			if doc.Rate != doc.Rate {
				t.Fatalf("NaN rate accepted from %q", src)
			}
			return
		}
		var e *input.Error
		if !errors.As(err, &e) || e.File != "f.yaml" {
			t.Fatalf("error %v (%T) is not an *input.Error naming the file", err, err)
		}
		if len(err.Error()) > 40000 {
			t.Fatalf("error of %d bytes", len(err.Error()))
		}
	})
}

// TestFloodSuggestsForKept: every problem kept still carries its
// suggestion, and a problem only counted is not kept.
func TestFloodSuggestsForKept(t *testing.T) {
	var b strings.Builder
	for i := range 20 {
		b.WriteString("trials" + string(rune('a'+i)) + ": 1\n") // one edit from trials
		b.WriteString("zzzzzzzz" + strconv.Itoa(i) + ": 1\n")   // near no field
	}
	_, err := decode(t, b.String(), input.Options{})
	var l *input.List
	if !errors.As(err, &l) || len(l.Errs) != input.DefaultMaxErrors {
		t.Fatalf("got %v, want a list of %d", err, input.DefaultMaxErrors)
	}
	for _, e := range l.Errs {
		if near := strings.HasPrefix(e.Field, "trials"); (e.Suggest == "trials") != near {
			t.Errorf("%s: suggest %q", e.Field, e.Suggest)
		}
	}

	var c input.Collector
	c.Max = 1
	e1, e2 := &input.Error{Problem: "one"}, &input.Error{Problem: "two"}
	c.Add(e1)
	if !c.Keeps(e1) {
		t.Error("the first problem is not kept")
	}
	c.Add(e2)
	if c.Keeps(e2) {
		t.Error("a problem past Max is kept")
	}
}

// BenchmarkErrorFlood decodes a file of 10,000 unknown keys: 25 problems
// kept with their suggestions, the rest counted.
func BenchmarkErrorFlood(b *testing.B) {
	var sb strings.Builder
	for i := range 10000 {
		sb.WriteString("k" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "_" + strconv.Itoa(i) + ": 1\n")
	}
	src := sb.String()
	for b.Loop() {
		if _, err := decode(b, src, input.Options{Limits: input.Limits{Bytes: 1 << 22}}); err == nil {
			b.Fatal("want problems")
		}
	}
}
