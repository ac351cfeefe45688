package experiment

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mission/triage"
	"github.com/baton-lab/baton/sandbox"
)

// bothMissions is a registry of the invoice and the triage missions.
func bothMissions(tb testing.TB) *mission.Registry {
	tb.Helper()
	reg, err := mission.NewRegistry(invoice.New(), triage.New())
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}

// trialsPlan is the plan of a protocol over both missions, its goldens
// recorded.
func trialsPlan(tb testing.TB, protocol string) *plan {
	tb.Helper()
	reg := bothMissions(tb)
	p, err := ParseProtocol([]byte(protocol), "p.yaml", "", reg)
	if err != nil {
		tb.Fatal(err)
	}
	pl, err := resolve(p, NewStack(reg), p.Path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := pl.prepare(); err != nil {
		tb.Fatal(err)
	}
	return pl
}

// recorded is one run of a build, scenario and seed, with its oracle and
// the draws it consulted.
type recorded struct {
	run    *mission.Run     // an integrated run, or
	core   *mission.CoreRun // a core run alone
	oracle *mission.Oracle
	draws  *sandbox.Draws
}

// runOf executes run k of (bi, si) under seed, recording its draws: k < 0
// is the integrated run, else the core run of the k-th golden input.
func runOf(tb testing.TB, pl *plan, bi, si, k int, seed uint64) recorded {
	tb.Helper()
	out := recorded{oracle: &mission.Oracle{}, draws: &sandbox.Draws{}}
	env := pl.env
	env.Draws = out.draws
	b, sc := pl.builds[bi].Switch(out.oracle), pl.scenarios[si]
	var err error
	if k < 0 {
		out.run, err = pl.mission.Run(context.Background(), b, sc, seed, env)
	} else {
		g := pl.goldenOf(bi, si)[k]
		out.core, err = pl.mission.RunCore(context.Background(), b, g.Agent, sc, g.Input, seed, env)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// diffRuns compares two runs in full: traces event by event and as JSON
// Lines, end states, costs, core results, calls and emitted bytes, the
// oracles and the draws consulted. "" when they are the same.
func diffRuns(tb testing.TB, a, b recorded) string {
	tb.Helper()
	type view struct {
		Events   []mission.Event
		JSONL    string
		Records  string
		Log      []sandbox.LogEntry
		Cost     mission.Cost
		Agent    mission.Agent
		Item     string
		Calls    []mission.ToolCall
		Result   mission.Result
		Emitted  map[string][]byte
		Slips    []mission.SlipEvent
		Faults   []sandbox.Fired
		Redelivs []string
		Reached  int
		Draws    []sandbox.Draw
	}
	see := func(r recorded) view {
		var v view
		var tr *mission.Trace
		if r.run != nil {
			tr, v.Cost = r.run.Trace, r.run.Cost
			recs, err := r.run.End.Records.AppendJSON(nil)
			if err != nil {
				tb.Fatal(err)
			}
			v.Records, v.Log = string(recs), r.run.End.Log
		} else {
			tr, v.Cost = r.core.Trace, r.core.Cost
			v.Agent, v.Item, v.Calls, v.Result, v.Emitted = r.core.Agent, r.core.Item, r.core.Calls, r.core.Result, r.core.Emitted
		}
		v.Events = tr.Events
		jl, err := tr.MarshalJSONL()
		if err != nil {
			tb.Fatal(err)
		}
		v.JSONL = string(jl)
		v.Slips, v.Faults, v.Redelivs, v.Reached = r.oracle.Slips, r.oracle.Faults, r.oracle.Redeliveries, r.oracle.Reached
		v.Draws = r.draws.List()
		return v
	}
	return cmp.Diff(see(a), see(b))
}

// exactness counts what [checkTrialsExact] found.
type exactness struct {
	runs, opaque, served, differ int
	consulted                    int // draws recorded, over the runs
}

// checkTrialsExact runs, for every build index in builds, scenario index
// in scenarios and trial up to trials, the integrated run and the core
// runs alone on the golden inputs, recording their draws; for each, it
// looks through the next seeds for one under which the record holds and
// compares the run of that seed with the first in full. Where the record
// does not hold under the first seed looked at, nothing is asserted: the
// runs that differ then are counted.
func checkTrialsExact(t *testing.T, pl *plan, builds, scenarios []int, trials int) exactness {
	t.Helper()
	var n exactness
	for _, bi := range builds {
		for _, si := range scenarios {
			sc := pl.scenarios[si]
			for k := -1; k < len(pl.goldenOf(bi, si)); k++ {
				for tr := 1; tr <= trials; tr++ {
					s1 := TrialSeed(pl.seed, sc.ID, tr)
					first := runOf(t, pl, bi, si, k, s1)
					n.runs++
					n.consulted += len(first.draws.List())
					if first.draws.Opaque() {
						n.opaque++
						continue
					}
					for t2 := tr + 1; t2 <= tr+40; t2++ {
						s2 := TrialSeed(pl.seed, sc.ID, t2)
						if !first.draws.Holds(s2) {
							if t2 == tr+1 && diffRuns(t, first, runOf(t, pl, bi, si, k, s2)) != "" {
								n.differ++
							}
							continue
						}
						n.served++
						if d := diffRuns(t, first, runOf(t, pl, bi, si, k, s2)); d != "" {
							t.Fatalf("%s %s run %d: trial %d's record holds under trial %d's seed, but the runs differ (-%d +%d):\n%s",
								pl.builds[bi].Info.ID, sc.ID, k, tr, t2, tr, t2, d)
						}
						break
					}
				}
			}
		}
	}
	return n
}

// TestTrialsExact: a run whose recorded draws all come out the same under
// another trial's seed is that trial's run, in full, for mutants of the
// default catalogue and of the generated space, on both missions,
// integrated and alone.
func TestTrialsExact(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real missions")
	}
	for _, tc := range []struct {
		name, protocol string
		builds         int // builds looked at, spread over the plan's
		scenarios      int
		trials         int
	}{
		{"invoice default", "name: x\ntrials: 4\n", 12, 4, 2},
		{"invoice generated", "name: x\ntrials: 4\nmutants:\n  space: generated\n", 12, 3, 2},
		{"triage default", "name: x\ntrials: 4\nmission:\n  name: triage\n", 12, 4, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if raceEnabled { // a slice: the race detector makes each run some ten times slower
				tc.builds, tc.scenarios = tc.builds/3, 2
			}
			pl := trialsPlan(t, tc.protocol)
			n := checkTrialsExact(t, pl, spread(len(pl.builds), tc.builds), spread(len(pl.scenarios), tc.scenarios), tc.trials)
			t.Logf("%+v", n)
			// The check must have had something to check: runs served, and
			// runs whose records did not hold that differed.
			if n.served < n.runs/4 || n.differ == 0 || n.consulted == 0 {
				t.Errorf("%+v: want a quarter of the runs served from another seed, some runs differing where the record did not hold", n)
			}
		})
	}
}

// spread returns up to k indexes spread over [0, n), 0 first.
func spread(n, k int) []int {
	if k >= n {
		k = n
	}
	out := make([]int, 0, k)
	for i := range k {
		out = append(out, i*n/k)
	}
	return out
}

// TestTrialsOpaque: a run that draws a number from the dice (a misread
// digit, a refusal's code) is opaque, and one that draws nothing is
// served by every seed.
func TestTrialsOpaque(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real missions")
	}
	pl := trialsPlan(t, "name: x\ntrials: 2\n")
	opaque := 0
	for si := range pl.scenarios {
		for tr := 1; tr <= 2; tr++ {
			r := runOf(t, pl, 0, si, -1, TrialSeed(pl.seed, pl.scenarios[si].ID, tr))
			if !r.draws.Opaque() {
				continue
			}
			opaque++
			if r.draws.Holds(TrialSeed(pl.seed, pl.scenarios[si].ID, tr)) {
				t.Errorf("%s trial %d: an opaque record holds under its own seed", pl.scenarios[si].ID, tr)
			}
		}
	}
	if opaque == 0 {
		t.Error("no integrated run of the default protocol is opaque; want those whose slips draw numbers")
	}
	var none sandbox.Draws
	if none.Holds(1) || (*sandbox.Draws)(nil).Holds(1) {
		t.Error("a record no dice wrote holds")
	}
	sandbox.NewDice(1).Recording(&none)
	if !none.Holds(1) || !none.Holds(2) {
		t.Error("a record of no draws does not hold")
	}
}

