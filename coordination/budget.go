package coordination

import (
	"fmt"
	"math"
	"strings"

	"github.com/baton-lab/baton/internal/binom"
)

// BudgetSummary is one system's success on a task set under a total
// per-task budget.
type BudgetSummary struct {
	System    string `json:"system"`
	Agents    int    `json:"agents"`
	Successes int    `json:"successes"`
	N         int    `json:"n"` // tasks with a judged outcome
	// Budget is the total per-task budget the system ran under (for a
	// system without a cap, what it spent): the quantity a comparison is
	// matched on.
	Budget Budget `json:"budget"`
}

// Attribution is what a matched-budget comparison lets one attribute to
// orchestration.
type Attribution string

// The attributions.
const (
	// AttrUnmatched: the budgets differ, so the difference mixes
	// orchestration with inference budget; nothing is attributable.
	AttrUnmatched Attribution = "unmatched"
	// AttrNoAdvantage: matched budgets, and the multi-agent system is not
	// ahead.
	AttrNoAdvantage Attribution = "no_advantage"
	// AttrInconclusive: matched budgets, the multi-agent system is ahead,
	// but the interval of the difference includes zero.
	AttrInconclusive Attribution = "inconclusive"
	// AttrAdvantage: matched budgets, and the interval of the difference
	// lies above zero.
	AttrAdvantage Attribution = "orchestration_advantage"
)

// AllAttributions lists every attribution.
var AllAttributions = []Attribution{AttrUnmatched, AttrNoAdvantage, AttrInconclusive, AttrAdvantage}

// String returns the attribution's name.
func (a Attribution) String() string { return string(a) }

// BudgetComparison is a multi-agent system against a single agent, and
// what the comparison can and cannot attribute to orchestration.
type BudgetComparison struct {
	Multi   BudgetSummary `json:"multi"`
	Single  BudgetSummary `json:"single"`
	Matched bool          `json:"matched"` // the same total budget on every budgeted resource
	// DifferencePoints is multi minus single success, in percentage points,
	// with its 95% interval (Newcombe's hybrid score, independent samples).
	DifferencePoints float64     `json:"difference_points"`
	CI95Points       [2]float64  `json:"ci95_points"`
	Attribution      Attribution `json:"attribution"`
	Claim            string      `json:"claim"`            // what can be said
	CannotAttribute  []string    `json:"cannot_attribute"` // what this comparison does not show
}

// CompareBudgets compares a multi-agent system with a single agent the way
// a matched-budget comparison must: only under the same total budget can a
// difference be attributed to orchestration, and then only within its
// uncertainty and for these harnesses and tasks.
func CompareBudgets(multi, single BudgetSummary) BudgetComparison {
	c := BudgetComparison{Multi: multi, Single: single, Matched: sameBudget(multi.Budget, single.Budget)}
	d, lo, hi := binom.NewcombeDiff(multi.Successes, multi.N, single.Successes, single.N)
	c.DifferencePoints, c.CI95Points = points(d), [2]float64{points(lo), points(hi)}
	c.CannotAttribute = []string{
		"a paired difference over the same tasks and seeds (the interval treats the two samples as independent)",
		"delegation, coverage, merge quality, latency and failure slices: the rest of the evaluation vector",
		"single- or multi-agent systems in general: the result concerns these harnesses and tasks",
	}
	rates := fmt.Sprintf("%s %s vs %s %s", multi.System, pct(multi.Successes, multi.N), single.System, pct(single.Successes, single.N))
	switch {
	case !c.Matched:
		c.Attribution = AttrUnmatched
		c.Claim = fmt.Sprintf("budgets not matched (%s: %s; %s: %s): the %s-point difference (%s) mixes orchestration with inference budget; no orchestration advantage can be attributed",
			multi.System, multi.Budget, single.System, single.Budget, signed(c.DifferencePoints), rates)
	case c.DifferencePoints <= 0:
		c.Attribution = AttrNoAdvantage
		lead := fmt.Sprintf("the matched single agent is %s points higher", num(-c.DifferencePoints))
		if c.DifferencePoints == 0 {
			lead = "both complete the same share"
		}
		c.Claim = fmt.Sprintf("under the matched budget (%s) %s (%s; difference %s points, 95%% CI %s): no orchestration advantage can be claimed",
			multi.Budget, lead, rates, signed(c.DifferencePoints), c.interval())
	case c.CI95Points[0] <= 0:
		c.Attribution = AttrInconclusive
		c.Claim = fmt.Sprintf("under the matched budget (%s) the multi-agent system is %s points higher (%s), but the 95%% CI %s includes 0: no orchestration advantage is established",
			multi.Budget, num(c.DifferencePoints), rates, c.interval())
	default:
		c.Attribution = AttrAdvantage
		c.Claim = fmt.Sprintf("under the matched budget (%s) the multi-agent system is %s points higher (%s, 95%% CI %s): attributable to orchestration for these harnesses and tasks",
			multi.Budget, num(c.DifferencePoints), rates, c.interval())
	}
	return c
}

func (c BudgetComparison) interval() string {
	return fmt.Sprintf("[%s, %s]", signed(c.CI95Points[0]), signed(c.CI95Points[1]))
}

// sameBudget reports whether a and b budget the same resources at the same
// totals (to a relative 1e-9).
func sameBudget(a, b Budget) bool {
	ra, rb := a.resources(Usage{}), b.resources(Usage{})
	for i := range ra {
		if ra[i].limited != rb[i].limited {
			return false
		}
		if ra[i].limited && math.Abs(ra[i].limit-rb[i].limit) > 1e-9*math.Max(math.Abs(ra[i].limit), math.Abs(rb[i].limit)) {
			return false
		}
	}
	return true
}

// String formats the budgeted resources as "cost_usd 1.2, tokens 40000".
func (b Budget) String() string {
	var parts []string
	for _, r := range b.resources(Usage{}) {
		if r.limited {
			parts = append(parts, r.name+" "+num(r.limit))
		}
	}
	if len(parts) == 0 {
		return "no budget"
	}
	return strings.Join(parts, ", ")
}

// points turns a difference of proportions into percentage points, rounded
// to a tenth.
func points(d float64) float64 { return math.Round(d*1000)/10 + 0 } // + 0 turns -0 into 0

func pct(k, n int) string {
	if n == 0 {
		return "n/a (n=0)"
	}
	return fmt.Sprintf("%s%% (%d/%d)", num(points(float64(k)/float64(n))), k, n)
}

func signed(f float64) string {
	if f > 0 {
		return "+" + num(f)
	}
	return num(f)
}
