package score

import (
	"fmt"
	"strings"
)

// NotMeasured lists what scoring recorded runs cannot tell.
var NotMeasured = []string{"cost", "latency", "whether the task should have been attempted"}

// Report is the score of a set of runs. Its JSON form has exactly the keys
// of `baton score --json`.
type Report struct {
	ToolCallAccuracy ToolCallAccuracy `json:"tool_call_accuracy"`
	OutputAccuracy   OutputAccuracy   `json:"output_accuracy"`
	Judge            []JudgeVerdict   `json:"judge"`            // unscoreable runs only
	JudgeValidation  *JudgeValidation `json:"judge_validation"` // nil when no judge ran
	Headline         string           `json:"headline"`
	NotMeasured      []string         `json:"not_measured"`
	Runs             []RunScore       `json:"runs"` // in input order

	// JudgeModel names the judging model; "" when no judge ran.
	JudgeModel string `json:"-"`
	// JudgeNote says why no judge ran, or that some of its requests
	// failed ("" when every request succeeded).
	JudgeNote string `json:"-"`
	// Skipped counts bad input lines skipped with --keep-going.
	Skipped int `json:"-"`
}

// ToolCallAccuracy is the share of runs each matcher accepts, over the N
// runs that have expected calls. An accuracy is nil when N is 0.
type ToolCallAccuracy struct {
	Exact        *float64 `json:"exact"`
	NameOnly     *float64 `json:"name_only"`
	OrderIgnored *float64 `json:"order_ignored"`
	N            int      `json:"n"`

	// Passed counts the runs each matcher accepts, indexed by [Matcher].
	Passed [3]int `json:"-"`
}

// Accuracy returns matcher m's accuracy, nil when N is 0.
func (a ToolCallAccuracy) Accuracy(m Matcher) *float64 {
	return ratio(a.Passed[m], a.N)
}

// Gap formats matcher m's gap to exact as "+0.167" ("n/a" when N is 0).
func (a ToolCallAccuracy) Gap(m Matcher) string {
	g := ratio(a.Passed[m]-a.Passed[MatchExact], a.N)
	if g == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.3f", *g)
}

// OutputAccuracy is Correct / (Correct + Incorrect); Unscoreable runs (no
// recorded truth) are never in the denominator. Accuracy is nil when no run
// is scoreable.
type OutputAccuracy struct {
	Correct     int      `json:"correct"`
	Incorrect   int      `json:"incorrect"`
	Unscoreable int      `json:"unscoreable"`
	Accuracy    *float64 `json:"accuracy"`
}

// RunScore is one run's deterministic scores.
type RunScore struct {
	Run string `json:"run"`
	// Matchers says which matchers passed; nil when the run has no
	// expected calls.
	Matchers *Match        `json:"matchers"`
	Output   OutputVerdict `json:"output"`
}

// Score computes the deterministic part of the report: both accuracies and
// one [RunScore] per run. The judge is added by [Report.ApplyJudge].
func Score(runs []Run) *Report {
	r := &Report{
		Judge:       []JudgeVerdict{},
		NotMeasured: append([]string(nil), NotMeasured...),
		Runs:        make([]RunScore, 0, len(runs)),
	}
	ta, oa := &r.ToolCallAccuracy, &r.OutputAccuracy
	for _, run := range runs {
		rs := RunScore{Run: run.ID, Output: Output(run)}
		if run.ExpectedCalls != nil {
			m := Trajectory(run.ExpectedCalls, run.Calls)
			rs.Matchers = &m
			ta.N++
			for _, k := range AllMatchers {
				if m.Passed(k) {
					ta.Passed[k]++
				}
			}
		}
		switch rs.Output {
		case OutputCorrect:
			oa.Correct++
		case OutputIncorrect:
			oa.Incorrect++
		case OutputUnscoreable:
			oa.Unscoreable++
		}
		r.Runs = append(r.Runs, rs)
	}
	ta.Exact = ta.Accuracy(MatchExact)
	ta.NameOnly = ta.Accuracy(MatchNameOnly)
	ta.OrderIgnored = ta.Accuracy(MatchOrderIgnored)
	oa.Accuracy = ratio(oa.Correct, oa.Correct+oa.Incorrect)
	r.Headline = r.headline()
	return r
}

// Forgives lists, in input order, the runs that matcher m accepts but exact
// does not.
func (r *Report) Forgives(m Matcher) []string {
	var ids []string
	for _, rs := range r.Runs {
		if rs.Matchers != nil && rs.Matchers.Passed(m) && !rs.Matchers.Exact {
			ids = append(ids, rs.Run)
		}
	}
	return ids
}

// headline summarises the report in one line.
func (r *Report) headline() string {
	var parts []string
	ta := r.ToolCallAccuracy
	if ta.N == 0 {
		parts = append(parts, "tool calls not scored (no run has expected_calls)")
	} else {
		parts = append(parts, fmt.Sprintf("tool calls exact %.3f (%d of %d), name-only %s, order-ignored %s",
			*ta.Exact, ta.Passed[MatchExact], ta.N, ta.Gap(MatchNameOnly), ta.Gap(MatchOrderIgnored)))
	}
	oa := r.OutputAccuracy
	if oa.Accuracy == nil {
		parts = append(parts, fmt.Sprintf("output not scored (no run has a recorded truth), %d unscoreable", oa.Unscoreable))
	} else {
		parts = append(parts, fmt.Sprintf("output %.3f (%d of %d scoreable), %d unscoreable",
			*oa.Accuracy, oa.Correct, oa.Correct+oa.Incorrect, oa.Unscoreable))
	}
	switch {
	case r.JudgeModel != "":
		parts = append(parts, r.judgeHeadline())
	case r.JudgeNote != "":
		parts = append(parts, "judge "+r.JudgeNote)
	default:
		parts = append(parts, "judge not run")
	}
	if r.Skipped > 0 {
		parts = append(parts, plural(r.Skipped, "bad line")+" skipped")
	}
	return strings.Join(parts, "; ")
}

func (r *Report) judgeHeadline() string {
	var b strings.Builder
	fmt.Fprintf(&b, "judge %s: ", r.JudgeModel)
	v := r.JudgeValidation
	if v == nil || v.Agreement == nil {
		b.WriteString("not validated (no run has a recorded truth)")
	} else {
		fmt.Fprintf(&b, "agreement %.3f on %d labelled runs (%d false pass, %d false fail)",
			*v.Agreement, v.LabelledN, v.FalsePass, v.FalseFail)
	}
	var n [3]int
	judged := 0
	for _, j := range r.Judge {
		if notJudged(j) {
			continue
		}
		judged++
		switch j.Verdict {
		case VerdictPass:
			n[0]++
		case VerdictFail:
			n[1]++
		default:
			n[2]++
		}
	}
	fmt.Fprintf(&b, ", %d unscoreable runs judged (%d pass, %d fail, %d undetermined)", judged, n[0], n[1], n[2])
	if k := r.notJudged(); k > 0 {
		fmt.Fprintf(&b, ", %s not judged (requests failed)", plural(k, "run"))
	}
	return b.String()
}

// plural returns "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// ratio returns num/den, nil when den is 0.
func ratio(num, den int) *float64 {
	if den == 0 {
		return nil
	}
	f := float64(num) / float64(den)
	return &f
}
