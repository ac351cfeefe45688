package invoice

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
)

// A Parse seam that changes the message in place, nested values included,
// must not reach the memo: every parse and run through one mission gives
// what a fresh mission gives.
func TestDecodeMemoIsolation(t *testing.T) {
	scribbler := mission.NewBuild(hook{parse: func(_ mission.Edge, msg *mission.Message) {
		scribbleMessage(msg)
		msg.Set("escalation", mission.EscalationRequested)
	}}, nil)
	sc := scenarioByID(t, "T2")
	goldens, err := recordGolden(New(), sc)
	if err != nil {
		t.Fatal(err)
	}
	shared := New()
	for _, b := range []mission.Build{mission.Clean(), scribbler, mission.Clean()} {
		for _, g := range goldens {
			for _, raw := range g.Input.Messages {
				e := spec().In(g.Agent)[0]
				if edge, ok := mission.EnvelopeEdge(raw); ok {
					e = edge
				}
				want, wantErr := New().Parse(b, e, raw)
				for i := range 2 {
					got, err := shared.Parse(b, e, raw)
					if (err == nil) != (wantErr == nil) {
						t.Fatalf("parse %d of %s: err %v, fresh mission %v", i+1, e, err, wantErr)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Fatalf("parse %d of %s (-fresh +memo):\n%s", i+1, e, diff)
					}
				}
			}
		}
		for seed := range uint64(3) {
			want := mustRun(New(), b, sc, seed, mission.Env{Faults: protocolFaults})
			got := mustRun(shared, b, sc, seed, mission.Env{Faults: protocolFaults})
			if diff := cmp.Diff(jsonl(t, want.Trace), jsonl(t, got.Trace)); diff != "" {
				t.Fatalf("run seed %d (-fresh +memo):\n%s", seed, diff)
			}
		}
	}
}
