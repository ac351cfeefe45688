package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"

	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/internal/version"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/reports"
)

// Matched is the protocol's matched-budget section: how baton matched
// compares the mission's multi-agent build with its single-agent build.
// Every key is optional; the defaults are model_calls, scenario, mean,
// none and 5.
type Matched struct {
	// Unit is what the budget is counted in: model_calls or tokens.
	Unit string `json:"unit,omitempty"`
	// Per is what the multi-agent build's total is averaged over to give
	// the budget: scenario (its mean over the trials of each scenario,
	// each scenario's own budget) or task (its mean over every scenario
	// and trial, one budget for all).
	Per string `json:"per,omitempty"`
	// Measure is how the multi-agent totals are summed up into the
	// budget: mean, or max (the costliest trial, so that a team whose
	// failures cut work short does not lower the budget below what its
	// successful runs spend).
	Measure string `json:"measure,omitempty"`
	// Surplus is what the single agent does with budget beyond its needs:
	// none, or revote (re-ask each decision, taking the majority, as many
	// times as its mean need fits in the budget, at most MaxVotes, an odd
	// number, extra votes stopping at the budget; see mission.Single).
	Surplus string `json:"surplus,omitempty"`
	// MaxVotes bounds revote's votes per decision.
	MaxVotes int `json:"max_votes,omitempty"`
}

// The matched-budget settings.
const (
	MatchedPerScenario = "scenario"
	MatchedPerTask     = "task"
	MeasureMean        = "mean"
	MeasureMax         = "max"
	SurplusNone        = "none"
	SurplusRevote      = "revote"
)

// withDefaults returns m with its unset keys at their defaults.
func (m Matched) withDefaults() Matched {
	m.Unit = cmpOr(m.Unit, mission.UnitModelCalls.String())
	m.Per = cmpOr(m.Per, MatchedPerScenario)
	m.Measure = cmpOr(m.Measure, MeasureMean)
	m.Surplus = cmpOr(m.Surplus, SurplusNone)
	if m.MaxVotes == 0 {
		m.MaxVotes = 5
	}
	return m
}

// unit returns the mission's budget unit m counts in.
func (m Matched) unit() mission.BudgetUnit {
	for _, u := range mission.AllBudgetUnits {
		if u.String() == m.Unit {
			return u
		}
	}
	return mission.UnitModelCalls
}

// checkMatched checks the matched-budget section.
func checkMatched(d *input.Decoder, m Matched) {
	var units []string
	for _, u := range mission.AllBudgetUnits {
		units = append(units, u.String())
	}
	if d.Has("matched.unit") {
		d.OneOf("matched.unit", "unit", m.Unit, units)
	}
	if d.Has("matched.per") {
		d.OneOf("matched.per", "average", m.Per, []string{MatchedPerScenario, MatchedPerTask})
	}
	if d.Has("matched.measure") {
		d.OneOf("matched.measure", "measure", m.Measure, []string{MeasureMean, MeasureMax})
	}
	if d.Has("matched.surplus") {
		d.OneOf("matched.surplus", "surplus", m.Surplus, []string{SurplusNone, SurplusRevote})
	}
	d.Check(!d.Has("matched.max_votes") || m.MaxVotes >= 1 && m.MaxVotes%2 == 1, "matched.max_votes", "%d: want an odd number, at least 1", m.MaxVotes)
}

// The arms of a matched comparison, in order.
const (
	armMulti = iota
	armSingle
	armMatched
	arms
)

var armNames = [arms]string{"multi-agent", "single agent", "single agent, matched"}

// armRun is one run of an arm: its success, cost and coordination
// verdicts.
type armRun struct {
	ok, over bool
	cost     mission.Cost
	dims     []coordination.Verdict
}

// matchedRun holds a comparison's state: the plan, and per arm, scenario
// and trial, its runs.
type matchedRun struct {
	pl     *plan
	mb     Matched
	trials int
	runs   [arms][][]armRun
	budget []int // per scenario, the matched budget
	votes  []int // per scenario, the single agent's votes when matched
	need   []int // per scenario, its mean need at its own needs, rounded up
}

