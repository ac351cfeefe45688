package mission

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A Parse seam that changes the message in place, nested values included,
// must not reach the memo: every parse and run through one mission gives
// what a fresh mission gives.
func TestDecodeMemoIsolation(t *testing.T) {
	scribbler := NewBuild(hook{parse: func(_ Edge, msg map[string]any) {
		scribble(msg["payload"])
		msg["escalation"] = EscalationRequested
	}}, nil)
	sc := scenarioByID(t, "T2")
	goldens, err := RecordGolden(Reference(), sc)
	if err != nil {
		t.Fatal(err)
	}
	shared := Reference()
	for _, b := range []Build{Clean(), scribbler, Clean()} {
		for _, g := range goldens {
			for _, raw := range g.Input.Messages {
				e := inbound(g.Agent, raw, nil, nil)
				if edge, ok := envelopeEdge(raw); ok {
					e = edge
				}
				want, wantErr := Reference().Parse(b, e, raw)
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
			want := Reference().Run(b, sc, seed, Env{Faults: protocolFaults})
			got := shared.Run(b, sc, seed, Env{Faults: protocolFaults})
			if diff := cmp.Diff(jsonl(t, want.Trace), jsonl(t, got.Trace)); diff != "" {
				t.Fatalf("run seed %d (-fresh +memo):\n%s", seed, diff)
			}
		}
	}
}
