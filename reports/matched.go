package reports

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/baton-lab/baton/coordination"
)

// MatchedSchema is the schema of matched.json.
const MatchedSchema = "baton.matched/v1"

// Matched is a matched-budget comparison of a mission's multi-agent build
// with its single-agent build (baton matched): the same scenarios, trial
// seeds and slip and fault profile, the single agent once at its own needs
// and once under the multi-agent build's total budget.
type Matched struct {
	Schema         string   `json:"schema"`
	Protocol       string   `json:"protocol"`
	Mission        string   `json:"mission"`
	MissionVersion string   `json:"mission_version"`
	Seed           uint64   `json:"seed"`
	Trials         int      `json:"trials"`
	Scenarios      []string `json:"scenarios"`
	// Cores names each agent's core ("policy", or the model's name).
	Cores  map[string]string `json:"cores"`
	Budget MatchedBudget     `json:"budget"`
	// Arms are the multi-agent build, the single agent unmatched and the
	// single agent matched, in that order.
	Arms []MatchedArm `json:"arms"`
	// Comparisons are the multi-agent build against the single agent
	// unmatched, then matched.
	Comparisons []MatchedComparison `json:"comparisons"`
	Cases       []MatchedCase       `json:"cases"`
}

// MatchedBudget is the protocol's matched-budget section as the comparison
// applied it.
type MatchedBudget struct {
	Unit     string `json:"unit"`    // model_calls or tokens
	Per      string `json:"per"`     // scenario or task: what the multi-agent total is taken over
	Measure  string `json:"measure"` // mean or max: how
	Surplus  string `json:"surplus"` // none or revote
	MaxVotes int    `json:"max_votes"`
}

// MatchedArm is one system's figures over every scenario and trial.
type MatchedArm struct {
	Name   string `json:"name"`
	Agents int    `json:"agents"`
	// Budgeted is true for an arm held to the matched budget.
	Budgeted  bool       `json:"budgeted"`
	Runs      int        `json:"runs"`
	Successes int        `json:"successes"` // the mission's check passed (and, budgeted, within the budget)
	CI95      [2]float64 `json:"ci95"`      // Wilson, of the success rate
	// PassAll counts the scenarios every trial of which succeeded: pass^k
	// at k = the trials, PassK its share of the scenarios.
	PassAll    int     `json:"pass_all"`
	PassK      float64 `json:"pass_k"`
	OverBudget int     `json:"over_budget"` // runs stopped at the budget
	// Per task (run) means.
	ModelCalls float64 `json:"model_calls"`
	Tokens     float64 `json:"tokens"`
	ToolCalls  float64 `json:"tool_calls"`
	// Votes is the mean votes per decision the arm asked for (1 without
	// surplus spending).
	Votes      float64            `json:"votes"`
	Dimensions []MatchedDimension `json:"dimensions"`
	// Budget is the per-task budget the arm ran under (for an arm
	// without a cap, what it spent).
	Budget coordination.Budget `json:"budget"`
}

// MatchedDimension is one coordination dimension's verdicts over an arm's
// runs, or why it does not apply.
type MatchedDimension struct {
	Dimension     coordination.Dimension `json:"dimension"`
	Pass          int                    `json:"pass"`
	Fail          int                    `json:"fail"`
	NotApplicable int                    `json:"not_applicable"`
	// Reason says why the dimension does not apply to the arm at all.
	Reason string `json:"reason,omitempty"`
}

// MatchedComparison is the multi-agent build against one single-agent arm.
type MatchedComparison struct {
	Name   string                        `json:"name"` // unmatched or matched
	Single string                        `json:"single"`
	Budget coordination.BudgetComparison `json:"budget_comparison"`
	Paired MatchedPaired                 `json:"paired"`
}

// MatchedPaired is the paired difference, multi minus single success, by
// scenario × trial (Newcombe's paired interval), in percentage points.
type MatchedPaired struct {
	Both       int        `json:"both"`
	OnlyMulti  int        `json:"only_multi"`
	OnlySingle int        `json:"only_single"`
	Neither    int        `json:"neither"`
	Points     float64    `json:"difference_points"`
	CI95Points [2]float64 `json:"ci95_points"`
}

// MatchedCase is one scenario: its matched budget, the single agent's
// votes and each arm's successes over the trials.
type MatchedCase struct {
	Scenario  string `json:"scenario"`
	Title     string `json:"title"`
	Budget    int    `json:"budget"`
	Votes     int    `json:"votes"`
	Successes []int  `json:"successes"` // per arm
}

// MatchedPairedOf fills the paired difference's interval from its cells.
func MatchedPairedOf(both, onlyMulti, onlySingle, neither int) MatchedPaired {
	d, lo, hi := NewcombePaired(float64(both), float64(onlyMulti), float64(onlySingle), float64(neither))
	pts := func(f float64) float64 { return math.Round(f*1000)/10 + 0 } // + 0 turns -0 into 0
	return MatchedPaired{Both: both, OnlyMulti: onlyMulti, OnlySingle: onlySingle, Neither: neither,
		Points: pts(d), CI95Points: [2]float64{pts(lo), pts(hi)}}
}

