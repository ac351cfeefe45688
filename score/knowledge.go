package score

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// KnowledgeAttempt is one knowledge-to-action case run under one interface:
// one line of a knowledge file (`baton score --kind knowledge`).
type KnowledgeAttempt struct {
	Case      string          `json:"case"`
	Interface Interface       `json:"interface"`
	Stages    KnowledgeStages `json:"stages"`
	LatencyMS *float64        `json:"latency_ms"` // end-to-end, optional
	CostUSD   *float64        `json:"cost_usd"`   // optional
}

// KnowledgeStages holds the evidence for each stage, from the trace: pass,
// fail or not_applicable; null or absent means not recorded.
type KnowledgeStages struct {
	Availability   *StageOutcome `json:"availability"`   // the required knowledge exists in the corpus
	Retrieval      *StageOutcome `json:"retrieval"`      // the action-relevant unit was retrieved and ranked
	Interpretation *StageOutcome `json:"interpretation"` // the policy was read correctly
	ToolCall       *StageOutcome `json:"tool_call"`      // the right tool, with the right arguments
	FinalState     *StageOutcome `json:"final_state"`    // authorised, and the system of record ends right
	Explanation    *StageOutcome `json:"explanation"`    // the customer explanation is grounded
}

// Interface is how the system reached its knowledge. Run every case under
// each of them.
type Interface string

// The interfaces.
const (
	InterfaceNormal      Interface = "normal_retrieval"   // actual search, ranking and context assembly
	InterfaceOracle      Interface = "oracle_documents"   // the required documents handed over: no search failure
	InterfaceFullContext Interface = "full_context"       // everything in context: is retrieval the limit?
	InterfaceAltSearch   Interface = "alternative_search" // another query or tool affordance
)

// AllInterfaces lists every interface.
var AllInterfaces = []Interface{InterfaceNormal, InterfaceOracle, InterfaceFullContext, InterfaceAltSearch}

// String returns the interface's name.
func (i Interface) String() string { return string(i) }

// Stage is one stage of a knowledge-to-action task.
type Stage string

// The stages, in the order a task passes them.
const (
	StageAvailability   Stage = "availability"
	StageRetrieval      Stage = "retrieval"
	StageInterpretation Stage = "interpretation"
	StageToolCall       Stage = "tool_call"
	StageFinalState     Stage = "final_state"
	StageExplanation    Stage = "explanation"
)

// AllStages lists every stage in order.
var AllStages = []Stage{StageAvailability, StageRetrieval, StageInterpretation, StageToolCall, StageFinalState, StageExplanation}

// String returns the stage's name.
func (s Stage) String() string { return string(s) }

// StageOutcome is the evidence on one stage.
type StageOutcome string

// The stage outcomes.
const (
	StagePass          StageOutcome = "pass"
	StageFail          StageOutcome = "fail"
	StageNotApplicable StageOutcome = "not_applicable" // e.g. retrieval under full context
)

// AllStageOutcomes lists every stage outcome.
var AllStageOutcomes = []StageOutcome{StagePass, StageFail, StageNotApplicable}

// String returns the outcome's name.
func (o StageOutcome) String() string { return string(o) }

// outcomes returns the stages' evidence in [AllStages] order.
func (s KnowledgeStages) outcomes() []*StageOutcome {
	return []*StageOutcome{s.Availability, s.Retrieval, s.Interpretation, s.ToolCall, s.FinalState, s.Explanation}
}

// KnowledgeResult is what became of one attempt.
type KnowledgeResult string

// The knowledge results.
const (
	KnowledgeSuccess     KnowledgeResult = "success"     // every stage passed (or does not apply)
	KnowledgeFailed      KnowledgeResult = "failed"      // localised: the first failing stage, every earlier one passed
	KnowledgeUnlocalized KnowledgeResult = "unlocalized" // a stage failed, but an earlier one is not recorded
	KnowledgeIncomplete  KnowledgeResult = "incomplete"  // no stage failed, some are not recorded: outcome unknown
)

// AllKnowledgeResults lists every result.
var AllKnowledgeResults = []KnowledgeResult{KnowledgeSuccess, KnowledgeFailed, KnowledgeUnlocalized, KnowledgeIncomplete}

// String returns the result's name.
func (r KnowledgeResult) String() string { return string(r) }

