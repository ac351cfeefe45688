package mission

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/baton-lab/baton/internal/jsontext"
)

// The wire messages a sweep parses recur: the golden messages design C
// parses under every build, and the messages an integrated run sends,
// which most builds, seeds and trials leave alike. Decoding the bytes is a
// pure function of them, so the mission remembers what the decoder read,
// keyed by every byte, in a bounded memo safe for concurrent use. The
// decoded message is shared by every parser of the same bytes: it is
// copy-on-write ([Message]), so neither the Parse seam nor a parser
// changes it.

// decodeMemoMax bounds the memo; a full memo starts again.
const decodeMemoMax = 1 << 10

type decodeMemo struct {
	mu sync.RWMutex
	m  map[string]*decodedMsg
}

// decodedMsg is what the decoder read of one wire message, immutable.
type decodedMsg struct {
	msg *Message // nil for JSON null or an error
	err error
	// edge is the envelope's edge as envelopeEdge reads it; edgeOK is
	// its ok.
	edge   Edge
	edgeOK bool
}

// decode returns what the decoder reads of raw, from the memo when it
// holds raw. A nil memo decodes every time.
func (c *decodeMemo) decode(raw []byte, t *tables) *decodedMsg {
	if c == nil {
		return t.decodeWire(raw)
	}
	c.mu.RLock()
	d, ok := c.m[string(raw)]
	c.mu.RUnlock()
	if !ok {
		d = t.decodeWire(raw)
		c.mu.Lock()
		if c.m == nil || len(c.m) >= decodeMemoMax {
			c.m = make(map[string]*decodedMsg)
		}
		c.m[string(raw)] = d
		c.mu.Unlock()
	}
	return d
}

// decodeWire decodes raw and reads its envelope's edge.
func (t *tables) decodeWire(raw []byte) *decodedMsg {
	d := &decodedMsg{}
	d.msg, d.err = decodeMessage(raw, t.keys)
	d.edge, d.edgeOK = envelopeEdge(raw, t.edgeNames)
	return d
}

// A core run alone on the clean build reads its input messages with the
// clean parser: a pure function of the agent, the business day and the
// wire bytes, and a sweep hands the same golden messages to the same cores
// on every trial of every build. The mission remembers each reading, keyed
// by the full input, in a bounded memo; the mission's own cores read the
// parsed message itself (they never change it), any other core a deep copy
// of its own, and the trace shares immutable bytes (the wire string and
// the parsed view's JSON, which nobody writes to). A mutated
// build's parser is the build's own: its Parse seam runs on every reading
// (it may report reaching its target to the build's oracle), so those
// readings are made afresh, from the decoded-bytes memo.

// reading is the clean parser's reading of one wire message.
type reading struct {
	edge   Edge
	h      *Handoff // nil: unreadable
	raw    string
	parsed json.RawMessage
}

// readingMemoMax bounds the memo; a full memo starts again.
const readingMemoMax = 1 << 12

type readingMemo struct {
	mu sync.RWMutex
	m  map[string]*reading
}

// read returns the clean parser's reading of raw received by agent on day.
func (c *readingMemo) read(t *tables, agent Agent, day string, raw []byte, enc *jsontext.Encoder) *reading {
	var buf [1 << 10]byte // a typical hand-off's key, on the stack
	key := readingKey(buf[:0], agent, day, raw)
	c.mu.RLock()
	rd, ok := c.m[string(key)]
	c.mu.RUnlock()
	if ok {
		return rd
	}
	rd = t.readMessage(agent, day, raw, enc)
	ks := string(key)
	rd.raw = ks[len(ks)-len(raw):] // the key's copy of the bytes, not a second one
	c.mu.Lock()
	if c.m == nil || len(c.m) >= readingMemoMax {
		c.m = make(map[string]*reading)
	}
	c.m[ks] = rd
	c.mu.Unlock()
	return rd
}

func readingKey(k []byte, agent Agent, day string, raw []byte) []byte {
	k = append(k, agent...)
	k = append(k, 0)
	k = append(k, day...)
	k = append(k, 0)
	return append(k, raw...)
}

// readMessage reads raw with the clean parser.
func (t *tables) readMessage(agent Agent, day string, raw []byte, enc *jsontext.Encoder) *reading {
	d := t.decodeWire(raw)
	e := t.inbound(agent, d)
	rd := &reading{edge: e, raw: string(raw)}
	h, err := t.parseDecoded(agent, e, d.msg, d.err, NoSeams{}, day)
	if err != nil {
		return rd
	}
	rd.h = h
	rd.parsed = enc.Encode(h) // a fresh copy
	return rd
}

