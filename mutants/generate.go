package mutants

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// Generate returns the mutant space of spec's mission: every operator at
// every site of the mission where it applies, as mutation-testing tools
// (PIT, Stryker) apply every operator everywhere instead of hand-picking.
// It reads the spec alone, so it covers any mission:
//
//   - each edge × payload field: drop_field, rename_field (to the field's
//     camelCase name, or its capitalised name for one word) and
//     reformat_field in every format the field's type takes (a number:
//     cents and decimal_comma; a date: date_dmy);
//   - each write tool × each agent permitted to call it: retry_without_key
//     and fresh_key_on_retry, serving the first edge into the agent (the
//     hand-off its items arrive on) or, for an agent no edge enters, its
//     first edge out;
//   - each edge: redeliver_without_dedup, clear_owner, and double_owner
//     for each agent other than the edge's consumer;
//   - each edge that carries escalation state: escalation_flag_meaning and
//     assume_other_escalated;
//   - each tool × permitted agent × argument: realistic wrong values
//     derived from the argument's schema: every value of an enum
//     (wrong_tool_arg), an empty string for free text (wrong_tool_arg),
//     and perturb_tool_arg by type and format: leading_digit for a number,
//     next_day for a date, swap_currency for a currency, neighbour_id for
//     an identifier, negate for a boolean, drop_last for a list;
//   - each decision with choices × each choice × each other choice
//     (flip_decision from → to), and each emitting agent's route: for each
//     edge out of it, its consumer → each other agent.
//
// Each mutant's class is its operator's ([Operator.Class]) and its ground
// truth follows from its placement ([Mutant.Location]). Ids are the
// operator and the site, joined by dots ("drop_field.intake-action.currency",
// "flip_decision.boundary.decision.approved-escalated"): stable across runs
// and machines, and readable. The order is the list above, each family in
// the spec's declared order of edges, fields, tools, agents and
// arguments. Every mutant is checked as a catalogue entry would be; a spec
// whose sites give two mutants the same id is an error.
func Generate(spec *mission.Spec) ([]*Mutant, error) {
	if spec == nil {
		return nil, errors.New("generate mutants: no mission spec")
	}
	g := &generator{spec: spec, seen: map[string]bool{}}
	g.fields()
	g.retries()
	g.transport()
	g.escalations()
	g.toolArgs()
	g.decisions()
	if err := errors.Join(g.errs...); err != nil {
		return nil, fmt.Errorf("generate mutants of mission %s: %w", spec.Name, err)
	}
	return g.out, nil
}

// generator collects the mutants of one spec.
type generator struct {
	spec *mission.Spec
	out  []*Mutant
	seen map[string]bool
	errs []error
}

// add checks m as a catalogue entry and appends it; its id is the operator
// and the parts.
func (g *generator) add(m *Mutant, parts ...string) {
	op, ok := OperatorByName(m.Operator)
	if !ok {
		g.errs = append(g.errs, fmt.Errorf("no operator %q", m.Operator))
		return
	}
	m.Class = op.Class
	m.ID = idOf(m.Operator, parts...)
	if g.seen[m.ID] {
		g.errs = append(g.errs, fmt.Errorf("two sites give id %s", m.ID))
		return
	}
	if errs := m.Validate(g.spec); len(errs) > 0 {
		g.errs = append(g.errs, fmt.Errorf("mutant %s: %w", m.ID, errors.Join(errs...)))
		return
	}
	g.seen[m.ID] = true
	g.out = append(g.out, m)
}

// idOf joins an operator and the slugs of its site's parts with dots.
func idOf(operator string, parts ...string) string {
	s := []string{operator}
	for _, p := range parts {
		s = append(s, slug(p))
	}
	return strings.Join(s, ".")
}

