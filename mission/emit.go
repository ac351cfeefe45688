package mission

import (
	"fmt"
	"slices"
	"strings"

	"github.com/baton-lab/baton/internal/jsontext"
)

// outgoing is one message an emitter produced: the wire bytes and the
// message they encode (after the Emit seam), from which the transport
// reads the envelope.
type outgoing struct {
	edge Edge
	item string
	msg  *Message
	raw  []byte
	to   *[1]Agent // room for the next owners, in the envelope
}

// emit runs the producing agent's emitter for edge k: it packages result
// into the message (the seq-th for item on the edge), lets the Emit seam
// change it, and encodes it: the message is built in wire order (the
// payload's fields from the kind's view, sorted once in r.t.wire), so
// encoding it only appends. A misroute slip (when dice are live) or the
// route decision may change the next owner.
func (r *runner) emit(k int, item string, result Result, seq int) (outgoing, error) {
	es := &r.t.edges[k]
	e := es.Edge()
	name := r.t.names[r.t.from[k]][r.t.to[k]]
	src := result
	// The envelope's strings are boxed once: the constants by the
	// compiler, the result's own strings as the result holds them.
	var escalation, ref any = EscalationNone, ""
	if es.Source != "" {
		src = jsontext.Object(result[es.Source])
		if src == nil {
			return outgoing{}, fmt.Errorf("emit %s: item %s: result has no %s", name, item, es.Source)
		}
	}
	if es.Escalation {
		if v := result["escalation"]; jsontext.Str(v) != "" {
			escalation = v
		}
		if v := result["escalation_ref"]; jsontext.Str(v) != "" {
			ref = v
		}
	}
	names := r.t.wire[k]
	env := new(envelope)
	payload := &env.payload
	payload.fields, payload.own = make([]jsontext.Member, 0, len(names)), true
	// A seam that may change the message gets its own copy of the values
	// (each object a message); otherwise the encoder writes the result's
	// values as they are, which encodes the same bytes (a map's keys
	// sorted as a message's fields are).
	copied := !r.cleanEmit(e)
	for _, name := range names {
		if v, ok := src[name]; ok {
			if copied {
				v = messageValue(v)
			}
			payload.fields = append(payload.fields, jsontext.Member{Key: name, Value: v})
		}
	}
	owner := string(e.To)
	if r.slip(e.From, Misroute, item, RouteDecision) {
		owner = r.wrongOwner(k, item)
	}
	owner = r.seams.Decide(e.From, RouteDecision, item, owner)
	env.owners[0] = r.t.toAny[k]
	if owner != string(e.To) {
		env.owners[0] = owner
	}
	// The envelope's fields in encoding/json's order of a map's keys.
	id, key := r.envelopeKeys(k, item, seq)
	env.fields = [...]jsontext.Member{
		{Key: "edge", Value: r.t.nameAny[k]},
		{Key: "escalation", Value: escalation},
		{Key: "escalation_ref", Value: ref},
		{Key: "id", Value: id},
		{Key: "idempotency_key", Value: key},
		{Key: "item", Value: r.boxItem(item)},
		{Key: "kind", Value: r.t.kindAny[k]},
		{Key: "next_owner", Value: env.owners[:]},
		{Key: "payload", Value: payload},
		{Key: "schema_version", Value: r.t.versionAny},
	}
	msg := &env.msg
	msg.fields, msg.own = env.fields[:], true
	payload.parent, payload.epoch = msg, msg.epoch
	r.seams.Emit(e, msg)
	r.cost.Emits++
	raw := r.marshal(msg)
	return outgoing{edge: e, item: item, msg: msg, raw: raw, to: &env.to}, nil
}

// envelope is what emit allocates in one piece: the message, its payload
// (but for the payload's fields), the envelope's fields and its owners,
// as written and as read.
type envelope struct {
	msg, payload Message
	fields       [10]jsontext.Member // as many as EnvelopeFields
	owners       [1]any
	to           [1]Agent // the owners the transport reads (nextOwners)
}

// boxItem returns item as an any, boxed once in the item's row of keys.
func (r *runner) boxItem(item string) any { return r.keys(item).item }