// Result localises the attempt's failure: the first stage that failed,
// provided every stage before it passed or does not apply. A failure after
// an unrecorded stage is unlocalized: the trace does not say it was not
// the unrecorded stage.
func (a KnowledgeAttempt) Result() (KnowledgeResult, Stage) {
	unrecorded := false
	for i, o := range a.Stages.outcomes() {
		switch {
		case o == nil:
			unrecorded = true
		case *o == StageFail && unrecorded:
			return KnowledgeUnlocalized, ""
		case *o == StageFail:
			return KnowledgeFailed, AllStages[i]
		}
	}
	if unrecorded {
		return KnowledgeIncomplete, ""
	}
	return KnowledgeSuccess, ""
}

// KnowledgeReport is the score of a knowledge file. Its JSON form is
// `baton score --kind knowledge --json`.
type KnowledgeReport struct {
	Kind       string           `json:"kind"`
	Attempts   int              `json:"attempts"`
	Cases      int              `json:"cases"`
	Interfaces []InterfaceScore `json:"interfaces"` // those in the file, in [AllInterfaces] order
	// NotRun lists the interfaces no attempt used.
	NotRun []Interface `json:"interfaces_not_run"`
	// MissingAttempts lists "case under interface" for every case not run
	// under an interface that other cases were run under.
	MissingAttempts []string       `json:"missing_attempts"`
	Rows            []KnowledgeRow `json:"attempts_scored"` // in input order
	NotMeasured     []string       `json:"not_measured"`
}

// InterfaceScore is one interface's attempts.
type InterfaceScore struct {
	Interface Interface `json:"interface"`
	Attempts  int       `json:"attempts"`
	// Success is over the attempts whose outcome is known; the incomplete
	// ones are its unknown.
	Success Figure `json:"success"`
	// FailedAt counts the localised failures per stage, every stage listed.
	FailedAt    []StageCount `json:"failed_at"`
	Unlocalized StageCount   `json:"unlocalized"`
	Incomplete  StageCount   `json:"incomplete"`
	// StagePass is each stage's pass / (pass + fail) over the attempts that
	// recorded it, whatever the other stages did.
	StagePass []StageFigure `json:"stage_pass"`
	LatencyMS Amount        `json:"latency_ms"`
	CostUSD   Amount        `json:"cost_usd"`
}

// StageCount counts attempts and names their cases.
type StageCount struct {
	Stage Stage    `json:"stage,omitempty"`
	Count int      `json:"count"`
	Cases []string `json:"cases"`
}

// StageFigure is one stage's pass rate.
type StageFigure struct {
	Stage Stage `json:"stage"`
	Figure
}

// Amount summarises an optional quantity over the attempts that gave it.
type Amount struct {
	N     int      `json:"n"` // attempts that gave it
	Mean  *float64 `json:"mean"`
	Max   *float64 `json:"max"`
	Total float64  `json:"total"`
}

// add counts v if it is given.
func (a *Amount) add(v *float64) {
	if v == nil {
		return
	}
	a.N++
	a.Total += *v
	if a.Max == nil || *v > *a.Max {
		a.Max = new(*v)
	}
	a.Mean = new(a.Total / float64(a.N))
}

// KnowledgeRow is one attempt's labels.
type KnowledgeRow struct {
	Case      string          `json:"case"`
	Interface Interface       `json:"interface"`
	Result    KnowledgeResult `json:"result"`
	FailedAt  Stage           `json:"failed_at"` // "" unless failed
	Stages    []string        `json:"stages"`    // per [AllStages]: pass, fail, not_applicable or unrecorded
}

var knowledgeNotMeasured = []string{
	"why a stage failed: the stage labels come from the trace as given",
	"ranking quality beyond pass or fail at the action-relevant unit",
	"live-model performance: these are recorded attempts",
}

// ReadKnowledge reads a knowledge file: JSON Lines, one [KnowledgeAttempt]
// per line; name is the file name used in errors.
func ReadKnowledge(r io.Reader, name string) ([]KnowledgeAttempt, error) {
	first := map[[2]string]int{}
	return readLines(r, name, func(a *KnowledgeAttempt, line int) *LineError {
		if err := checkKnowledge(a); err != nil {
			return err
		}
		key := [2]string{a.Case, string(a.Interface)}
		if l, dup := first[key]; dup {
			return &LineError{Field: "case", Msg: fmt.Sprintf("case %q under %s given twice (first on line %d)", a.Case, a.Interface, l), Err: ErrDuplicateID}
		}
		first[key] = line
		return nil
	})
}

