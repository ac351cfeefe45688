package designs

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/mission"
)

// TraceAttribution is design D: design B's end-state check, then an
// automated localisation over the integrated run's trace by rules.
var TraceAttribution = Design{
	ID:     "D",
	Base:   "D",
	Name:   "end-to-end plus trace attribution",
	Blames: []LocationKind{BlameAgent, BlameEdge},
	Doc: "Design B's run and end-state check; when the end state differs, rules over the integrated run's trace follow each " +
		"differing record back through the tool calls and hand-offs of its item among the agents upstream of the record's writer: " +
		"what a producer's result held against what its emitter sent, what was sent against what the consumer's parser read " +
		"(field by field), next owners against the edge's consumer, escalation states and tickets, idempotency keys across retries, " +
		"redelivered copies processed twice, messages nobody received. Each rule that fires names an edge or an agent with the trace " +
		"event as evidence; blame is ranked by the findings on each place (edges first on a tie), then the differing records' writers, " +
		"as B blames. The rules read only the kernel's trace vocabulary and the mission's spec. Its cost is B's plus every trace event the " +
		"rules examined.",
	Evaluate: func(in Input) (Verdict, error) {
		start := time.Now()
		var v Verdict
		run, diffs, err := endState(in, &v)
		if err != nil {
			return v, err
		}
		writers := rankBlame(v.Findings)
		var found []Finding
		if len(diffs) > 0 {
			a := newAttributor(in.Mission.Spec(), run.Trace)
			for _, d := range diffs {
				a.record(d.Record)
			}
			found = a.out
			v.Cost.AttributionSteps += a.steps
			v.Findings = append(v.Findings, found...)
		}
		finish(&v, start)
		v.Blame = rankBlame(found)
		for _, l := range writers {
			if !slices.Contains(v.Blame, l) {
				v.Blame = append(v.Blame, l)
			}
		}
		return v, nil
	},
}

// attributor applies design D's rules to one integrated trace.
type attributor struct {
	spec   *mission.Spec
	events []mission.Event
	byItem map[string][]int // event indexes per item
	// steps counts the trace events read: once each to index the trace,
	// then each event of every scope examined.
	steps int
	out   []Finding
	seen  map[string]bool             // findings already made
	scope map[scopeKey]bool           // scopes already examined
	keys  map[[2]string]int           // (edge, idempotency key) -> seq of its first receipt
	first map[[3]string]mission.Event // (agent, tool, item) -> the attempt 0 of its current call
	wrote map[[3]string]string        // (agent, tool, item) -> the first record it wrote
	// decoded holds each event's raw, parsed and output JSON once decoded:
	// scopes overlap, and decoding was most of what a scope cost. The
	// rules only read the objects.
	decoded map[decodedKey]map[string]any
}

// decodedKey names one JSON field of one event: its index and 'r' (Raw),
// 'p' (Parsed) or 'o' (Output).
type decodedKey struct {
	event int
	field byte
}

// objectOf returns event i's field ('r', 'p' or 'o') decoded as a JSON
// object, nil when it is not one, decoding it once per trace.
func (a *attributor) objectOf(i int, field byte) map[string]any {
	k := decodedKey{i, field}
	if m, ok := a.decoded[k]; ok {
		return m
	}
	var m map[string]any
	switch e := &a.events[i]; field {
	case 'r':
		m = object([]byte(e.Raw))
	case 'p':
		m = object(e.Parsed)
	case 'o':
		m = object(e.Output)
	}
	a.decoded[k] = m
	return m
}

type scopeKey struct {
	item   string
	writer mission.Agent
}

func newAttributor(spec *mission.Spec, t *mission.Trace) *attributor {
	a := &attributor{spec: spec, events: t.Events, byItem: map[string][]int{}, seen: map[string]bool{}, scope: map[scopeKey]bool{},
		keys: map[[2]string]int{}, first: map[[3]string]mission.Event{}, wrote: map[[3]string]string{}, decoded: map[decodedKey]map[string]any{}}
	for i, e := range t.Events {
		a.steps++
		a.byItem[e.Item] = append(a.byItem[e.Item], i)
	}
	return a
}

