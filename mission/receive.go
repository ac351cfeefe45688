package mission

import (
	"encoding/json"
	"slices"
	"sync"
)

// A core run alone reads its input messages with the clean parser: a pure
// function of the agent, the business day and the wire bytes, and a sweep
// hands the same golden messages to the same cores on every trial of every
// build. The mission remembers each reading, keyed by the full input, in a
// bounded memo; every run gets its own deep copy of the parsed message, and
// shares only immutable bytes (the wire string and the parsed view's JSON
// in its trace, which nobody writes to).

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
func (c *readingMemo) read(agent Agent, day string, raw []byte, enc *jsonEncoder) *reading {
	key := readingKey(agent, day, raw)
	c.mu.RLock()
	rd, ok := c.m[string(key)]
	c.mu.RUnlock()
	if ok {
		return rd
	}
	rd = readMessage(agent, day, raw, enc)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= readingMemoMax {
		c.m = make(map[string]*reading)
	}
	c.m[string(key)] = rd
	c.mu.Unlock()
	return rd
}

func readingKey(agent Agent, day string, raw []byte) []byte {
	k := make([]byte, 0, len(agent)+len(day)+len(raw)+2)
	k = append(k, agent...)
	k = append(k, 0)
	k = append(k, day...)
	k = append(k, 0)
	return append(k, raw...)
}

// readMessage reads raw with the clean parser.
func readMessage(agent Agent, day string, raw []byte, enc *jsonEncoder) *reading {
	msg, err := decodeObject(raw)
	e := inbound(agent, raw, msg, err)
	rd := &reading{edge: e, raw: string(raw)}
	h, err := parseDecoded(agent, e, msg, err, NoSeams{}, day)
	if err != nil {
		return rd
	}
	rd.h = h
	rd.parsed = enc.encode(h) // a fresh copy
	return rd
}

// clone returns a deep copy of h.
func (h *Handoff) clone() *Handoff {
	c := *h
	c.NextOwner = slices.Clone(h.NextOwner)
	if h.Payload != nil {
		c.Payload = cloneValue(h.Payload).(map[string]any)
	}
	return &c
}