// seamPlaces is where a build's seam of one hook may act: nowhere for
// the clean mission's seams, at the edges a [Placed] seam lists for the
// hook, anywhere for other seams (a probe's among them: it observes every
// call).
type seamPlaces struct {
	known, anywhere bool
	edges           []Edge
}

// leaves reports whether seams' hook h leaves everything on e as it is,
// learning where it may act at the first question.
func (p *seamPlaces) leaves(seams Seams, h Hook, e Edge) bool {
	if !p.known {
		p.known = true
		switch s := seams.(type) {
		case NoSeams:
		case Placed:
			for _, at := range s.Places() {
				if at.Hook == h {
					p.edges = append(p.edges, at.Edge)
				}
			}
		default:
			p.anywhere = true
		}
	}
	return !p.anywhere && !slices.Contains(p.edges, e)
}

// cleanParse reports whether the build's parser on e is the clean one: its
// Parse seam leaves every message on e as it is and reaches nothing there.
// A clean parser's reading is a pure function of the consumer, the day
// and the bytes, which the engine remembers (readingMemo).
func (r *runner) cleanParse(e Edge) bool { return r.parsers.leaves(r.seams, HookParse, e) }

// cleanEmit reports whether the build's Emit seam leaves every message on
// e as it is: then nothing but the encoder reads a message's payload, and
// the emitter need not copy the result's values into it.
func (r *runner) cleanEmit(e Edge) bool { return r.emitters.leaves(r.seams, HookEmit, e) }

// reading returns the clean parser's reading of raw received by agent.
func (r *runner) reading(agent Agent, raw []byte) *reading {
	if r.readings == nil && r.e != nil {
		r.readings = &r.e.readings
	}
	if r.readings != nil {
		return r.readings.read(r.t, agent, r.day, raw, r.enc)
	}
	return r.t.readMessage(agent, r.day, raw, r.enc)
}

// receive reads one mocked incoming message with the build's parser and
// records it in the trace.
func (r *runner) receive(agent Agent, raw []byte) (*Handoff, bool) {
	r.cost.Parses++
	rd := r.reading(agent, raw)
	if !r.cleanParse(rd.edge) {
		return r.receiveBuild(agent, raw)
	}
	if rd.h == nil {
		r.event(Event{Kind: EventDropped, Agent: agent, Edge: r.t.name(rd.edge), Raw: rd.raw, Reason: "unreadable"})
		return nil, false
	}
	h := r.handoff(agent, rd.h)
	r.event(Event{Kind: EventReceived, Agent: agent, Item: h.Item, Edge: r.t.name(rd.edge), Raw: rd.raw, Parsed: rd.parsed})
	return h, true
}

// handoffCopy is a hand-off with room for its next owners.
type handoffCopy struct {
	h      Handoff
	owners [1]string
}

// receiveBuild reads one mocked incoming message with a mutated build's
// parser, its Parse seam included, where it may act.
func (r *runner) receiveBuild(agent Agent, raw []byte) (*Handoff, bool) {
	d := r.decoded.decode(raw, r.t)
	e := r.t.inbound(agent, d)
	h, err := r.t.parseDecoded(agent, e, d.msg, d.err, r.seams, r.day)
	if err != nil {
		r.event(Event{Kind: EventDropped, Agent: agent, Edge: r.t.name(e), Raw: string(raw), Reason: "unreadable"})
		return nil, false
	}
	r.event(Event{Kind: EventReceived, Agent: agent, Item: h.Item, Edge: r.t.name(e), Raw: string(raw), Parsed: r.marshal(h)})
	return h, true
}

// handoff returns the clean parser's reading h as agent's core reads it:
// the reading itself for the mission's own core, which never changes the
// hand-offs of its turn ([Definition].Cores), a deep copy for a core of
// the run's Env.
func (r *runner) handoff(agent Agent, h *Handoff) *Handoff {
	if c, ok := r.cores[agent]; ok && c != nil {
		return h.clone()
	}
	return h
}

// clone returns a deep copy of h: a message names one next owner, which
// the copy holds in the allocation of the hand-off itself.
func (h *Handoff) clone() *Handoff {
	c := new(handoffCopy)
	c.h = *h
	if h.NextOwner != nil {
		c.h.NextOwner = append(c.owners[:0:len(c.owners)], h.NextOwner...)
	}
	c.h.Payload = jsontext.CloneObject(h.Payload)
	return &c.h
}
