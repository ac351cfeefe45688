package mission

import (
	"fmt"
	"strconv"
	"time"

	"github.com/baton-lab/baton/internal/jsontext"
)

// The consumer's parser. Every agent reads a message with the fields of the
// kind it expects: the envelope's kind when that is the kind of one of the
// agent's incoming edges (a monitor telling exceptions from decisions),
// else the kind of its first incoming edge (whatever arrives, an agent
// reads its own input kind). Each field is read with its type and silent
// default (see [Field] and [FieldType]); fields of no view are dropped.

// viewKind is the kind consumer reads a message of kind msgKind as.
func (t *tables) viewKind(consumer Agent, msgKind string) string {
	ai := t.agent(consumer)
	if ai < 0 || len(t.in[ai]) == 0 {
		if _, ok := t.views[msgKind]; ok {
			return msgKind
		}
		if len(t.edges) > 0 {
			return t.edges[0].Kind
		}
		return msgKind
	}
	for _, k := range t.in[ai] {
		if t.edges[k].Kind == msgKind {
			return msgKind
		}
	}
	return t.edges[t.in[ai][0]].Kind
}

// inbound returns the edge a message to agent came on: the envelope's edge
// if it names one into agent, else the agent's first incoming edge.
func (t *tables) inbound(agent Agent, d *decodedMsg) Edge {
	e, ok := d.edge, d.edgeOK
	if ok && e.To == agent {
		return e
	}
	if ai := t.agent(agent); ai >= 0 && len(t.in[ai]) > 0 {
		return t.edges[t.in[ai][0]].Edge()
	}
	if ok {
		return e
	}
	return Edge{To: agent}
}

// parseDecoded runs consumer's parser on wire bytes received on e, given
// as decodeMessage decoded them (msg, err; msg is shared and stays
// unchanged): the Parse seam, then the envelope and the payload read with
// silent defaults. day is the business day, for date defaults.
func (t *tables) parseDecoded(consumer Agent, e Edge, msg *Message, err error, seams Seams, day string) (*Handoff, error) {
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", e, err)
	}
	if msg == nil {
		return nil, fmt.Errorf("parse %s: not a JSON object", e)
	}
	if _, clean := seams.(NoSeams); !clean {
		view := &Message{fields: msg.fields}
		seams.Parse(e, view)
		msg = view
	}
	h := &Handoff{}
	var payload *Message
	for _, f := range msg.fields {
		switch f.Key {
		case "id":
			h.ID = jsontext.Str(f.Value)
		case "edge":
			h.Edge = jsontext.Str(f.Value)
		case "kind":
			h.Kind = jsontext.Str(f.Value)
		case "schema_version":
			h.SchemaVersion = jsontext.Str(f.Value)
		case "idempotency_key":
			h.IdempotencyKey = jsontext.Str(f.Value)
		case "escalation":
			h.Escalation = readEscalation(f.Value)
		case "escalation_ref":
			h.EscalationRef = jsontext.Str(f.Value)
		case "item":
			h.Item = jsontext.Str(f.Value)
		case "next_owner":
			for _, o := range listOwners(f.Value) {
				if s, ok := o.(string); ok {
					h.NextOwner = append(h.NextOwner, s)
				}
			}
		case "payload":
			payload = asMessage(f.Value)
		}
	}
	if h.Escalation == "" {
		h.Escalation = EscalationNone
	}
	kind := t.viewKind(consumer, h.Kind)
	h.Payload = readPayload(t.views[kind], t.keyOrder[kind], payload, day)
	if h.Item == "" && t.itemField != "" {
		h.Item = jsontext.Str(h.Payload[t.itemField])
	}
	return h, nil
}

func readEscalation(v any) string {
	switch s := jsontext.Str(v); s {
	case EscalationRequested, EscalationEscalated:
		return s
	}
	return EscalationNone
}

// readPayload reads the fields of a view from payload (nil for none) into
// a map of the parser's own, applying defaults: every field of the view
// gets its read value, other fields are dropped. A date's default reads
// its DefaultFrom field as read when the view reads that field first
// (and nothing when there is no payload), as the parser always has.
func readPayload(specs []Field, order []int, payload *Message, day string) map[string]any {
	var buf [32]int
	at := buf[:0]
	if len(specs) > len(buf) {
		at = make([]int, 0, len(specs))
	}
	at = payload.lookUp(specs, order, at[:len(specs)])
	out := make(map[string]any, len(specs))
	for i := range specs {
		f := &specs[i]
		var v any
		present := at[i] >= 0
		if present {
			v = payload.fields[at[i]].Value
		}
		var from any
		if f.Type == FieldDate && f.DefaultFrom != "" && payload != nil {
			var ok bool
			if from, ok = out[f.DefaultFrom]; !ok {
				from, _ = payload.Get(f.DefaultFrom)
			}
		}
		if read, keep := readField(f, v, present, from, day); !keep {
			out[f.Name] = read
		} else if present {
			out[f.Name] = plainValue(v)
		}
	}
	return out
}