// slug keeps the characters a mutant id allows and writes any other run of
// characters as one '_' ("->" as "-").
func slug(s string) string {
	s = strings.ReplaceAll(s, "->", "-")
	var b strings.Builder
	under := false
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
		switch {
		case ok:
			b.WriteRune(r)
			under = false
		case !under:
			b.WriteByte('_')
			under = true
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// fields: drop, rename and reformat each payload field of each edge.
func (g *generator) fields() {
	for _, es := range g.spec.Edges {
		e := es.Edge()
		fields := g.spec.Fields(e)
		for _, f := range fields {
			site := e.String()
			g.add(&Mutant{Operator: "drop_field", Edge: site, Field: f.Name,
				Description: fmt.Sprintf("The emitter on %s no longer writes %s; %s reads its silent default (%s).", site, f.Name, e.To, defaultOf(f))},
				site, f.Name)
			if to := renamed(f.Name, fields); to != "" {
				g.add(&Mutant{Operator: "rename_field", Edge: site, Field: f.Name, To: to,
					Description: fmt.Sprintf("A new serialiser on %s writes %s as %s; %s, still reading %s, falls back to its default (%s).", site, f.Name, to, e.To, f.Name, defaultOf(f))},
					site, f.Name)
			}
			for _, format := range formatsOf(f.Type) {
				g.add(&Mutant{Operator: "reformat_field", Edge: site, Field: f.Name, Format: format,
					Description: fmt.Sprintf("A new producer version on %s writes %s in format %s; %s reads it with the old format's rules.", site, f.Name, format, e.To)},
					site, f.Name, format)
			}
		}
	}
}

// formatsOf lists the formats of reformat_field a field type takes.
func formatsOf(t mission.FieldType) []string {
	switch t {
	case mission.FieldNumber:
		return []string{FormatCents, FormatDecimalComma}
	case mission.FieldDate:
		return []string{FormatDateDMY}
	}
	return nil
}

// renamed is the name a new serialiser would give a field: its camelCase
// name ("due_date" → "dueDate"), or for one word its capitalised one
// ("currency" → "Currency"); "" when that is a field the edge already
// carries.
func renamed(name string, fields []mission.Field) string {
	parts := strings.Split(name, "_")
	var b strings.Builder
	for i, p := range parts {
		if p == "" {
			continue
		}
		if i > 0 || len(parts) == 1 {
			p = strings.ToUpper(p[:1]) + p[1:]
		}
		b.WriteString(p)
	}
	to := b.String()
	if to == name || to == "" || slices.ContainsFunc(fields, func(f mission.Field) bool { return f.Name == to }) {
		return ""
	}
	return to
}

// defaultOf says what a consumer's parser reads when the field is missing.
func defaultOf(f mission.Field) string {
	switch f.Type {
	case mission.FieldString:
		if f.Default != "" {
			return fmt.Sprintf("%q", f.Default)
		}
		return "an empty string"
	case mission.FieldNumber:
		return "0"
	case mission.FieldBool:
		return "false"
	case mission.FieldDate:
		switch {
		case f.DefaultDays != 0 && f.DefaultFrom != "":
			return fmt.Sprintf("%s plus %d days, else the business day plus %d", f.DefaultFrom, f.DefaultDays, f.DefaultDays)
		case f.DefaultDays != 0:
			return fmt.Sprintf("the business day plus %d days", f.DefaultDays)
		}
		return "no date"
	}
	return "an empty list"
}

// retries: each write tool's retries without a key and under a fresh one,
// for each agent that may call it.
func (g *generator) retries() {
	if g.spec.Tools == nil {
		return
	}
	for _, t := range g.spec.Tools.Tools() {
		if t.Access != sandbox.Write {
			continue
		}
		for _, a := range g.agentsOf(t) {
			e, ok := g.servedEdge(a)
			if !ok {
				continue
			}
			for _, op := range []string{"retry_without_key", "fresh_key_on_retry"} {
				how := "without an idempotency key"
				if op == "fresh_key_on_retry" {
					how = "under a fresh idempotency key"
				}
				g.add(&Mutant{Operator: op, Agent: string(a), Edge: e.String(), Tool: t.Name,
					Description: fmt.Sprintf("%s retries a failed %s %s; after a timeout that did commit, the write is applied twice.", a, t.Name, how)},
					string(a), t.Name)
			}
		}
	}
}

// agentsOf lists the agents permitted to call t, in flow order.
func (g *generator) agentsOf(t sandbox.Tool) []mission.Agent {
	var out []mission.Agent
	for _, a := range g.spec.AgentNames() {
		if g.spec.Permitted(a, t.Name) {
			out = append(out, a)
		}
	}
	return out
}

// servedEdge is the hand-off an agent's writes serve: the first edge into
// it, else its first edge out.
func (g *generator) servedEdge(a mission.Agent) (mission.Edge, bool) {
	if in := g.spec.In(a); len(in) > 0 {
		return in[0], true
	}
	if out := g.spec.Out(a); len(out) > 0 {
		return out[0], true
	}
	return mission.Edge{}, false
}

// transport: each edge's redelivery without de-duplication, its owner
// cleared, and a second owner for each other agent.
func (g *generator) transport() {
	for _, e := range g.spec.EdgeList() {
		site := e.String()
		g.add(&Mutant{Operator: "redeliver_without_dedup", Edge: site,
			Description: fmt.Sprintf("The transport on %s no longer drops a redelivered copy; %s acts on it twice.", site, e.To)}, site)
		g.add(&Mutant{Operator: "clear_owner", Edge: site,
			Description: fmt.Sprintf("The emitter on %s leaves next_owner empty; nobody receives the message.", site)}, site)
		for _, a := range g.spec.AgentNames() {
			if a == e.To {
				continue
			}
			g.add(&Mutant{Operator: "double_owner", Edge: site, Value: string(a),
				Description: fmt.Sprintf("The emitter on %s names %s as a second next owner; %s and %s both act on the item.", site, a, e.To, a)},
				site, string(a))
		}
	}
}

// escalations: each escalation hand-off's flag read as done, and written
// as done.
func (g *generator) escalations() {
	for _, es := range g.spec.Edges {
		if !es.Escalation {
			continue
		}
		site := es.Edge().String()
		g.add(&Mutant{Operator: "escalation_flag_meaning", Edge: site,
			Description: fmt.Sprintf("%s reads escalation \"requested\" on %s as \"escalated\"; nobody escalates.", es.To, site)}, site)
		g.add(&Mutant{Operator: "assume_other_escalated", Edge: site,
			Description: fmt.Sprintf("%s writes escalation \"escalated\", with no ticket, on %s where it means \"requested\"; nobody escalates.", es.From, site)}, site)
	}
}

// toolArgs: realistic wrong values of each argument of each tool, for each
// agent that may call it.
func (g *generator) toolArgs() {
	if g.spec.Tools == nil {
		return
	}
	for _, t := range g.spec.Tools.Tools() {
		if t.Args == nil {
			continue
		}
		for _, a := range g.agentsOf(t) {
			for _, p := range t.Args.Properties {
				for _, w := range wrongValues(p.Schema) {
					m := &Mutant{Agent: string(a), Tool: t.Name, Arg: p.Name}
					if w.change != "" {
						m.Operator, m.Change = "perturb_tool_arg", string(w.change)
						m.Description = fmt.Sprintf("%s passes %s to %s changed by %s (%s).", a, p.Name, t.Name, w.change, w.doc)
						g.add(m, string(a), t.Name, p.Name, string(w.change))
						continue
					}
					m.Operator, m.Value = "wrong_tool_arg", w.value
					m.Description = fmt.Sprintf("%s passes %s = %q to every %s call (%s).", a, p.Name, w.value, t.Name, w.doc)
					g.add(m, string(a), t.Name, p.Name, w.name)
				}
			}
		}
	}
}

// wrongValue is one realistic wrong value of an argument: a fixed value
// (named for the id) or a change of the meant one.
type wrongValue struct {
	name   string
	value  string
	change Change
	doc    string
}

// wrongValues derives an argument's wrong values from its schema.
func wrongValues(s sandbox.Schema) []wrongValue {
	switch s.Type {
	case sandbox.TypeNumber:
		return []wrongValue{{change: ChangeLeadingDigit, doc: "a digit slip: its first digit one higher"}}
	case sandbox.TypeBoolean:
		return []wrongValue{{change: ChangeNegate, doc: "the opposite flag"}}
	case sandbox.TypeArray:
		return []wrongValue{{change: ChangeDropLast, doc: "an off-by-one loop: the last item left out"}}
	case sandbox.TypeString:
	default:
		return nil
	}
	switch {
	case len(s.Enum) > 0:
		out := make([]wrongValue, len(s.Enum))
		for i, v := range s.Enum {
			out[i] = wrongValue{name: v, value: v, doc: "one allowed value hard-coded"}
		}
		return out
	case s.Format == sandbox.FormatDate:
		return []wrongValue{{change: ChangeNextDay, doc: "a date a day late"}}
	case s.Format == sandbox.FormatCurrency:
		return []wrongValue{{change: ChangeSwapCurrency, doc: "another currency"}}
	case s.Format == sandbox.FormatID:
		return []wrongValue{{change: ChangeNeighbourID, doc: "a neighbouring identifier: another record of the same kind"}}
	}
	return []wrongValue{{name: "empty", value: "", doc: "left empty"}}
}

// decisions: each decision's choices flipped to each other choice, and
// each emitter's route from each edge's consumer to each other agent.
func (g *generator) decisions() {
	for _, as := range g.spec.Agents {
		a := string(as.Name)
		for _, d := range as.Decisions {
			for _, from := range d.Choices {
				for _, to := range d.Choices {
					if to == from {
						continue
					}
					g.add(&Mutant{Operator: "flip_decision", Agent: a, Decision: d.Kind, From: from, To: to,
						Description: fmt.Sprintf("%s's %s acts on %s wherever it chose %s.", a, d.Kind, to, from)},
						a, d.Kind, from+"-"+to)
				}
			}
		}
		for _, e := range g.spec.Out(as.Name) {
			for _, to := range g.spec.AgentNames() {
				if to == e.To {
					continue
				}
				g.add(&Mutant{Operator: "flip_decision", Agent: a, Decision: mission.RouteDecision, From: string(e.To), To: string(to),
					Description: fmt.Sprintf("%s routes to %s what it means for %s.", a, to, e.To)},
					a, mission.RouteDecision, string(e.To)+"-"+string(to))
			}
		}
	}
}
