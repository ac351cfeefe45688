package reports

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// costResults is hypoResults with C's and B's suite costs given counter
// by counter, priced by w.
func costResults(w CostWeights, c, b CostMeans) *Results {
	r := hypoResults(w.MeanMoney(c), w.MeanMoney(b), group{class: "context_loss", m: 40, pair: Pair{Both: 20}, exact: Pair{OnlyB: 20}})
	r.CostWeights = w
	for i := range r.Cost {
		switch r.Cost[i].Design {
		case "B":
			r.Cost[i].PerSuite = b
		case "C":
			r.Cost[i].PerSuite = c
		}
	}
	return r
}

// H2's cost clause flips where a hand computation says: C runs 280
// fixture resets, 300 tool calls and 500 contract checks per suite, B 64
// environment resets and 300 tool calls. With per_tool_call 0.0001,
// per_environment_reset 0.0005, per_fixture_reset 0.00005 and
// per_contract_check 0.000001: C = 0.03 + 0.014 + 0.0005 = 0.0445, B =
// 0.03 + 0.032 = 0.062, ratio 0.7177 > 0.5: fails. Lowering the fixture
// weight to f gives 0.0305 + 280f = 0.031, so f = 0.0005/280; raising the
// environment weight to e gives 0.0445 = 0.5·(0.03 + 64e), so e =
// 0.0295/32; lowering the tool-call weight to t gives 0.0145 + 300t =
// 0.016 + 150t, so t = 0.0015/150; the contract-check weight would have
// to go below 0.
func TestBreakEvenByHand(t *testing.T) {
	w := CostWeights{PerToolCall: 0.0001, PerEnvironmentReset: 0.0005, PerFixtureReset: 0.00005, PerContractCheck: 0.000001}
	c := CostMeans{ToolCalls: 300, FixtureResets: 280, ContractChecks: 500}
	b := CostMeans{ToolCalls: 300, EnvironmentResets: 64}
	r := costResults(w, c, b)
	h := verdict(t, r, "H2")
	if h.Verdict != Refuted || !strings.Contains(h.Why, "= 0.7177 vs at most 0.5: fails") {
		t.Fatalf("H2 = %s (%s), want refuted by cost 0.7177", h.Verdict, h.Why)
	}
	want := map[string]float64{
		"per_tool_call":         0.0015 / 150,
		"per_environment_reset": 0.0295 / 32,
		"per_fixture_reset":     0.0005 / 280,
	}
	_, cls := h2(r, r.Thresholds.Named(), "C", "B")
	var cost Clause
	for _, cl := range cls {
		if strings.HasPrefix(cl.Name, "cost ratio") {
			cost = cl
		}
	}
	got := map[string]float64{}
	for _, x := range cost.BreakEven {
		got[x.Weight] = float64(x.Flips)
		if x.Weight == "per_fixture_reset" && float64(x.Now) != 0.00005 {
			t.Errorf("per_fixture_reset now %v, want 0.00005", x.Now)
		}
	}
	// per_contract_check would have to go negative; the other counters
	// are zero in both.
	if d := cmp.Diff(want, got, cmp.Comparer(func(x, y float64) bool { return math.Abs(x-y) < 1e-12 })); d != "" {
		t.Errorf("break-even weights (-want +got):\n%s", d)
	}
	if !strings.Contains(h.Why, "it flips at per_tool_call 1e-05 (now 0.0001)") {
		t.Errorf("H2's why does not print the break-even weights: %s", h.Why)
	}
	// At a break-even value the ratio is the threshold.
	for k, v := range want {
		w2 := w
		p, _ := w2.Weight(k)
		*p = v
		if ratio := w2.MeanMoney(c) / w2.MeanMoney(b); math.Abs(ratio-0.5) > 1e-9 {
			t.Errorf("%s = %v: ratio %v, want 0.5", k, v, ratio)
		}
	}
}

