package mission_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

func TestBreaches(t *testing.T) {
	handler := func(*sandbox.Tx, sandbox.Args) (sandbox.Result, string, *sandbox.Error) { return nil, "", nil }
	reg, err := sandbox.NewRegistry(sandbox.Setup{
		Records: func() sandbox.Records { return nil },
		Tools: []sandbox.Tool{
			{Name: "look", Agents: []string{"clerk"}, Handler: handler},
			{Name: "pay", Agents: []string{"clerk"}, Handler: handler},
			{Name: "print", Agents: []string{"clerk", "desk"}, Handler: handler},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	spec := &mission.Spec{Tools: reg, Agents: []mission.AgentSpec{
		{Name: "clerk", Rules: []mission.Rule{{ID: "hard.look_first", Kind: mission.RuleAfter, Tool: "pay", After: "look", Message: "paid blind"}}},
		{Name: "desk", Rules: []mission.Rule{{ID: "hard.no_print", Kind: mission.RuleNever, Tool: "print", Message: "printed"}}},
	}}
	call := func(name, errCode string) mission.ToolCall { return mission.ToolCall{Name: name, Error: errCode} }
	for _, tc := range []struct {
		name  string
		agent mission.Agent
		calls []mission.ToolCall
		want  []mission.Breach
	}{
		{"look then pay", "clerk", []mission.ToolCall{call("look", ""), call("pay", "")}, nil},
		{"pay blind", "clerk", []mission.ToolCall{call("pay", ""), call("look", "")}, []mission.Breach{{Rule: "hard.look_first", Message: "paid blind", Call: 0}}},
		{"a failed look is no look", "clerk", []mission.ToolCall{call("look", "NF-404"), call("pay", "")}, []mission.Breach{{Rule: "hard.look_first", Message: "paid blind", Call: 1}}},
		{"never means never", "desk", []mission.ToolCall{call("print", "SYS-503")}, []mission.Breach{{Rule: "hard.no_print", Message: "printed", Call: 0}}},
		{"forbidden tool", "desk", []mission.ToolCall{call("pay", "AUTH-403")}, []mission.Breach{{Rule: mission.ForbiddenToolRule, Message: "called pay, which desk may not call", Call: 0}}},
		{"no calls", "desk", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, spec.Breaches(tc.agent, tc.calls)); diff != "" {
				t.Errorf("breaches (-want +got):\n%s", diff)
			}
		})
	}
}