// readField reads one top-level field: keep is true when v already reads
// as the consumer reads it, else read is the value it reads as. from is
// the value of the field a date defaults from.
func readField(f *Field, v any, present bool, from any, day string) (read any, keep bool) {
	switch f.Type {
	case FieldString:
		s, ok := v.(string)
		if ok && s != "" {
			return nil, true
		}
		if n, isNum := v.(float64); isNum {
			s, ok = strconv.FormatFloat(n, 'f', -1, 64), true
		}
		if !ok || s == "" {
			s = f.Default
		}
		return s, false
	case FieldNumber:
		if _, ok := v.(float64); ok {
			return nil, true
		}
		n, _ := jsontext.Num(v)
		return n, false
	case FieldDate:
		d, ok := ReadDate(v)
		if s, isStr := v.(string); isStr && s == d && (ok || f.DefaultDays == 0) {
			return nil, true
		}
		if !ok && f.DefaultDays != 0 {
			if from, ok := ReadDate(from); f.DefaultFrom != "" && ok {
				d = AddDays(from, f.DefaultDays)
			} else {
				d = AddDays(day, f.DefaultDays)
			}
		}
		return d, false
	case FieldBool:
		if _, ok := v.(bool); ok {
			return nil, true
		}
		return present && jsontext.Str(v) == "true", false
	case FieldStrings:
		if l, ok := v.([]any); ok && allStrings(l) {
			return nil, true
		}
		l := jsontext.List(v)
		out := make([]any, 0, len(l))
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out, false
	case FieldObjects:
		if l, ok := v.([]any); ok && cleanObjects(l, f.Fields) {
			return nil, true
		}
		l := jsontext.List(v)
		out := make([]any, 0, len(l))
		for _, x := range l {
			if isObject(x) {
				out = append(out, readObject(f.Fields, x))
			}
		}
		return out, false
	}
	return nil, true
}

// readObject reads an object of a list field (a message or a map): each
// field as its type or its zero value.
func readObject(fields []Field, x any) map[string]any {
	out := make(map[string]any, len(fields))
	for i := range fields {
		f := &fields[i]
		v, _ := objectField(x, f.Name)
		switch f.Type {
		case FieldNumber:
			n, _ := jsontext.Num(v)
			out[f.Name] = n
		case FieldBool:
			b, _ := v.(bool)
			out[f.Name] = b
		default:
			out[f.Name] = jsontext.Str(v)
		}
	}
	return out
}

// isObject reports whether x is an object: a message, or a map a core
// built.
func isObject(x any) bool {
	switch o := x.(type) {
	case *Message:
		return o != nil
	case map[string]any:
		return o != nil
	}
	return false
}

// objectField reads field name of an object (a message or a map) and
// its number of fields.
func objectField(x any, name string) (v any, n int) {
	switch o := x.(type) {
	case *Message:
		v, _ = o.Get(name)
		return v, o.Len()
	case map[string]any:
		return o[name], len(o)
	}
	return nil, 0
}

func allStrings(l []any) bool {
	for _, x := range l {
		if _, ok := x.(string); !ok {
			return false
		}
	}
	return true
}

// cleanObjects reports whether every object already reads as the parser
// would write it: exactly the fields, each of its type.
func cleanObjects(l []any, fields []Field) bool {
	for _, x := range l {
		if _, n := objectField(x, ""); !isObject(x) || n != len(fields) {
			return false
		}
		for i := range fields {
			f := &fields[i]
			v, _ := objectField(x, f.Name)
			switch f.Type {
			case FieldNumber:
				if _, ok := v.(float64); !ok {
					return false
				}
			case FieldBool:
				if _, ok := v.(bool); !ok {
					return false
				}
			default:
				if _, ok := v.(string); !ok {
					return false
				}
			}
		}
	}
	return true
}

// ReadDate reads a date the way the standard parser does: "YYYY-MM-DD" as
// is; "DD/MM/YYYY" as MM/DD/YYYY when both parts are at most 12 (the
// silent misreading of a day-first date), else unreadable.
func ReadDate(v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	if len(s) == 10 && s[4] == '-' && s[7] == '-' {
		y, ok1 := atoi(s[0:4])
		m, ok2 := atoi(s[5:7])
		d, ok3 := atoi(s[8:10])
		if ok1 && ok2 && ok3 && y > 0 && m >= 1 && m <= 12 && d >= 1 && d <= 31 {
			return s, true
		}
		return "", false
	}
	if len(s) == 10 && s[2] == '/' && s[5] == '/' {
		a, ok1 := atoi(s[0:2])
		b, ok2 := atoi(s[3:5])
		_, ok3 := atoi(s[6:10])
		if ok1 && ok2 && ok3 && a >= 1 && a <= 12 && b >= 1 && b <= 12 {
			// Read as MM/DD/YYYY: a is the month, b the day.
			return s[6:10] + "-" + s[0:2] + "-" + s[3:5], true
		}
	}
	return "", false
}

func atoi(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, len(s) > 0
}

// AddDays returns date (YYYY-MM-DD) plus n days, or "" if date is
// unreadable.
func AddDays(date string, n int) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return ""
	}
	return t.AddDate(0, 0, n).Format(time.DateOnly)
}
