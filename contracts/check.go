package contracts

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"cel.dev/cel-go/common/types"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// Check checks one message sent on edge against the edge's contract at
// level: the rules of that level and every level below it. It returns nil
// when the message keeps the contract. It never panics, whatever raw holds:
// bytes that are not a JSON object give one violation with rule "json"; an
// edge without a contract gives one with rule "edge".
//
// Check reads the contract compiled at load; it compiles nothing. It
// remembers its answers by (edge, level, raw) in a bounded memo, so checking
// bytes it has seen before costs a map look-up.
func (s *Set) Check(edge string, raw []byte, level Level) []Violation {
	c, bad := s.lookup(edge)
	if bad != nil {
		return []Violation{*bad}
	}
	if vs, ok := s.memo.get(edge, level, raw); ok {
		return vs
	}
	vs := s.check(c, edge, raw, level)
	s.memo.put(edge, level, raw, vs)
	return vs
}

// check is Check without the memo.
func (s *Set) check(c *Contract, edge string, raw []byte, level Level) []Violation {
	m, why := decode(raw)
	if m == nil {
		return []Violation{jsonViolation(edge, why)}
	}
	return c.check(m, level)
}

func (s *Set) lookup(edge string) (*Contract, *Violation) {
	if c, ok := s.byEdge[edge]; ok {
		return c, nil
	}
	return nil, &Violation{
		Edge: edge, Rule: "edge", Level: LevelSchema.String(), Field: "edge",
		Expected: "an edge with a contract: " + strings.Join(s.edges, ", "), Got: edge,
		Message: "no contract for this edge",
	}
}

func jsonViolation(edge, why string) Violation {
	return Violation{
		Edge: edge, Rule: "json", Level: LevelSchema.String(), Field: "",
		Expected: "a JSON object", Got: why, Message: "the message is not a JSON object",
	}
}

// check runs every rule at or below level on a decoded message.
func (c *Contract) check(m *decoded, level Level) []Violation {
	var out []Violation
	if level >= LevelSchema {
		out = c.checkSchema(m, out)
	}
	schemaFailed := len(out) > 0
	if level >= LevelOwnership {
		out = c.checkOwnership(m, out)
	}
	return c.checkRules(m, level, schemaFailed, out)
}

// fieldRoot is the top-level name a violation's field is under:
// "payload.lines[1].amount" -> "payload.lines", "next_owner" -> "next_owner".
func fieldRoot(field string) string {
	if rest, ok := strings.CutPrefix(field, "payload."); ok {
		if i := strings.IndexAny(rest, ".["); i >= 0 {
			rest = rest[:i]
		}
		return "payload." + rest
	}
	if i := strings.IndexAny(field, ".["); i >= 0 {
		return field[:i]
	}
	return field
}

// checkSchema checks the envelope's identity and the JSON Schema.
func (c *Contract) checkSchema(m *decoded, out []Violation) []Violation {
	for _, id := range []struct{ rule, field, want string }{
		{"edge", "edge", c.Edge}, {"kind", "kind", c.Kind}, {"version", "schema_version", c.Version},
	} {
		if v, ok := m.doc[id.field].(string); ok && v != id.want {
			out = append(out, Violation{
				Edge: c.Edge, Rule: id.rule, Level: LevelSchema.String(), Field: id.field,
				Expected: strconv.Quote(id.want), Got: strconv.Quote(v),
				Message: fmt.Sprintf("%s is not the contract's", id.field),
			})
		}
	}
	err := c.schema.Validate(any(m.doc))
	if err == nil {
		return out
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return append(out, Violation{
			Edge: c.Edge, Rule: "schema", Level: LevelSchema.String(),
			Expected: "a valid message", Got: err.Error(), Message: "schema check failed",
		})
	}
	var found []Violation
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, ce := range e.Causes {
				walk(ce)
			}
			return
		}
		found = c.leaf(m.doc, e, found)
	}
	walk(ve)
	slices.SortFunc(found, func(a, b Violation) int {
		return cmp.Or(strings.Compare(a.Field, b.Field), strings.Compare(a.Rule, b.Rule), strings.Compare(a.Got, b.Got))
	})
	found = slices.CompactFunc(found, func(a, b Violation) bool { return a == b })
	return append(out, found...)
}

