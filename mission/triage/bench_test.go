package triage

import (
	"context"
	"testing"

	"github.com/baton-lab/baton/mission"
)

// benchEnv is the default protocol's slip rates.
var benchEnv = mission.Env{Profile: mission.Profile{Supervisor: {mission.Misroute: 0.01}, Billing: {SkipLookup: 0.01}}}

// BenchmarkRunSuite runs the clean build over every default scenario once
// per iteration, with the default protocol's slip rates.
func BenchmarkRunSuite(b *testing.B) {
	scs, _, err := DefaultScenarios()
	if err != nil {
		b.Fatal(err)
	}
	m := New()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for _, sc := range scs {
			r, err := m.Run(context.Background(), mission.Clean(), sc, uint64(i), benchEnv)
			if err != nil {
				b.Fatal(err)
			}
			r.Trace.Recycle()
		}
	}
}

// BenchmarkIntegratedRun is one whole mission run on one default scenario:
// the first, and the one with the most tickets.
func BenchmarkIntegratedRun(b *testing.B) {
	for _, sc := range benchScenarios(b) {
		b.Run(sc.ID, func(b *testing.B) {
			m := New()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				r := mustRun(b, m, mission.Clean(), sc, uint64(i), benchEnv)
				r.Trace.Recycle()
			}
		})
	}
}

// BenchmarkRunCore runs each agent's core alone on its last golden input
// of the default scenario with the most tickets.
func BenchmarkRunCore(b *testing.B) {
	scs := benchScenarios(b)
	sc := scs[len(scs)-1]
	goldens, err := New().RecordGolden(sc)
	if err != nil {
		b.Fatal(err)
	}
	for _, agent := range spec().AgentNames() {
		var g *mission.Golden
		for i := range goldens {
			if goldens[i].Agent == agent {
				g = &goldens[i]
			}
		}
		if g == nil {
			continue
		}
		b.Run(string(agent), func(b *testing.B) {
			m := New()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				cr, err := m.RunCore(context.Background(), mission.Clean(), agent, sc, g.Input, uint64(i), benchEnv)
				if err != nil {
					b.Fatal(err)
				}
				cr.Trace.Recycle()
			}
		})
	}
}

// benchScenarios returns the first default scenario and the one with the
// most tickets.
func benchScenarios(tb testing.TB) []*mission.Scenario {
	tb.Helper()
	scs, _, err := DefaultScenarios()
	if err != nil {
		tb.Fatal(err)
	}
	most := scs[0]
	for _, sc := range scs {
		if len(sc.Inputs) > len(most.Inputs) {
			most = sc
		}
	}
	if most == scs[0] {
		return scs[:1]
	}
	return []*mission.Scenario{scs[0], most}
}