func checkKnowledge(a *KnowledgeAttempt) *LineError {
	if a.Case == "" {
		return &LineError{Field: "case", Msg: "missing case id", Err: ErrMissingID}
	}
	if !slices.Contains(AllInterfaces, a.Interface) {
		return badValue("interface", "%q: want one of %s", a.Interface, joinNames(AllInterfaces))
	}
	for i, o := range a.Stages.outcomes() {
		if o != nil && !slices.Contains(AllStageOutcomes, *o) {
			return badValue("stages."+string(AllStages[i]), "%q: want one of %s (or null when not recorded)", *o, joinNames(AllStageOutcomes))
		}
	}
	for _, q := range []struct {
		field string
		v     *float64
	}{{"latency_ms", a.LatencyMS}, {"cost_usd", a.CostUSD}} {
		if q.v != nil && *q.v < 0 {
			return badValue(q.field, "%v: want 0 or more", *q.v)
		}
	}
	return nil
}

// joinNames joins enum names with ", ".
func joinNames[T ~string](all []T) string { return strings.Join(joinSlice(all), ", ") }

// ScoreKnowledge localises every attempt's failure and counts them per
// stage and interface.
func ScoreKnowledge(atts []KnowledgeAttempt) *KnowledgeReport {
	r := &KnowledgeReport{Kind: string(KindKnowledge), Attempts: len(atts), NotRun: []Interface{},
		MissingAttempts: []string{}, NotMeasured: slices.Clone(knowledgeNotMeasured)}
	var cases []string
	ran := map[[2]string]bool{}
	byIface := map[Interface][]KnowledgeAttempt{}
	for _, a := range atts {
		if !slices.Contains(cases, a.Case) {
			cases = append(cases, a.Case)
		}
		ran[[2]string{a.Case, string(a.Interface)}] = true
		byIface[a.Interface] = append(byIface[a.Interface], a)
		r.Rows = append(r.Rows, knowledgeRow(a))
	}
	r.Cases = len(cases)
	for _, iface := range AllInterfaces {
		if len(byIface[iface]) == 0 {
			r.NotRun = append(r.NotRun, iface)
			continue
		}
		r.Interfaces = append(r.Interfaces, scoreInterface(iface, byIface[iface]))
		for _, c := range cases {
			if !ran[[2]string{c, string(iface)}] {
				r.MissingAttempts = append(r.MissingAttempts, c+" under "+string(iface))
			}
		}
	}
	return r
}

func knowledgeRow(a KnowledgeAttempt) KnowledgeRow {
	res, stage := a.Result()
	row := KnowledgeRow{Case: a.Case, Interface: a.Interface, Result: res, FailedAt: stage}
	for _, o := range a.Stages.outcomes() {
		if o == nil {
			row.Stages = append(row.Stages, "unrecorded")
		} else {
			row.Stages = append(row.Stages, string(*o))
		}
	}
	return row
}

// scoreInterface scores the attempts made under one interface.
func scoreInterface(iface Interface, atts []KnowledgeAttempt) InterfaceScore {
	s := InterfaceScore{Interface: iface, Attempts: len(atts),
		Unlocalized: StageCount{Cases: []string{}}, Incomplete: StageCount{Cases: []string{}}}
	failed := map[Stage][]string{}
	pass, fail, unrec := map[Stage]int{}, map[Stage]int{}, map[Stage]int{}
	success := 0
	for _, a := range atts {
		res, stage := a.Result()
		switch res {
		case KnowledgeSuccess:
			success++
		case KnowledgeFailed:
			failed[stage] = append(failed[stage], a.Case)
		case KnowledgeUnlocalized:
			s.Unlocalized.Count++
			s.Unlocalized.Cases = append(s.Unlocalized.Cases, a.Case)
		case KnowledgeIncomplete:
			s.Incomplete.Count++
			s.Incomplete.Cases = append(s.Incomplete.Cases, a.Case)
		}
		for i, o := range a.Stages.outcomes() {
			switch {
			case o == nil:
				unrec[AllStages[i]]++
			case *o == StagePass:
				pass[AllStages[i]]++
			case *o == StageFail:
				fail[AllStages[i]]++
			}
		}
		s.LatencyMS.add(a.LatencyMS)
		s.CostUSD.add(a.CostUSD)
	}
	s.Success = Figure{Rate: NewRate(success, len(atts)-s.Incomplete.Count), Of: "attempts with a known outcome", Unknown: s.Incomplete.Count}
	for _, st := range AllStages {
		s.FailedAt = append(s.FailedAt, StageCount{Stage: st, Count: len(failed[st]), Cases: nonNil(failed[st])})
		s.StagePass = append(s.StagePass, StageFigure{Stage: st,
			Figure: Figure{Rate: NewRate(pass[st], pass[st]+fail[st]), Of: "attempts that recorded the stage (not_applicable left out)", Unknown: unrec[st]}})
	}
	return s
}

