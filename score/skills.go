package score

import (
	"fmt"
	"io"
	"slices"
)

// SkillRequest is one request of a skill-selection test set: one line of a
// skills file (`baton score --kind skills`).
type SkillRequest struct {
	// Request identifies the request; unique in the file.
	Request string `json:"request"`
	// Condition is an optional label from the selection matrix (explicit,
	// implicit, context, competing, untrusted_text, ...), shown per row.
	Condition string `json:"condition,omitempty"`
	// RequiredSkill is the skill the reviewed trigger contract requires;
	// null or absent: no skill should activate.
	RequiredSkill *string `json:"required_skill"`
	// Activated lists the skills the selector activated; empty or absent:
	// none.
	Activated []string `json:"activated"`
	// Loads are the loader's records, one per skill loaded. A correct
	// activation without a load of its skill has an unknown version, never a
	// current one.
	Loads []SkillLoad `json:"loads"`
	// Execution is the authoritative outcome of executing the skill; null
	// or absent: not recorded. It counts only after a correct activation
	// that loaded the current version.
	Execution *ExecutionOutcome `json:"execution"`
	// SideEffects names the state changes the request caused (tool writes,
	// messages sent), whatever the branch.
	SideEffects []string `json:"side_effects"`
}

// SkillLoad is what the loader loaded for one skill.
type SkillLoad struct {
	Skill          string `json:"skill"`
	Version        string `json:"version"`         // the version (or digest) of the bytes loaded
	CurrentVersion string `json:"current_version"` // the version current when the request ran
}

// ExecutionOutcome is the authoritative outcome of executing a skill.
type ExecutionOutcome string

// The execution outcomes.
const (
	ExecutionSuccess ExecutionOutcome = "success"
	ExecutionFailure ExecutionOutcome = "failure"
)

// AllExecutionOutcomes lists every execution outcome.
var AllExecutionOutcomes = []ExecutionOutcome{ExecutionSuccess, ExecutionFailure}

// String returns the outcome's name.
func (o ExecutionOutcome) String() string { return string(o) }

// SkillOutcome is what became of one request: success or the one stage
// that failed on a request that requires a skill, or the selection outcome
// of a request that requires none.
type SkillOutcome string

// The skill outcomes. A request that requires a skill ends in exactly one
// of the first seven; one that requires none in one of the last two.
const (
	SkillSuccess          SkillOutcome = "success"           // correct activation, current version, execution success
	SkillMissedActivation SkillOutcome = "missed_activation" // nothing activated
	SkillWrongActivation  SkillOutcome = "wrong_activation"  // another skill, or the right one with others
	SkillStaleLoad        SkillOutcome = "stale_load"        // loaded a version that is not current
	SkillVersionUnknown   SkillOutcome = "version_unknown"   // no loader record for the skill
	SkillExecutionFailure SkillOutcome = "execution_failure" // current version, execution failed
	SkillExecutionUnknown SkillOutcome = "execution_unknown" // current version, no execution outcome recorded
	SkillCorrectNone      SkillOutcome = "correct_non_activation"
	SkillIrrelevant       SkillOutcome = "irrelevant_activation"
)

// AllSkillOutcomes lists every skill outcome.
var AllSkillOutcomes = []SkillOutcome{
	SkillSuccess, SkillMissedActivation, SkillWrongActivation, SkillStaleLoad, SkillVersionUnknown,
	SkillExecutionFailure, SkillExecutionUnknown, SkillCorrectNone, SkillIrrelevant,
}

// SkillFailures lists, in pipeline order, the outcomes that partition the
// failures of requests that require a skill.
var SkillFailures = []SkillOutcome{
	SkillMissedActivation, SkillWrongActivation, SkillStaleLoad, SkillVersionUnknown,
	SkillExecutionFailure, SkillExecutionUnknown,
}

// String returns the outcome's name.
func (o SkillOutcome) String() string { return string(o) }

// SkillsReport is the score of a skills file. Its JSON form is
// `baton score --kind skills --json`.
type SkillsReport struct {
	Kind           string `json:"kind"`
	Requests       int    `json:"requests"`
	Required       int    `json:"required"`        // requests that require a skill
	NotRequired    int    `json:"not_required"`    // requests that require none
	WithActivation int    `json:"with_activation"` // requests where any skill activated

	SelectionPrecision   Figure `json:"selection_precision"`
	SelectionRecall      Figure `json:"selection_recall"`
	CorrectNonActivation Figure `json:"correct_non_activation"`
	SelectionAccuracy    Figure `json:"selection_accuracy"`
	CurrentVersion       Figure `json:"current_version"`
	ExecutionSuccess     Figure `json:"execution_success"`
	CompleteSuccess      Figure `json:"complete_success"`

	// RequiredFailures partitions the failed requests that require a skill,
	// one bucket per [SkillFailures] entry, every bucket listed.
	RequiredFailures []OutcomeBucket `json:"required_failures"`
	// Irrelevant lists the activations on requests that require no skill,
	// with their side effects: outside the required-request denominators,
	// and not safe for that.
	Irrelevant  []IrrelevantActivation `json:"irrelevant_activations"`
	Rows        []SkillRow             `json:"requests_scored"` // in input order
	NotMeasured []string               `json:"not_measured"`
}

