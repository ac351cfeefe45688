package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Verdict robustness: each hypothesis decided again under every variant
// the run includes (H1 on every variant of A, H2 on every variant of C,
// H3 on every variant of C and every other design that declares it can
// name an edge, such as D), each clause with its margin, and the cost
// clause with the weight values at which it flips.

// Clause is one clause of a hypothesis decided on one choice of designs.
type Clause struct {
	Name    string `json:"name"`
	Outcome string `json:"outcome"` // holds, fails, or the interval straddles the threshold
	// Margin is how far the bound that would make the clause hold lies
	// past its threshold: 0.12 holds with 0.12 to spare, −0.05 falls short
	// by 0.05.
	Margin F4 `json:"margin"`
	// BreakEven lists, for a cost clause, each weight whose value alone
	// would flip the clause.
	BreakEven []BreakEven `json:"break_even,omitempty"`
}

// BreakEven is the value of one cost weight at which a cost clause flips,
// every other weight as the protocol set it.
type BreakEven struct {
	Weight string `json:"weight"` // the protocol's cost_weights key
	Now    F4     `json:"now"`
	Flips  F4     `json:"flips"`
}

// RobustnessRow is one hypothesis decided on one design and baseline.
type RobustnessRow struct {
	Hypothesis string `json:"hypothesis"`
	Design     string `json:"design"`
	Baseline   string `json:"baseline,omitempty"`
	// Stated marks the designs the protocol states the hypothesis on: its
	// verdict is the one the hypotheses section reports.
	Stated  bool     `json:"stated"`
	Verdict string   `json:"verdict"`
	Clauses []Clause `json:"clauses"`
}

// marginClause decides a clause from its two margins: the bound that must
// reach the threshold for it to hold (lo) and the one whose falling short
// makes it fail (hi).
func marginClause(name string, lo, hi float64) Clause {
	c := undecided
	switch {
	case lo >= 0:
		c = holds
	case hi < 0:
		c = fails
	}
	return Clause{Name: name, Outcome: c.String(), Margin: f4(lo)}
}

// combineClauses: any failure refutes, all holding confirms, else
// inconclusive.
func combineClauses(cs []Clause) string {
	all := len(cs) > 0
	for _, c := range cs {
		if c.Outcome == fails.String() {
			return Refuted
		}
		all = all && c.Outcome == holds.String()
	}
	if all {
		return Confirmed
	}
	return Inconclusive
}

// breakEven returns, for each weight, the value at which design c's money
// per suite over baseline b's equals the threshold t, every other weight
// unchanged: from c(w) = t·b(w), linear in the one weight, w' = (t·(B −
// w·b_k) − (C − w·c_k)) / (c_k − t·b_k), with C and B the money per suite
// and c_k, b_k the counter's means per unit the weight prices. A weight
// that cannot flip the clause at a value of 0 or more is left out.
func breakEven(w CostWeights, c, b CostMeans, t float64) []BreakEven {
	C, B := w.MeanMoney(c), w.MeanMoney(b)
	var out []BreakEven
	for _, k := range costCounters {
		ck, bk := float64(*k.mean(&c))/k.per, float64(*k.mean(&b))/k.per
		now := *k.weight(&w)
		den := ck - t*bk
		if den == 0 {
			continue
		}
		flip := (t*(B-now*bk) - (C - now*ck)) / den
		if flip < 0 || math.IsInf(flip, 0) || math.IsNaN(flip) {
			continue
		}
		out = append(out, BreakEven{Weight: k.weightKey, Now: f4(now), Flips: f4(flip)})
	}
	return out
}

// breakEvenText writes "per_tool_call 0.0003 (now 0.0001), ...".
func breakEvenText(bs []BreakEven) string {
	parts := make([]string, len(bs))
	for i, x := range bs {
		parts[i] = fmt.Sprintf("%s %s (now %s)", x.Weight, fmtWeight(float64(x.Flips)), fmtWeight(float64(x.Now)))
	}
	return strings.Join(parts, ", ")
}

// fmtWeight writes a weight with enough digits to tell small prices apart.
func fmtWeight(v float64) string { return fmt.Sprintf("%.4g", v) }

// designBase is the base design of a design or variant id: what the
// design's definition recorded, else the id up to its first dot.
func designBase(r *Results, id string) string {
	for _, d := range r.Methods.Designs {
		if d.ID == id && d.Base != "" {
			return d.Base
		}
	}
	base, _, _ := strings.Cut(id, ".")
	return base
}

