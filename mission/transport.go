package mission

import "github.com/baton-lab/baton/internal/jsontext"

// deliveriesPerInput bounds one day's deliveries (per input, plus a
// margin), so that a build whose routing loops still ends. A clean mission
// delivers a handful of messages per input.
const deliveriesPerInput = 32

// transport is the run's FIFO message bus: at-least-once delivery, with
// de-duplication by (edge, idempotency key).
type transport struct {
	queue     []delivery
	head      int
	delivered int
	// seen holds the (edge, key) of every keyed message delivered, in a
	// list while it is short (a run delivers a few dozen messages), in
	// seenMap past seenList.
	seen    []dedupKey
	seenMap map[dedupKey]struct{}
	seqs    []seqCount
	// The first few sequence counters live in the transport itself (a
	// core run alone counts its messages too), the first deliveries and
	// keys in the spare it allocates at the first message it delivers.
	seqs0 [4]seqCount
	spare *transportSpare
}

// transportSpare is the transport's first queue and list of keys, in one
// allocation.
type transportSpare struct {
	queue [8]delivery
	seen  [8]dedupKey
}

// start gives t its spare, where it has none yet.
func (t *transport) start() {
	if t.spare == nil {
		t.spare = new(transportSpare)
		t.queue, t.seen = t.spare.queue[:0], t.spare.seen[:0]
	}
}

// seenList is the most keys the transport looks up in a list.
const seenList = 32

// deliveredBefore reports whether a message with key k was delivered before,
// and records it when it was not.
func (t *transport) deliveredBefore(k dedupKey) bool {
	if t.seenMap != nil {
		if _, dup := t.seenMap[k]; dup {
			return true
		}
		t.seenMap[k] = struct{}{}
		return false
	}
	for i := range t.seen {
		if t.seen[i] == k {
			return true
		}
	}
	if len(t.seen) < seenList {
		t.seen = append(t.seen, k)
		return false
	}
	t.seenMap = make(map[dedupKey]struct{}, 2*seenList)
	for _, s := range t.seen {
		t.seenMap[s] = struct{}{}
	}
	t.seenMap[k] = struct{}{}
	return false
}

// delivery is one message on its way to one owner.
type delivery struct {
	sent Edge // the edge the emitter sent it on
	to   Agent
	item string
	key  string
	raw  []byte
	str  string // raw as a string, shared by the trace events
}

type dedupKey struct {
	edge Edge
	key  string
}

type seqCount struct {
	edge Edge
	item string
	n    int
}

// nextSeq returns the sequence number of the next message for item on e.
func (t *transport) nextSeq(e Edge, item string) int {
	for i := range t.seqs {
		if t.seqs[i].edge == e && t.seqs[i].item == item {
			t.seqs[i].n++
			return t.seqs[i].n
		}
	}
	if t.seqs == nil {
		t.seqs = t.seqs0[:0]
	}
	t.seqs = append(t.seqs, seqCount{edge: e, item: item, n: 1})
	return 1
}

// send emits agent ai's result on every edge it goes out on (an edge with a
// Source only when the result has it) and queues the messages for their
// owners.
func (r *runner) send(ai int, item string, result Result) {
	for _, k := range r.t.out[ai] {
		if out, ok := r.emitOn(ai, k, item, result); ok {
			r.post(&out)
		}
	}
}

// emitAlone runs agent ai's emitter on its result the way send does, for a
// core run alone: each message is recorded as sent to the owners its
// envelope names and kept in the runner's emitted, never delivered.
func (r *runner) emitAlone(ai int, item string, result Result) {
	for _, k := range r.t.out[ai] {
		out, ok := r.emitOn(ai, k, item, result)
		if !ok {
			continue
		}
		owners := out.nextOwners()
		name := r.t.name(out.edge)
		r.event(Event{Kind: EventSent, Agent: out.edge.From, Item: item, Edge: name, Raw: string(out.raw), To: owners})
		if r.emitted == nil {
			r.emitted = make(map[string][]byte, len(r.t.out[ai]))
		}
		r.emitted[name] = out.raw
	}
}

// emitOn packages agent ai's result for item on its out edge k; ok is
// false when the edge is not taken (a Source the result lacks) or the
// emitter failed (an exception in the trace).
func (r *runner) emitOn(ai, k int, item string, result Result) (_ outgoing, ok bool) {
	es := &r.t.edges[k]
	if es.Source != "" && result[es.Source] == nil {
		return outgoing{}, false
	}
	e := es.Edge()
	out, err := r.emit(k, item, result, r.transport.nextSeq(e, item))
	if err != nil {
		r.event(Event{Kind: EventException, Agent: r.t.agents[ai], Item: item, Edge: r.t.name(e), Reason: err.Error()})
		return outgoing{}, false
	}
	if r.rec != nil {
		r.rec.emitted(r.t.agents[ai], item, e, out.raw)
	}
	return out, true
}