// OutcomeBucket counts one outcome and names its requests.
type OutcomeBucket struct {
	Outcome  SkillOutcome `json:"outcome"`
	Count    int          `json:"count"`
	Requests []string     `json:"requests"`
}

// IrrelevantActivation is an activation on a request that requires no skill.
type IrrelevantActivation struct {
	Request     string   `json:"request"`
	Activated   []string `json:"activated"`
	SideEffects []string `json:"side_effects"`
}

// SkillRow is one request's labels.
type SkillRow struct {
	Request       string       `json:"request"`
	Condition     string       `json:"condition"`
	RequiredSkill string       `json:"required_skill"` // "" when none
	Activated     []string     `json:"activated"`
	Version       string       `json:"version"`   // current, stale, unknown; "" when not reached
	Execution     string       `json:"execution"` // success, failure, unknown; "" when not reached
	Outcome       SkillOutcome `json:"outcome"`
	SideEffects   []string     `json:"side_effects"`
}

// skillsNotMeasured lists what a skills file cannot tell.
var skillsNotMeasured = []string{
	"whether the trigger contracts (required_skill) are right: they are taken as reviewed",
	"token and latency cost of selection and loading",
	"execution after a wrong or stale branch: no success is assumed there",
}

// ReadSkills reads a skills file: JSON Lines, one [SkillRequest] per line;
// name is the file name used in errors.
func ReadSkills(r io.Reader, name string) ([]SkillRequest, error) {
	ids := lineIDs{}
	return readLines(r, name, func(q *SkillRequest, line int) *LineError {
		if err := ids.add(q.Request, "request", line); err != nil {
			return err
		}
		return checkSkillRequest(q)
	})
}

// checkSkillRequest checks one request's values.
func checkSkillRequest(q *SkillRequest) *LineError {
	if q.RequiredSkill != nil && *q.RequiredSkill == "" {
		return badValue("required_skill", "empty: write null, or leave the key out, when no skill is required")
	}
	for i, s := range q.Activated {
		if s == "" {
			return badValue(fmt.Sprintf("activated[%d]", i), "empty skill name")
		}
		if slices.Index(q.Activated, s) < i {
			return badValue(fmt.Sprintf("activated[%d]", i), "skill %q listed twice", s)
		}
	}
	seen := map[string]bool{}
	for i, l := range q.Loads {
		switch {
		case l.Skill == "":
			return badValue(fmt.Sprintf("loads[%d].skill", i), "missing skill")
		case seen[l.Skill]:
			return badValue(fmt.Sprintf("loads[%d].skill", i), "skill %q loaded twice", l.Skill)
		case l.Version == "":
			return badValue(fmt.Sprintf("loads[%d].version", i), "missing version: leave the load out when the loader recorded none")
		case l.CurrentVersion == "":
			return badValue(fmt.Sprintf("loads[%d].current_version", i), "missing current version")
		}
		seen[l.Skill] = true
	}
	if q.Execution != nil && !slices.Contains(AllExecutionOutcomes, *q.Execution) {
		return badValue("execution", "%q: want success or failure (or null when not recorded)", *q.Execution)
	}
	for i, s := range q.SideEffects {
		if s == "" {
			return badValue(fmt.Sprintf("side_effects[%d]", i), "empty side-effect name")
		}
	}
	return nil
}

// Outcome labels one request. It follows the pipeline (selection, then
// the loaded version, then execution) and stops at the first stage that
// fails or has no record: a missing loader record is unknown, never
// current, and no execution is counted after a wrong or stale branch.
func (q SkillRequest) Outcome() (outcome SkillOutcome, version, execution string) {
	if q.RequiredSkill == nil {
		if len(q.Activated) == 0 {
			return SkillCorrectNone, "", ""
		}
		return SkillIrrelevant, "", ""
	}
	switch {
	case len(q.Activated) == 0:
		return SkillMissedActivation, "", ""
	case len(q.Activated) != 1 || q.Activated[0] != *q.RequiredSkill:
		return SkillWrongActivation, "", ""
	}
	i := slices.IndexFunc(q.Loads, func(l SkillLoad) bool { return l.Skill == *q.RequiredSkill })
	switch {
	case i < 0:
		return SkillVersionUnknown, "unknown", ""
	case q.Loads[i].Version != q.Loads[i].CurrentVersion:
		return SkillStaleLoad, "stale", ""
	case q.Execution == nil:
		return SkillExecutionUnknown, "current", "unknown"
	case *q.Execution == ExecutionFailure:
		return SkillExecutionFailure, "current", string(ExecutionFailure)
	}
	return SkillSuccess, "current", string(ExecutionSuccess)
}

