package modelcore_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mission/modelcore"
	"github.com/baton-lab/baton/model"
)

// rogue plays the mission's policies but answers every request of one
// agent with a fixed mistake.
type rogue struct {
	policy *modelcore.Player
	agent  mission.Agent
	answer model.Response
}

func (r rogue) Play(ctx context.Context, req model.Request) (model.Response, error) {
	for _, m := range req.Messages {
		if m.Role != model.RoleUser {
			continue
		}
		var v struct {
			Agent mission.Agent `json:"agent"`
		}
		if json.Unmarshal([]byte(m.Content), &v) == nil && v.Agent == r.agent {
			return r.answer, nil
		}
		break
	}
	return r.policy.Play(ctx, req)
}

// rogueCores serves p over HTTP and returns a model core for every agent
// of m, each asking it through a client.
func rogueCores(tb testing.TB, m mission.Mission, p model.Player) map[mission.Agent]mission.Core {
	tb.Helper()
	srv, err := model.NewServer(map[string]model.Player{"rogue": p})
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	tb.Cleanup(ts.Close)
	client, err := model.NewClient(model.Config{BaseURL: ts.URL + "/v1", Model: "rogue"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(client.Close)
	cores := map[mission.Agent]mission.Core{}
	for _, a := range m.Spec().AgentNames() {
		c, err := modelcore.New(m.Spec(), modelcore.Config{Agent: a, Instructions: "play " + string(a), Chat: client, Model: "rogue"})
		if err != nil {
			tb.Fatal(err)
		}
		cores[a] = c
	}
	return cores
}

// TestAgentErrorInMission: a model that calls a tool it was not offered,
// or answers with no JSON, inside a mission run is an agent error recorded
// in the trace and scored by the designs, never a Go error.
func TestAgentErrorInMission(t *testing.T) {
	tests := []struct {
		name   string
		answer model.Response
		kind   model.AgentErrorKind
	}{
		{"unknown tool", model.Response{ToolCalls: []model.ToolCall{{ID: "c1", Name: "wire_money", Arguments: `{}`}}, FinishReason: "tool_calls"}, model.AgentUnknownTool},
		{"malformed result", model.Response{Content: `{"route": "payment",`, FinishReason: "stop"}, model.AgentInvalidJSON},
		{"result off schema", model.Response{Content: `{"no_such_field": 1}`, FinishReason: "stop"}, model.AgentInvalidResult},
	}
	m := invoice.New()
	scs, _, err := m.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	var sc *mission.Scenario
	for _, s := range scs {
		if s.ID == "S01" {
			sc = s
		}
	}
	if sc == nil {
		t.Fatal("no scenario S01")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cores := rogueCores(t, m, rogue{policy: modelcore.NewPlayer(m, mission.Profile{}), agent: invoice.Action, answer: tt.answer})
			env := mission.Env{Cores: cores}
			run, err := m.Run(context.Background(), mission.Clean(), sc, 1, env)
			if err != nil {
				t.Fatalf("Run: %v (an agent error must not end the run)", err)
			}
			want := "agent_error " + string(tt.kind) + ": "
			var reasons []string
			for _, e := range run.Trace.Events {
				if e.Kind == mission.EventException && e.Agent == invoice.Action {
					reasons = append(reasons, e.Reason)
				}
			}
			if len(reasons) == 0 || !strings.HasPrefix(reasons[0], want) {
				t.Fatalf("action's exceptions = %q, want one starting %q", reasons, want)
			}
			if diffs := m.Check(sc, run.End); len(diffs) == 0 {
				t.Error("the end state passes the check although action handed nothing on")
			}

			for _, d := range []designs.Design{designs.PerAgent, designs.EndToEnd} {
				v, err := d.Evaluate(designs.Input{Mission: m, Build: mission.Clean(), Scenario: sc, Seed: 1, Env: env})
				if err != nil {
					t.Fatalf("design %s: %v (an agent error is a verdict, not an error)", d.ID, err)
				}
				if !v.Flagged {
					t.Errorf("design %s does not flag the run", d.ID)
				}
				if d.ID != designs.PerAgent.ID {
					continue
				}
				if !hasFinding(v, "result.unscoreable", mission.AgentLocation(invoice.Action)) {
					t.Errorf("design A's findings %+v: want result.unscoreable at action", v.Findings)
				}
			}
		})
	}
}

func hasFinding(v designs.Verdict, rule string, loc mission.Location) bool {
	for _, f := range v.Findings {
		if f.Rule == rule && f.Location == loc {
			return true
		}
	}
	return false
}