// Every variant of a hypothesis's design in the run gets its own row; the
// hypotheses themselves are decided on the designs the protocol names.
func TestRobustnessRows(t *testing.T) {
	r := hypoResults(1, 10, group{class: "context_loss", m: 40, pair: Pair{Both: 20}, exact: Pair{OnlyB: 20}})
	// A variant of C that detects nothing: paired rows B vs C.schema (in
	// the harmful view, which the hypotheses read).
	for _, pm := range r.PairedByMutantHarmful {
		pm.B = "C.schema"
		pm.Both, pm.OnlyA, pm.OnlyB = 0, pm.Both+pm.OnlyA, 0
		pm.ExactBoth, pm.ExactOnlyA, pm.ExactOnlyB, pm.ExactNeither = 0, 0, 0, 0
		r.PairedByMutantHarmful = append(r.PairedByMutantHarmful, pm)
	}
	r.PairedHarmful = pairedRows([]string{"B", "C", "C.schema"}, []string{"context_loss"}, r.PairedByMutantHarmful)
	r.Cost = append(r.Cost, CostRow{Design: "C.schema", MoneyPerSuite: 1}, CostRow{Design: "A.wire"}, CostRow{Design: "D", MoneyPerSuite: 10})
	r.Methods.Designs = []DesignInfo{{ID: "D", Base: "D", Blames: []string{"agent", "edge"}}, {ID: "B", Base: "B", Blames: []string{"agent"}}}
	rows := robustnessRows(r)
	type key struct{ H, D, Verdict string }
	var got []key
	for _, x := range rows {
		got = append(got, key{x.Hypothesis, x.Design, x.Verdict})
		if x.Stated != (x.Design == "A" || x.Design == "C") {
			t.Errorf("%s on %s: stated %v", x.Hypothesis, x.Design, x.Stated)
		}
	}
	want := []key{
		{"H1", "A", Inconclusive}, {"H1", "A.wire", Inconclusive},
		{"H2", "C", Confirmed}, {"H2", "C.schema", Refuted},
		{"H3", "C", Confirmed}, {"H3", "C.schema", Inconclusive}, {"H3", "D", Inconclusive},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}

	// Naming C.schema as H2's design decides H2 on it.
	r.Thresholds.H2Design = "C.schema"
	if h := verdict(t, r, "H2"); h.Verdict != Refuted || !strings.Contains(h.Statement, "design C.schema's hand-off detection") {
		t.Errorf("H2 on C.schema = %s (%s)", h.Verdict, h.Statement)
	}
}

// A design that declares it cannot blame an edge is named in the methods,
// with what it settles, whatever its flagged items happened to blame.
func TestByDefinitionFromDeclaredBlames(t *testing.T) {
	r := hypoResults(0, 0)
	r.Methods.Designs = []DesignInfo{
		{ID: "B", Base: "B", Doc: "end to end", Blames: []string{"agent"}},
		{ID: "D", Base: "D", Doc: "attribution", Blames: []string{"agent", "edge"}},
	}
	r.Blames = []BlameRow{{Design: "B"}, {Design: "D", Flagged: 3, Agent: 3}}
	got := byDefinition(r)
	if len(got) != 1 || !strings.Contains(got[0], "Design B cannot name an edge: its definition blames only agent") ||
		!strings.Contains(got[0], "H2's localisation clause compares C with a floor B cannot rise from") {
		t.Errorf("byDefinition = %q", got)
	}
}

// The report shows the robustness table, and cites the published
// attribution reference beside the localisation only when D ran.
func TestRobustnessAndAttributionInReport(t *testing.T) {
	r := hypoResults(1, 10, group{class: "context_loss", m: 40, pair: Pair{Both: 20}, exact: Pair{OnlyB: 20}})
	r.Robustness = robustnessRows(r)
	md := string(Markdown(r))
	if !strings.Contains(md, "## Verdict robustness") || !strings.Contains(md, "| H2 | C (stated) | B | confirmed |") {
		t.Errorf("report.md has no robustness row for H2 on C:\n%s", md)
	}
	if strings.Contains(md, "ICML 2025") {
		t.Error("report.md cites Who&When without design D in the run")
	}
	r.Cost = append(r.Cost, CostRow{Design: "D"})
	if md := string(Markdown(r)); !strings.Contains(md, "When, Zhang et al., ICML 2025") || !strings.Contains(md, "53.5% agent-level and 14.2% step-level") {
		t.Error("report.md does not cite Who&When beside D's localisation")
	}
}