// WriteText writes r as tables: where the attempts failed, per stage and
// interface; success per interface; each stage's pass rate; latency and
// cost; every attempt.
func (r *KnowledgeReport) WriteText(w io.Writer) error {
	t := newTable(w)
	t.row("knowledge: %d attempts, %d cases, %d interfaces (not run: %s)\n", r.Attempts, r.Cases, len(r.Interfaces), list(joinSlice(r.NotRun)))
	t.row("missing attempts: %s\n", list(r.MissingAttempts))
	head := []string{"result"}
	for _, s := range r.Interfaces {
		head = append(head, string(s.Interface))
	}
	t.row("\nwhere each attempt failed: the first failing stage, every earlier one passed or does not apply (count: cases)\n")
	t.cells(head...)
	cell := func(c StageCount) string { return fmt.Sprintf("%d: %s", c.Count, list(c.Cases)) }
	row := []string{"success"}
	for _, s := range r.Interfaces {
		row = append(row, fmt.Sprint(s.Success.Count))
	}
	t.cells(row...)
	for k, st := range AllStages {
		row := []string{"failed at " + string(st)}
		for _, s := range r.Interfaces {
			row = append(row, cell(s.FailedAt[k]))
		}
		t.cells(row...)
	}
	unloc, incomplete := []string{"unlocalized"}, []string{"incomplete"}
	for _, s := range r.Interfaces {
		unloc, incomplete = append(unloc, cell(s.Unlocalized)), append(incomplete, cell(s.Incomplete))
	}
	t.cells(unloc...)
	t.cells(incomplete...)
	t.row("\nsuccess per interface\n")
	figs := make([]namedFigure, len(r.Interfaces))
	for i, s := range r.Interfaces {
		figs[i] = namedFigure{string(s.Interface), s.Success}
	}
	t.figures(figs)
	head[0] = "stage"
	r.writeStagePass(t, head)
	t.row("\nlatency and cost per interface (over the attempts that gave them)\n")
	t.row("interface\tlatency n\tmean ms\tmax ms\tcost n\tmean usd\ttotal usd\n")
	for _, s := range r.Interfaces {
		t.row("%s\t%d\t%s\t%s\t%d\t%s\t%.4f\n", s.Interface, s.LatencyMS.N, fmtAmount(s.LatencyMS.Mean, 1), fmtAmount(s.LatencyMS.Max, 1),
			s.CostUSD.N, fmtAmount(s.CostUSD.Mean, 4), s.CostUSD.Total)
	}
	t.row("\nattempts\n")
	t.row("case\tinterface\tresult\tfailed at\t%s\n", strings.Join(joinSlice(AllStages), "\t"))
	for _, a := range r.Rows {
		t.row("%s\t%s\t%s\t%s\t%s\n", clean(a.Case), a.Interface, a.Result, orDash(string(a.FailedAt)), strings.Join(a.Stages, "\t"))
	}
	if err := t.flush(); err != nil {
		return err
	}
	return notMeasured(w, r.NotMeasured)
}

// writeStagePass writes each stage's pass rate under each interface.
func (r *KnowledgeReport) writeStagePass(t *table, head []string) {
	t.row("\nstage pass rates: pass / (pass + fail) over the attempts that recorded the stage, each stage on its own\n")
	t.cells(head...)
	for k, st := range AllStages {
		row := []string{string(st)}
		for _, s := range r.Interfaces {
			f := s.StagePass[k]
			row = append(row, fmt.Sprintf("%d/%d %s %s", f.Count, f.N, fmtRate(f.Value), f.Interval()))
		}
		t.cells(row...)
	}
}

// joinSlice converts enum values to strings.
func joinSlice[T ~string](all []T) []string {
	s := make([]string, len(all))
	for i, v := range all {
		s[i] = string(v)
	}
	return s
}

func fmtAmount(v *float64, prec int) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.*f", prec, *v)
}
