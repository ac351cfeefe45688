package mutants

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
)

// probeMisses runs every scenario of s clean under a probe of builds (each
// made with a fresh oracle by switch) and, for every build the probe says
// cannot act in a run, runs the build: it returns the runs where such a
// build did act (its run differs from the clean one, or it reached its
// target). A sound probe misses none.
func probeMisses(tb testing.TB, s *suite, env mission.Env, names []string, switchOn func(i int, o *mission.Oracle) mission.Build) []string {
	tb.Helper()
	p := probeOf(len(names), switchOn)
	var misses []string
	for sc := range s.scs {
		seed := uint64(sc + 1)
		p.Reset()
		clean := s.run(tb, p.Build(nil), sc, seed, env)
		if want := s.cleanRun(tb, "probe", env, sc, seed); !clean.equal(want) {
			tb.Fatalf("%s: the clean run under the probe differs from the clean run", s.scs[sc].ID)
		}
		for i, name := range names {
			if p.Covers(i) {
				continue
			}
			o := &mission.Oracle{}
			got := s.run(tb, switchOn(i, o), sc, seed, env)
			if !got.equal(clean) || o.Reached > 0 {
				misses = append(misses, fmt.Sprintf("%s on %s", name, s.scs[sc].ID))
			}
		}
	}
	return misses
}

// TestPlacesCoverEveryAct checks the probe against every mutant of the
// default catalogue and of the generated space: where it says a mutant
// cannot act, the mutant's run is the clean run and reaches nothing.
func TestPlacesCoverEveryAct(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every mutant of the generated space on every scenario")
	}
	all, names := everyMutant(t)
	s := newSuite(t)
	if d := cmp.Diff([]string(nil), probeMisses(t, s, noisy, names, func(i int, o *mission.Oracle) mission.Build {
		return all[i].Switch(o)
	})); d != "" {
		t.Errorf("the probe missed mutants that act (-want +got):\n%s", d)
	}
}

// misplaced acts on every decision of the intake agent but says it acts
// on an edge's emitter only: a probe trusting it misses its acts.
type misplaced struct {
	mission.NoSeams
	oracle *mission.Oracle
}

func (s *misplaced) Places() []mission.Place {
	return []mission.Place{{Hook: mission.HookEmit, Edge: mission.Edge{From: invoice.Action, To: invoice.Boundary}}}
}

func (s *misplaced) Decide(agent mission.Agent, kind, _, choice string) string {
	if agent != invoice.Intake {
		return choice
	}
	s.oracle.Reach()
	return choice + "?"
}

// unplaced is misplaced without its Places: the probe asks it at every
// call and sees it act.
type unplaced struct{ misplaced }

func (unplaced) Places() {}

// TestProbeMissCaught checks that probeMisses catches a seam acting where
// the probe does not look, and that a seam without places is asked
// everywhere.
func TestProbeMissCaught(t *testing.T) {
	s := newSuite(t)
	s.scs = s.scs[:2]
	got := probeMisses(t, s, mission.Env{}, []string{"misplaced", "unplaced"}, func(i int, o *mission.Oracle) mission.Build {
		if i == 0 {
			return mission.NewBuild(&misplaced{oracle: o}, o)
		}
		return mission.NewBuild(&unplaced{misplaced{oracle: o}}, o)
	})
	want := []string{"misplaced on " + s.scs[0].ID, "misplaced on " + s.scs[1].ID}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("misses (-want +got):\n%s", d)
	}
}

// BenchmarkProbe is a clean run of every scenario, plain and under a
// probe of the default catalogue or of it and the whole generated space:
// the probe's cost per clean unit's integrated run.
func BenchmarkProbe(b *testing.B) {
	cat, err := Default(invoice.Spec())
	if err != nil {
		b.Fatal(err)
	}
	space, _, err := Space(invoice.Spec())
	if err != nil {
		b.Fatal(err)
	}
	s := newSuite(b)
	for _, bc := range []struct {
		name string
		muts []*Mutant
	}{{"plain", nil}, {"catalogue", cat.Mutants}, {"catalogue+space", append(append([]*Mutant(nil), cat.Mutants...), space.Mutants...)}} {
		b.Run(fmt.Sprintf("%s/%d", bc.name, len(bc.muts)), func(b *testing.B) {
			cands := make([]mission.Build, len(bc.muts))
			for i, m := range bc.muts {
				cands[i] = m.Switch(&mission.Oracle{})
			}
			p := mission.NewProbe(cands)
			build := mission.Clean()
			if bc.muts != nil {
				build = p.Build(nil)
			}
			b.ReportAllocs()
			for b.Loop() {
				for sc := range s.scs {
					p.Reset()
					if _, err := s.m.Run(context.Background(), build, s.scs[sc], uint64(sc+1), noisy); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
