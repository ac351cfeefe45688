package invoice

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
)

// FuzzParseScenarios checks that no input makes the loader panic, that
// every error it returns names the file, and that what it accepts is a
// valid, deterministic scenario set.
func FuzzParseScenarios(f *testing.F) {
	f.Add([]byte(minimalScenarioYAML))
	f.Add([]byte(minimalFamilyYAML))
	f.Add([]byte("scenarios: []\n"))
	f.Add([]byte("defs: {a: &a {x: 1}}\nscenarios:\n  - <<: *a\n"))
	f.Add([]byte("scenarios:\n  - &s {<<: *s}\n"))
	f.Add([]byte("scenarios:\n  - family: {name: f, template: {id: '${id}'}, members: [{id: '${id}'}]}\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		scs, err := ParseScenarios("fuzz.yaml", data)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.yaml:") {
				t.Fatalf("error does not name the file: %v", err)
			}
			var se *mission.ScenarioError
			if !errors.As(err, &se) {
				t.Fatalf("error is not a *ScenarioError: %v", err)
			}
			return
		}
		if len(scs) == 0 {
			t.Fatal("no error and no scenarios")
		}
		for _, sc := range scs {
			if !validScenarioID(sc.ID) || !slices.Contains(mission.AllCategories, sc.Category) || len(sc.Inputs) == 0 {
				t.Fatalf("accepted an invalid scenario: id %q category %q, %d emails", sc.ID, sc.Category, len(sc.Inputs))
			}
			if !strings.HasPrefix(sc.Source, "fuzz.yaml:") {
				t.Fatalf("Source = %q", sc.Source)
			}
			if diff := cmp.Diff(sc, sc.Clone()); diff != "" {
				t.Fatalf("Clone differs (-orig +clone):\n%s", diff)
			}
		}
		again, err := ParseScenarios("fuzz.yaml", data)
		if err != nil {
			t.Fatalf("second parse failed: %v", err)
		}
		if diff := cmp.Diff(scs, again); diff != "" {
			t.Fatalf("two parses differ (-first +second):\n%s", diff)
		}
	})
}
