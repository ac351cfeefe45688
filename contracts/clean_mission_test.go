package contracts

import (
	"context"
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/sandbox"
)

// The reference mission's default contracts must not flag the clean mission: every
// message sent (and its sequence per item) and every parser's view of a
// received message, over every default scenario, without faults and with
// heavy faults (retries, exhausted calls, redeliveries).
func TestCleanMissionKeepsDefaultContracts(t *testing.T) {
	set, err := LoadFS(invoice.Spec().Contracts, "mission/invoice/contracts")
	if err != nil {
		t.Fatal(err)
	}
	scs, _, err := invoice.DefaultScenarios()
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
	m := invoice.New()
	sent := 0
	for _, env := range []mission.Env{{}, {Faults: faults}} {
		for seed := uint64(1); seed <= 3; seed++ {
			for _, sc := range scs {
				run, err := m.Run(context.Background(), mission.Clean(), sc, seed, env)
				if err != nil {
					t.Fatal(err)
				}
				var msgs []Message
				for _, e := range run.Trace.Of(mission.EventSent) {
					msgs = append(msgs, Message{Seq: e.Seq, Edge: e.Edge, Raw: []byte(e.Raw)})
				}
				sent += len(msgs)
				for _, v := range set.CheckMessages(msgs, LevelSemantic) {
					t.Errorf("%s seed %d faults %t: sent: %+v", sc.ID, seed, env.Faults != nil, v)
				}
				for _, e := range run.Trace.Of(mission.EventReceived) {
					for _, v := range set.Check(e.Edge, e.Parsed, LevelSemantic) {
						t.Errorf("%s seed %d faults %t: parsed: %+v", sc.ID, seed, env.Faults != nil, v)
					}
				}
			}
		}
	}
	if sent == 0 {
		t.Fatal("no messages sent: the test checks nothing")
	}
	t.Logf("%d scenarios, %d messages sent", len(scs), sent)
}
