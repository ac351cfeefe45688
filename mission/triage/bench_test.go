package triage

import (
	"context"
	"testing"

	"github.com/baton-lab/baton/mission"
)

// BenchmarkRunSuite runs the clean build over every default scenario once
// per iteration, with the default protocol's slip rates.
func BenchmarkRunSuite(b *testing.B) {
	scs, _, err := DefaultScenarios()
	if err != nil {
		b.Fatal(err)
	}
	m := New()
	env := mission.Env{Profile: mission.Profile{Supervisor: {mission.Misroute: 0.01}, Billing: {SkipLookup: 0.01}}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for _, sc := range scs {
			r, err := m.Run(context.Background(), mission.Clean(), sc, uint64(i), env)
			if err != nil {
				b.Fatal(err)
			}
			r.Trace.Recycle()
		}
	}
}