// WriteMatchedMarkdown writes matched.md: the arms, the comparisons with
// what they attribute to orchestration, the coordination dimensions and
// the cases. Everything from scenarios and models is escaped.
func WriteMatchedMarkdown(out io.Writer, m *Matched) error {
	return writeMarkdownDoc(out, matchedDoc(m))
}

func matchedDoc(m *Matched) *document {
	b := m.Budget
	d := &document{Title: "Matched budgets: " + m.Mission + " " + m.MissionVersion}
	d.Intro = []block{&para{Spans: []span{text(fmt.Sprintf(
		"Protocol %s, seed %d, %d trials on %d scenarios. Budget in %s, the multi-agent build's %s total per %s; surplus: %s (at most %d votes).",
		m.Protocol, m.Seed, m.Trials, len(m.Scenarios), b.Unit, b.Measure, b.Per, b.Surplus, b.MaxVotes))}}}
	arms := &table{Header: []string{"system", "agents", "runs", "success", "95% CI", "pass^k", "over budget", "model calls", "tokens", "tool calls", "votes"}}
	for _, a := range m.Arms {
		arms.Rows = append(arms.Rows, []tcell{textCell(a.Name), intCell(a.Agents), intCell(a.Runs),
			textCell(fmt.Sprintf("%d/%d (%s)", a.Successes, a.Runs, pctOf(a.Successes, a.Runs))),
			textCell(fmt.Sprintf("[%s, %s]", pct1(a.CI95[0]), pct1(a.CI95[1]))),
			textCell(fmt.Sprintf("%s (%d/%d)", pct1(a.PassK), a.PassAll, len(m.Scenarios))), intCell(a.OverBudget),
			textCell(f1(a.ModelCalls)), textCell(f1(a.Tokens)), textCell(f1(a.ToolCalls)), textCell(f1(a.Votes))})
	}
	d.Sections = append(d.Sections, &section{Title: "Success and cost per task", Blocks: []block{arms}})
	var cmp []block
	for _, c := range m.Comparisons {
		p := c.Paired
		cmp = append(cmp, &para{Spans: []span{strong(c.Name + " (" + c.Single + "): " + string(c.Budget.Attribution)), lineBreak(),
			text(c.Budget.Claim), lineBreak(),
			text(fmt.Sprintf("Paired by scenario × trial: both %d, only multi %d, only single %d, neither %d; difference %s points, 95%% CI [%s, %s].",
				p.Both, p.OnlyMulti, p.OnlySingle, p.Neither, signedF(p.Points), signedF(p.CI95Points[0]), signedF(p.CI95Points[1])))}})
	}
	d.Sections = append(d.Sections, &section{Title: "What can be attributed to orchestration", Blocks: cmp})
	dims := &table{Header: append([]string{"dimension"}, armNames(m)...)}
	for i, dim := range coordination.AllDimensions {
		row := []tcell{textCell(string(dim))}
		for _, a := range m.Arms {
			row = append(row, textCell(dimCell(a.Dimensions, i)))
		}
		dims.Rows = append(dims.Rows, row)
	}
	d.Sections = append(d.Sections, &section{Title: "Coordination dimensions (pass/judged)", Blocks: []block{dims}})
	cases := &table{Header: append([]string{"scenario", "title", "budget", "votes"}, armNames(m)...)}
	for _, c := range m.Cases {
		row := []tcell{textCell(c.Scenario), textCell(c.Title), intCell(c.Budget), intCell(c.Votes)}
		for _, s := range c.Successes {
			row = append(row, textCell(fmt.Sprintf("%d/%d", s, m.Trials)))
		}
		cases.Rows = append(cases.Rows, row)
	}
	d.Sections = append(d.Sections, &section{Title: "Cases", Blocks: []block{cases}})
	return d
}

func armNames(m *Matched) []string {
	var out []string
	for _, a := range m.Arms {
		out = append(out, a.Name)
	}
	return out
}

func dimCell(ds []MatchedDimension, i int) string {
	if i >= len(ds) {
		return ""
	}
	x := ds[i]
	if x.Reason != "" {
		return "n.a.: " + x.Reason
	}
	if x.Pass+x.Fail == 0 {
		return "n.a."
	}
	return fmt.Sprintf("%d/%d", x.Pass, x.Pass+x.Fail)
}

func pctOf(k, n int) string {
	if n == 0 {
		return "n/a"
	}
	return pct1(float64(k) / float64(n))
}

func pct1(f float64) string { return strconv.FormatFloat(f*100, 'f', 1, 64) + "%" }

func f1(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

func signedF(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if f > 0 {
		return "+" + s
	}
	return s
}