// record examines the scope of one differing record ("kind:item"): the
// events of its item ("" or "*": every event) among the agents upstream
// of the record's writer.
func (a *attributor) record(rec string) {
	kind, item, _ := strings.Cut(rec, ":")
	writer := a.spec.Writer(kind)
	k := scopeKey{item, writer}
	if a.scope[k] {
		return
	}
	a.scope[k] = true
	agents := upstream(a.spec, writer)
	var idx []int
	if item == "" || item == "*" {
		idx = make([]int, len(a.events))
		for i := range idx {
			idx[i] = i
		}
	} else {
		idx = a.byItem[item]
	}
	clear(a.keys)
	clear(a.first)
	clear(a.wrote)
	for _, i := range idx {
		a.steps++
		e := &a.events[i]
		switch e.Kind {
		case mission.EventSent:
			if a.among(agents, e.Edge) {
				a.sent(i)
			}
		case mission.EventReceived:
			if a.among(agents, e.Edge) {
				a.received(i)
			}
		case mission.EventDropped:
			if a.among(agents, e.Edge) {
				a.dropped(e)
			}
		case mission.EventToolCall:
			if agents == nil || agents[e.Agent] {
				a.toolCall(e)
			}
		}
	}
}

// upstream returns the writer and every agent with a path of edges to it;
// nil (every agent) when the record has no writer.
func upstream(spec *mission.Spec, writer mission.Agent) map[mission.Agent]bool {
	if writer == "" {
		return nil
	}
	out := map[mission.Agent]bool{writer: true}
	queue := []mission.Agent{writer}
	for len(queue) > 0 {
		a := queue[0]
		queue = queue[1:]
		for _, e := range spec.In(a) {
			if !out[e.From] {
				out[e.From] = true
				queue = append(queue, e.From)
			}
		}
	}
	return out
}

// among reports whether both ends of an edge name are among agents.
func (a *attributor) among(agents map[mission.Agent]bool, edge string) bool {
	if agents == nil {
		return true
	}
	e, err := mission.ParseEdge(edge)
	return err == nil && agents[e.From] && agents[e.To]
}

// add records a finding once.
func (a *attributor) add(rule string, loc mission.Location, e *mission.Event, field, format string, args ...any) {
	k := rule + "\x00" + string(loc) + "\x00" + fmt.Sprint(e.Seq) + "\x00" + field
	if a.seen[k] {
		return
	}
	a.seen[k] = true
	a.out = append(a.out, Finding{Rule: "attribution." + rule, Message: fmt.Sprintf(format, args...), Location: loc,
		Evidence: Evidence{Run: "integrated", Seq: e.Seq, Item: e.Item, Field: field}})
}

// sentOn is the edge a message was sent on: its envelope's when the
// mission has that edge, else the event's.
func (a *attributor) sentOn(e *mission.Event) (mission.Edge, mission.Location) {
	if x, ok := mission.EnvelopeEdge([]byte(e.Raw)); ok {
		if _, known := a.spec.Edge(x); known {
			return x, mission.EdgeLocation(x)
		}
	}
	x, _ := mission.ParseEdge(e.Edge)
	return x, mission.Location(e.Edge)
}

