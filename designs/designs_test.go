package designs

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
)

func testInput(tb testing.TB, sc *mission.Scenario, m mission.Mission) Input {
	tb.Helper()
	set, err := invoiceContracts()
	if err != nil {
		tb.Fatal(err)
	}
	return Input{Mission: m, Build: mission.Clean(), Scenario: sc, Seed: 7, Contracts: set, Level: contracts.LevelSemantic}
}

// invoiceContracts returns the reference mission's default contracts.
func invoiceContracts() (*contracts.Set, error) {
	return contracts.LoadFS(invoice.Spec().Contracts, "invoice")
}

// evaluate runs a design; the reference mission's runs never fail.
func evaluate(tb testing.TB, d Design, in Input) Verdict {
	tb.Helper()
	v, err := d.Evaluate(in)
	if err != nil {
		tb.Fatalf("design %s: %v", d.ID, err)
	}
	return v
}

func scenarios(tb testing.TB) []*mission.Scenario {
	tb.Helper()
	scs, _, err := invoice.DefaultScenarios()
	if err != nil {
		tb.Fatal(err)
	}
	return scs
}

// variants are the designs and variants the tests run: every base and
// every parameter value at least once.
func variants(tb testing.TB) []Design {
	tb.Helper()
	var out []Design
	for _, id := range []string{"A", "A.wire", "A.recorded", "B", "C", "C.wire", "C.schema", "D"} {
		d, err := Lookup(id)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

// On the clean build with zero slips and zero faults no design flags any
// scenario: a flag there would be a false alarm built into the harness.
func TestCleanBuildUnflagged(t *testing.T) {
	m := invoice.New()
	for _, sc := range scenarios(t) {
		for _, d := range variants(t) {
			v := evaluate(t, d, testInput(t, sc, m))
			if v.Flagged {
				t.Errorf("design %s flags clean scenario %s: %+v", d.ID, sc.ID, v.Findings)
			}
		}
	}
}

// countingChecker counts the contract checks a design asks for.
type countingChecker struct {
	ContractChecker
	checks int
}

func (c *countingChecker) Check(edge string, raw []byte, level contracts.Level) []contracts.Violation {
	c.checks++
	return c.ContractChecker.Check(edge, raw, level)
}

// countingMission wraps a mission and sums the cost of every run it was
// asked to execute, so a test can tie a verdict's counters to execution.
type countingMission struct {
	mission.Mission
	cost        mission.Cost
	runs, cores int
}

func (c *countingMission) Run(ctx context.Context, b mission.Build, sc *mission.Scenario, seed uint64, env mission.Env) (*mission.Run, error) {
	r, err := c.Mission.Run(ctx, b, sc, seed, env)
	if err != nil {
		return nil, err
	}
	c.runs++
	c.cost.Add(r.Cost)
	return r, nil
}

func (c *countingMission) RunCore(ctx context.Context, b mission.Build, a mission.Agent, sc *mission.Scenario, in mission.CoreInput, seed uint64, env mission.Env) (*mission.CoreRun, error) {
	r, err := c.Mission.RunCore(ctx, b, a, sc, in, seed, env)
	if err != nil {
		return nil, err
	}
	c.cores++
	c.cost.Add(r.Cost)
	return r, nil
}

// Each design's cost counters are the sum of what it executed: the runs
// (counted by the mission) and the contract checks (counted by the
// checker). A design that reported a fixed or estimated cost would fail
// here.
func TestCostIsWhatRan(t *testing.T) {
	scs := scenarios(t)
	for _, d := range variants(t) {
		t.Run(d.ID, func(t *testing.T) {
			var total, executed mission.Cost
			for _, sc := range scs[:6] {
				cm := &countingMission{Mission: invoice.New()}
				in := testInput(t, sc, cm)
				cc := &countingChecker{ContractChecker: in.Contracts}
				in.Contracts = cc
				in.Golden, _ = PrepareGolden(invoice.New(), sc)
				v := evaluate(t, d, in)
				total.Add(v.Cost)
				executed.Add(cm.cost)
				executed.ContractChecks += cc.checks
				if cm.runs+cm.cores == 0 {
					t.Fatalf("design %s executed nothing on %s", d.ID, sc.ID)
				}
			}
			if diff := cmp.Diff(executed, total); diff != "" {
				t.Errorf("verdict cost differs from executed cost (-executed +verdict):\n%s", diff)
			}
			if total.ModelCalls == 0 || total.SandboxResets() == 0 || total.Parses+total.Emits == 0 {
				t.Errorf("cost %+v: no model calls, sandbox resets or messages counted", total)
			}
		})
	}
}

// C costs what A costs plus the contract checks it executes, on clean and
// mutated builds: it runs A's very runs and checks every message emitted
// or parsed in them, one check each.
func TestContractsCostAPlusChecks(t *testing.T) {
	a, c := variants(t)[0], PerAgentContracts
	for _, b := range []mission.Build{mission.Clean(), mission.NewBuild(hook{emit: dropField("intake->action", "currency")}, nil)} {
		for _, sc := range scenarios(t)[:8] {
			in := testInput(t, sc, invoice.New())
			in.Build = b
			va := evaluate(t, a, in)
			cc := &countingChecker{ContractChecker: in.Contracts}
			in.Contracts = cc
			vc := evaluate(t, c, in)
			want := va.Cost
			want.ContractChecks += cc.checks
			if diff := cmp.Diff(want, vc.Cost); diff != "" {
				t.Errorf("%s: C's cost is not A's plus its %d checks (-want +got):\n%s", sc.ID, cc.checks, diff)
			}
			if cc.checks != vc.Cost.Parses+vc.Cost.Emits {
				t.Errorf("%s: %d contract checks, want one per message parsed or emitted (%d)", sc.ID, cc.checks, vc.Cost.Parses+vc.Cost.Emits)
			}
		}
	}
}

// Doubling the scenarios doubles the model calls of each design's suite.
func TestCostScalesWithSuite(t *testing.T) {
	scs := scenarios(t)[:5]
	suiteCost := func(d Design, suite []*mission.Scenario) mission.Cost {
		var c mission.Cost
		for _, sc := range suite {
			c.Add(evaluate(t, d, testInput(t, sc, invoice.New())).Cost)
		}
		return c
	}
	for _, d := range variants(t) {
		one := suiteCost(d, scs)
		two := suiteCost(d, append(append([]*mission.Scenario{}, scs...), scs...))
		if two.ModelCalls != 2*one.ModelCalls || two.ToolCalls != 2*one.ToolCalls || two.SandboxResets() != 2*one.SandboxResets() ||
			two.ContractChecks != 2*one.ContractChecks {
			t.Errorf("design %s: suite %+v, doubled suite %+v", d.ID, one, two)
		}
	}
}

// B runs the whole mission and nothing else; A and C run cores alone and
// never the whole mission (with golden inputs).
func TestWhatEachDesignExecutes(t *testing.T) {
	sc := scenarios(t)[0]
	for _, tc := range []struct {
		design       Design
		wantRuns     int
		wantCoresMin int
	}{
		{PerAgent, 0, 3},
		{EndToEnd, 1, 0},
		{PerAgentContracts, 0, 3},
		{TraceAttribution, 1, 0},
	} {
		cm := &countingMission{Mission: invoice.New()}
		in := testInput(t, sc, cm)
		in.Golden, _ = PrepareGolden(invoice.New(), sc)
		evaluate(t, tc.design, in)
		if cm.runs != tc.wantRuns || cm.cores < tc.wantCoresMin || (tc.wantCoresMin == 0 && cm.cores != 0) {
			t.Errorf("design %s: %d whole runs, %d core runs; want %d whole runs and at least %d core runs",
				tc.design.ID, cm.runs, cm.cores, tc.wantRuns, tc.wantCoresMin)
		}
	}
}

func TestRankBlame(t *testing.T) {
	f := func(rule string, loc mission.Location) Finding { return Finding{Rule: rule, Location: loc} }
	for _, tc := range []struct {
		name     string
		findings []Finding
		want     []mission.Location
	}{
		{"most findings first", []Finding{f("a", "intake"), f("b", "boundary"), f("c", "boundary")}, []mission.Location{"boundary", "intake"}},
		{"edge before agent on a tie", []Finding{f("a", "intake"), f("contract.enum", "intake->action")}, []mission.Location{"intake->action", "intake"}},
		{"derived findings rank behind root ones", []Finding{
			f("contract.derived.enum", "intake->action"), f("contract.derived.rule", "intake->action"), f("trajectory.exact", "intake"),
		}, []mission.Location{"intake", "intake->action"}},
		{"no findings", nil, []mission.Location{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, rankBlame(tc.findings)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestHardRules(t *testing.T) {
	call := func(name string) mission.ToolCall { return mission.ToolCall{Name: name} }
	for _, tc := range []struct {
		name  string
		agent mission.Agent
		calls []mission.ToolCall
		want  []string
	}{
		{"clean payment", invoice.Boundary, []mission.ToolCall{call("lookup_supplier"), call("approve_invoice"), call("schedule_payment")}, nil},
		{"payment without look-up", invoice.Boundary, []mission.ToolCall{call("approve_invoice"), call("schedule_payment")}, []string{"hard.lookup_before_write"}},
		{"payment without approval", invoice.Boundary, []mission.ToolCall{call("lookup_supplier"), call("schedule_payment")}, []string{"hard.payment_without_approval"}},
		{"forbidden tool", invoice.Intake, []mission.ToolCall{call("escalate")}, []string{"hard.forbidden_tool"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, h := range hardRules(invoice.Spec(), tc.agent, tc.calls) {
				got = append(got, h.rule)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// Designs are blind: nothing under designs/ depends on the mutants package.
func TestDesignsDoNotImportMutants(t *testing.T) {
	goBin, err := exec.LookPath("go") // go test puts its own go first on PATH
	if err != nil {
		t.Fatalf("no go command to list the dependencies with: %v", err)
	}
	out, err := exec.Command(goBin, "list", "-deps", "-test", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasSuffix(pkg, "/mutants") || strings.Contains(pkg, "/mutants/") || strings.HasSuffix(pkg, "/experiment") {
			t.Errorf("designs depends on %s: designs must not see which mutant is on", pkg)
		}
	}
}

// With inputs recorded from an integrated run of the clean build, design A
// sees what the golden run saw and flags nothing, at the cost of the extra
// integrated run.
func TestRecordedInputsOnCleanBuild(t *testing.T) {
	m := invoice.New()
	for _, sc := range scenarios(t)[:8] {
		in := testInput(t, sc, m)
		golden := evaluate(t, PerAgent, in)
		in.Inputs = InputsRecorded
		recorded := evaluate(t, PerAgent, in)
		if recorded.Flagged {
			t.Errorf("%s: recorded inputs flag the clean build: %+v", sc.ID, recorded.Findings)
		}
		if recorded.Cost.EnvironmentResets != golden.Cost.EnvironmentResets+1 {
			t.Errorf("%s: recorded inputs cost %d sandbox resets, golden %d; want one more for the integrated run",
				sc.ID, recorded.Cost.EnvironmentResets, golden.Cost.EnvironmentResets)
		}
	}
}

// Design A names the mission's own hard rules in its description.
func TestPerAgentDocFor(t *testing.T) {
	spec := invoice.Spec()
	want := "hard rules (permitted tools, look up before write, no payment without approval)."
	if got := PerAgent.DocFor(spec); !strings.Contains(got, want) {
		t.Errorf("PerAgent.DocFor(invoice) = %q, want it to contain %q", got, want)
	}
	bare := &mission.Spec{Agents: []mission.AgentSpec{{Name: "a", Rules: []mission.Rule{{ID: "r1"}, {ID: "r1"}}}, {Name: "b"}}}
	if got, want := PerAgent.DocFor(bare), "(permitted tools, r1)."; !strings.Contains(got, want) {
		t.Errorf("PerAgent.DocFor(rules without a doc) = %q, want it to contain %q", got, want)
	}
	if got := EndToEnd.DocFor(spec); got != EndToEnd.Doc {
		t.Errorf("EndToEnd.DocFor = %q, want its Doc", got)
	}
}
