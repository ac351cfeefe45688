package sandbox

import (
	"slices"
	"strconv"

	"github.com/baton-lab/baton/internal/jsontext"
)

// Records is a mission's records: the part of its system of record that
// its tools read and write (for instance a struct of slices, one per kind
// of record). The engine copies, empties, sorts and encodes it through
// these methods; it never looks inside.
type Records interface {
	// CopyFrom makes the receiver a deep copy of src, a value of the same
	// type, reusing the receiver's arrays where they are large enough.
	CopyFrom(src Records)
	// Clone returns a deep copy that keeps empty and nil slices apart.
	Clone() Records
	// Reset empties every kind of record, keeping the arrays and holding
	// on to nothing they pointed to.
	Reset()
	// Sort orders the records by id, stably, so that equal records
	// encode to equal bytes.
	Sort()
	// IDs calls fn with the id of every record of the registry's kinds
	// (kind is the kind's index in Setup.Kinds), so that ids the engine
	// issues never collide with those already on file.
	IDs(fn func(kind int, id string))
	// AppendJSON appends the records as one JSON object, exactly as
	// encoding/json marshals them (HTML escaping on).
	AppendJSON(b []byte) ([]byte, error)
}

// State is a whole system of record: the mission's records and the
// engine's log of every call. A scenario's initial state has no log.
type State struct {
	Records Records
	Log     []LogEntry
}

// LogEntry is the sandbox's own record of one tool call, as a real system's
// audit log would keep it: what was asked, by whom, and what was answered.
// It never says which fault was injected; that is the run's oracle.
type LogEntry struct {
	Seq     int    `json:"seq"`
	At      int64  `json:"at_ms"`
	Agent   string `json:"agent"`
	Tool    string `json:"tool"`
	Item    string `json:"item"`
	Key     string `json:"key,omitempty"`
	Outcome string `json:"outcome"` // ok, replayed, error, forbidden
	Code    string `json:"code,omitempty"`
	Effect  string `json:"effect,omitempty"` // id of the record written, if any
}

// Clone returns a deep copy of st, keeping its order.
func (st State) Clone() State {
	out := State{Log: slices.Clone(st.Log)}
	if st.Records != nil {
		out.Records = st.Records.Clone()
	}
	return out
}

// Sort orders the records by id and the log by sequence number.
func (st *State) Sort() {
	if st.Records != nil {
		st.Records.Sort()
	}
	slices.SortStableFunc(st.Log, func(a, b LogEntry) int { return a.Seq - b.Seq })
}

// MarshalJSON writes the records' members, then "log".
func (st State) MarshalJSON() ([]byte, error) { return st.AppendJSON(nil) }

// AppendJSON appends st's JSON to b: the records' object with a last
// member "log" (null when there is no log), byte for byte what
// encoding/json writes for a struct of the records' fields and the log.
// An experiment hashes the end state of every integrated run, so the log
// is written entry by entry instead of through reflection. Like
// json.Marshal it fails on what the records cannot encode, returning b
// unchanged.
func (st State) AppendJSON(b []byte) ([]byte, error) {
	start := len(b)
	if st.Records == nil {
		b = append(b, '{')
	} else {
		var err error
		if b, err = st.Records.AppendJSON(b); err != nil {
			return b[:start], err
		}
		// Open the records' object again for the log.
		b = b[:len(b)-1]
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
	}
	b = append(b, `"log":`...)
	if st.Log == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range st.Log {
			if i > 0 {
				b = append(b, ',')
			}
			b = st.Log[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

func (l *LogEntry) appendJSON(b []byte) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, int64(l.Seq), 10)
	b = append(b, `,"at_ms":`...)
	b = strconv.AppendInt(b, l.At, 10)
	b = append(b, `,"agent":`...)
	b = jsontext.AppendString(b, l.Agent, true)
	b = append(b, `,"tool":`...)
	b = jsontext.AppendString(b, l.Tool, true)
	b = append(b, `,"item":`...)
	b = jsontext.AppendString(b, l.Item, true)
	if l.Key != "" {
		b = append(b, `,"key":`...)
		b = jsontext.AppendString(b, l.Key, true)
	}
	b = append(b, `,"outcome":`...)
	b = jsontext.AppendString(b, l.Outcome, true)
	if l.Code != "" {
		b = append(b, `,"code":`...)
		b = jsontext.AppendString(b, l.Code, true)
	}
	if l.Effect != "" {
		b = append(b, `,"effect":`...)
		b = jsontext.AppendString(b, l.Effect, true)
	}
	return append(b, '}')
}

// cloneInto copies s into dst's array when it is large enough, else into
// a new one. An empty s copies into an empty dst: nil for a nil dst (a
// new state), so that a copy of an empty state costs nothing and a
// snapshot of one holds nil.
func cloneInto[T any](dst, s []T) []T {
	if len(s) == 0 {
		return dst[:0]
	}
	if cap(dst) < len(s) {
		dst = make([]T, 0, len(s))
	}
	return append(dst[:0], s...)
}

// CloneInto is the copy a [Records.CopyFrom] makes of one kind: s copied
// into dst's array when it is large enough, else into a new one; an empty
// s gives dst emptied (nil for a nil dst).
func CloneInto[T any](dst, s []T) []T { return cloneInto(dst, s) }

// Emptied is what [Records.Reset] makes of one kind: s cleared, its array
// kept.
func Emptied[T any](s []T) []T {
	clear(s)
	return s[:0]
}
