package invoice

import (
	"bytes"
	"testing"

	"github.com/baton-lab/baton/mission"
)

// TestTraceRecycle runs a day, keeps what it copied out of the trace,
// recycles the trace and runs other days over the recycled arrays: the
// copies and the later runs' traces are as if nothing had been recycled.
func TestTraceRecycle(t *testing.T) {
	sc := scenarioByID(t, "T2")
	m := New()
	env := mission.Env{Faults: protocolFaults}
	fresh := func(seed uint64) []byte {
		b, err := mustRun(New(), mission.Clean(), sc, seed, env).Trace.MarshalJSONL()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	run := mustRun(m, mission.Clean(), sc, 7, env)
	want := fresh(7)
	sent := run.Trace.Of(mission.EventSent)
	if len(sent) == 0 {
		t.Fatal("the day sent no hand-off")
	}
	raw, parsed := sent[0].Raw, string(sent[0].Parsed)
	run.Trace.Recycle()
	if len(run.Trace.Events) != 0 {
		t.Errorf("a recycled trace holds %d events", len(run.Trace.Events))
	}
	run.Trace.Recycle() // twice does nothing
	(*mission.Trace)(nil).Recycle()

	for seed := range uint64(20) {
		r := mustRun(m, mission.Clean(), sc, seed, env)
		got, err := r.Trace.MarshalJSONL()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, fresh(seed)) {
			t.Fatalf("seed %d: the trace of a run over a recycled array differs from a fresh run's", seed)
		}
		r.Trace.Recycle()
	}
	if sent[0].Raw != raw || string(sent[0].Parsed) != parsed {
		t.Error("an event copied out of a recycled trace changed")
	}
	if r := mustRun(m, mission.Clean(), sc, 7, env); !bytes.Equal(mustJSONL(t, r.Trace), want) {
		t.Error("seed 7 again: the trace differs from the first run's")
	}
}

func mustJSONL(t *testing.T, tr *mission.Trace) []byte {
	t.Helper()
	b, err := tr.MarshalJSONL()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
