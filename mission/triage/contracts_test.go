package triage

import (
	"context"
	"testing"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// TestCleanMissionKeepsDefaultContracts: the mission's contracts load, and
// at every level they flag neither a message the clean mission sends (nor
// its sequence per ticket) nor a parser's view of one, over every default
// scenario, without faults and with heavy faults.
func TestCleanMissionKeepsDefaultContracts(t *testing.T) {
	set, err := contracts.LoadFS(Spec().Contracts, "mission/triage/contracts")
	if err != nil {
		t.Fatal(err)
	}
	scs, _, err := DefaultScenarios()
	if err != nil {
		t.Fatal(err)
	}
	faults := sandbox.FaultRates{
		"*": {
			sandbox.TimeoutBeforeCommit: 0.05, sandbox.TimeoutAfterCommit: 0.05, sandbox.Refusal: 0.02,
			sandbox.Unavailable: 0.2, sandbox.RateLimit: 0.05, sandbox.Latency: 0.05,
		},
		"transport": {sandbox.Redelivery: 0.2},
	}
	m := New()
	sent := 0
	for _, env := range []mission.Env{{}, {Faults: faults}} {
		for seed := uint64(1); seed <= 3; seed++ {
			for _, sc := range scs {
				run, err := m.Run(context.Background(), mission.Clean(), sc, seed, env)
				if err != nil {
					t.Fatal(err)
				}
				var msgs []contracts.Message
				for _, e := range run.Trace.Of(mission.EventSent) {
					msgs = append(msgs, contracts.Message{Seq: e.Seq, Edge: e.Edge, Raw: []byte(e.Raw)})
				}
				sent += len(msgs)
				for _, v := range set.CheckMessages(msgs, contracts.LevelSemantic) {
					t.Errorf("%s seed %d faults %t: sent: %+v", sc.ID, seed, env.Faults != nil, v)
				}
				for _, e := range run.Trace.Of(mission.EventReceived) {
					for _, v := range set.Check(e.Edge, e.Parsed, contracts.LevelSemantic) {
						t.Errorf("%s seed %d faults %t: parsed: %+v", sc.ID, seed, env.Faults != nil, v)
					}
				}
			}
		}
	}
	if sent == 0 {
		t.Fatal("no messages sent: the test checks nothing")
	}
}
