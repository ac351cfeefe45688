package mutants

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/sandbox"
)

// These tests switch mutants on in the reference mission and compare each
// run with the clean build's under the same seed.

// exposing fires the faults duplicate-action defects live on often enough to
// see them within a few seeds.
var exposing = mission.Env{Faults: sandbox.FaultRates{
	"*":         {sandbox.TimeoutAfterCommit: 0.2},
	"transport": {sandbox.Redelivery: 0.2},
}}

// noisy is a protocol-like environment with more of everything except
// refusals, which end a call for good.
var noisy = mission.Env{
	Faults: sandbox.FaultRates{
		"*":         {sandbox.TimeoutBeforeCommit: 0.03, sandbox.TimeoutAfterCommit: 0.03, sandbox.Unavailable: 0.05, sandbox.RateLimit: 0.02, sandbox.Latency: 0.05},
		"transport": {sandbox.Redelivery: 0.05},
	},
	Profile: mission.Profile{
		invoice.Intake:   {invoice.Misclassify: 0.01, invoice.Misread: 0.01, mission.Misroute: 0.01},
		invoice.Action:   {mission.Misroute: 0.01},
		invoice.Boundary: {invoice.SkipLookup: 0.01, mission.Misroute: 0.01},
	},
}

// outcome is what an evaluator of one run could compare.
type outcome struct {
	trace []byte // Trace.MarshalJSONL
	end   []byte // the end state's records as JSON, without the call log
	check []byte // the differences from the expected end state, as JSON
}

func (o outcome) equal(p outcome) bool {
	return bytes.Equal(o.trace, p.trace) && bytes.Equal(o.end, p.end)
}

// suite runs the reference mission over the default scenarios and caches
// the clean build's outcomes.
type suite struct {
	m     mission.Mission
	scs   []*mission.Scenario
	clean map[cleanKey]outcome
}

type cleanKey struct {
	env  string
	sc   int
	seed uint64
}

func newSuite(tb testing.TB) *suite {
	tb.Helper()
	scs, _, err := invoice.DefaultScenarios()
	if err != nil {
		tb.Fatalf("scenarios: %v", err)
	}
	if len(scs) == 0 {
		tb.Fatal("no scenarios")
	}
	return &suite{m: invoice.New(), scs: scs, clean: map[cleanKey]outcome{}}
}

func (s *suite) run(tb testing.TB, b mission.Build, sc int, seed uint64, env mission.Env) outcome {
	tb.Helper()
	r, err := s.m.Run(context.Background(), b, s.scs[sc], seed, env)
	if err != nil {
		tb.Fatal(err)
	}
	tr, err := r.Trace.MarshalJSONL()
	if err != nil {
		tb.Fatal(err)
	}
	end, err := json.Marshal(r.End.Records)
	if err != nil {
		tb.Fatal(err)
	}
	check, err := json.Marshal(s.m.Check(s.scs[sc], r.End))
	if err != nil {
		tb.Fatal(err)
	}
	return outcome{trace: tr, end: end, check: check}
}

func (s *suite) cleanRun(tb testing.TB, envName string, env mission.Env, sc int, seed uint64) outcome {
	tb.Helper()
	k := cleanKey{envName, sc, seed}
	o, ok := s.clean[k]
	if !ok {
		o = s.run(tb, mission.Clean(), sc, seed, env)
		s.clean[k] = o
	}
	return o
}

// TestDefaultMutantsHaveAnEffect switches every default mutant on alone and
// looks for a scenario and seed where its trace or end state differs from
// the clean build's. A mutant that never changes anything would be
// equivalent and does not belong in the default catalogue.
func TestDefaultMutantsHaveAnEffect(t *testing.T) {
	c, err := Default(invoice.Spec())
	if err != nil {
		t.Fatal(err)
	}
	s := newSuite(t)
	const seeds = 30
	for _, m := range c.Mutants {
		t.Run(m.ID, func(t *testing.T) {
			o := &mission.Oracle{}
			b := m.Switch(o)
			traced := ""
			for seed := uint64(1); seed <= seeds; seed++ {
				for i, sc := range s.scs {
					got := s.run(t, b, i, seed, exposing)
					want := s.cleanRun(t, "exposing", exposing, i, seed)
					if got.equal(want) {
						continue
					}
					if o.Reached == 0 {
						t.Fatalf("%s seed %d: changed the run without reaching its target", sc.ID, seed)
					}
					if bytes.Equal(got.end, want.end) {
						if traced == "" {
							traced = fmt.Sprintf("%s seed %d", sc.ID, seed)
						}
						continue // look on for a change of the end state
					}
					t.Logf("%s seed %d: end state changed; expected-state differences changed %v",
						sc.ID, seed, !bytes.Equal(got.check, want.check))
					return
				}
			}
			if traced == "" {
				t.Errorf("no change in %d scenarios x %d seeds (reached %d times)", len(s.scs), seeds, o.Reached)
				return
			}
			t.Logf("%s: trace changed; the end state never did", traced)
		})
	}
}