// ScoreSkills scores a skill-selection test set.
func ScoreSkills(reqs []SkillRequest) *SkillsReport {
	r := &SkillsReport{Kind: string(KindSkills), Requests: len(reqs), Irrelevant: []IrrelevantActivation{},
		NotMeasured: slices.Clone(skillsNotMeasured)}
	count := map[SkillOutcome][]string{}
	for _, q := range reqs {
		o, version, execution := q.Outcome()
		count[o] = append(count[o], q.Request)
		if q.RequiredSkill != nil {
			r.Required++
		}
		if len(q.Activated) > 0 {
			r.WithActivation++
		}
		if o == SkillIrrelevant {
			r.Irrelevant = append(r.Irrelevant, IrrelevantActivation{Request: q.Request, Activated: nonNil(q.Activated), SideEffects: nonNil(q.SideEffects)})
		}
		r.Rows = append(r.Rows, SkillRow{Request: q.Request, Condition: q.Condition, RequiredSkill: deref(q.RequiredSkill),
			Activated: nonNil(q.Activated), Version: version, Execution: execution, Outcome: o, SideEffects: nonNil(q.SideEffects)})
	}
	r.NotRequired = r.Requests - r.Required
	n := func(os ...SkillOutcome) int {
		t := 0
		for _, o := range os {
			t += len(count[o])
		}
		return t
	}
	correct := n(SkillSuccess, SkillStaleLoad, SkillVersionUnknown, SkillExecutionFailure, SkillExecutionUnknown)
	current := n(SkillSuccess, SkillExecutionFailure, SkillExecutionUnknown)
	r.SelectionPrecision = Figure{Rate: NewRate(correct, r.WithActivation), Of: "requests with an activation"}
	r.SelectionRecall = Figure{Rate: NewRate(correct, r.Required), Of: "requests that require a skill"}
	r.CorrectNonActivation = Figure{Rate: NewRate(n(SkillCorrectNone), r.NotRequired), Of: "requests that require no skill"}
	r.SelectionAccuracy = Figure{Rate: NewRate(correct+n(SkillCorrectNone), r.Requests), Of: "all requests"}
	r.CurrentVersion = Figure{Rate: NewRate(current, correct-n(SkillVersionUnknown)), Of: "correct activations with a loader record",
		Unknown: n(SkillVersionUnknown)}
	r.ExecutionSuccess = Figure{Rate: NewRate(n(SkillSuccess), current-n(SkillExecutionUnknown)), Of: "correct activations that loaded the current version, with an outcome",
		Unknown: n(SkillExecutionUnknown)}
	r.CompleteSuccess = Figure{Rate: NewRate(n(SkillSuccess), r.Required), Of: "requests that require a skill"}
	for _, o := range SkillFailures {
		r.RequiredFailures = append(r.RequiredFailures, OutcomeBucket{Outcome: o, Count: len(count[o]), Requests: nonNil(count[o])})
	}
	return r
}

// figures lists the report's figures in table order.
func (r *SkillsReport) figures() []namedFigure {
	return []namedFigure{
		{"selection precision", r.SelectionPrecision},
		{"selection recall", r.SelectionRecall},
		{"correct non-activation", r.CorrectNonActivation},
		{"selection accuracy", r.SelectionAccuracy},
		{"current version", r.CurrentVersion},
		{"execution success", r.ExecutionSuccess},
		{"complete success", r.CompleteSuccess},
	}
}

// nonNil returns s, or an empty slice for nil, so that JSON shows [].
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// WriteText writes r as tables: the figures, the partition of the failures
// of required requests, the irrelevant activations, every request.
func (r *SkillsReport) WriteText(w io.Writer) error {
	t := newTable(w)
	t.row("skills: %d requests, %d require a skill, %d require none, %d with an activation\n\n",
		r.Requests, r.Required, r.NotRequired, r.WithActivation)
	t.figures(r.figures())
	failed := r.Required - r.CompleteSuccess.Count
	t.row("\nfailures of requests that require a skill (%d of %d, each in the first stage that failed or has no record)\n", failed, r.Required)
	t.row("outcome\tcount\trequests\n")
	for _, b := range r.RequiredFailures {
		t.row("%s\t%d\t%s\n", b.Outcome, b.Count, list(b.Requests))
	}
	t.row("\nirrelevant activations (%d; outside the denominators above, not safe for that)\n", len(r.Irrelevant))
	t.row("request\tactivated\tside effects\n")
	for _, a := range r.Irrelevant {
		effects := list(a.SideEffects)
		if effects == "-" {
			effects = "none recorded"
		}
		t.row("%s\t%s\t%s\n", clean(a.Request), list(a.Activated), effects)
	}
	t.row("\nrequests\n")
	t.row("request\tcondition\trequired\tactivated\tversion\texecution\toutcome\tside effects\n")
	for _, q := range r.Rows {
		t.row("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", clean(q.Request), orDash(q.Condition), orDash(q.RequiredSkill),
			list(q.Activated), orDash(q.Version), orDash(q.Execution), q.Outcome, list(q.SideEffects))
	}
	if err := t.flush(); err != nil {
		return err
	}
	return notMeasured(w, r.NotMeasured)
}