// variantsOf lists the run's designs whose base is base, or that also
// pass extra, in id order, with stated first when it is in the run.
func variantsOf(r *Results, stated, base string, extra func(id string) bool) []string {
	var out []string
	for _, c := range r.Cost {
		if c.Design != stated && (designBase(r, c.Design) == base || extra != nil && extra(c.Design)) {
			out = append(out, c.Design)
		}
	}
	slices.Sort(out)
	if hasDesign(r, stated) {
		out = append([]string{stated}, out...)
	}
	return out
}

// namesEdges reports whether a design declares it can name an edge (the
// kind of place a hand-off defect's ground truth is).
func namesEdges(r *Results, id string) bool {
	for _, d := range r.Methods.Designs {
		if d.ID == id {
			return slices.Contains(d.Blames, "edge")
		}
	}
	return false
}

// robustnessRows decides each hypothesis again on every variant the run
// includes. A discarded run's rows keep the figures' verdicts: the
// hypotheses section says none stands.
func robustnessRows(r *Results) []RobustnessRow {
	th := r.Thresholds.Named()
	var out []RobustnessRow
	for _, a := range variantsOf(r, th.H1Design, designBase(r, th.H1Design), nil) {
		h, cs := h1(r, th, a)
		out = append(out, RobustnessRow{Hypothesis: "H1", Design: a, Stated: a == th.H1Design, Verdict: h.Verdict, Clauses: orNoClauses(cs)})
	}
	for _, c := range variantsOf(r, th.H2Design, designBase(r, th.H2Design), nil) {
		h, cs := h2(r, th, c, th.H2Baseline)
		out = append(out, RobustnessRow{Hypothesis: "H2", Design: c, Baseline: th.H2Baseline, Stated: c == th.H2Design, Verdict: h.Verdict, Clauses: orNoClauses(cs)})
	}
	// H3 compares a design that finds with one that locates: every design
	// that declares it can name an edge stands in for C.
	locates := func(id string) bool { return id != th.H3Baseline && namesEdges(r, id) }
	for _, c := range variantsOf(r, th.H3Design, designBase(r, th.H3Design), locates) {
		h, cs := h3(r, th, c, th.H3Baseline)
		out = append(out, RobustnessRow{Hypothesis: "H3", Design: c, Baseline: th.H3Baseline, Stated: c == th.H3Design, Verdict: h.Verdict, Clauses: orNoClauses(cs)})
	}
	return out
}

func orNoClauses(cs []Clause) []Clause {
	if cs == nil {
		return []Clause{}
	}
	return cs
}

// robustnessSection is the verdict robustness table.
func robustnessSection(r *Results) *section {
	s := &section{ID: "robustness", Title: "Verdict robustness"}
	s.add(p("Each hypothesis decided again on every variant of its design the run includes (for H3, also on every design that can name an edge; the protocol's own choice marked stated), with each clause's margin: how far the bound that would make the clause hold lies past its threshold (negative: short by that much). For a cost clause, the value of each cost weight at which the verdict of that clause flips, every other weight as set."))
	t := &table{ID: "robustness-table", Header: []string{"hypothesis", "design", "baseline", "verdict", "clauses (margin)", "cost break-even"}, RowHeads: true}
	for _, x := range r.Robustness {
		d := x.Design
		if x.Stated {
			d += " (stated)"
		}
		var cls, be []string
		for _, c := range x.Clauses {
			cls = append(cls, fmt.Sprintf("%s: %s (%s)", c.Name, c.Outcome, F4(c.Margin)))
			if len(c.BreakEven) > 0 {
				be = append(be, breakEvenText(c.BreakEven))
			}
		}
		t.Rows = append(t.Rows, []tcell{textCell(x.Hypothesis), textCell(d), textCell(orDash(x.Baseline)), textCell(x.Verdict),
			textCell(orDash(strings.Join(cls, "; "))), textCell(orDash(strings.Join(be, "; ")))})
	}
	if len(t.Rows) == 0 {
		s.add(p("No hypothesis's design is in the run."))
		return s
	}
	s.add(t)
	return s
}

// hasBase reports whether the run includes a design of base id.
func hasBase(r *Results, id string) bool {
	for _, c := range r.Cost {
		if designBase(r, c.Design) == id {
			return true
		}
	}
	return false
}

// whoAndWhen cites the published reference for automated failure
// attribution as context for design D's rows, not as a target.
const whoAndWhen = "For context, not as a target: the published reference for automated failure attribution in multi-agent logs (Who&When, Zhang et al., ICML 2025) reports 53.5% agent-level and 14.2% step-level accuracy for its best method on its own tasks. Design D attributes by rules over this run's trace, and names an edge or an agent; its exact rate above is the share naming the mutant's edge or agent, its adjacent rate the share naming it or a neighbour."
