package mission_test

import (
	"context"
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mission/triage"
	"github.com/baton-lab/baton/mutants"
	"github.com/baton-lab/baton/sandbox"
)

// TestCoresLeaveReadingsAsRead: the missions' own cores read the clean
// parser's shared readings and never change them. Every default
// scenario runs whole and core by core under the clean build and every
// default mutant, with faults, slips and redeliveries; afterwards every
// reading the memo holds still encodes as it did when it was read.
func TestCoresLeaveReadingsAsRead(t *testing.T) {
	env := mission.Env{Faults: sandbox.FaultRates{
		"*": {sandbox.TimeoutBeforeCommit: 0.05, sandbox.TimeoutAfterCommit: 0.05, sandbox.Refusal: 0.05,
			sandbox.Unavailable: 0.05, sandbox.RateLimit: 0.05, sandbox.Latency: 0.05},
		"transport": {sandbox.Redelivery: 0.2},
	}}
	for _, tc := range []struct {
		name      string
		m         mission.Mission
		scenarios func() ([]*mission.Scenario, string, error)
	}{
		{"invoice", invoice.New(), invoice.DefaultScenarios},
		{"triage", triage.New(), triage.DefaultScenarios},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			scs, _, err := tc.scenarios()
			if err != nil {
				t.Fatal(err)
			}
			cat, err := mutants.Default(tc.m.Spec())
			if err != nil {
				t.Fatal(err)
			}
			builds := []mission.Build{mission.Clean()}
			for _, mu := range cat.Mutants {
				builds = append(builds, mu.Switch(&mission.Oracle{}))
			}
			for i, sc := range scs {
				goldens, err := tc.m.RecordGolden(sc)
				if err != nil {
					t.Fatal(err)
				}
				for j, b := range builds {
					seed := uint64(i*len(builds) + j)
					if _, err := tc.m.Run(ctx, b, sc, seed, env); err != nil {
						t.Fatal(err)
					}
					for _, g := range goldens {
						if _, err := tc.m.RunCore(ctx, b, g.Agent, sc, g.Input, seed, env); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			n, changed := mission.Readings(tc.m)
			if n == 0 {
				t.Fatal("the memo holds no reading: the test shows nothing")
			}
			for _, raw := range changed {
				t.Errorf("a core changed the shared reading of %s", raw)
			}
		})
	}
}
