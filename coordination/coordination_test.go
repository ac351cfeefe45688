package coordination

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// base is a small record that passes every dimension except merge
// correctness, which does not apply (no merge).
func base() *Record {
	return &Record{
		Trial: "t", System: "two-agent", Success: new(true),
		Agents:      []Agent{{ID: "a", Capabilities: []string{"x"}}, {ID: "b", Capabilities: []string{"y"}}, {ID: "c", Capabilities: []string{"x"}}},
		Subtasks:    []Subtask{{ID: "s1", Requires: []string{"x"}}, {ID: "s2", Requires: []string{"y"}}},
		Delegations: []Delegation{{ID: "d1", Subtask: "s1", Owner: "a"}, {ID: "d2", Subtask: "s2", Owner: "b", By: "a"}},
		Handoffs:    []Handoff{{ID: "h1", From: "a", To: "b", Sent: []string{"f", "g"}, Required: []string{"f"}, Read: []string{"f"}}},
		Completions: []Completion{{ID: "c1", Subtask: "s1", Agent: "a"}, {ID: "c2", Subtask: "s2", Agent: "b"}},
		Work:        []Work{{ID: "w1", Agent: "a", Key: "search q"}},
		State:       []Access{{ID: "k1", Agent: "a", Op: OpWrite, Key: "k"}, {ID: "k2", Agent: "b", Op: OpRead, Key: "k"}, {ID: "k3", Agent: "b", Op: OpWrite, Key: "k"}},
		Effects:     []Effect{{ID: "e1", Agent: "b", Key: "K", Irreversible: true, Applied: new(true)}},
		Usage:       Usage{CostUSD: new(1.0), Tokens: new(int64(900))},
		Budget:      &Budget{CostUSD: new(2.0)},
	}
}

func verdicts(s Score) map[Dimension]Verdict {
	m := map[Dimension]Verdict{}
	for _, r := range s.Dimensions {
		m[r.Dimension] = r.Verdict
	}
	return m
}