// RunMatched runs the comparison of p's mission's multi-agent build with
// its single-agent build and writes it into the folder dir (see
// [WriteMatched]): every scenario and trial (trials: the protocol's when
// 0) through the multi-agent clean build, the single agent at its own
// needs, and the single agent under the multi-agent build's total budget,
// with the protocol's cores, slip profile and faults. Model answers are
// cached in dir's model-cache/.
func RunMatched(ctx context.Context, p *Protocol, st *Stack, dir string, trials int) (*reports.Matched, error) {
	pl, err := resolve(p, st, p.Path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("matched: %w", err)
	}
	if err := pl.bindCores(dir, coreOptions{ctx: ctx, check: true}); err != nil {
		return nil, err
	}
	defer pl.cores.close()
	mr := &matchedRun{pl: pl, mb: p.Matched.withDefaults(), trials: orInt(trials, p.Trials)}
	res, err := mr.run(ctx)
	if err != nil {
		return nil, err
	}
	man := MatchedManifest{Schema: MatchedManifestSchema, Baton: version.String(), Go: runtime.Version(),
		Protocol: ManifestProtocol{Name: p.Name, Path: matchedPath(p.Source, p.Dir), SHA256: p.SHA256},
		Mission:  MissionRef{Name: res.Mission, Version: res.MissionVersion}, Seed: res.Seed, Trials: res.Trials,
		Models: pl.cores.provenance(nil)}
	if err := WriteMatched(dir, p.Raw, man, res); err != nil {
		return nil, err
	}
	return res, nil
}

