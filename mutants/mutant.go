package mutants

import "github.com/baton-lab/baton/mission"

// Class is a defect class of the protocol.
type Class string

// The defect classes.
const (
	ContextLoss        Class = "context_loss"
	AmbiguousOwnership Class = "ambiguous_ownership"
	DuplicateAction    Class = "duplicate_action"
	EscalationGap      Class = "escalation_gap"
	ContractDrift      Class = "contract_drift"
	Control            Class = "control"
)

// AllClasses lists the classes in report order: the five hand-off classes,
// then the control.
var AllClasses = []Class{ContextLoss, AmbiguousOwnership, DuplicateAction, EscalationGap, ContractDrift, Control}

func (c Class) String() string { return string(c) }

// HandOff reports whether the class lives between agents (every class but
// the control).
func (c Class) HandOff() bool { return c != Control }

// Mutant is one catalogue entry: a defect, where it acts and its ground
// truth. Operator parameters a given operator does not use stay empty.
type Mutant struct {
	ID          string `json:"id" yaml:"id"`
	Class       Class  `json:"class" yaml:"class"`
	Operator    string `json:"operator" yaml:"operator"`
	Edge        string `json:"edge,omitempty" yaml:"edge"`   // from->to: where a hand-off seam acts, or the hand-off a retried write serves
	Agent       string `json:"agent,omitempty" yaml:"agent"` // where a core seam acts
	Field       string `json:"field,omitempty" yaml:"field"`
	To          string `json:"to,omitempty" yaml:"to"`
	Format      string `json:"format,omitempty" yaml:"format"`
	Tool        string `json:"tool,omitempty" yaml:"tool"`
	Arg         string `json:"arg,omitempty" yaml:"arg"`
	Value       any    `json:"value,omitempty" yaml:"value"`
	Decision    string `json:"decision,omitempty" yaml:"decision"`
	From        string `json:"from,omitempty" yaml:"from"`
	Change      string `json:"change,omitempty" yaml:"change"`
	Description string `json:"description" yaml:"description"`
	// Intent is what the change is to its team: a regression (the default,
	// ""), or a deliberate new version (IntentVersionChange), whose team
	// re-records its own agent's goldens from it.
	Intent string `json:"intent,omitempty" yaml:"intent"`

	// Source is "file:line" of the entry, for error messages.
	Source string `json:"-" yaml:"-"`
}

// Intents of a change.
const (
	IntentRegression    = "regression"
	IntentVersionChange = "version_change"
)

// VersionChange reports whether the mutant is a deliberate new version of
// the agent it changes.
func (m *Mutant) VersionChange() bool { return m.Intent == IntentVersionChange }

// Location returns the mutant's ground truth: its edge when it has one
// (every mutant of a hand-off class does, whatever its seam), its agent
// otherwise (the control).
func (m *Mutant) Location() mission.Location {
	if m.Edge != "" {
		return mission.Location(m.Edge)
	}
	return mission.Location(m.Agent)
}
