package experiment

import (
	"context"
	"testing"

	"github.com/baton-lab/baton/mission"
)

// BenchmarkObserveCoordination derives and scores the coordination of the
// clean build's observation runs of every default scenario, twenty trials
// each, with the default protocol's slips and faults, as a sweep's
// observation items do: "derived" derives every run, "remembered" with
// the plan's verdict memo (a trial that ran as an earlier one is found).
// One op is every run.
func BenchmarkObserveCoordination(b *testing.B) {
	p, err := DefaultProtocol(testMissions())
	if err != nil {
		b.Fatal(err)
	}
	pl, err := resolve(p, realStack(b), p.Path)
	if err != nil {
		b.Fatal(err)
	}
	type obs struct {
		sc      *mission.Scenario
		run     *mission.Run
		success bool
		hash    string
	}
	var runs []obs
	for _, sc := range pl.scenarios { // in a sweep's order: a unit's trials in turn
		for trial := 1; trial <= 20; trial++ {
			run, err := pl.mission.Run(context.Background(), mission.Clean(), sc, TrialSeed(pl.seed, sc.ID, trial), pl.env)
			if err != nil {
				b.Fatal(err)
			}
			hash, _, err := runHashes(run.Trace, run.End, nil)
			if err != nil {
				b.Fatal(err)
			}
			runs = append(runs, obs{sc, run, len(pl.mission.Check(sc, run.End)) == 0, hash})
		}
	}
	for _, bm := range []struct {
		name string
		memo func() *verdictMemo
	}{{"derived", func() *verdictMemo { return nil }}, {"remembered", func() *verdictMemo { return &verdictMemo{} }}} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				pl.verdicts = bm.memo()
				for _, o := range runs {
					if _, err := pl.observeCoordination("item", "clean", o.sc, o.run, o.success, o.hash); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
