package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// jsonSchema checks a decoded JSON value against the draft-07 keywords the
// vendored mutation-testing-elements schema uses: type, required,
// properties, additionalProperties, items, uniqueItems, enum, pattern,
// minimum, maximum and local $ref. It returns every violation, each at its
// JSON path.
type jsonSchema struct{ root map[string]any }

func (s jsonSchema) check(path string, sch map[string]any, v any) []string {
	if ref, ok := sch["$ref"].(string); ok {
		def, ok := s.root["definitions"].(map[string]any)[strings.TrimPrefix(ref, "#/definitions/")].(map[string]any)
		if !ok {
			return []string{path + ": unknown $ref " + ref}
		}
		return s.check(path, def, v)
	}
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, args...)) }
	if t, ok := sch["type"].(string); ok && !jsonType(t, v) {
		fail("want %s, got %T", t, v)
		return errs
	}
	if e, ok := sch["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return reflect.DeepEqual(x, v) }) {
		fail("%v not in %v", v, e)
	}
	if p, ok := sch["pattern"].(string); ok {
		if str, _ := v.(string); !regexp.MustCompile(p).MatchString(str) {
			fail("%q does not match %s", str, p)
		}
	}
	if n, ok := v.(float64); ok {
		if lo, ok := sch["minimum"].(float64); ok && n < lo {
			fail("%v below %v", n, lo)
		}
		if hi, ok := sch["maximum"].(float64); ok && n > hi {
			fail("%v above %v", n, hi)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for _, r := range asList(sch["required"]) {
			if _, ok := x[r.(string)]; !ok {
				fail("missing %s", r)
			}
		}
		props, _ := sch["properties"].(map[string]any)
		for k, kv := range x {
			if ps, ok := props[k].(map[string]any); ok {
				errs = append(errs, s.check(path+"."+k, ps, kv)...)
			} else if as, ok := sch["additionalProperties"].(map[string]any); ok {
				errs = append(errs, s.check(path+"."+k, as, kv)...)
			}
		}
	case []any:
		if it, ok := sch["items"].(map[string]any); ok {
			for i, e := range x {
				errs = append(errs, s.check(fmt.Sprintf("%s[%d]", path, i), it, e)...)
			}
		}
		if u, _ := sch["uniqueItems"].(bool); u {
			for i := range x {
				for j := i + 1; j < len(x); j++ {
					if reflect.DeepEqual(x[i], x[j]) {
						fail("items %d and %d are equal", i, j)
					}
				}
			}
		}
	}
	return errs
}

func asList(v any) []any { l, _ := v.([]any); return l }

func jsonType(t string, v any) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		n, ok := v.(float64)
		return ok && n == math.Trunc(n)
	}
	return false
}

func loadMutationSchema(tb testing.TB) jsonSchema {
	tb.Helper()
	b, err := os.ReadFile("testdata/mutation-testing-report-schema.json")
	if err != nil {
		tb.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(b, &root); err != nil {
		tb.Fatal(err)
	}
	return jsonSchema{root}
}

func decode(tb testing.TB, b []byte) any {
	tb.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		tb.Fatal(err)
	}
	return v
}

// synthSources places the synthetic mutants in a catalogue file.
func synthSources(r *Results) *MutationSources {
	var b strings.Builder
	b.WriteString("mutants:\n")
	for i := range r.Mutants {
		r.Mutants[i].Source = fmt.Sprintf("catalogue.yaml:%d", 2+3*i)
		fmt.Fprintf(&b, "  - id: %s\n    class: %s\n    operator: %s\n", r.Mutants[i].ID, r.Mutants[i].Class, r.Mutants[i].Operator)
	}
	src := &MutationSources{Files: map[string][]byte{"catalogue.yaml": []byte(b.String())}, TestFile: "scenarios"}
	for _, sc := range []string{"S01", "S02", "S03"} {
		src.Tests = append(src.Tests, MutationTest{ID: sc, Name: sc})
	}
	return src
}

func TestMutationReportValidates(t *testing.T) {
	schema := loadMutationSchema(t)
	r := synthResults()
	src := synthSources(r)
	r.SetMutationSources(src)
	files := renderAll(t, r)
	for _, d := range []string{"A", "B", "C"} {
		b, ok := files[MutationReportFile(d)]
		if !ok {
			t.Fatalf("no %s among the rendered files", MutationReportFile(d))
		}
		if errs := schema.check("$", schema.root, decode(t, b)); len(errs) > 0 {
			t.Errorf("%s does not validate:\n%s", MutationReportFile(d), strings.Join(errs, "\n"))
		}
	}
	t.Run("the validator rejects a broken report", func(t *testing.T) {
		b, err := MutationReport(r, "B", src)
		if err != nil {
			t.Fatal(err)
		}
		broken := strings.Replace(string(b), `"status": "Killed"`, `"status": "Dead"`, 1)
		broken = strings.Replace(broken, `"line": 2`, `"line": 0`, 1)
		if errs := schema.check("$", schema.root, decode(t, []byte(broken))); len(errs) != 2 {
			t.Errorf("violations = %q, want the status and the line", errs)
		}
	})
}

// TestMutationReportStatuses pins the status mapping: a benign or
// flagged_benign mutant is Ignored, so the viewer's score counts harmful
// mutants only; killedBy names the scenarios the design detected it in.
func TestMutationReportStatuses(t *testing.T) {
	r := synthResults()
	b, err := MutationReport(r, "B", synthSources(r))
	if err != nil {
		t.Fatal(err)
	}
	var rep strykerReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range rep.Files {
		for _, m := range f.Mutants {
			got[m.ID] = m.Status
			if m.Status == strykerKilled && len(m.KilledBy) == 0 {
				t.Errorf("%s killed by no scenario", m.ID)
			}
		}
	}
	want := map[string]string{
		"ctx-1": strykerKilled, "ctx-2": strykerKilled, "esc-1": strykerIgnored, "ctl-1": strykerKilled,
		"drift-1": strykerIgnored, "esc-2": strykerIgnored, "dup-1": strykerNoCoverage,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses in B's report (-want +got):\n%s", diff)
	}
}
