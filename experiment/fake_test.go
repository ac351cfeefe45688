package experiment

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/reports"
	"github.com/baton-lab/baton/sandbox"
)

// fakeMission is a deterministic stand-in for the reference mission: it
// has the reference mission's spec (so protocols written for it load), but
// for a default protocol naming only the designs the fake stack has, and
// its runs depend on the scenario and seed only.
type fakeMission struct{}

var _ mission.Mission = fakeMission{}

func (fakeMission) Spec() *mission.Spec { return fakeSpec() }

// fakeSpec is the reference mission's spec with designs A, B and C in its
// default protocol.
var fakeSpec = sync.OnceValue(func() *mission.Spec {
	s := *invoice.Spec()
	re := regexp.MustCompile(`(?m)^designs: .*$`)
	if !re.Match(s.Protocol.Data) {
		panic("fake: the default protocol has no designs line")
	}
	s.Protocol.Data = re.ReplaceAll(s.Protocol.Data, []byte("designs: [A, B, C]"))
	return &s
})

func (fakeMission) Emit(mission.Build, mission.Edge, string, mission.Result) ([]byte, error) {
	return nil, nil
}
func (fakeMission) Parse(mission.Build, mission.Edge, []byte) (*mission.Handoff, error) {
	return nil, nil
}
func (fakeMission) RecordGolden(*mission.Scenario) ([]mission.Golden, error) { return nil, nil }
func (fakeMission) Check(_ *mission.Scenario, end *sandbox.State) []sandbox.Difference {
	return fakeCheck(end)
}
func (fakeMission) Scenarios() ([]*mission.Scenario, string, error) { return nil, "", nil }
func (fakeMission) LoadScenarios(...string) ([]*mission.Scenario, error) {
	return nil, fmt.Errorf("fake: no scenario files")
}

// testMissions is the registry of the reference mission.
func testMissions() *mission.Registry {
	reg, err := mission.NewRegistry(invoice.New())
	if err != nil {
		panic(err)
	}
	return reg
}

func fakeTrace(kind, sc string, seed uint64) *mission.Trace {
	t := &mission.Trace{}
	for i := range 3 {
		t.Events = append(t.Events, mission.Event{
			Seq: i + 1, At: int64(i * 20), Kind: mission.EventModelCall, Agent: invoice.Intake, Item: "E1",
			Decision: fmt.Sprintf("%s:%s:%d", kind, sc, seed%1000), TokensIn: int(seed % 97), TokensOut: i,
		})
	}
	t.Events = append(t.Events, mission.Event{Seq: 4, Kind: mission.EventSent, Agent: invoice.Intake, Item: "E1",
		Edge: "intake->action", Raw: `{"id":"m-E1","payload":{"net":` + strconv.FormatUint(seed%500, 10) + `}}`})
	return t
}

func (fakeMission) Run(_ context.Context, b mission.Build, sc *mission.Scenario, seed uint64, env mission.Env) (*mission.Run, error) {
	recs := &invoice.Records{}
	if seed%4 == 0 {
		recs.Escalations = []invoice.Escalation{{ID: "ESC-1", Item: "E1", Reason: "above_threshold"}}
	}
	return &mission.Run{Trace: fakeTrace("run", sc.ID, seed), End: &sandbox.State{Records: recs},
		Cost: mission.Cost{ModelCalls: 3, ToolCalls: 5, Tokens: int(seed % 1000), EnvironmentResets: 1}}, nil
}

func (fakeMission) RunCore(_ context.Context, b mission.Build, agent mission.Agent, sc *mission.Scenario, in mission.CoreInput, seed uint64, env mission.Env) (*mission.CoreRun, error) {
	return &mission.CoreRun{Agent: agent, Item: in.Item, Trace: fakeTrace("core:"+string(agent), sc.ID, seed),
		Cost: mission.Cost{ModelCalls: 1, ToolCalls: 2, Tokens: int(seed % 100), EnvironmentResets: 1}}, nil
}

func fakeCheck(got *sandbox.State) []sandbox.Difference {
	if r := got.Records.(*invoice.Records); len(r.Escalations) > 0 {
		return []sandbox.Difference{{Record: "escalation:E1", Field: "reason", Want: "", Got: r.Escalations[0].Reason}}
	}
	return nil
}