// leaf turns one JSON Schema failure into violations.
func (c *Contract) leaf(doc map[string]any, e *jsonschema.ValidationError, out []Violation) []Violation {
	path, val := locate(doc, e.InstanceLocation)
	v := Violation{Edge: c.Edge, Level: LevelSchema.String(), Field: path, Got: render(val)}
	rat := func(r interface{ FloatString(int) string }) string {
		s := r.FloatString(6)
		s = strings.TrimRight(s, "0")
		return strings.TrimSuffix(s, ".")
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, name := range k.Missing {
			out = append(out, Violation{
				Edge: c.Edge, Rule: "required", Level: LevelSchema.String(), Field: joinPath(path, name),
				Expected: "present", Got: "missing", Message: "required field is missing",
			})
		}
		return out
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			out = append(out, Violation{
				Edge: c.Edge, Rule: "closed", Level: LevelSchema.String(), Field: joinPath(path, name),
				Expected: "no undeclared field", Got: "present", Message: "the contract does not declare this field",
			})
		}
		return out
	case *kind.Type:
		v.Rule, v.Expected = "type", strings.Join(k.Want, " or ")
		v.Message = fmt.Sprintf("wrong type: got %s, want %s", k.Got, v.Expected)
	case *kind.Enum:
		v.Rule, v.Expected = "enum", "one of "+quoteList(k.Want)
		v.Message = "value not allowed"
	case *kind.Const:
		v.Rule, v.Expected = "const", render(k.Want)
		v.Message = "value not allowed"
	case *kind.Format:
		v.Rule, v.Expected = "format", k.Want
		v.Message = "not a valid " + k.Want
	case *kind.Minimum:
		v.Rule, v.Expected, v.Message = "range", ">= "+rat(k.Want), "below the minimum"
	case *kind.Maximum:
		v.Rule, v.Expected, v.Message = "range", "<= "+rat(k.Want), "above the maximum"
	case *kind.ExclusiveMinimum:
		v.Rule, v.Expected, v.Message = "range", "> "+rat(k.Want), "not above the minimum"
	case *kind.ExclusiveMaximum:
		v.Rule, v.Expected, v.Message = "range", "< "+rat(k.Want), "not below the maximum"
	case *kind.Pattern:
		v.Rule, v.Expected, v.Message = "pattern", "matches "+k.Want, "does not match the pattern"
	case *kind.MinLength:
		v.Rule, v.Expected, v.Message = "length", fmt.Sprintf("length >= %d", k.Want), "too short"
	case *kind.MaxLength:
		v.Rule, v.Expected, v.Message = "length", fmt.Sprintf("length <= %d", k.Want), "too long"
	case *kind.MinItems:
		v.Rule, v.Expected, v.Message = "size", fmt.Sprintf("items >= %d", k.Want), "too few items"
	case *kind.MaxItems:
		v.Rule, v.Expected, v.Message = "size", fmt.Sprintf("items <= %d", k.Want), "too many items"
	default:
		v.Rule, v.Expected = "schema", strings.Join(e.ErrorKind.KeywordPath(), "/")
		v.Message = fmt.Sprintf("%T failed", e.ErrorKind)
	}
	return append(out, v)
}