func orInt(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

// run runs the three arms in turn, each budget set from the arms before
// it, and returns the comparison.
func (mr *matchedRun) run(ctx context.Context) (*reports.Matched, error) {
	if err := mr.arm(ctx, armMulti); err != nil {
		return nil, err
	}
	mr.budgets()
	if err := mr.arm(ctx, armSingle); err != nil {
		return nil, err
	}
	mr.plan()
	if err := mr.arm(ctx, armMatched); err != nil {
		return nil, err
	}
	return mr.result(), nil
}

// env returns the run environment of arm on scenario si.
func (mr *matchedRun) env(arm, si int) mission.Env {
	env := mr.pl.env
	switch arm {
	case armSingle:
		env.Single = &mission.Single{}
	case armMatched:
		env.Single = &mission.Single{Budget: mission.Budget{Unit: mr.mb.unit(), Limit: mr.budget[si]}, Votes: mr.votes[si], Need: mr.need[si]}
	}
	return env
}

// arm runs one arm over every scenario and trial. Its records are derived
// with the plan's deriver, as a sweep's are: the arms' runs share most of
// their hand-offs.
func (mr *matchedRun) arm(ctx context.Context, arm int) error {
	pl := mr.pl
	m := pl.mission
	mr.runs[arm] = make([][]armRun, len(pl.scenarios))
	for si, sc := range pl.scenarios {
		env := mr.env(arm, si)
		for t := 1; t <= mr.trials; t++ {
			run, err := m.Run(ctx, mission.Clean(), sc, TrialSeed(pl.seed, sc.ID, t), env)
			if err != nil {
				return fmt.Errorf("matched %s: %w", armNames[arm], err)
			}
			ar := armRun{ok: len(m.Check(sc, run.End)) == 0, cost: run.Cost}
			if env.Single != nil && env.Single.Budget.Exceeded(run.Cost) {
				ar.ok, ar.over = false, true
			}
			ok := ar.ok
			rec, err := pl.coord.Derive(coordination.Source{Trial: ItemID(armNames[arm], ObservationDesign, sc.ID, t),
				System: armNames[arm], Mission: m, Scenario: sc, Trace: run.Trace, Cost: run.Cost, Success: &ok})
			if err != nil {
				return fmt.Errorf("matched %s: %w", armNames[arm], err)
			}
			for _, r := range coordination.ScoreRecord(rec).Dimensions {
				ar.dims = append(ar.dims, r.Verdict)
			}
			run.Trace.Recycle()
			mr.runs[arm][si] = append(mr.runs[arm][si], ar)
		}
	}
	return nil
}

// used returns what a run spent in the budget's unit.
func (mr *matchedRun) used(c mission.Cost) int {
	return mission.Budget{Unit: mr.mb.unit()}.Used(c)
}

// mean returns the mean usage of arm's runs on scenario si, or on every
// scenario when si < 0.
func (mr *matchedRun) mean(arm, si int) float64 {
	sum, _, n := mr.usage(arm, si)
	if n == 0 {
		return 0
	}
	return float64(sum) / float64(n)
}

// usage returns the total and the largest usage of arm's runs on scenario
// si (every scenario when si < 0), and how many runs there are.
func (mr *matchedRun) usage(arm, si int) (sum, most, n int) {
	for i, rs := range mr.runs[arm] {
		if si >= 0 && i != si {
			continue
		}
		for _, r := range rs {
			u := mr.used(r.cost)
			sum, most, n = sum+u, max(most, u), n+1
		}
	}
	return sum, most, n
}

// budgets sets each scenario's matched budget: the multi-agent build's
// mean (rounded) or largest total, per scenario or over the task set.
func (mr *matchedRun) budgets() {
	mr.budget = make([]int, len(mr.pl.scenarios))
	for si := range mr.budget {
		at := si
		if mr.mb.Per == MatchedPerTask {
			at = -1
		}
		b := int(math.Round(mr.mean(armMulti, at)))
		if mr.mb.Measure == MeasureMax {
			_, b, _ = mr.usage(armMulti, at)
		}
		mr.budget[si] = max(1, b)
	}
}

// plan sets the single agent's votes on each scenario: with surplus
// revote, as many as its mean need on the scenario fits in the
// scenario's budget (an odd number, at most max_votes); else one. Its need
// is passed on, for the agent to keep what its own turns need out of what
// it votes with.
func (mr *matchedRun) plan() {
	mr.votes = make([]int, len(mr.pl.scenarios))
	mr.need = make([]int, len(mr.pl.scenarios))
	for si := range mr.votes {
		v := 1
		need := mr.mean(armSingle, si)
		mr.need[si] = int(math.Ceil(need))
		if mr.mb.Surplus == SurplusRevote && need > 0 {
			v = min(mr.mb.MaxVotes, int(float64(mr.budget[si])/need))
			if v%2 == 0 {
				v--
			}
		}
		mr.votes[si] = max(1, v)
	}
}

// notForOne are the dimensions that judge what passes between agents: for
// one agent there is nothing to judge, and why.
var notForOne = map[coordination.Dimension]string{
	coordination.DimDelegation:       "one agent: nothing is delegated",
	coordination.DimCoverage:         "one agent: no subtask is assigned to another",
	coordination.DimInformationKept:  "one agent: no hand-off",
	coordination.DimStateContention:  "one agent: no other agent's writes",
	coordination.DimMergeCorrectness: "one agent: no inputs from other agents to merge",
}

// result computes the comparison's figures.
func (mr *matchedRun) result() *reports.Matched {
	pl := mr.pl
	spec := pl.mission.Spec()
	out := &reports.Matched{Schema: reports.MatchedSchema, Protocol: pl.proto.Name, Mission: spec.Name, MissionVersion: spec.Version,
		Seed: pl.seed, Trials: mr.trials, Cores: map[string]string{},
		Budget: reports.MatchedBudget{Unit: mr.mb.Unit, Per: mr.mb.Per, Measure: mr.mb.Measure, Surplus: mr.mb.Surplus, MaxVotes: mr.mb.MaxVotes}}
	for _, a := range spec.AgentNames() {
		c := pl.proto.CoreOf(a)
		out.Cores[string(a)] = cmpOr(c.Model, c.Core)
	}
	for si, sc := range pl.scenarios {
		out.Scenarios = append(out.Scenarios, sc.ID)
		c := reports.MatchedCase{Scenario: sc.ID, Title: sc.Title, Budget: mr.budget[si], Votes: mr.votes[si]}
		for arm := range arms {
			n := 0
			for _, r := range mr.runs[arm][si] {
				if r.ok {
					n++
				}
			}
			c.Successes = append(c.Successes, n)
		}
		out.Cases = append(out.Cases, c)
	}
	for arm := range arms {
		out.Arms = append(out.Arms, mr.armResult(arm, len(spec.Agents)))
	}
	for _, arm := range []int{armSingle, armMatched} {
		name := "unmatched"
		if arm == armMatched {
			name = "matched"
		}
		out.Comparisons = append(out.Comparisons, reports.MatchedComparison{Name: name, Single: armNames[arm],
			Budget: coordination.CompareBudgets(summary(out.Arms[armMulti]), summary(out.Arms[arm])),
			Paired: mr.paired(arm)})
	}
	return out
}

// summary is an arm's success under its budget, for CompareBudgets.
func summary(a reports.MatchedArm) coordination.BudgetSummary {
	return coordination.BudgetSummary{System: a.Name, Agents: a.Agents, Successes: a.Successes, N: a.Runs, Budget: a.Budget}
}

// armResult computes one arm's figures.
func (mr *matchedRun) armResult(arm, agents int) reports.MatchedArm {
	a := reports.MatchedArm{Name: armNames[arm], Agents: agents, Budgeted: arm == armMatched}
	if arm != armMulti {
		a.Agents = 1
	}
	var cost mission.Cost
	votes := 0
	a.Dimensions = make([]reports.MatchedDimension, len(coordination.AllDimensions))
	for i, d := range coordination.AllDimensions {
		a.Dimensions[i].Dimension = d
		if arm != armMulti {
			a.Dimensions[i].Reason = notForOne[d]
		}
	}
	for si, rs := range mr.runs[arm] {
		all := len(rs) > 0
		for _, r := range rs {
			a.Runs++
			if r.ok {
				a.Successes++
			}
			all = all && r.ok
			if r.over {
				a.OverBudget++
			}
			cost.Add(r.cost)
			votes += mr.votesOf(arm, si)
			mr.countDims(&a, r, si)
		}
		if all {
			a.PassAll++
		}
	}
	a.CI95[0], a.CI95[1] = reports.Wilson(a.Successes, a.Runs)
	if n := len(mr.runs[arm]); n > 0 {
		a.PassK = float64(a.PassAll) / float64(n)
	}
	if a.Runs > 0 {
		n := float64(a.Runs)
		a.ModelCalls, a.Tokens, a.ToolCalls = float64(cost.ModelCalls)/n, float64(cost.Tokens)/n, float64(cost.ToolCalls)/n
		a.Votes = float64(votes) / n
	}
	a.Budget = mr.budgetOf(arm)
	return a
}

func (mr *matchedRun) votesOf(arm, si int) int {
	if arm == armMatched {
		return mr.votes[si]
	}
	return 1
}

// countDims adds a run's coordination verdicts to its arm's: efficiency
// judged against the scenario's matched budget, every arm alike; a
// dimension that does not apply to one agent is left out.
func (mr *matchedRun) countDims(a *reports.MatchedArm, r armRun, si int) {
	for i, d := range coordination.AllDimensions {
		x := &a.Dimensions[i]
		if x.Reason != "" {
			continue
		}
		v := r.dims[i]
		if d == coordination.DimEfficiency {
			v = coordination.Pass
			if mr.used(r.cost) > mr.budget[si] {
				v = coordination.Fail
			}
		}
		switch v {
		case coordination.Pass:
			x.Pass++
		case coordination.Fail:
			x.Fail++
		default:
			x.NotApplicable++
		}
	}
}

// budgetOf is the per-task budget an arm ran under: the matched budgets'
// mean (to a hundredth) for the multi-agent build (the budget is what it
// spent) and the matched single agent, none for the unmatched one, which
// ran uncapped.
func (mr *matchedRun) budgetOf(arm int) coordination.Budget {
	if arm == armSingle {
		return coordination.Budget{}
	}
	var total float64
	for _, b := range mr.budget {
		total += float64(b)
	}
	v := math.Round(total/float64(max(1, len(mr.budget)))*100) / 100
	b := coordination.Budget{MatchedTo: "the multi-agent build's " + mr.mb.Measure + " total per " + mr.mb.Per}
	if mr.mb.unit() == mission.UnitTokens {
		b.Tokens = &v
	} else {
		b.ModelCalls = &v
	}
	return b
}

// paired is the multi-agent build against arm by scenario × trial.
func (mr *matchedRun) paired(arm int) reports.MatchedPaired {
	var both, onlyMulti, onlySingle, neither int
	for si, rs := range mr.runs[armMulti] {
		for t, m := range rs {
			s := mr.runs[arm][si][t]
			switch {
			case m.ok && s.ok:
				both++
			case m.ok:
				onlyMulti++
			case s.ok:
				onlySingle++
			default:
				neither++
			}
		}
	}
	return reports.MatchedPairedOf(both, onlyMulti, onlySingle, neither)
}

// The files of a matched-budget comparison's folder.
const (
	MatchedFile           = "matched.json"
	MatchedMarkdownFile   = "matched.md"
	MatchedManifestSchema = "baton.matched-manifest/v1"
)

// MatchedManifest says what a matched-budget comparison ran: the protocol
// (its copy is protocol.yaml), the mission, seed, trials, baton's and
// Go's versions and the model cores' provenance.
type MatchedManifest struct {
	Schema   string            `json:"schema"`
	Baton    string            `json:"baton"`
	Go       string            `json:"go"`
	Protocol ManifestProtocol  `json:"protocol"`
	Mission  MissionRef        `json:"mission"`
	Seed     uint64            `json:"seed"`
	Trials   int               `json:"trials"`
	Models   []ModelProvenance `json:"models,omitempty"`
}

// WriteMatched writes a matched-budget comparison's folder: protocol.yaml
// (the protocol's bytes), manifest.json, matched.json and matched.md.
func WriteMatched(dir string, protocol []byte, man MatchedManifest, res *reports.Matched) error {
	manJSON, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return fmt.Errorf("write matched: %w", err)
	}
	resJSON, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("write matched: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, MatchedMarkdownFile))
	if err != nil {
		return fmt.Errorf("write matched: %w", err)
	}
	if err := reports.WriteMatchedMarkdown(f, res); err != nil {
		f.Close()
		return fmt.Errorf("write matched: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write matched: %w", err)
	}
	for _, w := range []struct {
		name string
		data []byte
	}{{ProtocolCopy, protocol}, {ManifestFile, append(manJSON, '\n')}, {MatchedFile, append(resJSON, '\n')}} {
		if err := os.WriteFile(filepath.Join(dir, w.name), w.data, 0o644); err != nil {
			return fmt.Errorf("write matched: %w", err)
		}
	}
	return nil
}

// matchedPath is the protocol file's absolute path, "" for an embedded one.
func matchedPath(source, dir string) string {
	if dir == "" {
		return ""
	}
	if abs, err := filepath.Abs(source); err == nil {
		return abs
	}
	return source
}