// nextOwners reads the owners the envelope names.
func (out *outgoing) nextOwners() []Agent {
	v, _ := out.msg.Get("next_owner")
	var owners []Agent
	if out.to != nil {
		owners = out.to[:0] // the message's own: no other run sees it
	}
	for _, o := range listOwners(v) {
		if s, ok := o.(string); ok {
			owners = append(owners, Agent(s))
		}
	}
	if len(owners) == 0 {
		return nil
	}
	return owners
}

// post hands a message to the transport: it reads the next owners from the
// envelope, lets the Route seam change them, and queues one delivery per
// owner (two when a redelivery fault fires).
func (r *runner) post(out *outgoing) {
	e := out.edge
	owners := r.seams.Route(e, out.nextOwners())
	raw := string(out.raw)
	name := r.t.name(e)
	r.event(Event{Kind: EventSent, Agent: e.From, Item: out.item, Edge: name, Raw: raw, To: owners})
	if len(owners) == 0 {
		r.event(Event{Kind: EventDropped, Agent: e.From, Item: out.item, Edge: name, Raw: raw, Reason: "no_owner"})
		return
	}
	v, _ := out.msg.Get("idempotency_key")
	key := jsontext.Str(v)
	copies := 1
	if r.redeliver > 0 && r.dice.Chance(r.redeliver, string(e.From), r.t.redeliverKind(e), out.item, 0) {
		copies = 2
		r.redelivered = append(r.redelivered, name+":"+out.item)
	}
	r.transport.start()
	for c := 0; c < copies; c++ {
		for _, o := range owners {
			r.transport.queue = append(r.transport.queue, delivery{sent: e, to: o, item: out.item, key: key, raw: out.raw, str: raw})
		}
	}
}

// drain delivers queued messages in order until the queue is empty, the
// run stops at its fixture point or a core fails.
func (r *runner) drain() {
	t := &r.transport
	for t.head < len(t.queue) {
		d := t.queue[t.head]
		t.head++
		if !r.collects(d.to) && r.stop.at(d.to, d.item) {
			return
		}
		r.deliver(d)
		if r.err != nil {
			return
		}
	}
	t.queue = t.queue[:0]
	t.head = 0
}

// parse reads a message delivered to agent on e with the build's parser:
// the parsed hand-off (nil: unreadable) and its JSON for the trace. Where
// the parser is the clean one, the reading is the engine's.
func (r *runner) parse(agent Agent, e Edge, raw []byte) (*Handoff, []byte) {
	if r.cleanParse(e) {
		rd := r.reading(agent, raw)
		if rd.h == nil {
			return nil, nil
		}
		return r.handoff(agent, rd.h), rd.parsed
	}
	m := r.decoded.decode(raw, r.t)
	h, err := r.t.parseDecoded(agent, e, m.msg, m.err, r.seams, r.day)
	if err != nil {
		return nil, nil
	}
	return h, r.marshal(h)
}

// collects reports whether agent a gathers its messages for the end of
// the day.
func (r *runner) collects(a Agent) bool {
	i := r.t.agent(a)
	return i >= 0 && r.t.collect[i]
}

// deliver hands one message to its owner: de-duplicate, parse, and run the
// owner's core (a collecting agent only collects).
func (r *runner) deliver(d delivery) {
	t := &r.transport
	edge := Edge{From: d.sent.From, To: d.to}
	es := r.t.name(edge)
	raw := d.str
	if t.delivered >= deliveriesPerInput*(len(r.sc.Inputs)+1) {
		r.event(Event{Kind: EventDropped, Agent: d.to, Item: d.item, Edge: es, Raw: raw, Reason: "delivery_limit"})
		return
	}
	to := r.t.agent(d.to)
	if to < 0 || !r.t.consumes[to] {
		r.event(Event{Kind: EventDropped, Agent: d.to, Item: d.item, Edge: es, Raw: raw, Reason: "no_consumer"})
		return
	}
	if d.key != "" {
		// Ask the build's seam only about a copy of a message already
		// delivered: that is the one decision de-duplication makes.
		if t.deliveredBefore(dedupKey{edge: edge, key: d.key}) && r.seams.Dedup(edge) {
			r.event(Event{Kind: EventDropped, Agent: d.to, Item: d.item, Edge: es, Raw: raw, Reason: "duplicate"})
			return
		}
	}
	t.delivered++
	r.cost.Parses++
	h, parsed := r.parse(d.to, edge, d.raw)
	if h == nil {
		r.event(Event{Kind: EventDropped, Agent: d.to, Item: d.item, Edge: es, Raw: raw, Reason: "unreadable"})
		return
	}
	r.event(Event{Kind: EventReceived, Agent: d.to, Item: h.Item, Edge: es, Raw: raw, Parsed: parsed})
	if r.t.collect[to] {
		b := r.box(to)
		b.msgs, b.raws = append(b.msgs, h), append(b.raws, d.raw)
		return
	}
	r.turn(to, h.Item, turnInput{raw: d.raw, msg: h, read: len(d.raw)})
}
