package coordination_test

import (
	"context"
	"testing"

	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mission/triage"
)

// benchTrials is how many trials of each scenario a benchmark derives:
// as in a sweep, the same hand-offs recur from trial to trial.
const benchTrials = 4

// cleanSources returns the sources of the clean runs of every default
// scenario of m, trials trials each, as a sweep's observation runs hand
// them to the derivation.
func cleanSources(tb testing.TB, m mission.Mission, trials uint64) []coordination.Source {
	tb.Helper()
	scs, _, err := m.Scenarios()
	if err != nil {
		tb.Fatal(err)
	}
	var out []coordination.Source
	success := true
	for t := uint64(1); t <= trials; t++ {
		for _, sc := range scs {
			run, err := m.Run(context.Background(), mission.Clean(), sc, 7919*t, mission.Env{})
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, coordination.Source{Trial: sc.ID, System: "clean", Mission: m, Scenario: sc,
				Trace: run.Trace, Cost: run.Cost, Success: &success})
		}
	}
	return out
}

var benchMissions = []struct {
	name string
	new  func() mission.Mission
}{{"invoice", invoice.New}, {"triage", triage.New}}

// BenchmarkDerive derives the records of the clean runs of every default
// scenario of each mission (benchTrials trials), as a sweep's observation
// runs do with the sweep's one [coordination.Deriver]; one op derives
// them all.
func BenchmarkDerive(b *testing.B) {
	for _, bm := range benchMissions {
		b.Run(bm.name, func(b *testing.B) {
			srcs := cleanSources(b, bm.new(), benchTrials)
			dv := coordination.NewDeriver()
			b.ReportAllocs()
			for b.Loop() {
				for _, src := range srcs {
					if _, err := dv.Derive(src); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkScoreRecord scores the records BenchmarkDerive derives; one op
// scores them all.
func BenchmarkScoreRecord(b *testing.B) {
	for _, bm := range benchMissions {
		b.Run(bm.name, func(b *testing.B) {
			var recs []*coordination.Record
			for _, src := range cleanSources(b, bm.new(), benchTrials) {
				rec, err := coordination.Derive(src)
				if err != nil {
					b.Fatal(err)
				}
				recs = append(recs, rec)
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, r := range recs {
					coordination.ScoreRecord(r)
				}
			}
		})
	}
}
