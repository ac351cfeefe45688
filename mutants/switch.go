package mutants

import (
	"fmt"
	"slices"
	"strings"

	"github.com/baton-lab/baton/mission"
)

// Validate checks the entry against its operator and the mission spec
// describes: a known class and operator, an edge or an agent as the
// operator's seam wants, which the mission has, a ground truth the class
// allows (an edge for a hand-off class, an agent alone for the control),
// and the parameters the operator takes. It returns every problem found;
// each is a *FieldError.
func (m *Mutant) Validate(spec *mission.Spec) []error {
	v := &validation{m: m}
	op := v.head()
	if op == nil {
		return v.errs
	}
	placed := v.placement(op, spec)
	if placed {
		v.groundTruth(op)
	}
	complete := v.params(op)
	if placed && complete && op.Validate != nil {
		if err := op.Validate(m, spec); err != nil {
			v.errs = append(v.errs, err)
		}
	}
	return v.errs
}

// validation collects the problems of one entry.
type validation struct {
	m    *Mutant
	errs []error
}

func (v *validation) add(field, format string, args ...any) {
	v.errs = append(v.errs, &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)})
}

// head checks the id, class and operator, and returns the operator (nil
// when there is none to check the rest against).
func (v *validation) head() *Operator {
	m := v.m
	switch {
	case m.ID == "":
		v.add("id", "missing")
	case !validID(m.ID):
		v.add("id", "%q: use letters, digits, '_', '-' and '.'", m.ID)
	}
	switch {
	case m.Class == "":
		v.add("class", "missing (want one of %s)", classList())
	case !slices.Contains(AllClasses, m.Class):
		v.add("class", "unknown class %q (want one of %s)", m.Class, classList())
	}
	op, ok := OperatorByName(m.Operator)
	switch {
	case m.Operator == "":
		v.add("operator", "missing (want one of %s)", strings.Join(OperatorNames(), ", "))
		return nil
	case !ok:
		v.add("operator", "unknown operator %q (want one of %s)", m.Operator, strings.Join(OperatorNames(), ", "))
		return nil
	}
	return op
}

// placement checks the edge or agent the operator's seam wants, against
// the mission (none when spec is nil); placed is false when the entry
// cannot be placed.
func (v *validation) placement(op *Operator, spec *mission.Spec) (placed bool) {
	m := v.m
	if op.Seam.OnEdge() {
		return v.onEdge(op, spec)
	}
	placed = true
	switch {
	case m.Agent == "" && m.Edge != "" && !op.ServesEdge:
		v.add("edge", "%s acts inside one agent's core: give an agent, not an edge", op.Name)
		placed = false
	case m.Agent == "":
		v.add("agent", "missing: %s acts inside one agent's core", op.Name)
		placed = false
	case m.Edge != "" && !op.ServesEdge:
		v.add("edge", "%s acts inside one agent's core: give an agent, not an edge", op.Name)
	}
	if spec == nil {
		return placed
	}
	if m.Agent != "" && !spec.HasAgent(mission.Agent(m.Agent)) {
		v.add("agent", "the mission has no agent %q (it has %s)", m.Agent, agentList(spec))
		placed = false
	}
	if m.Edge != "" && op.ServesEdge {
		if !validEdge(spec, m.Edge, v.add) {
			placed = false
		} else if e, _ := mission.ParseEdge(m.Edge); placed && e.From != mission.Agent(m.Agent) && e.To != mission.Agent(m.Agent) {
			v.add("edge", "%s acts in %s, which is neither end of %s: name a hand-off %s produces or consumes", op.Name, m.Agent, m.Edge, m.Agent)
			placed = false
		}
	}
	return placed
}

// onEdge checks the placement of an operator on a hand-off seam.
func (v *validation) onEdge(op *Operator, spec *mission.Spec) (placed bool) {
	m := v.m
	placed = true
	switch {
	case m.Edge == "" && m.Agent != "":
		v.add("agent", "%s acts on a hand-off: give an edge, not an agent", op.Name)
		placed = false
	case m.Edge == "":
		v.add("edge", "missing: %s acts on a hand-off", op.Name)
		placed = false
	case m.Agent != "":
		v.add("agent", "%s acts on a hand-off: give an edge, not an agent", op.Name)
	}
	if m.Edge != "" && spec != nil && !validEdge(spec, m.Edge, v.add) {
		placed = false
	}
	if _, err := mission.ParseEdge(m.Edge); m.Edge != "" && spec == nil && err != nil {
		v.add("edge", "%v", err)
		placed = false
	}
	return placed
}

