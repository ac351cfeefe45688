package invoice

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/baton-lab/baton/mission"
)

// MarshalJSONL writes what encoding/json writes, for the traces of every
// default scenario under heavy faults and slips.
func TestMarshalJSONLMatchesStd(t *testing.T) {
	scs, _, err := DefaultScenarios()
	if err != nil {
		t.Fatal(err)
	}
	env := mission.Env{Faults: scaled(protocolFaults, 10), Profile: mission.Profile{
		Intake: {Misclassify: 0.2, Misread: 0.2, mission.Misroute: 0.2}, Action: {mission.Misroute: 0.2},
		Boundary: {SkipLookup: 0.2, mission.Misroute: 0.2},
	}}
	m := New()
	for _, sc := range scs {
		for seed := range uint64(3) {
			checkJSONL(t, sc.ID, mustRun(m, mission.Clean(), sc, seed, env).Trace)
		}
	}
}

// stdJSONL is the trace's JSON Lines through encoding/json, HTML escaping
// off.
func stdJSONL(tr *mission.Trace) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range tr.Events {
		if err := enc.Encode(&tr.Events[i]); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

func checkJSONL(tb testing.TB, name string, tr *mission.Trace) {
	tb.Helper()
	want, err := stdJSONL(tr)
	if err != nil {
		tb.Fatal(err)
	}
	got, err := tr.MarshalJSONL()
	if err != nil {
		tb.Fatal(err)
	}
	if !bytes.Equal(want, got) {
		w, g := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
		for i := range min(len(w), len(g)) {
			if !bytes.Equal(w[i], g[i]) {
				tb.Fatalf("%s: line %d differs:\nencoding/json %s\nMarshalJSONL  %s", name, i+1, w[i], g[i])
			}
		}
		tb.Fatalf("%s: %d lines, encoding/json %d", name, len(g), len(w))
	}
}

// AppendJSONL appends what MarshalJSONL returns and keeps what b held,
// also when it falls back to encoding/json or fails.
func TestAppendJSONL(t *testing.T) {
	run := mustRun(New(), mission.Clean(), scenarioByID(t, "T2"), 3, mission.Env{Faults: protocolFaults})
	odd := &mission.Trace{Events: []mission.Event{{Kind: mission.EventResult, Output: json.RawMessage("{ \"a\": 1 }")}}}
	bad := &mission.Trace{Events: []mission.Event{{Kind: mission.EventResult, Output: json.RawMessage(`{"a":`)}}}
	for _, tr := range []*mission.Trace{run.Trace, odd} {
		want, err := tr.MarshalJSONL()
		if err != nil {
			t.Fatal(err)
		}
		got, err := tr.AppendJSONL([]byte("head\n"))
		if err != nil || string(got) != "head\n"+string(want) {
			t.Errorf("AppendJSONL = %q, %v; want head and %q", got, err, want)
		}
	}
	if got, err := bad.AppendJSONL([]byte("head\n")); err == nil || string(got) != "head\n" {
		t.Errorf("AppendJSONL of invalid JSON = %q, %v; want the head back and an error", got, err)
	}
}