// sent checks one message as the producer's emitter sent it: against the
// producer's result, and its owners against the edge's consumer.
func (a *attributor) sent(i int) {
	e := &a.events[i]
	edge, loc := a.sentOn(e)
	msg := a.objectOf(i, 'r')
	owners := strs(msg["next_owner"])
	switch {
	case len(owners) == 0:
		a.add("no_owner", loc, e, "next_owner", "%s: the message for %s names no next owner (its consumer is %s)", loc, e.Item, edge.To)
	case len(owners) != 1 || owners[0] != string(edge.To):
		a.add("owner", loc, e, "next_owner", "%s: the message for %s names next owner %s, the edge's consumer is %s", loc, e.Item, strings.Join(owners, ", "), edge.To)
	}
	if to := agentsOf(e.To); len(owners) > 0 && !slices.Equal(to, owners) {
		a.add("rerouted", loc, e, "next_owner", "%s: the message for %s went to %s, its envelope names %s", loc, e.Item, orNobody(to), strings.Join(owners, ", "))
	}
	es, ok := a.spec.Edge(edge)
	if !ok {
		return
	}
	esc, ref := jsontext.Str(msg["escalation"]), jsontext.Str(msg["escalation_ref"])
	if esc == mission.EscalationEscalated && ref == "" {
		a.add("escalation_unbacked", loc, e, "escalation", "%s: the message for %s says escalated but names no ticket", loc, e.Item)
	}
	res, ok := a.resultBefore(edge.From, e.Item, e.Seq)
	if !ok {
		return
	}
	want := mission.EscalationNone
	if es.Escalation {
		want = escalation(res["escalation"])
	}
	if esc := escalation(msg["escalation"]); esc != want {
		a.add("escalation_changed", loc, e, "escalation", "%s: %s's result for %s has escalation %s, its message says %s", loc, edge.From, e.Item, want, esc)
	}
	src := res
	if es.Source != "" {
		src = jsontext.Object(res[es.Source])
	}
	payload := jsontext.Object(msg["payload"])
	fields := a.spec.Fields(edge)
	for _, f := range fields {
		rv, inRes := src[f.Name]
		sv, inSent := payload[f.Name]
		switch {
		case inRes && !inSent:
			a.add("field_dropped", loc, e, f.Name, "%s: %s is in %s's result for %s (%s) but not in the message it sent", loc, f.Name, edge.From, e.Item, clip(canonical(rv)))
		case inSent && (!inRes || !jsontext.Equal(rv, sv)):
			a.add("field_changed", loc, e, f.Name, "%s: %s's result for %s has %s %s, its message sent %s", loc, edge.From, e.Item, f.Name, present(rv, inRes), clip(canonical(sv)))
		}
	}
	for _, k := range sortedKeys(keySet(payload)) {
		if !slices.ContainsFunc(fields, func(f mission.Field) bool { return f.Name == k }) {
			a.add("field_unknown", loc, e, k, "%s: the message for %s carries %s, a field %s does not carry", loc, e.Item, k, a.spec.Kind(edge))
		}
	}
}

// received checks one message as the consumer's parser read it: what was
// sent against what was read, the edge it reached, and copies of a
// message already received.
func (a *attributor) received(i int) {
	e := &a.events[i]
	edge, loc := a.sentOn(e)
	if got, err := mission.ParseEdge(e.Edge); err == nil {
		if _, known := a.spec.Edge(got); !known {
			a.add("off_edge", loc, e, "", "%s: the message for %s sent on it was delivered to %s, not its edge's consumer", loc, e.Item, got.To)
		}
	}
	raw, parsed := a.objectOf(i, 'r'), a.objectOf(i, 'p')
	key := [2]string{e.Edge, jsontext.Str(parsed["idempotency_key"])}
	if first, dup := a.keys[key]; dup && key[1] != "" {
		a.add("redelivered", loc, e, "idempotency_key", "%s: %s received a copy of the message for %s it already received (event %d), key %s, and processed it again", loc, e.Agent, e.Item, first, key[1])
	} else if !dup {
		a.keys[key] = e.Seq
	}
	if sent, read := escalation(raw["escalation"]), escalation(parsed["escalation"]); sent != read {
		a.add("escalation_misread", loc, e, "escalation", "%s: the message for %s was sent with escalation %s, %s read %s", loc, e.Item, sent, e.Agent, read)
	}
	res, haveRes := a.resultBefore(edge.From, e.Item, e.Seq)
	if haveRes {
		if es, ok := a.spec.Edge(edge); ok && es.Source != "" {
			res = jsontext.Object(res[es.Source])
		}
	}
	rp, pp := jsontext.Object(raw["payload"]), jsontext.Object(parsed["payload"])
	for _, k := range sortedKeys(keySet(pp)) {
		rv, inRaw := rp[k]
		pv := pp[k]
		switch {
		case inRaw && !blank(rv) && !jsontext.Equal(rv, pv):
			a.add("field_misread", loc, e, k, "%s: %s was sent as %s, %s read it as %s", loc, k, clip(canonical(rv)), e.Agent, clip(canonical(pv)))
		case haveRes && !jsontext.Equal(rv, pv):
			// Nothing (or an empty string) arrived and the parser read its
			// default: a loss only when the producer's result held a value.
			if want, had := res[k]; had && !blank(want) && !jsontext.Equal(want, pv) {
				a.add("field_defaulted", loc, e, k, "%s: %s (%s in %s's result) did not arrive; %s read the default %s", loc, k, clip(canonical(want)), edge.From, e.Agent, clip(canonical(pv)))
			}
		}
	}
}

