package mission

import (
	"encoding/json"
	"sync"
)

// EventKind names what a trace event records.
type EventKind string

// The kinds of trace event.
const (
	EventModelCall  EventKind = "model_call" // one decision step of a core
	EventToolCall   EventKind = "tool_call"  // one attempt of a tool call
	EventSent       EventKind = "handoff_sent"
	EventReceived   EventKind = "handoff_received"
	EventDropped    EventKind = "handoff_dropped" // no owner to deliver to, or de-duplicated
	EventEscalation EventKind = "escalation"
	EventException  EventKind = "exception"
	EventResult     EventKind = "result" // a core's structured result for an item
)

func (k EventKind) String() string { return string(k) }

// AllEventKinds lists every kind of trace event.
var AllEventKinds = []EventKind{EventModelCall, EventToolCall, EventSent, EventReceived, EventDropped, EventEscalation, EventException, EventResult}

// Event is one entry of a run's coordination record. Fields unused by a kind
// are left empty and omitted from JSON. It holds only what a real evaluator
// could observe: never which fault or slip fired.
type Event struct {
	Seq   int       `json:"seq"`
	At    int64     `json:"at_ms"` // virtual time since the run started
	Kind  EventKind `json:"kind"`
	Agent Agent     `json:"agent,omitempty"`
	Item  string    `json:"item,omitempty"`

	// model_call
	Decision  string `json:"decision,omitempty"`
	Choice    string `json:"choice,omitempty"` // what the step decided
	TokensIn  int    `json:"tokens_in,omitempty"`
	TokensOut int    `json:"tokens_out,omitempty"`

	// tool_call
	Tool    string          `json:"tool,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Output  json.RawMessage `json:"output,omitempty"`
	Error   string          `json:"error,omitempty"`
	Key     string          `json:"key,omitempty"`
	Attempt int             `json:"attempt,omitempty"`
	Effect  string          `json:"effect,omitempty"` // id of the record written

	// handoff_sent, handoff_received, handoff_dropped
	Edge   string          `json:"edge,omitempty"`
	Raw    string          `json:"raw,omitempty"`    // the wire bytes
	Parsed json.RawMessage `json:"parsed,omitempty"` // the consumer's view
	To     []Agent         `json:"to,omitempty"`

	// escalation, exception, result
	Reason string `json:"reason,omitempty"`
}

// Trace is a run's event log, in order.
type Trace struct {
	Events []Event `json:"events"`

	// compactRaw is set on a run's trace, whose raw JSON fields (Args,
	// Output, Parsed) the runner's jsontext encoder wrote: valid JSON with
	// no white space outside strings, which the compact encoding and the
	// JSON Lines take as it is (see [Trace.AppendCompact],
	// [Trace.AppendJSONL]). A trace made any other way leaves it unset,
	// and its raw JSON is checked.
	compactRaw bool
}

// eventArrays holds event arrays given back by [Trace.Recycle] for new
// runs: a sweep executes hundreds of thousands of runs, and their traces
// were a sixth of everything it allocated.
var eventArrays sync.Pool // of *[]Event, empty

// Recycle gives t's event array to later runs and empties t. Call it only
// when nothing uses t's events any more, nor a slice of them: values copied
// out of them (strings, raw JSON) stay valid. Recycling a trace twice, or
// a nil one, does nothing.
func (t *Trace) Recycle() {
	if t == nil || cap(t.Events) == 0 {
		return
	}
	ev := t.Events
	clear(ev) // hold on to nothing of the old run
	ev = ev[:0]
	t.Events, t.compactRaw = nil, false
	eventArrays.Put(&ev)
}

// newEvents returns an empty event array of capacity at least n, recycled
// when one is at hand.
func newEvents(n int) []Event {
	if p, ok := eventArrays.Get().(*[]Event); ok && cap(*p) >= n {
		return *p
	}
	return make([]Event, 0, n)
}

// Of returns the events of one kind, in order.
func (t *Trace) Of(kind EventKind) []Event {
	var out []Event
	for _, e := range t.Events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}