// TestDuplicateActionNeedsAFault checks that duplicate-action mutants change
// nothing, and reach nothing, when no fault or redelivery fires, and that
// under faults they act only in runs where one fired.
func TestDuplicateActionNeedsAFault(t *testing.T) {
	c, err := Default(invoice.Spec())
	if err != nil {
		t.Fatal(err)
	}
	s := newSuite(t)
	for _, m := range c.ByClass(DuplicateAction) {
		t.Run(m.ID, func(t *testing.T) {
			var changed, reached []string
			for i, sc := range s.scs {
				o := &mission.Oracle{}
				got := s.run(t, m.Switch(o), i, 1, mission.Env{})
				if !got.equal(s.cleanRun(t, "zero", mission.Env{}, i, 1)) {
					changed = append(changed, sc.ID)
				}
				if o.Reached != 0 {
					reached = append(reached, sc.ID)
				}
			}
			if len(changed) > 0 {
				t.Errorf("changed the run with no faults in %s", few(changed))
			}
			if len(reached) > 0 {
				t.Errorf("reached its target with no faults in %v; "+
					"the transport must ask Seams.Dedup only about a copy whose key it has already delivered", few(reached))
			}
			var acted []string
			for seed := uint64(1); seed <= 5; seed++ {
				for i, sc := range s.scs {
					o := &mission.Oracle{}
					got := s.run(t, m.Switch(o), i, seed, exposing)
					fired := len(o.Faults) > 0 || len(o.Redeliveries) > 0
					if !fired && (o.Reached > 0 || !got.equal(s.cleanRun(t, "exposing", exposing, i, seed))) {
						acted = append(acted, fmt.Sprintf("%s/seed %d", sc.ID, seed))
					}
				}
			}
			if len(acted) > 0 {
				t.Errorf("acted although no fault or redelivery fired in %s", few(acted))
			}
		})
	}
}

// TestControlsCaughtInEveryTrial checks that every control mutant, in every
// trial of a noisy environment, changes the tool-call arguments of its agent
// and the expected-state differences of at least one scenario.
func TestControlsCaughtInEveryTrial(t *testing.T) {
	c, err := Default(invoice.Spec())
	if err != nil {
		t.Fatal(err)
	}
	s := newSuite(t)
	trials := uint64(10)
	if testing.Short() {
		trials = 3
	}
	for _, m := range c.ByClass(Control) {
		t.Run(m.ID, func(t *testing.T) {
			for trial := uint64(1); trial <= trials; trial++ {
				o := &mission.Oracle{}
				b := m.Switch(o)
				caught := false
				for i := range s.scs {
					seed := trial*1000 + uint64(i) // one seed per scenario and trial, as the experiment draws them
					got := s.run(t, b, i, seed, noisy)
					if !bytes.Equal(got.check, s.cleanRun(t, "noisy", noisy, i, seed).check) {
						caught = true
					}
				}
				if o.Reached == 0 {
					t.Errorf("trial %d: the tool was never called", trial)
				}
				if !caught {
					t.Errorf("trial %d: no scenario's end state departs from the expected one differently from the clean build's", trial)
				}
			}
		})
	}
}

// TestCoverageAndEquivalence checks that the oracle tells a mutant whose
// target no scenario reaches (no coverage) from one that is reached and
// leaves the end state (equivalent there) or the whole run as it was.
func TestCoverageAndEquivalence(t *testing.T) {
	s := newSuite(t)
	var eur []int // scenarios whose every invoice is in EUR
	for i, sc := range s.scs {
		if slices.Contains(sc.Tags, "currency:EUR") && !slices.ContainsFunc(sc.Tags, func(tag string) bool {
			return strings.HasPrefix(tag, "currency:") && tag != "currency:EUR"
		}) {
			eur = append(eur, i)
		}
	}
	if len(eur) == 0 {
		t.Fatal("no EUR-only scenario")
	}
	all := make([]int, len(s.scs))
	for i := range all {
		all[i] = i
	}
	tests := []struct {
		name      string
		m         *Mutant
		scenarios []int
		reached   bool
		sameTrace bool // the whole run is unchanged, not only the end state
	}{
		{
			name:      "never reached: no tool fails for good without faults, so intake raises no exception",
			m:         &Mutant{ID: "nc", Class: ContextLoss, Operator: "drop_field", Edge: "intake->monitor", Field: "tool"},
			scenarios: all,
			sameTrace: true,
		},
		{
			name:      "reached, end state unchanged: monitor does not read amount_eur",
			m:         &Mutant{ID: "eq", Class: ContextLoss, Operator: "drop_field", Edge: "boundary->monitor", Field: "amount_eur"},
			scenarios: all,
			reached:   true,
		},
		{
			name:      "reached, nothing changed: boundary never asks monitor to escalate",
			m:         &Mutant{ID: "eq-flag", Class: EscalationGap, Operator: "assume_other_escalated", Edge: "boundary->monitor"},
			scenarios: all,
			reached:   true,
			sameTrace: true,
		},
		{
			name:      "reached, nothing changed: EUR payments already in EUR",
			m:         &Mutant{ID: "eq-eur", Class: Control, Operator: "wrong_tool_arg", Agent: "boundary", Tool: "schedule_payment", Arg: "currency", Value: "EUR"},
			scenarios: eur,
			reached:   true,
			sameTrace: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &mission.Oracle{}
			b := tt.m.Switch(o)
			for _, i := range tt.scenarios {
				got := s.run(t, b, i, 1, mission.Env{})
				want := s.cleanRun(t, "zero", mission.Env{}, i, 1)
				if !bytes.Equal(got.end, want.end) {
					t.Errorf("%s: end state changed", s.scs[i].ID)
				}
				if tt.sameTrace && !bytes.Equal(got.trace, want.trace) {
					t.Errorf("%s: trace changed", s.scs[i].ID)
				}
			}
			if (o.Reached > 0) != tt.reached {
				t.Errorf("Reached = %d, want reached %v", o.Reached, tt.reached)
			}
		})
	}
}

// few lists up to five names and counts the rest.
func few(names []string) string {
	if len(names) <= 5 {
		return fmt.Sprint(names)
	}
	return fmt.Sprintf("%v and %d more", names[:5], len(names)-5)
}
