package mutants

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
)

// coreMisses runs every golden core run alone of every scenario of s
// clean, each its own run under a probe of builds (made with a fresh
// oracle by switchOn), and, for every build the probe says cannot act in
// that run, runs the build's core run on the same inputs: it returns the
// runs where such a build did act (its run differs from the clean one, or
// it reached its target). A sound probe misses none.
func coreMisses(tb testing.TB, s *suite, env mission.Env, names []string, switchOn func(i int, o *mission.Oracle) mission.Build) []string {
	tb.Helper()
	p := probeOf(len(names), switchOn)
	var misses []string
	for sc, scen := range s.scs {
		golden, err := s.m.RecordGolden(scen)
		if err != nil {
			tb.Fatal(err)
		}
		seed := uint64(sc + 1)
		p.Reset()
		for _, g := range golden {
			p.BeginRun()
			clean := coreOutcome(tb, s.m, p.Build(nil), g, scen, seed, env)
			covers := map[int]bool{}
			for _, i := range p.EndRun(nil) {
				covers[i] = true
			}
			if want := coreOutcome(tb, s.m, mission.Clean(), g, scen, seed, env); want != clean {
				tb.Fatalf("%s %s %s: the clean core run under the probe differs from the clean one", scen.ID, g.Agent, g.Item)
			}
			for i, name := range names {
				if covers[i] {
					continue
				}
				o := &mission.Oracle{}
				if got := coreOutcome(tb, s.m, switchOn(i, o), g, scen, seed, env); got != clean || o.Reached > 0 {
					misses = append(misses, fmt.Sprintf("%s on %s %s %s", name, scen.ID, g.Agent, g.Item))
				}
			}
		}
	}
	return misses
}

// probeOf returns a probe of n builds, each made with a fresh oracle by
// switchOn.
func probeOf(n int, switchOn func(i int, o *mission.Oracle) mission.Build) *mission.Probe {
	cands := make([]mission.Build, n)
	for i := range cands {
		cands[i] = switchOn(i, &mission.Oracle{})
	}
	return mission.NewProbe(cands)
}

// everyMutant returns every mutant of the default catalogue and of the
// generated space, and their ids.
func everyMutant(tb testing.TB) ([]*Mutant, []string) {
	tb.Helper()
	cat, err := Default(invoice.Spec())
	if err != nil {
		tb.Fatal(err)
	}
	space, _, err := Space(invoice.Spec())
	if err != nil {
		tb.Fatal(err)
	}
	all := append(append([]*Mutant(nil), cat.Mutants...), space.Mutants...)
	names := make([]string, len(all))
	for i, m := range all {
		names[i] = m.ID
	}
	return all, names
}

// coreOutcome is everything a core run gives a design, as text.
func coreOutcome(tb testing.TB, m mission.Mission, b mission.Build, g mission.Golden, sc *mission.Scenario, seed uint64, env mission.Env) string {
	tb.Helper()
	cr, err := m.RunCore(context.Background(), b, g.Agent, sc, g.Input, seed, env)
	if err != nil {
		return "error: " + err.Error()
	}
	tr, err := cr.Trace.MarshalJSONL()
	if err != nil {
		tb.Fatal(err)
	}
	rest, err := json.Marshal(struct {
		Agent   mission.Agent
		Item    string
		Calls   []mission.ToolCall
		Result  mission.Result
		Emitted map[string][]byte
		Cost    mission.Cost
	}{cr.Agent, cr.Item, cr.Calls, cr.Result, cr.Emitted, cr.Cost})
	if err != nil {
		tb.Fatal(err)
	}
	return string(rest) + "\n" + string(tr)
}

// TestPlacesCoverEveryActAlone checks the probe's coverage of each core
// run alone against every mutant of the default catalogue and of the
// generated space: where it says a mutant cannot act in a run, the
// mutant's run is the clean run and reaches nothing.
func TestPlacesCoverEveryActAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every mutant of the generated space on every golden core run")
	}
	all, names := everyMutant(t)
	if d := cmp.Diff([]string(nil), coreMisses(t, newSuite(t), noisy, names, func(i int, o *mission.Oracle) mission.Build {
		return all[i].Switch(o)
	})); d != "" {
		t.Errorf("the probe missed mutants that act in a core run (-want +got):\n%s", d)
	}
}

// TestProbeMissCaughtAlone checks that coreMisses catches a seam acting in
// a core run where the probe does not look (intake's decisions), and that
// a seam without places is asked in every run.
func TestProbeMissCaughtAlone(t *testing.T) {
	s := newSuite(t)
	s.scs = s.scs[:1]
	got := coreMisses(t, s, mission.Env{}, []string{"misplaced", "unplaced"}, func(i int, o *mission.Oracle) mission.Build {
		if i == 0 {
			return mission.NewBuild(&misplaced{oracle: o}, o)
		}
		return mission.NewBuild(&unplaced{misplaced{oracle: o}}, o)
	})
	if len(got) == 0 {
		t.Fatal("no miss caught")
	}
	for _, m := range got {
		if want := "misplaced on " + s.scs[0].ID + " " + string(invoice.Intake) + " "; len(m) < len(want) || m[:len(want)] != want {
			t.Errorf("miss %q, want only intake's runs of misplaced", m)
		}
	}
}
