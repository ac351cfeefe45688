package release

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/internal/binom"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/reports"
)

// Options are the command line's settings of a release run.
type Options struct {
	// UntilDecided adds rounds of the protocol's trials until the verdict
	// no longer depends on an interval, or MaxTrials is reached.
	UntilDecided bool
	// MaxTrials caps the trials per scenario in sequential mode.
	MaxTrials int
}

// run is one trial of one version on one scenario.
type run struct {
	correct    bool
	violations int // (agent, item) pairs whose calls broke a hard rule
	rules      []string
	modelCalls int
	failure    string // the kinds of record a wrong end state differs on, sorted, joined by +
}

// Decide runs the plan, both versions on the same scenarios and trial
// seeds (trial t of scenario s has experiment.TrialSeed(seed, s, t) for
// both: common random numbers), and applies the release rule.
func Decide(ctx context.Context, pl *Plan, opt Options) (*Result, error) {
	round := pl.Protocol.Trials
	maxTrials := round
	looks := 1
	if opt.UntilDecided {
		maxTrials = max(opt.MaxTrials, round)
		looks = (maxTrials + round - 1) / round
	}
	z := zFor(looks)
	var base, cand [][]run // by scenario, then trial
	base = make([][]run, len(pl.Scenarios))
	cand = make([][]run, len(pl.Scenarios))
	done, rounds := 0, 0
	var res *Result
	var history []Look
	for done < maxTrials {
		next := min(done+round, maxTrials)
		for i, sc := range pl.Scenarios {
			for t := done + 1; t <= next; t++ {
				b, err := trial(ctx, pl, pl.Baseline, sc, t)
				if err != nil {
					return nil, err
				}
				c, err := trial(ctx, pl, pl.Candidate, sc, t)
				if err != nil {
					return nil, err
				}
				base[i], cand[i] = append(base[i], b), append(cand[i], c)
			}
		}
		done, rounds = next, rounds+1
		res = summarise(pl, base, cand, z)
		res.Rounds, res.Looks, res.Sequential, res.MaxTrials = rounds, looks, opt.UntilDecided, maxTrials
		history = append(history, Look{Trials: done, Runs: res.Runs, Verdict: res.Verdict,
			Difference: res.Difference.Difference, Lo: res.Difference.Lo, Hi: res.Difference.Hi})
		res.History = history
		if res.Verdict != Inconclusive {
			break
		}
	}
	return res, nil
}

// zFor is the normal quantile of every interval when the rule is read
// after each of looks rounds: Bonferroni's correction, α = 0.05 shared
// equally among the planned looks (two-sided), so that the chance any
// look's intervals miss is at most 5%.
func zFor(looks int) float64 {
	if looks <= 1 {
		return binom.Z975
	}
	return distuv.UnitNormal.Quantile(1 - 0.05/(2*float64(looks)))
}

