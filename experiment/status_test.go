package experiment

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/reports"
)

// statusCatalogue holds, for TestStatusesToldApart, a control that changes
// every payment, two mutants reached on every scenario that change nothing
// there (a payment currency set to the EUR it already is, an escalation
// flag rewritten only where it says "requested", which boundary never
// writes to monitor) and one whose target no chosen scenario reaches (the
// tool of an exception intake raises only when a tool fails for good, and
// the protocol fires no fault).
const statusCatalogue = `mutants:
  - id: ctl-bank-account
    class: control
    operator: wrong_tool_arg
    agent: boundary
    tool: schedule_payment
    arg: bank_account
    value: "DE00 0000 0000 0000 0000 00"
    description: a test bank account left in boundary's payment call
  - id: noop-currency-eur
    class: control
    operator: wrong_tool_arg
    agent: boundary
    tool: schedule_payment
    arg: currency
    value: EUR
    description: sets the payment currency to the EUR every chosen invoice is in
  - id: noop-monitor-escalated
    class: escalation_gap
    operator: assume_other_escalated
    edge: boundary->monitor
    description: boundary would write escalated where it meant requested, but never requests
  - id: unreached-exception-tool
    class: context_loss
    operator: drop_field
    edge: intake->monitor
    field: tool
    description: intake's exception report loses the failed tool's name
`

// statusProtocol runs three EUR-only scenarios, two trials, with no slips
// and no faults, so that a clean suite run is never flagged and a mutant
// that changes nothing cannot be flagged either, not even raw.
const statusProtocol = `name: status
designs: [A, B, C]
trials: 2
seed: 5
scenarios:
  ids: [S01, S14, S15]
mutants:
  catalogue: cat.yaml
  mode: replace
profile: {}
faults: {}
`

// TestStatusesToldApart runs the real stack and checks that the results
// tell the mutant statuses apart: the control that changes things is
// killed, the reached mutants that change nothing are equivalent with zero
// detection (new and raw) for every design, the unreached one is
// no_coverage with zero detection. The no-op control, which no design can
// catch, discards the run; every output is still written.
func TestStatusesToldApart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real stack")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "cat.yaml"), statusCatalogue)
	pf := filepath.Join(dir, "p.yaml")
	writeFile(t, pf, statusProtocol)
	runDir := filepath.Join(dir, "run")
	sum, err := Run(context.Background(), Options{ProtocolPath: pf, RunDir: runDir, Workers: 2, Stack: realStack(t), Logger: zerolog.Nop()})
	var de *reports.DiscardedError
	if !errors.As(err, &de) {
		t.Fatalf("Run = %v, want a *reports.DiscardedError for the no-op control", err)
	}
	if sum.Valid || !strings.Contains(sum.Reason, "noop-currency-eur") || strings.Contains(sum.Reason, "ctl-bank-account") {
		t.Errorf("validity %v, reason %q: want discarded for noop-currency-eur alone", sum.Valid, sum.Reason)
	}

	res, err := reports.LoadResults(filepath.Join(runDir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ctl-bank-account":         reports.StatusKilled,
		"noop-currency-eur":        reports.StatusEquivalent,
		"noop-monitor-escalated":   reports.StatusEquivalent,
		"unreached-exception-tool": reports.StatusNoCoverage,
	}
	got := map[string]string{}
	for _, m := range res.Mutants {
		got[m.ID] = m.Status
		switch want[m.ID] {
		case reports.StatusEquivalent:
			if m.Reached == 0 || m.TraceDiffs != 0 || len(m.DetectedBy) != 0 {
				t.Errorf("%s: reached %d, trace diffs %d, detected by %v; want reached, no diffs, no design", m.ID, m.Reached, m.TraceDiffs, m.DetectedBy)
			}
		case reports.StatusNoCoverage:
			if m.Reached != 0 || m.TraceDiffs != 0 || len(m.DetectedBy) != 0 {
				t.Errorf("%s: reached %d, trace diffs %d, detected by %v; want none of them", m.ID, m.Reached, m.TraceDiffs, m.DetectedBy)
			}
		case reports.StatusKilled:
			if m.Reached == 0 || m.TraceDiffs == 0 {
				t.Errorf("%s: reached %d, trace diffs %d; want both", m.ID, m.Reached, m.TraceDiffs)
			}
		}
		if m.Observations != 6 {
			t.Errorf("%s: %d observations, want 3 scenarios x 2 trials", m.ID, m.Observations)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}

	// Detection per design: none at all, new or raw, for the mutants that
	// change nothing; every suite run for the control.
	designs := map[string]int{}
	for _, d := range res.DetectionByMutant {
		designs[d.Design]++
		if d.N != 2 {
			t.Errorf("%s/%s: n = %d suite runs, want 2 trials", d.Design, d.Build, d.N)
		}
		switch want[d.Build] {
		case reports.StatusEquivalent, reports.StatusNoCoverage:
			if d.Detected != 0 || d.RawDetected != 0 {
				t.Errorf("%s/%s: detected %d, raw %d; want 0 and 0", d.Design, d.Build, d.Detected, d.RawDetected)
			}
		case reports.StatusKilled:
			if d.Detected != d.N {
				t.Errorf("%s/%s: detected in %d of %d suite runs; a control is caught in every one", d.Design, d.Build, d.Detected, d.N)
			}
		}
	}
	if diff := cmp.Diff(map[string]int{"A": 4, "B": 4, "C": 4}, designs); diff != "" {
		t.Errorf("detection rows per design (-want +got):\n%s", diff)
	}
	for _, fa := range res.FalseAlarms {
		if fa.Flagged != 0 {
			t.Errorf("design %s flags %d clean suite runs with no slip or fault", fa.Design, fa.Flagged)
		}
	}

	// The store records the same statuses.
	s, err := openStoreIn(runDir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.db.Close()
	rows, err := s.db.Query(`SELECT id, status FROM builds WHERE id != 'clean'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	stored := map[string]string{}
	for rows.Next() {
		var id, status string
		if err := rows.Scan(&id, &status); err != nil {
			t.Fatal(err)
		}
		stored[id] = status
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, stored); diff != "" {
		t.Errorf("runs.db builds.status (-want +got):\n%s", diff)
	}
}
