package main

import (
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mutants"
)

// TestGeneratedSpaceEveryMission: every mission this baton runs gets a
// generated space of at least 150 mutants across the six classes, each
// one a valid catalogue entry that switches on in a build.
func TestGeneratedSpaceEveryMission(t *testing.T) {
	reg, err := missions()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range reg.All() {
		spec := m.Spec()
		t.Run(spec.Name, func(t *testing.T) {
			cat, _, err := mutants.Space(spec)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(cat.Mutants); n < 150 {
				t.Errorf("%d mutants, want at least 150", n)
			}
			for _, cl := range mutants.AllClasses {
				if len(cat.ByClass(cl)) == 0 {
					t.Errorf("no %s mutant", cl)
				}
			}
			for _, mu := range cat.Mutants {
				if _, err := mu.Seams(spec, &mission.Oracle{}); err != nil {
					t.Errorf("%s: %v", mu.ID, err)
				}
			}
		})
	}
}