// blank reports whether a sent value carries nothing: null or an empty
// string, which a parser reads as its field's default.
func blank(v any) bool {
	s, isStr := v.(string)
	return v == nil || isStr && s == ""
}

// dropped checks a message the transport or a parser dropped.
func (a *attributor) dropped(e *mission.Event) {
	_, loc := a.sentOn(e)
	switch e.Reason {
	case "no_owner":
		a.add("undelivered", loc, e, "next_owner", "%s: the message for %s was delivered to nobody", loc, e.Item)
	case "unreadable":
		a.add("unreadable", loc, e, "", "%s: %s could not read the message for %s", loc, e.Agent, e.Item)
	case "no_consumer":
		a.add("no_consumer", loc, e, "next_owner", "%s: the message for %s went to %s, which reads no hand-off", loc, e.Item, e.Agent)
	case "delivery_limit":
		a.add("delivery_limit", loc, e, "", "%s: the message for %s was one delivery too many: routing loops", loc, e.Item)
	}
}

// toolCall checks a write's idempotency key across its retries and the
// records one agent's calls of one tool wrote for one item.
func (a *attributor) toolCall(e *mission.Event) {
	k := [3]string{string(e.Agent), e.Tool, e.Item}
	if e.Attempt == 0 {
		a.first[k] = *e
	} else if first, ok := a.first[k]; ok && first.Key != "" && e.Key != first.Key {
		a.add("retry_key", a.served(e.Agent, e.Item), e, "idempotency_key", "%s retried %s for %s under key %q, its first attempt under %q: a retry is the same write",
			e.Agent, e.Tool, e.Item, e.Key, first.Key)
	}
	if e.Error != "" || e.Effect == "" {
		return
	}
	if prev, ok := a.wrote[k]; !ok {
		a.wrote[k] = e.Effect
	} else if prev != e.Effect {
		a.add("duplicate_write", a.served(e.Agent, e.Item), e, "", "%s's %s wrote a second record for %s (%s after %s)", e.Agent, e.Tool, e.Item, e.Effect, prev)
	}
}

// served is the hand-off an agent's write for an item serves: the one the
// item reached the agent by, else the one the agent handed it on by, else
// the agent itself.
func (a *attributor) served(agent mission.Agent, item string) mission.Location {
	for _, kind := range []mission.EventKind{mission.EventReceived, mission.EventSent} {
		for _, i := range a.byItem[item] {
			if e := &a.events[i]; e.Kind == kind && e.Agent == agent {
				_, loc := a.sentOn(e)
				return loc
			}
		}
	}
	return mission.AgentLocation(agent)
}

// resultBefore returns agent's last result for item before event seq.
func (a *attributor) resultBefore(agent mission.Agent, item string, seq int) (map[string]any, bool) {
	idx := a.byItem[item]
	for j := len(idx) - 1; j >= 0; j-- {
		e := &a.events[idx[j]]
		if e.Seq < seq && e.Kind == mission.EventResult && e.Agent == agent {
			m := a.objectOf(idx[j], 'o')
			return m, m != nil
		}
	}
	return nil, false
}

// object decodes a JSON object, nil when the bytes are not one.
func object(b []byte) map[string]any {
	m, err := jsontext.DecodeObject(b, nil)
	if err != nil {
		return nil
	}
	return m
}

// strs reads a list of strings.
func strs(v any) []string {
	var out []string
	for _, x := range jsontext.List(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func agentsOf(as []mission.Agent) []string {
	out := make([]string, len(as))
	for i, x := range as {
		out[i] = string(x)
	}
	return out
}

func orNobody(s []string) string {
	if len(s) == 0 {
		return "nobody"
	}
	return strings.Join(s, ", ")
}

// escalation reads an escalation state as the kernel's parser does.
func escalation(v any) string {
	switch s := jsontext.Str(v); s {
	case mission.EscalationRequested, mission.EscalationEscalated:
		return s
	}
	return mission.EscalationNone
}

func present(v any, ok bool) string {
	if !ok {
		return "nothing"
	}
	return clip(canonical(v))
}

func keySet(m map[string]any) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
