package release

import (
	"fmt"
	"math"
	"strconv"
)

// Verdict is the release decision.
type Verdict int

// The verdicts.
const (
	Ship         Verdict = iota // every clause holds over its whole interval
	Hold                        // some clause fails over its whole interval
	Inconclusive                // no clause fails, but some interval straddles its bound
)

// AllVerdicts lists the verdicts.
var AllVerdicts = []Verdict{Ship, Hold, Inconclusive}

func (v Verdict) String() string {
	switch v {
	case Ship:
		return "ship"
	case Hold:
		return "hold"
	case Inconclusive:
		return "inconclusive"
	}
	return "verdict(" + strconv.Itoa(int(v)) + ")"
}

// MarshalText writes the verdict's name.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Status is how one clause of the rule came out.
type Status string

// The clause statuses.
const (
	Pass      Status = "pass"      // the whole interval is within the bound
	Fail      Status = "fail"      // the whole interval is outside it
	Undecided Status = "undecided" // the interval straddles the bound
)

// ClauseResult is one clause with the figure that decided it.
type ClauseResult struct {
	Clause
	Value  float64 `json:"value"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	Exact  bool    `json:"exact"` // a count or mean with no interval
	Status Status  `json:"status"`
}

// Bound describes the clause's bound ("≤ 0", "≥ 0", "in [a, b]").
func (c Clause) Bound() string {
	switch {
	case c.Min != nil && c.Max != nil:
		return fmt.Sprintf("in [%s, %s]", num(*c.Min), num(*c.Max))
	case c.Min != nil:
		return "≥ " + num(*c.Min)
	case c.Max != nil:
		return "≤ " + num(*c.Max)
	}
	return "any"
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// apply evaluates the rule on the figures: hold when a clause fails, else
// inconclusive when one is undecided, else ship.
func apply(rule []Clause, r *Result) ([]ClauseResult, Verdict) {
	out := make([]ClauseResult, 0, len(rule))
	v := Ship
	for _, c := range rule {
		cr := ClauseResult{Clause: c}
		switch c.Metric {
		case HardViolations:
			cr.Value, cr.Exact = float64(r.Candidate.Violations), true
		case Outcome:
			cr.Value, cr.Lo, cr.Hi = r.Candidate.Outcome, r.Candidate.OutcomeLo, r.Candidate.OutcomeHi
		case OutcomeDifference:
			cr.Value, cr.Lo, cr.Hi = r.Difference.Difference, r.Difference.Lo, r.Difference.Hi
		case ModelCalls:
			cr.Value, cr.Exact = r.Candidate.ModelCalls, true
		case ModelCallsRatio:
			cr.Value, cr.Exact = ratio(r.Candidate.ModelCalls, r.Baseline.ModelCalls), true
		}
		if cr.Exact {
			cr.Lo, cr.Hi = cr.Value, cr.Value
		}
		cr.Status = status(c, cr.Lo, cr.Hi)
		switch {
		case cr.Status == Fail:
			v = Hold
		case cr.Status == Undecided && v == Ship:
			v = Inconclusive
		}
		out = append(out, cr)
	}
	return out, v
}

// status compares an interval [lo, hi] with a clause's bounds.
func status(c Clause, lo, hi float64) Status {
	minV, maxV := math.Inf(-1), math.Inf(1)
	if c.Min != nil {
		minV = *c.Min
	}
	if c.Max != nil {
		maxV = *c.Max
	}
	switch {
	case lo >= minV && hi <= maxV:
		return Pass
	case hi < minV || lo > maxV:
		return Fail
	}
	return Undecided
}
