package mission_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
)

func TestBudget(t *testing.T) {
	c := mission.Cost{ModelCalls: 7, Tokens: 700}
	tests := []struct {
		name     string
		b        mission.Budget
		used     int
		exceeded bool
	}{
		{"no limit", mission.Budget{}, 7, false},
		{"calls at the limit", mission.Budget{Unit: mission.UnitModelCalls, Limit: 7}, 7, false},
		{"calls over", mission.Budget{Unit: mission.UnitModelCalls, Limit: 6}, 7, true},
		{"tokens over", mission.Budget{Unit: mission.UnitTokens, Limit: 699}, 700, true},
		{"tokens within", mission.Budget{Unit: mission.UnitTokens, Limit: 800}, 700, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := [2]any{tt.b.Used(c), tt.b.Exceeded(c)}
			if diff := cmp.Diff([2]any{tt.used, tt.exceeded}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	var names []string
	for _, u := range mission.AllBudgetUnits {
		names = append(names, u.String())
	}
	if diff := cmp.Diff([]string{"model_calls", "tokens"}, names); diff != "" {
		t.Errorf("units (-want +got):\n%s", diff)
	}
}

// The single-agent build of a mission runs its scenarios as one agent: the
// same end state, checked the same way, with no hand-off in its trace.
func ExampleSingle() {
	m := invoice.New()
	scs, _, _ := m.Scenarios()
	for _, env := range []mission.Env{{}, {Single: &mission.Single{}}} {
		run, _ := m.Run(context.Background(), mission.Clean(), scs[0], 1, env)
		agents := map[mission.Agent]bool{}
		for _, e := range run.Trace.Events {
			agents[e.Agent] = true
		}
		fmt.Printf("agents %d, hand-offs %d, differences %d, model calls %d\n",
			len(agents), len(run.Trace.Of(mission.EventSent)), len(m.Check(scs[0], run.End)), run.Cost.ModelCalls)
	}
	// Output:
	// agents 4, hand-offs 3, differences 0, model calls 7
	// agents 1, hand-offs 0, differences 0, model calls 7
}
