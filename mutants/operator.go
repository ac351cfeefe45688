package mutants

import (
	"fmt"
	"slices"
	"strings"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// Seam names the hook of [mission.Seams] an operator acts through.
type Seam string

// The seams, in the order of [mission.Seams].
const (
	SeamDecide   Seam = "decide"    // core decision
	SeamToolArgs Seam = "tool_args" // tool arguments
	SeamRetryKey Seam = "retry_key" // idempotency key on retries
	SeamEmit     Seam = "emit"      // emitter: payload and envelope
	SeamParse    Seam = "parse"     // parser: how the consumer reads
	SeamRoute    Seam = "route"     // ownership routing in the transport
	SeamDedup    Seam = "dedup"     // transport de-duplication
)

// AllSeams lists every seam.
var AllSeams = []Seam{SeamDecide, SeamToolArgs, SeamRetryKey, SeamEmit, SeamParse, SeamRoute, SeamDedup}

func (s Seam) String() string { return string(s) }

// OnEdge reports whether the seam sits on a hand-off, so that a mutant acting
// through it is placed by an edge; the other seams sit inside one agent's
// core and are placed by an agent.
func (s Seam) OnEdge() bool {
	switch s {
	case SeamEmit, SeamParse, SeamRoute, SeamDedup:
		return true
	}
	return false
}

// Param names an operator parameter: a key of a catalogue entry beside id,
// class, operator, edge, agent and description.
type Param string

// The operator parameters.
const (
	ParamField    Param = "field"    // a payload field of the edge
	ParamTo       Param = "to"       // the new name (rename_field) or the new choice (flip_decision)
	ParamFormat   Param = "format"   // a format of reformat_field
	ParamTool     Param = "tool"     // a tool the agent may call
	ParamArg      Param = "arg"      // a tool argument
	ParamValue    Param = "value"    // a value: an argument's (wrong_tool_arg) or an agent (double_owner, reroute)
	ParamDecision Param = "decision" // a core decision kind
	ParamFrom     Param = "from"     // the choice a decision must have for flip_decision to act
	ParamChange   Param = "change"   // how perturb_tool_arg changes an argument (see [Changes])
)

// AllParams lists every parameter in the order catalogue entries write them.
var AllParams = []Param{ParamField, ParamTo, ParamFormat, ParamTool, ParamArg, ParamValue, ParamDecision, ParamFrom, ParamChange}

func (p Param) String() string { return string(p) }

// Formats of reformat_field.
const (
	// FormatCents writes a number as an integer count of cents: 1234.5
	// becomes 123450. A consumer that reads amounts in units pays or
	// compares a hundred times the amount.
	FormatCents = "cents"
	// FormatDateDMY writes a YYYY-MM-DD date as DD/MM/YYYY: "2025-03-04"
	// becomes "04/03/2025". The consumer reads it as MM/DD when both parts
	// are at most 12, else falls back to its default date.
	FormatDateDMY = "date_dmy"
	// FormatDecimalComma writes a number as a string with two decimals and a
	// decimal comma: 1234.5 becomes "1234,50". The lenient consumer takes
	// the comma as a thousands separator and reads 123450.
	FormatDecimalComma = "decimal_comma"
)

// Formats lists the formats of reformat_field.
var Formats = []string{FormatCents, FormatDateDMY, FormatDecimalComma}

// Operator is one kind of seeded defect: what it does, the seam it acts
// through and the parameters a catalogue entry must give it. Operators are
// values; [Operators] lists them.
type Operator struct {
	Name string
	Doc  string
	Seam Seam
	// Class is the defect class the operator seeds: the class [Generate]
	// gives its mutants (a catalogue entry names its own).
	Class Class
	// Params are the parameters an entry must give; Optional those it may.
	// Any other parameter is an error.
	Params   []Param
	Optional []Param
	// ServesEdge marks an operator on a core seam whose entry may also name
	// an edge: the hand-off whose item the agent's act serves. The edge is
	// then the mutant's ground truth and the agent must be one of its ends.
	// A hand-off class needs it; a control must not give it.
	ServesEdge bool
	// Validate checks an entry whose required parameters are present and
	// whose edge or agent the mission has, against the mission's spec. It
	// returns a *FieldError.
	Validate func(m *Mutant, spec *mission.Spec) error
	// New returns the seams of a valid entry, reporting to oracle (which may
	// be nil) every time they are hit on their target, whether or not they
	// change anything there.
	New func(m *Mutant, oracle *mission.Oracle) mission.Seams
}

// Takes reports whether the operator uses parameter p.
func (op *Operator) Takes(p Param) bool {
	return slices.Contains(op.Params, p) || slices.Contains(op.Optional, p)
}

// FieldError is a problem with one key of a catalogue entry.
type FieldError struct {
	Field   string // the entry's key: "edge", "field", "tool", ...
	Problem string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Problem }

func fieldErrorf(field Param, format string, args ...any) error {
	return &FieldError{Field: string(field), Problem: fmt.Sprintf(format, args...)}
}

// Operators returns every operator, sorted by name. The slice is new on
// every call; the operators are shared.
func Operators() []*Operator {
	out := make([]*Operator, len(operators))
	copy(out, operators)
	return out
}

// OperatorByName returns the operator called name.
func OperatorByName(name string) (*Operator, bool) {
	i, ok := slices.BinarySearchFunc(operators, name, func(op *Operator, n string) int { return strings.Compare(op.Name, n) })
	if !ok {
		return nil, false
	}
	return operators[i], true
}

// OperatorNames returns the operator names, sorted.
func OperatorNames() []string {
	out := make([]string, len(operators))
	for i, op := range operators {
		out[i] = op.Name
	}
	return out
}

// operators is sorted by name.
var operators = func() []*Operator {
	ops := []*Operator{
		{
			Name:     "drop_field",
			Class:    ContextLoss,
			Doc:      "The emitter no longer writes payload field `field` on `edge`; the consumer falls back to its silent default.",
			Seam:     SeamEmit,
			Params:   []Param{ParamField},
			Validate: validatePayloadField,
			New:      newDropField,
		},
		{
			Name:     "rename_field",
			Class:    ContractDrift,
			Doc:      "The emitter writes payload field `field` on `edge` under the name `to`; the consumer, reading the old name, falls back to its default.",
			Seam:     SeamEmit,
			Params:   []Param{ParamField, ParamTo},
			Validate: validateRename,
			New:      newRenameField,
		},
		{
			Name:  "reformat_field",
			Class: ContractDrift,
			Doc: "The emitter writes payload field `field` on `edge` in another `format`: " +
				"cents (a number as an integer count of cents), date_dmy (a YYYY-MM-DD date as DD/MM/YYYY) or " +
				"decimal_comma (a number as a string with a decimal comma, \"1234,50\"). A value of the wrong type for the format is left alone.",
			Seam:     SeamEmit,
			Params:   []Param{ParamField, ParamFormat},
			Validate: validateReformat,
			New:      newReformatField,
		},
		{
			Name:  "retry_without_key",
			Class: DuplicateAction,
			Doc: "`agent` retries a failed call of write `tool` without an idempotency key, so a retry after a timeout that did commit applies the write again. " +
				"`edge` names the hand-off whose item the write serves (its idempotency key should carry that hand-off's); `agent` is one of its ends.",
			Seam:       SeamRetryKey,
			Params:     []Param{ParamTool},
			ServesEdge: true,
			Validate:   validateWriteTool,
			New:        newRetryWithoutKey,
		},
		{
			Name:  "fresh_key_on_retry",
			Class: DuplicateAction,
			Doc: "`agent` retries a failed call of write `tool` under a fresh idempotency key (key#retryN), so a retry after a timeout that did commit applies the write again. " +
				"`edge` names the hand-off whose item the write serves (its idempotency key should carry that hand-off's); `agent` is one of its ends.",
			Seam:       SeamRetryKey,
			Params:     []Param{ParamTool},
			ServesEdge: true,
			Validate:   validateWriteTool,
			New:        newFreshKeyOnRetry,
		},
		{
			Name:  "redeliver_without_dedup",
			Class: DuplicateAction,
			Doc:   "The transport no longer drops a redelivered copy of a message on `edge` whose idempotency key it has already delivered; the consumer acts on it twice.",
			Seam:  SeamDedup,
			New:   newRedeliverWithoutDedup,
		},
		{
			Name:  "clear_owner",
			Class: AmbiguousOwnership,
			Doc:   "The emitter on `edge` writes an empty next_owner; the transport delivers the message to nobody.",
			Seam:  SeamEmit,
			New:   newClearOwner,
		},
		{
			Name:     "double_owner",
			Class:    AmbiguousOwnership,
			Doc:      "The emitter on `edge` names agent `value` as a second next owner; both act on the item, each reading the message as its own input kind.",
			Seam:     SeamEmit,
			Params:   []Param{ParamValue},
			Validate: validateOtherOwner,
			New:      newDoubleOwner,
		},
		{
			Name:  "escalation_flag_meaning",
			Class: EscalationGap,
			Doc:   "The consumer on `edge` reads escalation \"requested\" (please escalate) as \"escalated\" (a person already has it), so nobody escalates.",
			Seam:  SeamParse,
			New:   newEscalationFlagMeaning,
		},
		{
			Name:  "assume_other_escalated",
			Class: EscalationGap,
			Doc:   "The producer on `edge` writes escalation \"escalated\", with no ticket, where it means \"requested\": it assumes the consumer's side has already escalated.",
			Seam:  SeamEmit,
			New:   newAssumeOtherEscalated,
		},
		{
			Name:  "perturb_tool_arg",
			Class: Control,
			Doc: "`agent` passes argument `arg` of every call of `tool` changed by `change`, a realistic wrong value derived from the value it meant to pass: " +
				"leading_digit (a number with its first digit off by one), next_day (a date a day late), swap_currency (another currency), " +
				"neighbour_id (an identifier with its last number one off: another record of the same kind), negate (a boolean's opposite), " +
				"drop_last (a list without its last item). An argument the call does not pass, or of the wrong type for the change, is left alone.",
			Seam:     SeamToolArgs,
			Params:   []Param{ParamTool, ParamArg, ParamChange},
			Validate: validatePerturb,
			New:      newPerturbToolArg,
		},
		{
			Name:     "wrong_tool_arg",
			Class:    Control,
			Doc:      "`agent` passes argument `arg` = `value` to every call of `tool`.",
			Seam:     SeamToolArgs,
			Params:   []Param{ParamTool, ParamArg, ParamValue},
			Validate: validateToolArg,
			New:      newWrongToolArg,
		},
		{
			Name:     "flip_decision",
			Class:    Control,
			Doc:      "`agent`'s core acts on choice `to` at its `decision` (one of the mission's decisions of that agent, or route) wherever it chose `from` (any other choice when `from` is empty).",
			Seam:     SeamDecide,
			Params:   []Param{ParamDecision, ParamTo},
			Optional: []Param{ParamFrom},
			Validate: validateDecision,
			New:      newFlipDecision,
		},
		{
			Name:     "reroute",
			Class:    AmbiguousOwnership,
			Doc:      "The transport's routing table sends every message on `edge` to agent `value` instead of the owner the envelope names; the wire message is unchanged.",
			Seam:     SeamRoute,
			Params:   []Param{ParamValue},
			Validate: validateOtherOwner,
			New:      newReroute,
		},
	}
	slices.SortFunc(ops, func(a, b *Operator) int { return strings.Compare(a.Name, b.Name) })
	return ops
}()

// validatePayloadField checks that the entry's field is written on its edge.
func validatePayloadField(m *Mutant, spec *mission.Spec) error {
	e, _ := mission.ParseEdge(m.Edge)
	fields := spec.PayloadFields(e)
	if !slices.Contains(fields, m.Field) {
		if slices.Contains(mission.EnvelopeFields, m.Field) {
			return fieldErrorf(ParamField, "%q is an envelope field, not a payload field of %s (envelope fields have operators of their own)", m.Field, m.Edge)
		}
		return fieldErrorf(ParamField, "edge %s (%s) carries no payload field %q (it carries %s)", m.Edge, spec.Kind(e), m.Field, strings.Join(fields, ", "))
	}
	return nil
}

func validateRename(m *Mutant, spec *mission.Spec) error {
	if err := validatePayloadField(m, spec); err != nil {
		return err
	}
	e, _ := mission.ParseEdge(m.Edge)
	switch {
	case m.To == m.Field:
		return fieldErrorf(ParamTo, "renames %q to itself", m.Field)
	case slices.Contains(spec.PayloadFields(e), m.To):
		return fieldErrorf(ParamTo, "edge %s already carries a payload field %q", m.Edge, m.To)
	}
	return nil
}

func validateReformat(m *Mutant, spec *mission.Spec) error {
	if err := validatePayloadField(m, spec); err != nil {
		return err
	}
	if !slices.Contains(Formats, m.Format) {
		return fieldErrorf(ParamFormat, "unknown format %q (want one of %s)", m.Format, strings.Join(Formats, ", "))
	}
	return nil
}

// validateTool checks that the entry's agent may call its tool.
func validateTool(m *Mutant, spec *mission.Spec) error {
	a := mission.Agent(m.Agent)
	if !spec.Permitted(a, m.Tool) {
		return fieldErrorf(ParamTool, "agent %s may not call %q (it may call %s)", m.Agent, m.Tool, strings.Join(spec.AgentTools(a), ", "))
	}
	return nil
}

func validateWriteTool(m *Mutant, spec *mission.Spec) error {
	if err := validateTool(m, spec); err != nil {
		return err
	}
	if t, _ := spec.Tools.Tool(m.Tool); t.Access != sandbox.Write {
		return fieldErrorf(ParamTool, "%q is a read; only writes carry an idempotency key", m.Tool)
	}
	return nil
}

func validateToolArg(m *Mutant, spec *mission.Spec) error {
	if err := validateTool(m, spec); err != nil {
		return err
	}
	if t, _ := spec.Tools.Tool(m.Tool); t.Args != nil && len(t.Args.Properties) > 0 {
		if _, ok := t.Args.Property(m.Arg); !ok {
			var names []string
			for _, p := range t.Args.Properties {
				names = append(names, p.Name)
			}
			return fieldErrorf(ParamArg, "%s takes no argument %q (it takes %s)", m.Tool, m.Arg, strings.Join(names, ", "))
		}
	}
	if m.Value == nil {
		return fieldErrorf(ParamValue, "missing")
	}
	if _, err := jsonValue(m.Value); err != nil {
		return fieldErrorf(ParamValue, "%v", err)
	}
	return nil
}

// validateOtherOwner checks that value names an agent other than the edge's
// consumer.
func validateOtherOwner(m *Mutant, spec *mission.Spec) error {
	s, ok := m.Value.(string)
	if !ok {
		return fieldErrorf(ParamValue, "want an agent name, got %v", m.Value)
	}
	if !spec.HasAgent(mission.Agent(s)) {
		return fieldErrorf(ParamValue, "the mission has no agent %q", s)
	}
	e, _ := mission.ParseEdge(m.Edge)
	if mission.Agent(s) == e.To {
		return fieldErrorf(ParamValue, "%s already owns what %s carries", s, m.Edge)
	}
	return nil
}

func validateDecision(m *Mutant, spec *mission.Spec) error {
	d, ok := spec.Decision(mission.Agent(m.Agent), m.Decision)
	if !ok {
		var kinds []string
		if as, ok := spec.Agent(mission.Agent(m.Agent)); ok {
			for _, d := range as.Decisions {
				kinds = append(kinds, d.Kind)
			}
		}
		if len(spec.Out(mission.Agent(m.Agent))) > 0 {
			kinds = append(kinds, mission.RouteDecision)
		}
		return fieldErrorf(ParamDecision, "agent %s makes no decision %q (it makes %s)", m.Agent, m.Decision, strings.Join(kinds, ", "))
	}
	if m.From != "" && m.From == m.To {
		return fieldErrorf(ParamTo, "flips %q to itself", m.From)
	}
	choices := d.Choices
	if d.Kind == mission.RouteDecision {
		for _, a := range spec.AgentNames() {
			choices = append(choices, string(a))
		}
	}
	for _, c := range []struct {
		p Param
		v string
	}{{ParamTo, m.To}, {ParamFrom, m.From}} {
		if c.v != "" && len(choices) > 0 && !slices.Contains(choices, c.v) {
			return fieldErrorf(c.p, "%s's %s has no choice %q (its choices are %s)", m.Agent, m.Decision, c.v, strings.Join(choices, ", "))
		}
	}
	return nil
}
