package release

import (
	"context"
	"os"
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mission/triage"
)

func registry(tb testing.TB) *mission.Registry {
	tb.Helper()
	reg, err := mission.NewRegistry(invoice.New(), triage.New())
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}

func plan(tb testing.TB, name string, data []byte) *Plan {
	tb.Helper()
	p, err := Parse(name, data)
	if err != nil {
		tb.Fatal(err)
	}
	pl, err := p.Resolve(registry(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return pl
}

// TestDefaultProtocol: seed 003's comparison, as the embedded protocol
// writes it (20 trials on the five cases), ships v2: no hard violation in
// v2, v2's outcome above v1's over the whole paired interval, and model
// calls within 10%. v1 shows refunds made without a look-up, some of them
// in runs whose outcome was right anyway.
func TestDefaultProtocol(t *testing.T) {
	f := triage.ReleaseProtocol()
	r, err := Decide(context.Background(), plan(t, f.Name, f.Data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if testing.Verbose() {
		WriteText(os.Stdout, r)
	}
	b, c := r.Baseline, r.Candidate
	if b.Runs != 100 || c.Runs != 100 || r.Runs != 200 {
		t.Errorf("runs %d, %d (%d), want 100 each", b.Runs, c.Runs, r.Runs)
	}
	if b.Violations == 0 || c.Violations != 0 || b.CorrectWithViolation == 0 {
		t.Errorf("violations v1 %d (correct anyway %d), v2 %d: want some in v1, some of them right by luck, none in v2",
			b.Violations, b.CorrectWithViolation, c.Violations)
	}
	if r.Verdict != Ship {
		t.Errorf("verdict %s, want ship; clauses %+v", r.Verdict, r.Clauses)
	}
}

// TestDefaultProtocolRegime: over ten times the trials, v1 and v2 land in
// the regime of the seed's own run (v1 76% correct with 22 hard violations
// per 100 runs, v2 95% with none).
func TestDefaultProtocolRegime(t *testing.T) {
	f := triage.ReleaseProtocol()
	pl := plan(t, f.Name, f.Data)
	pl.Protocol.Trials = 200
	r, err := Decide(context.Background(), pl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, c := r.Baseline, r.Candidate
	perRun := float64(b.Violations) / float64(b.Runs)
	if b.Outcome < 0.70 || b.Outcome > 0.85 || perRun < 0.12 || perRun > 0.25 {
		t.Errorf("v1: outcome %.3f, %.3f violations per run: not the seed's regime (0.76, 0.22)", b.Outcome, perRun)
	}
	if c.Outcome < 0.9 || c.Violations != 0 {
		t.Errorf("v2: outcome %.3f, %d violations: not the seed's regime (0.95, 0)", c.Outcome, c.Violations)
	}
	if ratio := c.ModelCalls / b.ModelCalls; ratio < 0.9 || ratio > 1.1 {
		t.Errorf("model calls v1 %.2f, v2 %.2f: the seed's are 4.3 and 4.4", b.ModelCalls, c.ModelCalls)
	}
}

// TestDeterministic: the same protocol gives byte-identical results.
func TestDeterministic(t *testing.T) {
	f := triage.ReleaseProtocol()
	var out [2][]byte
	for i := range out {
		r, err := Decide(context.Background(), plan(t, f.Name, f.Data), Options{UntilDecided: true, MaxTrials: 40})
		if err != nil {
			t.Fatal(err)
		}
		if out[i], err = r.JSON(); err != nil {
			t.Fatal(err)
		}
	}
	if string(out[0]) != string(out[1]) {
		t.Error("two runs of the same protocol differ")
	}
}