func TestBaseRecord(t *testing.T) {
	r := base()
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	want := map[Dimension]Verdict{}
	for _, d := range AllDimensions {
		want[d] = Pass
	}
	want[DimMergeCorrectness] = NotApplicable
	if diff := cmp.Diff(want, verdicts(ScoreRecord(r))); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

// A record with nothing in it gives every dimension nothing to judge.
func TestEmptyRecord(t *testing.T) {
	r := &Record{Trial: "t"}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, res := range ScoreRecord(r).Dimensions {
		if res.Verdict != NotApplicable || res.Note == "" {
			t.Errorf("%s = %s (%q), want not_applicable with a note", res.Dimension, res.Verdict, res.Note)
		}
	}
}

// Each case breaks one thing in the base record: the dimension meant to
// see it moves, with the events that show it, and no other dimension
// moves.
func TestDimensionsMoveAlone(t *testing.T) {
	tests := []struct {
		name   string
		dim    Dimension
		change func(r *Record)
		want   Verdict
		events [][]string // per failure
	}{
		{"owner without the capability", DimDelegation, func(r *Record) { r.Delegations[1].Owner = "c" }, Fail, [][]string{{"d2"}}},
		{"subtask assigned twice", DimDelegation, func(r *Record) {
			r.Delegations = append(r.Delegations, Delegation{ID: "d3", Subtask: "s1", Owner: "c"})
		}, Fail, [][]string{{"d1", "d3"}}},
		{"a reassignment is one owner", DimDelegation, func(r *Record) {
			r.Delegations = append(r.Delegations, Delegation{ID: "d3", Subtask: "s1", Owner: "c", Replaces: "d1"})
		}, Pass, nil},
		{"subtask never assigned", DimCoverage, func(r *Record) { r.Delegations = r.Delegations[:1] }, Fail, [][]string{{"s2"}}},
		{"subtask never completed", DimCoverage, func(r *Record) { r.Completions = r.Completions[:1] }, Fail, [][]string{{"s2", "d2"}}},
		{"subtask completed by two agents", DimDuplicateWork, func(r *Record) {
			r.Completions = append(r.Completions, Completion{ID: "c3", Subtask: "s1", Agent: "c"})
		}, Fail, [][]string{{"c1", "c3"}}},
		{"the same search by two agents", DimDuplicateWork, func(r *Record) {
			r.Work = append(r.Work, Work{ID: "w2", Agent: "c", Key: "search q"})
		}, Fail, [][]string{{"w1", "w2"}}},
		{"one agent repeating itself is not duplicate work", DimDuplicateWork, func(r *Record) {
			r.Work = append(r.Work, Work{ID: "w2", Agent: "a", Key: "search q"})
		}, Pass, nil},
		{"required field not sent", DimInformationKept, func(r *Record) { r.Handoffs[0].Sent = []string{"g"} }, Fail, [][]string{{"h1"}}},
		{"field read but not sent", DimInformationKept, func(r *Record) { r.Handoffs[0].Read = []string{"f", "h"} }, Fail, [][]string{{"h1"}}},
		{"consumer needs not recorded", DimInformationKept, func(r *Record) { r.Handoffs[0].Required, r.Handoffs[0].Read = nil, nil }, NotApplicable, nil},
		{"blind overwrite of another agent's write", DimStateContention, func(r *Record) { r.State = slices.Delete(r.State, 1, 2) }, Fail, [][]string{{"k1", "k3"}}},
		{"write from a read made before another agent's write", DimStateContention, func(r *Record) {
			r.State = []Access{{ID: "k2", Agent: "b", Op: OpRead, Key: "k"}, {ID: "k1", Agent: "a", Op: OpWrite, Key: "k"}, {ID: "k3", Agent: "b", Op: OpWrite, Key: "k"}}
		}, Fail, [][]string{{"k2", "k1", "k3"}}},
		{"conflict left unresolved", DimMergeCorrectness, func(r *Record) {
			r.Merges = []Merge{{ID: "m1", Agent: "b", Inputs: []string{"h1", "c1"}, Conflicts: []Conflict{{Field: "f", Inputs: []string{"h1", "c1"}, Resolution: ResolutionUnresolved}}}}
		}, Fail, [][]string{{"m1", "h1", "c1"}}},
		{"conflicting findings concatenated", DimMergeCorrectness, func(r *Record) {
			r.Merges = []Merge{{ID: "m1", Agent: "b", Inputs: []string{"h1", "c1"}, Conflicts: []Conflict{{Field: "f", Inputs: []string{"c1"}, Resolution: ResolutionConcatenated}}}}
		}, Fail, [][]string{{"m1", "c1"}}},
		{"conflict resolved", DimMergeCorrectness, func(r *Record) {
			r.Merges = []Merge{{ID: "m1", Agent: "b", Inputs: []string{"h1"}, Conflicts: []Conflict{{Field: "f", Inputs: []string{"h1"}, Resolution: ResolutionResolved}}}}
		}, Pass, nil},
		{"the same refund key applied twice", DimEffectSafety, func(r *Record) {
			r.Effects = append(r.Effects, Effect{ID: "e2", Agent: "a", Key: "K", Irreversible: true, Applied: new(true)})
		}, Fail, [][]string{{"e1", "e2"}}},
		{"a repeat not shown deduplicated", DimEffectSafety, func(r *Record) {
			r.Effects = append(r.Effects, Effect{ID: "e2", Agent: "b", Key: "K", Irreversible: true})
		}, Fail, [][]string{{"e1", "e2"}}},
		{"a repeat the system deduplicated", DimEffectSafety, func(r *Record) {
			r.Effects = append(r.Effects, Effect{ID: "e2", Agent: "b", Key: "K", Irreversible: true, Applied: new(false)})
		}, Pass, nil},
		{"a retry with a fresh key", DimEffectSafety, func(r *Record) {
			r.Effects[0].Identity = "refund:o1"
			r.Effects = append(r.Effects, Effect{ID: "e2", Agent: "b", Key: "K2", Identity: "refund:o1", Irreversible: true, Applied: new(true)})
		}, Fail, [][]string{{"e1", "e2"}}},
		{"one key for two effects", DimEffectSafety, func(r *Record) {
			r.Effects[0].Identity = "refund:o1"
			r.Effects = append(r.Effects, Effect{ID: "e2", Agent: "b", Key: "K", Identity: "refund:o2", Irreversible: true, Applied: new(false)})
		}, Fail, [][]string{{"e1", "e2"}}},
		{"an irreversible effect without a key", DimEffectSafety, func(r *Record) { r.Effects[0].Key, r.Effects[0].Identity = "", "refund:o1" }, Fail, [][]string{{"e1"}}},
		{"reversible effects are not judged", DimEffectSafety, func(r *Record) { r.Effects[0].Irreversible = false }, NotApplicable, nil},
		{"over the matched budget", DimEfficiency, func(r *Record) { r.Usage.CostUSD = new(2.5) }, Fail, [][]string{{"usage.cost_usd"}}},
		{"exactly the matched budget", DimEfficiency, func(r *Record) { r.Usage.CostUSD = new(2.0) }, Pass, nil},
		{"over on tokens only", DimEfficiency, func(r *Record) { r.Budget.Tokens = new(800.0) }, Fail, [][]string{{"usage.tokens"}}},
		{"no budget", DimEfficiency, func(r *Record) { r.Budget = nil }, NotApplicable, nil},
	}
	baseline := verdicts(ScoreRecord(base()))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base()
			tt.change(r)
			if err := r.Validate(); err != nil {
				t.Fatalf("changed record is invalid: %v", err)
			}
			s := ScoreRecord(r)
			res := s.Result(tt.dim)
			if res.Verdict != tt.want {
				t.Errorf("%s = %s, want %s (%+v)", tt.dim, res.Verdict, tt.want, res.Failures)
			}
			var events [][]string
			for _, f := range res.Failures {
				events = append(events, f.Events)
			}
			if diff := cmp.Diff(tt.events, events); diff != "" {
				t.Errorf("failure events (-want +got):\n%s", diff)
			}
			got := verdicts(s)
			delete(got, tt.dim)
			want := verdicts(ScoreRecord(base()))
			delete(want, tt.dim)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("other dimensions moved (-base +changed):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff(baseline, verdicts(ScoreRecord(base()))); diff != "" {
		t.Errorf("the base record changed under the cases (-before +after):\n%s", diff)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(r *Record)
		want   string
	}{
		{"no trial", func(r *Record) { r.Trial = "" }, "trial: missing trial id"},
		{"unknown owner", func(r *Record) { r.Delegations[1].Owner = "z" }, `delegations[1].owner: unknown agent "z"`},
		{"unknown subtask", func(r *Record) { r.Completions[0].Subtask = "s9" }, `completions[0].subtask: unknown subtask "s9"`},
		{"event id used twice", func(r *Record) { r.Effects[0].ID = "h1" }, `effects[0].id: duplicate event id "h1" (first at handoffs[0])`},
		{"duplicate agent", func(r *Record) { r.Agents[1].ID = "a" }, `agents[1].id: duplicate agent id "a"`},
		{"capability twice", func(r *Record) { r.Agents[0].Capabilities = []string{"x", "x"} }, `agents[0].capabilities[1]: "x" listed twice`},
		{"replaces nothing", func(r *Record) { r.Delegations[1].Replaces = "h1" }, `delegations[1].replaces: no earlier delegation "h1"`},
		{"bad op", func(r *Record) { r.State[0].Op = "delete" }, `state[0].op: "delete": want read or write`},
		{"merge of an unknown event", func(r *Record) { r.Merges = []Merge{{ID: "m1", Agent: "a", Inputs: []string{"e1"}}} },
			`merges[0].inputs[0]: unknown event "e1": want the id of a hand-off, completion, work item or earlier merge`},
		{"conflict outside the inputs", func(r *Record) {
			r.Merges = []Merge{{ID: "m1", Agent: "a", Inputs: []string{"h1"}, Conflicts: []Conflict{{Field: "f", Inputs: []string{"c1"}, Resolution: ResolutionResolved}}}}
		}, `merges[0].conflicts[0].inputs[0]: "c1" is not an input of merge "m1"`},
		{"unknown resolution", func(r *Record) {
			r.Merges = []Merge{{ID: "m1", Agent: "a", Inputs: []string{"h1"}, Conflicts: []Conflict{{Field: "f", Resolution: "merged"}}}}
		}, `merges[0].conflicts[0].resolution: "merged": want one of resolved, escalated, unresolved, concatenated`},
		{"effect without key or identity", func(r *Record) { r.Effects[0].Key = "" }, "effects[0].key: missing key and identity: name the effect by at least one"},
		{"budgeted but not recorded", func(r *Record) { r.Budget.ModelCalls = new(3.0) }, "usage.model_calls: not recorded, but budgeted: record it or drop it from the budget"},
		{"empty budget", func(r *Record) { r.Budget = &Budget{MatchedTo: "x"} }, "budget: no resource budgeted: give tokens, model_calls, latency_ms or cost_usd, or null for no budget"},
		{"negative usage", func(r *Record) { r.Usage.Tokens = new(int64(-1)) }, "usage.tokens: negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base()
			tt.change(r)
			err := r.Validate()
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// The seed's matched-budget exercise: a four-agent system completes 88%
// for $1.20 a task, a single agent 82% for $0.40, and 90% when it gets
// the same $1.20.
func TestCompareBudgetsExercise(t *testing.T) {
	multi := BudgetSummary{System: "four-agent", Agents: 4, Successes: 88, N: 100, Budget: Budget{CostUSD: new(1.20)}}
	cheap := BudgetSummary{System: "single-agent", Agents: 1, Successes: 82, N: 100, Budget: Budget{CostUSD: new(0.40)}}
	matched := BudgetSummary{System: "single-agent", Agents: 1, Successes: 90, N: 100, Budget: Budget{CostUSD: new(1.20)}}

	unmatched := CompareBudgets(multi, cheap)
	if unmatched.Matched || unmatched.Attribution != AttrUnmatched || unmatched.DifferencePoints != 6 {
		t.Errorf("unmatched: matched %v, %s, difference %v points; want unmatched, +6", unmatched.Matched, unmatched.Attribution, unmatched.DifferencePoints)
	}
	same := CompareBudgets(multi, matched)
	if !same.Matched || same.Attribution != AttrNoAdvantage || same.DifferencePoints != -2 {
		t.Errorf("matched: matched %v, %s, difference %v points; want matched, no advantage, -2", same.Matched, same.Attribution, same.DifferencePoints)
	}
	if lo, hi := same.CI95Points[0], same.CI95Points[1]; lo >= 0 || hi <= 0 {
		t.Errorf("interval of the matched difference %v: want it to span 0 at n=100", same.CI95Points)
	}
	wantClaim := "under the matched budget (cost_usd 1.2) the matched single agent is 2 points higher " +
		"(four-agent 88% (88/100) vs single-agent 90% (90/100); difference -2 points, 95% CI [-11, +7]): no orchestration advantage can be claimed"
	if diff := cmp.Diff(wantClaim, same.Claim); diff != "" {
		t.Errorf("claim (-want +got):\n%s", diff)
	}
	if len(same.CannotAttribute) == 0 {
		t.Error("nothing listed as not attributable")
	}
}

func TestCompareBudgetsAttributions(t *testing.T) {
	b := Budget{Tokens: new(40000.0)}
	sum := func(k, n int, b Budget) BudgetSummary {
		return BudgetSummary{System: "s", Successes: k, N: n, Budget: b}
	}
	tests := []struct {
		name         string
		multi, other BudgetSummary
		want         Attribution
	}{
		{"clear advantage", sum(90, 100, b), sum(60, 100, b), AttrAdvantage},
		{"ahead within uncertainty", sum(9, 10, b), sum(8, 10, b), AttrInconclusive},
		{"equal", sum(5, 10, b), sum(5, 10, b), AttrNoAdvantage},
		{"different resources are not matched", sum(90, 100, b), sum(60, 100, Budget{CostUSD: new(1.0)}), AttrUnmatched},
		{"one more token is not matched", sum(90, 100, b), sum(60, 100, Budget{Tokens: new(40001.0)}), AttrUnmatched},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CompareBudgets(tt.multi, tt.other).Attribution; got != tt.want {
				t.Errorf("attribution = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestPointsHasNoNegativeZero(t *testing.T) {
	if got := signed(points(-0.00001)); got != "0" {
		t.Errorf("signed(points(-0.00001)) = %q, want 0", got)
	}
}