// groundTruth checks that the class allows where the entry is placed: an
// edge for the classes that live between agents, an agent for the
// control.
func (v *validation) groundTruth(op *Operator) {
	m := v.m
	if !slices.Contains(AllClasses, m.Class) {
		return
	}
	switch {
	case m.Class.HandOff() && m.Edge == "" && op.ServesEdge:
		v.add("edge", "missing: class %s lives between agents, so its ground truth is an edge; "+
			"name the hand-off whose item %s's %s serves (%s must be one of its ends)", m.Class, m.Agent, op.Name, m.Agent)
	case m.Class.HandOff() && m.Edge == "":
		v.add("class", "%s lives between agents, so its ground truth is an edge, but %s acts inside one agent's core and takes none "+
			"(use class %s, or an operator on a hand-off)", m.Class, op.Name, Control)
	case m.Class == Control && op.Seam.OnEdge():
		v.add("class", "a %s lives inside one agent, but %s acts on a hand-off (give the control an operator on a core seam, such as wrong_tool_arg)", Control, op.Name)
	case m.Class == Control && m.Edge != "":
		v.add("edge", "a %s lives inside one agent: give its agent alone, no edge", Control)
	}
}

// params checks the operator's parameters: complete is false when one it
// needs is missing.
func (v *validation) params(op *Operator) (complete bool) {
	complete = true
	for _, p := range AllParams {
		set := v.m.param(p)
		switch {
		case slices.Contains(op.Params, p) && !set:
			v.add(string(p), "missing: %s needs %s", op.Name, paramList(op.Params))
			complete = false
		case !op.Takes(p) && set:
			v.add(string(p), "%s takes no %s", op.Name, p)
		}
	}
	return complete
}

// param reports whether the entry sets parameter p.
func (m *Mutant) param(p Param) bool {
	switch p {
	case ParamField:
		return m.Field != ""
	case ParamTo:
		return m.To != ""
	case ParamFormat:
		return m.Format != ""
	case ParamTool:
		return m.Tool != ""
	case ParamArg:
		return m.Arg != ""
	case ParamValue:
		return m.Value != nil
	case ParamDecision:
		return m.Decision != ""
	case ParamFrom:
		return m.From != ""
	case ParamChange:
		return m.Change != ""
	}
	return false
}

// Seams returns the mutant's seams, reporting to oracle (which may be nil).
// It fails when the entry is not valid for spec's mission.
func (m *Mutant) Seams(spec *mission.Spec, oracle *mission.Oracle) (mission.Seams, error) {
	if errs := m.Validate(spec); len(errs) > 0 {
		return nil, fmt.Errorf("mutant %s: %w", m.ID, errs[0])
	}
	op, _ := OperatorByName(m.Operator)
	return op.New(m, oracle), nil
}

// Switch returns the mission build with this mutant switched on alone,
// recording into oracle what fired and every time the mutant reached its
// target. The mutant must be valid, as every entry of a catalogue parsed
// for the mission is: Switch panics on an entry whose operator, placement
// or parameters are wrong (it does not check the mission again).
func (m *Mutant) Switch(oracle *mission.Oracle) mission.Build {
	v := &validation{m: m}
	op := v.head()
	if op != nil && v.placement(op, nil) {
		v.groundTruth(op)
	}
	if op != nil {
		v.params(op)
	}
	if len(v.errs) > 0 {
		panic(fmt.Sprintf("mutants: switch %s: %v", m.ID, v.errs[0]))
	}
	return mission.NewBuild(op.New(m, oracle), oracle)
}

// validEdge checks that s is an edge the mission has, reporting through add.
func validEdge(spec *mission.Spec, s string, add func(field, format string, args ...any)) bool {
	e, err := mission.ParseEdge(s)
	if err != nil {
		add("edge", "%v", err)
		return false
	}
	if spec.Kind(e) == "" {
		add("edge", "the mission has no edge %s (it has %s)", s, edgeList(spec))
		return false
	}
	return true
}

func validID(id string) bool {
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
		default:
			return false
		}
	}
	return id != ""
}

func classList() string {
	s := make([]string, len(AllClasses))
	for i, c := range AllClasses {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

func edgeList(spec *mission.Spec) string {
	var s []string
	for _, e := range spec.EdgeList() {
		s = append(s, e.String())
	}
	return strings.Join(s, ", ")
}

func agentList(spec *mission.Spec) string {
	var s []string
	for _, a := range spec.AgentNames() {
		s = append(s, string(a))
	}
	return strings.Join(s, ", ")
}

func paramList(ps []Param) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}
