package score

import (
	"fmt"
	"io"
	"slices"

	"github.com/baton-lab/baton/coordination"
)

// CoordinationReport is the score of a coordination file. Its JSON form is
// `baton score --kind coordination --json`.
type CoordinationReport struct {
	Kind    string        `json:"kind"`
	Records int           `json:"records"`
	Systems []SystemScore `json:"systems"` // sorted by name
	// MatchedBudget compares the file's multi-agent system with its single
	// agent when it holds exactly those two, each under one budget and with
	// outcomes; MatchedBudgetNote says why not otherwise.
	MatchedBudget     *coordination.BudgetComparison `json:"matched_budget"`
	MatchedBudgetNote string                         `json:"matched_budget_note"`
	Trials            []coordination.Score           `json:"trials"` // in input order
	NotMeasured       []string                       `json:"not_measured"`
}

// SystemScore is one system's records.
type SystemScore struct {
	System     string           `json:"system"`
	Trials     int              `json:"trials"`
	Agents     [2]int           `json:"agents"`  // fewest and most agents in a trial
	Success    Figure           `json:"success"` // trials judged a success, over the trials judged
	Dimensions []DimensionScore `json:"dimensions"`
	Usage      UsageSummary     `json:"usage"`
}

// DimensionScore is one dimension over a system's trials: the rate of
// trials that pass among those it applies to, and every failure.
type DimensionScore struct {
	Dimension     coordination.Dimension `json:"dimension"`
	Pass          Figure                 `json:"pass"`
	NotApplicable int                    `json:"not_applicable"`
	Failures      []TrialFailure         `json:"failures"`
}

// TrialFailure is one failure of a dimension in one trial.
type TrialFailure struct {
	Trial string `json:"trial"`
	coordination.Failure
}

// UsageSummary is what a system's trials consumed, over the trials that
// recorded each quantity.
type UsageSummary struct {
	Tokens     Amount `json:"tokens"`
	ModelCalls Amount `json:"model_calls"`
	LatencyMS  Amount `json:"latency_ms"`
	CostUSD    Amount `json:"cost_usd"`
}

var coordinationNotMeasured = []string{
	"whether the records are complete: a dimension sees only the events recorded",
	"the quality of each subtask's output beyond its completion evidence",
	"one agent score: the dimensions are not combined",
}

// ReadCoordination reads a coordination file: JSON Lines, one
// [coordination.Record] per line; name is the file name used in errors.
func ReadCoordination(r io.Reader, name string) ([]coordination.Record, error) {
	ids := lineIDs{}
	return readLines(r, name, func(rec *coordination.Record, line int) *LineError {
		if rec.Trial != "" {
			if err := ids.add(rec.Trial, "trial", line); err != nil {
				return err
			}
		}
		if err := rec.Validate(); err != nil {
			kind := ErrBadValue
			if err.Field == "trial" {
				kind = ErrMissingID
			}
			return &LineError{Field: err.Field, Msg: err.Msg, Err: kind}
		}
		return nil
	})
}

// ScoreCoordination judges every record on the eight dimensions and
// aggregates them per system.
func ScoreCoordination(recs []coordination.Record) *CoordinationReport {
	r := &CoordinationReport{Kind: string(KindCoordination), Records: len(recs), NotMeasured: slices.Clone(coordinationNotMeasured)}
	bySystem := map[string][]int{}
	var systems []string
	for i := range recs {
		r.Trials = append(r.Trials, coordination.ScoreRecord(&recs[i]))
		s := recs[i].System
		if bySystem[s] == nil {
			systems = append(systems, s)
		}
		bySystem[s] = append(bySystem[s], i)
	}
	slices.Sort(systems)
	for _, s := range systems {
		r.Systems = append(r.Systems, scoreSystem(s, recs, r.Trials, bySystem[s]))
	}
	r.MatchedBudget, r.MatchedBudgetNote = matchedBudget(r.Systems, recs, bySystem)
	return r
}

// scoreSystem aggregates the records at idx, all of one system.
func scoreSystem(system string, recs []coordination.Record, scores []coordination.Score, idx []int) SystemScore {
	s := SystemScore{System: system, Trials: len(idx), Agents: [2]int{len(recs[idx[0]].Agents), len(recs[idx[0]].Agents)}}
	succ, judged := 0, 0
	for _, i := range idx {
		rec := recs[i]
		s.Agents = [2]int{min(s.Agents[0], len(rec.Agents)), max(s.Agents[1], len(rec.Agents))}
		if rec.Success != nil {
			judged++
			if *rec.Success {
				succ++
			}
		}
		s.Usage.Tokens.add(i64f(rec.Usage.Tokens))
		s.Usage.ModelCalls.add(i64f(rec.Usage.ModelCalls))
		s.Usage.LatencyMS.add(rec.Usage.LatencyMS)
		s.Usage.CostUSD.add(rec.Usage.CostUSD)
	}
	s.Success = Figure{Rate: NewRate(succ, judged), Of: "trials with a judged outcome", Unknown: len(idx) - judged}
	for k, d := range coordination.AllDimensions {
		ds := DimensionScore{Dimension: d, Failures: []TrialFailure{}}
		pass, fail := 0, 0
		for _, i := range idx {
			res := scores[i].Dimensions[k]
			switch res.Verdict {
			case coordination.Pass:
				pass++
			case coordination.Fail:
				fail++
				for _, f := range res.Failures {
					ds.Failures = append(ds.Failures, TrialFailure{Trial: scores[i].Trial, Failure: f})
				}
			case coordination.NotApplicable:
				ds.NotApplicable++
			}
		}
		ds.Pass = Figure{Rate: NewRate(pass, pass+fail), Of: "trials it applies to"}
		s.Dimensions = append(s.Dimensions, ds)
	}
	return s
}