// fakeDesigns flag by seed, so verdicts vary but do not depend on builds
// (a fake cannot see inside an opaque build).
var fakeDesigns = []designs.Design{
	{ID: "A", Name: "fake per-agent", Evaluate: func(in designs.Input) (designs.Verdict, error) {
		cr, _ := in.Mission.RunCore(context.Background(), in.Build, invoice.Intake, in.Scenario, mission.CoreInput{Item: "E1"}, in.Seed, in.Env)
		v := designs.Verdict{Cost: cr.Cost, Matchers: &designs.MatcherCounts{N: 2, Exact: 2, NameOnly: 2, OrderIgnored: 2}}
		if in.Seed%5 == 0 {
			v.Matchers.Exact, v.Matchers.OrderIgnored = 1, 1
			v.Flagged = true
			v.Findings = []designs.Finding{{Rule: "trajectory.exact", Message: "call 1 differs", Location: "intake",
				Evidence: designs.Evidence{Run: "core:intake:E1", Seq: 2, Item: "E1"}}}
			v.Blame = []mission.Location{"intake"}
		}
		return v, nil
	}},
	{ID: "B", Name: "fake end-to-end", Evaluate: func(in designs.Input) (designs.Verdict, error) {
		run, _ := in.Mission.Run(context.Background(), in.Build, in.Scenario, in.Seed, in.Env)
		v := designs.Verdict{Cost: run.Cost}
		for _, d := range in.Mission.Check(in.Scenario, run.End) {
			v.Findings = append(v.Findings, designs.Finding{Rule: "end_state.escalation", Message: d.Record, Location: "boundary",
				Evidence: designs.Evidence{Run: "integrated", Item: "E1", Field: d.Field}})
		}
		if len(v.Findings) > 0 {
			v.Flagged, v.Blame = true, []mission.Location{"boundary"}
		}
		return v, nil
	}},
	{ID: "C", Name: "fake contracts", Evaluate: func(in designs.Input) (designs.Verdict, error) {
		cr, _ := in.Mission.RunCore(context.Background(), in.Build, invoice.Intake, in.Scenario, mission.CoreInput{Item: "E1"}, in.Seed, in.Env)
		v := designs.Verdict{Cost: cr.Cost}
		if in.Seed%3 == 0 {
			v.Flagged = true
			v.Findings = []designs.Finding{
				{Rule: "contract.required", Message: "currency missing", Location: "intake->action", Evidence: designs.Evidence{Run: "emit:intake->action:E1", Field: "currency"}},
				{Rule: "contract.type", Message: "net: want number", Location: "intake->action", Evidence: designs.Evidence{Run: "emit:intake->action:E1", Field: "net"}},
			}
			v.Blame = []mission.Location{"intake->action"}
		}
		return v, nil
	}},
}

func fakeStack() *Stack {
	scenarios := []*mission.Scenario{
		{ID: "S1", Title: "typical EUR", Category: mission.CategoryTypical, Tags: []string{"category:typical", "currency:EUR"}},
		{ID: "S2", Title: "USD variation", Category: mission.CategoryVariation, Tags: []string{"category:variation", "currency:USD"}},
		{ID: "S3", Title: "edge", Category: mission.CategoryEdge, Tags: []string{"category:edge", "currency:EUR"}},
	}
	builds := []BuildSpec{
		{Info: reports.BuildInfo{ID: "cl-currency", Class: "context_loss", Location: "intake->action", Operator: "drop_field"}},
		{Info: reports.BuildInfo{ID: "ctl-amount", Class: "control", Location: "boundary", Operator: "wrong_tool_arg"}},
	}
	for i := range builds {
		builds[i].Switch = func(o *mission.Oracle) mission.Build { return mission.Clean().WithOracle(o) }
	}
	reg, err := mission.NewRegistry(fakeMission{})
	if err != nil {
		panic(err)
	}
	return &Stack{
		Missions: reg,
		Scenarios: func(_ mission.Mission, files []string) ([]*mission.Scenario, string, error) {
			if len(files) > 0 {
				return nil, "", fmt.Errorf("fake: no scenario files")
			}
			return scenarios, "fake-scenarios", nil
		},
		Builds: func(_ mission.Mission, catalogue, mode string) ([]BuildSpec, string, error) {
			if catalogue != CatalogueDefault {
				return nil, "", fmt.Errorf("%s:1: mutants: fake stack has the default catalogue only", catalogue)
			}
			return builds, "fake-catalogue", nil
		},
		Contracts: func(mission.Mission, []string) (designs.ContractChecker, string, error) {
			return nil, "fake-contracts", nil
		},
		Design: func(id string) (designs.Design, bool) {
			for _, d := range fakeDesigns {
				if d.ID == id {
					return d, true
				}
			}
			return designs.Design{}, false
		},
		Write: reports.WriteAll,
	}
}

// mustDefaultProtocol is the reference mission's default protocol.
func mustDefaultProtocol(tb testing.TB) *Protocol {
	tb.Helper()
	p, err := DefaultProtocol(testMissions())
	if err != nil {
		tb.Fatal(err)
	}
	return p
}