// orderViews sorts each view once, in the order encoding/json writes a
// map's keys: per kind the indexes of its fields (t.keyOrder, for the
// parser), per edge the names of its kind's fields (t.wire, for the
// emitter).
func (t *tables) orderViews() {
	t.keyOrder = make(map[string][]int, len(t.views))
	for kind, fs := range t.views {
		order := make([]int, len(fs))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(fs[a].Name, fs[b].Name) })
		t.keyOrder[kind] = order
	}
	t.wire = make([][]string, len(t.edges))
	for k, es := range t.edges {
		fs := t.views[es.Kind]
		for _, i := range t.keyOrder[es.Kind] {
			if n := len(t.wire[k]); n == 0 || t.wire[k][n-1] != fs[i].Name {
				t.wire[k] = append(t.wire[k], fs[i].Name)
			}
		}
	}
}

// wrongOwner picks the owner a misrouting emitter on edge k writes: an
// agent other than the sender and the right receiver, drawn from the dice
// (the sender itself in a mission of two agents).
func (r *runner) wrongOwner(k int, item string) string {
	from, to := r.t.from[k], r.t.to[k]
	cands := make([]Agent, 0, len(r.t.agents))
	for i, a := range r.t.agents {
		if i != from && i != to {
			cands = append(cands, a)
		}
	}
	if len(cands) == 0 {
		return string(r.t.agents[from])
	}
	rnd := r.dice.Rand(string(r.t.agents[from]), "slip:misroute:owner", item, 0)
	return string(cands[rnd.IntN(len(cands))])
}

// listOwners reads a next_owner value as the emitter or a seam left it.
func listOwners(v any) []any {
	if l, ok := v.([]Agent); ok {
		out := make([]any, len(l))
		for i, a := range l {
			out[i] = string(a)
		}
		return out
	}
	return jsontext.List(v)
}

// EnvelopeEdge reads the edge of a wire message: its envelope's "edge" as
// encoding/json reads a struct field (the key matched case-insensitively,
// the last match winning), parsed as from->to. ok is false when the bytes
// are not a JSON object with a readable edge. It is the one reader of an
// envelope's edge: the engine, designs and the command line use it (or
// [EnvelopeEdgeName] for the field as written).
func EnvelopeEdge(raw []byte) (Edge, bool) { return envelopeEdge(raw, nil) }

// EnvelopeEdgeName returns the envelope's "edge" field as written ("" when
// it has none), as EnvelopeEdge reads it before parsing; ok is false when
// raw is not a JSON object whose edge reads as a string.
func EnvelopeEdgeName(raw []byte) (string, bool) { return jsontext.StringField(raw, "edge", nil) }

// envelopeEdge is EnvelopeEdge sharing the strings of known edge names.
func envelopeEdge(raw []byte, names *jsontext.Keys) (Edge, bool) {
	s, ok := jsontext.StringField(raw, "edge", names)
	if !ok {
		return Edge{}, false
	}
	e, err := ParseEdge(s)
	return e, err == nil
}

// AppendJSONValue writes h as encoding/json would (struct field order, HTML
// escaping off), through the encoder that writes its payload.
func (h *Handoff) AppendJSONValue(e *jsontext.Encoder, b []byte) []byte {
	if h == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"id":`...)
	b = jsontext.AppendString(b, h.ID, false)
	b = append(b, `,"edge":`...)
	b = jsontext.AppendString(b, h.Edge, false)
	b = append(b, `,"kind":`...)
	b = jsontext.AppendString(b, h.Kind, false)
	b = append(b, `,"schema_version":`...)
	b = jsontext.AppendString(b, h.SchemaVersion, false)
	b = append(b, `,"idempotency_key":`...)
	b = jsontext.AppendString(b, h.IdempotencyKey, false)
	b = append(b, `,"next_owner":`...)
	b = e.Value(b, h.NextOwner)
	b = append(b, `,"escalation":`...)
	b = jsontext.AppendString(b, h.Escalation, false)
	if h.EscalationRef != "" {
		b = append(b, `,"escalation_ref":`...)
		b = jsontext.AppendString(b, h.EscalationRef, false)
	}
	b = append(b, `,"item":`...)
	b = jsontext.AppendString(b, h.Item, false)
	b = append(b, `,"payload":`...)
	b = e.Object(b, h.Payload)
	return append(b, '}')
}

var _ jsontext.Appender = (*Handoff)(nil)