// failures counts the system's failures over every dimension.
func (s SystemScore) failures() int {
	n := 0
	for _, d := range s.Dimensions {
		n += len(d.Failures)
	}
	return n
}

// matchedBudget compares the multi-agent system with the single agent when
// the records allow it, or says why not.
func matchedBudget(systems []SystemScore, recs []coordination.Record, by map[string][]int) (*coordination.BudgetComparison, string) {
	if len(systems) != 2 {
		return nil, fmt.Sprintf("not compared: %s in the file, want one multi-agent and one single-agent", plural(len(systems), "system"))
	}
	multi, single := systems[0], systems[1]
	if multi.Agents[1] == 1 {
		multi, single = single, multi
	}
	if single.Agents != [2]int{1, 1} || multi.Agents[0] < 2 {
		return nil, "not compared: want one system with one agent in every trial and one with two or more in every trial"
	}
	var sums [2]coordination.BudgetSummary
	for k, s := range []SystemScore{multi, single} {
		b, ok := commonBudget(recs, by[s.System])
		if !ok {
			return nil, fmt.Sprintf("not compared: the trials of %s do not all record one and the same budget", orDash(s.System))
		}
		if s.Success.N == 0 {
			return nil, fmt.Sprintf("not compared: no trial of %s has a judged outcome", orDash(s.System))
		}
		sums[k] = coordination.BudgetSummary{System: s.System, Agents: s.Agents[1], Successes: s.Success.Count, N: s.Success.N, Budget: b}
	}
	c := coordination.CompareBudgets(sums[0], sums[1])
	return &c, ""
}

// commonBudget returns the budget every record at idx shares.
func commonBudget(recs []coordination.Record, idx []int) (coordination.Budget, bool) {
	var b coordination.Budget
	for k, i := range idx {
		rb := recs[i].Budget
		if rb == nil {
			return b, false
		}
		c := *rb
		c.MatchedTo = ""
		if k == 0 {
			b = c
		} else if b.String() != c.String() {
			return b, false
		}
	}
	return b, true
}

func i64f(p *int64) *float64 {
	if p == nil {
		return nil
	}
	return new(float64(*p))
}

// WriteText writes r as tables: per system each dimension's pass rate and
// its failures with the events that show them; the matched-budget
// comparison; every trial's verdicts.
func (r *CoordinationReport) WriteText(w io.Writer) error {
	t := newTable(w)
	t.row("coordination: %d records, %d systems; each dimension on its own, never combined\n", r.Records, len(r.Systems))
	for _, s := range r.Systems {
		agents := fmt.Sprint(s.Agents[0])
		if s.Agents[1] != s.Agents[0] {
			agents += fmt.Sprintf(" to %d", s.Agents[1])
		}
		t.row("\nsystem %s: %s, %s agents, success %s (unknown %d)\n",
			orDash(s.System), plural(s.Trials, "trial"), agents, s.Success.Rate, s.Success.Unknown)
		t.row("dimension\tpass count/n\trate\t95%% CI\tnot applicable\tfailures\n")
		for _, d := range s.Dimensions {
			t.row("%s\t%d/%d\t%s\t%s\t%d\t%d\n", d.Dimension, d.Pass.Count, d.Pass.N, fmtRate(d.Pass.Value), d.Pass.Interval(), d.NotApplicable, len(d.Failures))
		}
		t.row("usage means: tokens %s, model calls %s, latency ms %s, cost usd %s\n",
			fmtAmount(s.Usage.Tokens.Mean, 0), fmtAmount(s.Usage.ModelCalls.Mean, 1), fmtAmount(s.Usage.LatencyMS.Mean, 0), fmtAmount(s.Usage.CostUSD.Mean, 4))
		if s.failures() == 0 {
			t.row("failures: none\n")
			continue
		}
		t.row("failures\ntrial\tdimension\tevents\treason\n")
		for _, d := range s.Dimensions {
			for _, f := range d.Failures {
				t.row("%s\t%s\t%s\t%s\n", clean(f.Trial), d.Dimension, list(f.Events), clean(f.Reason))
			}
		}
	}
	if err := t.flush(); err != nil {
		return err
	}
	if c := r.MatchedBudget; c != nil {
		fmt.Fprintf(w, "\nmatched-budget comparison (%s): %s\n", c.Attribution, clean(c.Claim))
		for _, s := range c.CannotAttribute {
			fmt.Fprintf(w, "  not shown: %s\n", s)
		}
	} else {
		fmt.Fprintf(w, "\nmatched-budget comparison %s\n", r.MatchedBudgetNote)
	}
	return r.writeTrials(w)
}

// writeTrials writes every trial's verdict per dimension.
func (r *CoordinationReport) writeTrials(w io.Writer) error {
	t := newTable(w)
	t.row("\ntrials\ntrial\tsystem")
	for _, d := range coordination.AllDimensions {
		t.row("\t%s", d)
	}
	t.row("\n")
	for _, s := range r.Trials {
		t.row("%s\t%s", clean(s.Trial), orDash(s.System))
		for _, d := range s.Dimensions {
			t.row("\t%s", d.Verdict)
		}
		t.row("\n")
	}
	if err := t.flush(); err != nil {
		return err
	}
	return notMeasured(w, r.NotMeasured)
}