// trial runs one version on one scenario and trial and measures it.
func trial(ctx context.Context, pl *Plan, prof mission.Profile, sc *mission.Scenario, t int) (run, error) {
	seed := experiment.TrialSeed(pl.Protocol.Seed, sc.ID, t)
	r, err := pl.Mission.Run(ctx, mission.Clean(), sc, seed, mission.Env{Profile: prof, Faults: pl.Faults})
	if err != nil {
		return run{}, fmt.Errorf("release: %w", err)
	}
	diffs := pl.Mission.Check(sc, r.End)
	out := run{correct: len(diffs) == 0, modelCalls: r.Cost.ModelCalls}
	var kinds []string
	for _, d := range diffs {
		// The kind of record that differs ("route:T1" is a route).
		if k, _, _ := strings.Cut(d.Record, ":"); !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	out.failure = strings.Join(kinds, "+")
	out.violations, out.rules = violations(pl.Mission.Spec(), r.Trace)
	r.Trace.Recycle()
	return out, nil
}

// violations checks each agent's turns in a run's trace against its hard
// rules ([mission.Spec.Breaches]) and returns how many (agent, item) pairs
// broke one, and the rules broken, in trace order.
func violations(spec *mission.Spec, tr *mission.Trace) (int, []string) {
	type key struct {
		agent mission.Agent
		item  string
	}
	turn := map[key][]mission.ToolCall{}
	broke := map[key]bool{}
	var rules []string
	for _, e := range tr.Events {
		k := key{e.Agent, e.Item}
		switch e.Kind {
		case mission.EventToolCall:
			calls := turn[k]
			if e.Attempt > 0 && len(calls) > 0 && calls[len(calls)-1].Name == e.Tool {
				calls[len(calls)-1].Error = e.Error
				calls[len(calls)-1].Attempts++
				continue
			}
			turn[k] = append(calls, mission.ToolCall{Name: e.Tool, Attempts: 1, Error: e.Error})
		case mission.EventResult:
			for _, b := range spec.Breaches(e.Agent, turn[k]) {
				broke[k] = true
				rules = append(rules, b.Rule)
			}
			delete(turn, k)
		}
	}
	return len(broke), rules
}

// summarise computes both versions' figures, the paired difference, the
// per-case breakdown and the verdict, at quantile z.
func summarise(pl *Plan, base, cand [][]run, z float64) *Result {
	res := &Result{
		Protocol: pl.Protocol.Name, Mission: pl.Mission.Spec().Name, MissionVersion: pl.Mission.Spec().Version,
		Seed: pl.Protocol.Seed, Z: z,
		Baseline:  arm(pl.Protocol.Baseline, base, z),
		Candidate: arm(pl.Protocol.Candidate, cand, z),
	}
	var p Paired
	for i, sc := range pl.Scenarios {
		res.Scenarios = append(res.Scenarios, sc.ID)
		c := Case{Scenario: sc.ID, Title: sc.Title, Category: string(sc.Category), Trials: len(base[i])}
		for t := range base[i] {
			b, k := base[i][t], cand[i][t]
			switch {
			case b.correct && k.correct:
				p.Both++
			case k.correct:
				p.OnlyCandidate++
			case b.correct:
				p.OnlyBaseline++
			default:
				p.Neither++
			}
			c.Baseline.add(b)
			c.Candidate.add(k)
		}
		res.Cases = append(res.Cases, c)
		res.Trials = len(base[i])
	}
	p.Difference, p.Lo, p.Hi = newcombe(p, z)
	res.Difference = p
	res.Runs = res.Baseline.Runs + res.Candidate.Runs
	res.Clusters = clusters(res.Cases)
	res.Clauses, res.Verdict = apply(pl.Protocol.Rule, res)
	return res
}

func newcombe(p Paired, z float64) (d, lo, hi float64) {
	return reports.NewcombePairedZ(float64(p.Both), float64(p.OnlyCandidate), float64(p.OnlyBaseline), float64(p.Neither), z)
}

func arm(v Version, runs [][]run, z float64) Arm {
	a := Arm{Name: v.Name, Description: v.Description}
	calls := 0
	byRule, failures := map[string]int{}, map[string]int{}
	for _, rs := range runs {
		for _, r := range rs {
			a.Runs++
			calls += r.modelCalls
			a.Violations += r.violations
			if r.correct {
				a.Correct++
			}
			if r.violations > 0 {
				a.RunsWithViolation++
				if r.correct {
					a.CorrectWithViolation++
				}
			}
			if !r.correct {
				failures[r.failure]++
			}
			for _, id := range r.rules {
				byRule[id]++
			}
		}
	}
	for id, n := range byRule {
		a.ByRule = append(a.ByRule, RuleCount{Rule: id, Breaches: n})
	}
	slices.SortFunc(a.ByRule, func(x, y RuleCount) int { return cmp.Compare(x.Rule, y.Rule) })
	for rec, n := range failures {
		a.Failures = append(a.Failures, FailureCount{Record: rec, Runs: n})
	}
	slices.SortFunc(a.Failures, func(x, y FailureCount) int {
		return cmp.Or(cmp.Compare(y.Runs, x.Runs), cmp.Compare(x.Record, y.Record))
	})
	if a.Runs > 0 {
		a.Outcome = float64(a.Correct) / float64(a.Runs)
		a.ModelCalls = float64(calls) / float64(a.Runs)
	}
	a.OutcomeLo, a.OutcomeHi = binom.WilsonZ(float64(a.Correct), float64(a.Runs), z)
	return a
}

// clusters groups the failures by scenario category, most candidate
// failures first, then most baseline failures, then category.
func clusters(cases []Case) []Cluster {
	by := map[string]*Cluster{}
	for _, c := range cases {
		cl := by[c.Category]
		if cl == nil {
			cl = &Cluster{Category: c.Category}
			by[c.Category] = cl
		}
		cl.Runs += c.Trials
		cl.BaselineFailures += c.Trials - c.Baseline.Correct
		cl.CandidateFailures += c.Trials - c.Candidate.Correct
	}
	out := make([]Cluster, 0, len(by))
	for _, cl := range by {
		out = append(out, *cl)
	}
	slices.SortFunc(out, func(a, b Cluster) int {
		return cmp.Or(cmp.Compare(b.CandidateFailures, a.CandidateFailures), cmp.Compare(b.BaselineFailures, a.BaselineFailures),
			cmp.Compare(a.Category, b.Category))
	})
	return out
}

// ratio is a/b for means of counts: +Inf when only b is zero, 1 when both are.
func ratio(a, b float64) float64 {
	switch {
	case b > 0:
		return a / b
	case a > 0:
		return math.Inf(1)
	default:
		return 1
	}
}