// TestTrialMemo: results.json, every stored row and the kept traces are
// the same with runs served from other trials and without, at one and
// three workers, on the invoice mission's default protocol, the triage
// mission's and a sample of the generated space, and for a resumed run;
// the runs served from other trials are runs the sweep without them
// executed.
func TestTrialMemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three protocols four times")
	}
	st := NewStack(bothMissions(t))
	for _, tc := range []struct{ name, protocol string }{
		{"invoice default", "name: x\ntrials: 3\n"},
		{"triage default", "name: x\ntrials: 3\nmission:\n  name: triage\n"},
		{"invoice generated", "name: x\ntrials: 3\ndesigns: [A, B, C]\nmutants:\n  space: generated\n  per_class: 3\n" +
			"scenarios:\n  ids: [S01, S07, S14, S25, S33, S49]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if raceEnabled && tc.name == "invoice default" {
				t.Skip("the race detector makes the default protocol's four runs too slow: the other two run")
			}
			offSum, off, err := runProtocol(t, st, tc.protocol, Options{Workers: 3, noTrials: true})
			finished(t, err)
			want := readFile(t, filepath.Join(off, ResultsFile))
			rows, traces := storedRows(t, off), traceFiles(t, off)
			for _, workers := range []int{1, 3} {
				sum, on, err := runProtocol(t, st, tc.protocol, Options{Workers: workers})
				finished(t, err)
				if !bytes.Equal(want, readFile(t, filepath.Join(on, ResultsFile))) {
					t.Errorf("%d workers: results.json differs with runs served from other trials", workers)
				}
				if d := cmp.Diff(rows, storedRows(t, on)); d != "" {
					t.Errorf("%d workers: stored rows differ (-off +on):\n%s", workers, d)
				}
				if d := cmp.Diff(traces, traceFiles(t, on)); d != "" {
					t.Errorf("%d workers: kept traces differ (-off +on):\n%s", workers, d)
				}
				sel, selOff := sum.Manifest.Selection, offSum.Manifest.Selection
				if sel.RunsFromTrials == 0 || selOff.RunsFromTrials != 0 || sel.RunsServed != selOff.RunsServed ||
					sel.RunsExecuted+sel.RunsFromTrials != selOff.RunsExecuted {
					t.Errorf("%d workers: selection %+v, without the trial memo %+v: want runs served from trials, "+
						"adding up with those executed to the runs executed without", workers, sel, selOff)
				}
			}
		})
	}
	t.Run("resumed", func(t *testing.T) {
		if raceEnabled {
			t.Skip("the race detector makes the default protocol's runs too slow")
		}
		const protocol = "name: x\ntrials: 3\n"
		_, off, err := runProtocol(t, st, protocol, Options{Workers: 2, noTrials: true})
		finished(t, err)
		opt := interruptedRun(t, st, protocol, 2, 50, 9000)
		resumeMatches(t, opt, off)
	})
}
