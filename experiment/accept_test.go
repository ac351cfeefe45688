package experiment

import (
	"context"
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
)

// With the default protocol's own fault rates (read from the embedded
// protocol, so they cannot drift from it) and zero slips, the clean mission
// ends in an accepted state in at least 99% of 1,000 seeded trials across
// the suite.
func TestDefaultProtocolFaultsAccepted(t *testing.T) {
	p := mustDefaultProtocol(t)
	env := p.Env()
	env.Profile = nil // zero slips
	scs, _, err := invoice.DefaultScenarios()
	if err != nil {
		t.Fatal(err)
	}
	m := invoice.New()
	const trials = 1000
	accepted, faulted := 0, 0
	for i := 0; i < trials; i++ {
		sc := scs[i%len(scs)]
		var o mission.Oracle
		run, err := m.Run(context.Background(), mission.Clean().WithOracle(&o), sc, TrialSeed(p.Seed, sc.ID, i/len(scs)+1), env)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Check(sc, run.End)) == 0 {
			accepted++
		}
		if len(o.Faults) > 0 || len(o.Redeliveries) > 0 {
			faulted++
		}
	}
	t.Logf("default protocol faults, zero slips: %d/%d trials accepted (%.1f%%); faults or redeliveries fired in %d",
		accepted, trials, 100*float64(accepted)/trials, faulted)
	if accepted*100 < 99*trials {
		t.Errorf("%d/%d accepted, want at least 99%%", accepted, trials)
	}
	if faulted == 0 {
		t.Error("no fault fired in 1,000 trials: the default rates are not exercised")
	}
}