// locate finds the value at a JSON Schema instance location and writes the
// location as "payload.lines[0].amount".
func locate(doc any, tokens []string) (string, any) {
	var b strings.Builder
	cur := doc
	for _, tok := range tokens {
		switch x := cur.(type) {
		case map[string]any:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
			cur = x[tok]
		case []any:
			b.WriteString("[" + tok + "]")
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				cur = nil
			} else {
				cur = x[i]
			}
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
			cur = nil
		}
	}
	return b.String(), cur
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// checkOwnership checks the one owner, the idempotency key and the
// escalation state.
func (c *Contract) checkOwnership(m *decoded, out []Violation) []Violation {
	lvl := LevelOwnership.String()
	wantOwner := render([]string{c.Owner})
	raw, present := m.doc["next_owner"]
	switch {
	case !present:
		out = append(out, Violation{Edge: c.Edge, Rule: "owner", Level: lvl, Field: "next_owner",
			Expected: wantOwner, Got: "missing", Message: "no named owner of the next step"})
	case !m.ownersOK:
		out = append(out, Violation{Edge: c.Edge, Rule: "owner", Level: lvl, Field: "next_owner",
			Expected: wantOwner, Got: render(raw), Message: "next_owner is not a list of agent names"})
	case len(m.owners) == 0:
		out = append(out, Violation{Edge: c.Edge, Rule: "owner", Level: lvl, Field: "next_owner",
			Expected: wantOwner, Got: "[]", Message: "no named owner of the next step"})
	case len(m.owners) > 1:
		out = append(out, Violation{Edge: c.Edge, Rule: "owner", Level: lvl, Field: "next_owner",
			Expected: wantOwner, Got: render(m.owners), Message: "more than one owner of the next step"})
	case m.owners[0] != c.Owner:
		out = append(out, Violation{Edge: c.Edge, Rule: "owner", Level: lvl, Field: "next_owner",
			Expected: wantOwner, Got: render(m.owners), Message: "the next step goes to an agent that does not own it"})
	}

	item := m.str("item")
	want := c.key.expand(item, c)
	switch key, ok := m.doc["idempotency_key"].(string); {
	case !ok || key == "":
		got := "missing"
		if v, present := m.doc["idempotency_key"]; present {
			got = render(v)
		}
		out = append(out, Violation{Edge: c.Edge, Rule: "idempotency", Level: lvl, Field: "idempotency_key",
			Expected: want, Got: got, Message: "no idempotency key"})
	case item != "" && !c.key.match(key, item, c):
		out = append(out, Violation{Edge: c.Edge, Rule: "idempotency", Level: lvl, Field: "idempotency_key",
			Expected: want, Got: strconv.Quote(key), Message: "the idempotency key is not the item's stable key"})
	}

	esc, ok := m.doc["escalation"].(string)
	if !ok || !slices.Contains(c.Escalation, esc) {
		got := "missing"
		if v, present := m.doc["escalation"]; present {
			got = render(v)
		}
		return append(out, Violation{Edge: c.Edge, Rule: "escalation", Level: lvl, Field: "escalation",
			Expected: "one of " + strings.Join(c.Escalation, ", "), Got: got, Message: "escalation state not allowed"})
	}
	if slices.Contains(c.RefRequired, esc) && m.str("escalation_ref") == "" {
		got := "missing"
		if v, present := m.doc["escalation_ref"]; present {
			got = render(v)
		}
		out = append(out, Violation{Edge: c.Edge, Rule: "escalation-ref", Level: lvl, Field: "escalation_ref",
			Expected: "the ticket of the escalation", Got: got,
			Message: fmt.Sprintf("escalation %q without a ticket reference: assumed, not recorded", esc)})
	}
	return out
}

// checkRules evaluates the contract's CEL rules at or below level. So that
// one cause is reported once, a rule is skipped when it reads a field that
// already has a violation, and a rule that cannot be evaluated (a field
// missing or of the wrong type) is reported only when the schema level found
// nothing.
func (c *Contract) checkRules(m *decoded, level Level, schemaFailed bool, out []Violation) []Violation {
	if len(c.compiled) == 0 {
		return out
	}
	var act *activation
	found := len(out)
	for i := range c.compiled {
		r := &c.Rules[i]
		if r.Level > level || c.readsViolated(i, out[:found]) {
			continue
		}
		if m.payload == nil {
			// No payload object: the schema level reports it; rules
			// over payload fields cannot say more.
			return out
		}
		if act == nil {
			act = &activation{m: m, consts: c.consts}
		}
		val, _, err := c.compiled[i].prg.Eval(act)
		switch {
		case err != nil:
			if schemaFailed {
				continue
			}
			out = append(out, Violation{Edge: c.Edge, Rule: r.ID, Level: r.Level.String(), Field: r.Field,
				Expected: r.Expr, Got: "cannot evaluate: " + err.Error() + "; " + c.reads(i, m), Message: r.Message})
		case val != types.True:
			out = append(out, Violation{Edge: c.Edge, Rule: r.ID, Level: r.Level.String(), Field: r.Field,
				Expected: r.Expr, Got: c.reads(i, m), Message: r.Message})
		}
	}
	return out
}

// readsViolated reports whether rule i reads a field named by one of vs.
func (c *Contract) readsViolated(i int, vs []Violation) bool {
	for _, v := range vs {
		root := fieldRoot(v.Field)
		for _, ref := range c.compiled[i].refs {
			if ref == root {
				return true
			}
		}
	}
	return false
}

// reads writes the values a rule read, "payload.gross=12000 escalation=\"none\"".
func (c *Contract) reads(i int, m *decoded) string {
	var b strings.Builder
	for _, ref := range c.compiled[i].refs {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(ref)
		b.WriteByte('=')
		var v any
		var ok bool
		if name, isPayload := strings.CutPrefix(ref, "payload."); isPayload {
			v, ok = m.payload[name]
		} else {
			v, ok = m.doc[ref]
		}
		if ok {
			b.WriteString(render(v))
		} else {
			b.WriteString("missing")
		}
	}
	return b.String()
}
