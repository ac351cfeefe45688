package release

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// protocol writes a release protocol of the triage mission's five seed
// cases with the given versions' profiles (YAML flow mappings).
func protocol(trials int, base, cand string) []byte {
	return []byte(fmt.Sprintf(`name: test
mission: {name: triage, version: "1.0.0"}
scenarios: {ids: [S01, S02, S03, S04, S05]}
trials: %d
seed: 7
baseline: {name: v1, profile: %s}
candidate: {name: v2, profile: %s}
rule:
  - {metric: hard_violations, max: 0}
  - {metric: outcome_difference, min: 0}
  - {metric: model_calls_ratio, max: 1.10}
`, trials, base, cand))
}

// TestVerdicts: the rule's three verdicts, each from the runs' figures.
func TestVerdicts(t *testing.T) {
	tests := []struct {
		name       string
		base, cand string
		want       Verdict
		status     []Status
	}{
		{"better candidate ships", "{supervisor: {misroute: 0.10}, billing: {skip_lookup: 0.30}}", "{supervisor: {misroute: 0.03}}",
			Ship, []Status{Pass, Pass, Pass}},
		{"a candidate that refunds without looking up is held", "{supervisor: {misroute: 0.03}}", "{supervisor: {misroute: 0.03}, billing: {skip_lookup: 0.30}}",
			Hold, []Status{Fail, Fail, Pass}},
		{"the same model is inconclusive", "{supervisor: {misroute: 0.05}}", "{supervisor: {misroute: 0.05}}",
			Inconclusive, []Status{Pass, Undecided, Pass}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Decide(context.Background(), plan(t, "test.yaml", protocol(20, tt.base, tt.cand)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []Status
			for _, c := range r.Clauses {
				got = append(got, c.Status)
			}
			if r.Verdict != tt.want {
				t.Errorf("verdict %s, want %s (clauses %+v)", r.Verdict, tt.want, r.Clauses)
			}
			if diff := cmp.Diff(tt.status, got); diff != "" {
				t.Errorf("clause statuses (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStatus: a clause passes when its whole interval is within the
// bound, fails when the whole interval is outside, and is undecided when
// the interval straddles it.
func TestStatus(t *testing.T) {
	zero, one := 0.0, 1.0
	tests := []struct {
		c      Clause
		lo, hi float64
		want   Status
	}{
		{Clause{Min: &zero}, 0.01, 0.2, Pass},
		{Clause{Min: &zero}, 0, 0, Pass},
		{Clause{Min: &zero}, -0.1, 0.2, Undecided},
		{Clause{Min: &zero}, -0.3, -0.1, Fail},
		{Clause{Max: &one}, 2, 2, Fail},
		{Clause{Min: &zero, Max: &one}, 0.5, 1.5, Undecided},
	}
	for _, tt := range tests {
		if got := status(tt.c, tt.lo, tt.hi); got != tt.want {
			t.Errorf("status(%s, [%v, %v]) = %s, want %s", tt.c.Bound(), tt.lo, tt.hi, got, tt.want)
		}
	}
}

// TestSequential: a difference too small to decide on the protocol's 20
// trials is decided by adding rounds, which stop at the first decided
// look, before the cap; versions that do not differ stop at the cap,
// inconclusive.
func TestSequential(t *testing.T) {
	base, cand := "{supervisor: {misroute: 0.10}}", "{supervisor: {misroute: 0.04}}"
	pl := plan(t, "test.yaml", protocol(20, base, cand))
	once, err := Decide(context.Background(), pl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if once.Verdict != Inconclusive {
		t.Fatalf("one round: %s, want inconclusive (the test needs a difference one round cannot decide)", once.Verdict)
	}
	seq, err := Decide(context.Background(), pl, Options{UntilDecided: true, MaxTrials: 400})
	if err != nil {
		t.Fatal(err)
	}
	if seq.Verdict != Ship || seq.Rounds < 2 || seq.Trials >= 400 || seq.Trials != 20*seq.Rounds || seq.Looks != 20 {
		t.Errorf("sequential: %s after %d rounds, %d trials, %d looks; want ship in 2 or more rounds of 20, before the cap of 400, 20 looks planned",
			seq.Verdict, seq.Rounds, seq.Trials, seq.Looks)
	}
	if seq.Z <= once.Z {
		t.Errorf("z %v with 20 planned looks, %v with one: several looks need wider intervals", seq.Z, once.Z)
	}
	// Rounds stopped at the first decided look.
	for i, l := range seq.History {
		if want := i == len(seq.History)-1; (l.Verdict != Inconclusive) != want || l.Trials != 20*(i+1) {
			t.Errorf("look %d: %s at %d trials; want only the last decided, 20 trials a round", i+1, l.Verdict, l.Trials)
		}
	}
	same, err := Decide(context.Background(), plan(t, "test.yaml", protocol(20, base, base)), Options{UntilDecided: true, MaxTrials: 60})
	if err != nil {
		t.Fatal(err)
	}
	if same.Verdict != Inconclusive || same.Trials != 60 || same.Rounds != 3 {
		t.Errorf("same versions: %s after %d trials in %d rounds, want inconclusive at the cap of 60 in 3", same.Verdict, same.Trials, same.Rounds)
	}
}

// TestBadInput: every mistake is an error naming file, line and field,
// before any run.
func TestBadInput(t *testing.T) {
	ok := string(protocol(20, "{supervisor: {misroute: 0.1}}", "{supervisor: {misroute: 0.0}}"))
	tests := []struct {
		name, edit, with, want string
	}{
		{"unknown agent", "candidate: {name: v2, profile: {supervisor:", "candidate: {name: v2, profile: {intake:",
			`bad.yaml:7: candidate.profile.intake: unknown agent "intake"`},
		{"unknown slip", "baseline: {name: v1, profile: {supervisor: {misroute:", "baseline: {name: v1, profile: {supervisor: {skip_lookup:",
			`bad.yaml:6: baseline.profile.supervisor.skip_lookup: agent supervisor has no slip "skip_lookup"`},
		{"unknown metric", "metric: model_calls_ratio", "metric: tokens", `bad.yaml:11: rule.2.metric: unknown metric "tokens"`},
		{"other mission", "candidate: {name: v2,", "candidate: {name: v2, mission: {name: invoice, version: 1.0.0},",
			"bad.yaml:7: candidate.mission: invoice 1.0.0, but the protocol compares versions of triage 1.0.0"},
		{"other scenarios", "candidate: {name: v2,", "candidate: {name: v2, scenarios: {ids: [S01]},",
			"bad.yaml:7: candidate.scenarios: differs from the protocol's scenarios"},
		{"unknown mission", "mission: {name: triage", "mission: {name: helpdesk", `bad.yaml:2: mission.name: unknown mission "helpdesk"`},
		{"unknown key", "trials: 20", "trails: 20", "bad.yaml:4: field trails not found"},
		{"unknown tool", "seed: 7", "seed: 7\nfaults: {refund: {timeout_before_commit: 0.1}}", `bad.yaml:6: faults.refund: mission triage has no tool "refund"`},
		{"rate out of range", "misroute: 0.1}", "misroute: 1.5}", "bad.yaml:6: baseline.profile.supervisor.misroute: a rate in [0, 1], got 1.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := strings.Replace(ok, tt.edit, tt.with, 1)
			if data == ok {
				t.Fatalf("the edit %q does not apply", tt.edit)
			}
			p, err := Parse("bad.yaml", []byte(data))
			if err == nil {
				_, err = p.Resolve(registry(t))
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestInvoiceMission: the release decision runs on the invoice mission
// too: a version whose boundary skips look-ups breaks its hard rules and
// is held against one that does not.
func TestInvoiceMission(t *testing.T) {
	data := []byte(`name: invoice-test
mission: {name: invoice}
scenarios: {include_tags: [category:typical]}
trials: 3
seed: 7
baseline: {name: old, profile: {boundary: {skip_lookup: 0.0}}}
candidate: {name: new, profile: {boundary: {skip_lookup: 0.5}, intake: {misread: 0.05}}}
rule:
  - {metric: hard_violations, max: 0}
  - {metric: outcome_difference, min: 0}
`)
	r, err := Decide(context.Background(), plan(t, "invoice.yaml", data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mission != "invoice" || len(r.Scenarios) == 0 || r.Baseline.Violations != 0 || r.Candidate.Violations == 0 || r.Verdict != Hold {
		t.Errorf("invoice: %d scenarios, violations %d vs %d, verdict %s; want violations only in the candidate, hold",
			len(r.Scenarios), r.Baseline.Violations, r.Candidate.Violations, r.Verdict)
	}
}
