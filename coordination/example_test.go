package coordination_test

import (
	"fmt"

	"github.com/baton-lab/baton/coordination"
)

// The seed's matched-budget exercise: only the comparison under the same
// total budget says anything about orchestration, and what it says is
// that the single agent is ahead.
func ExampleCompareBudgets() {
	multi := coordination.BudgetSummary{System: "four-agent", Agents: 4, Successes: 88, N: 100, Budget: coordination.Budget{CostUSD: new(1.20)}}
	cheap := coordination.BudgetSummary{System: "single-agent", Agents: 1, Successes: 82, N: 100, Budget: coordination.Budget{CostUSD: new(0.40)}}
	matched := coordination.BudgetSummary{System: "single-agent", Agents: 1, Successes: 90, N: 100, Budget: coordination.Budget{CostUSD: new(1.20)}}
	for _, single := range []coordination.BudgetSummary{cheap, matched} {
		c := coordination.CompareBudgets(multi, single)
		fmt.Printf("%s: %s\n", c.Attribution, c.Claim)
	}
	// Output:
	// unmatched: budgets not matched (four-agent: cost_usd 1.2; single-agent: cost_usd 0.4): the +6-point difference (four-agent 88% (88/100) vs single-agent 82% (82/100)) mixes orchestration with inference budget; no orchestration advantage can be attributed
	// no_advantage: under the matched budget (cost_usd 1.2) the matched single agent is 2 points higher (four-agent 88% (88/100) vs single-agent 90% (90/100); difference -2 points, 95% CI [-11, +7]): no orchestration advantage can be claimed
}

// A record is judged on each dimension separately.
func ExampleScoreRecord() {
	r := &coordination.Record{
		Trial:       "refund-817",
		Agents:      []coordination.Agent{{ID: "refunds", Capabilities: []string{"refund_tool"}}, {ID: "planner"}},
		Subtasks:    []coordination.Subtask{{ID: "issue_refund", Requires: []string{"refund_tool"}}},
		Delegations: []coordination.Delegation{{ID: "d1", Subtask: "issue_refund", Owner: "refunds", By: "planner"}},
		Completions: []coordination.Completion{{ID: "c1", Subtask: "issue_refund", Agent: "refunds"}},
		Effects: []coordination.Effect{
			{ID: "e1", Agent: "refunds", Key: "refund-817", Irreversible: true, Applied: new(true)},
			{ID: "e2", Agent: "planner", Key: "refund-817", Irreversible: true, Applied: new(true)},
		},
	}
	if err := r.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	for _, res := range coordination.ScoreRecord(r).Dimensions {
		fmt.Println(res.Dimension, res.Verdict, res.Failures)
	}
	// Output:
	// delegation_correctness pass []
	// coverage pass []
	// duplicate_work pass []
	// information_preservation not_applicable []
	// shared_state_contention not_applicable []
	// merge_correctness not_applicable []
	// effect_safety fail [{irreversible effect refund-817 applied (or not shown deduplicated) 2 times [e1 e2]}]
	// efficiency not_applicable []
}
