package mission

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// outgoing is one message an emitter produced: the wire bytes and the
// message as marshalled (after the Emit seam), from which the transport
// reads the envelope.
type outgoing struct {
	edge Edge
	item string
	msg  map[string]any
	raw  []byte
}

// messageID returns the envelope id of the seq-th message for item on e.
func messageID(item string, e Edge, seq int) string {
	return "m-" + item + "-" + e.String() + "-" + strconv.Itoa(seq)
}

// emit runs the producing agent's emitter: it packages result into the
// message for edge e (the seq-th for item), lets the Emit seam change it,
// and marshals it. A misroute slip (when dice are live) or the "route"
// decision may change the next owner.
func (r *runner) emit(e Edge, item string, result Result, seq int) (*outgoing, error) {
	kind := edgeKinds[e]
	if kind == "" {
		return nil, fmt.Errorf("emit %s: no such edge", e)
	}
	src := map[string]any(result)
	escalation, ref := EscalationNone, ""
	if kind == KindExceptionRaised {
		src = object(result["exception"])
		if src == nil {
			return nil, fmt.Errorf("emit %s: item %s: result has no exception", e, item)
		}
	} else {
		if s := str(result["escalation"]); s != "" {
			escalation = s
		}
		ref = str(result["escalation_ref"])
	}
	fields := payloadFields[kind]
	payload := make(map[string]any, len(fields))
	for _, f := range fields {
		if v, ok := src[f]; ok {
			payload[f] = cloneValue(v)
		}
	}
	owner := string(e.To)
	if r.slip(e.From, Misroute, item, "route") {
		owner = r.wrongOwner(e, item)
	}
	owner = r.seams.Decide(e.From, "route", item, owner)
	msg := map[string]any{
		"id":              messageID(item, e, seq),
		"edge":            e.String(),
		"kind":            kind,
		"schema_version":  SchemaVersion,
		"idempotency_key": item + ":" + kind,
		"next_owner":      []any{owner},
		"escalation":      escalation,
		"escalation_ref":  ref,
		"item":            item,
		"payload":         payload,
	}
	r.seams.Emit(e, msg)
	raw := r.enc.encode(msg)
	return &outgoing{edge: e, item: item, msg: msg, raw: raw}, nil
}

// cloneValue copies the containers of a decoded JSON value, so that an Emit
// seam changing the message in place cannot reach the core's result.
func cloneValue(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = cloneValue(y)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, y := range x {
			out[k] = cloneValue(y)
		}
		return out
	}
	return v
}

// wrongOwner picks the owner a misrouting emitter writes: an agent other
// than the sender and the right receiver.
func (r *runner) wrongOwner(e Edge, item string) string {
	var cands [4]Agent
	n := 0
	for _, a := range AllAgents {
		if a != e.From && a != e.To {
			cands[n] = a
			n++
		}
	}
	rnd := r.dice.Rand(string(e.From), "slip:misroute:owner", item, 0)
	return string(cands[rnd.IntN(n)])
}

// outEdges lists the edges an agent emits on for a result: its main edge,
// and its exception edge when the result carries an exception.
func outEdges(agent Agent, result Result) []Edge {
	exc := result["exception"] != nil
	switch agent {
	case Intake:
		if exc {
			return []Edge{IntakeToAction, IntakeToMonitor}
		}
		return []Edge{IntakeToAction}
	case Action:
		if exc {
			return []Edge{ActionToBoundary, ActionToMonitor}
		}
		return []Edge{ActionToBoundary}
	case Boundary:
		return []Edge{BoundaryToMonitor}
	}
	return nil
}

// envelopeEdgeOf is envelopeEdge(raw) read from msg and err, raw as
// decodeObject decoded it, without decoding raw again. encoding/json
// matches the "edge" key case-insensitively, the last match winning; when
// several keys match, which is last is lost in msg, so raw is read again.
func envelopeEdgeOf(raw []byte, msg map[string]any, err error) (Edge, bool) {
	if err != nil {
		return Edge{}, false
	}
	var v any
	n := 0
	for k, x := range msg {
		if len(k) == len("edge") && strings.EqualFold(k, "edge") {
			v = x
			n++
		}
	}
	if n > 1 {
		return envelopeEdge(raw)
	}
	s, ok := v.(string) // absent or null: no edge; another type: encoding/json fails
	if !ok {
		return Edge{}, false
	}
	e, perr := ParseEdge(s)
	return e, perr == nil
}

// envelopeEdge reads just the edge of a wire message.
func envelopeEdge(raw []byte) (Edge, bool) {
	var env struct {
		Edge string `json:"edge"`
	}
	if json.Unmarshal(raw, &env) != nil {
		return Edge{}, false
	}
	e, err := ParseEdge(env.Edge)
	return e, err == nil
}
