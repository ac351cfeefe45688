package jsontext

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Encoder writes decoded JSON values (maps, slices, strings, numbers,
// booleans, nil) the way an encoding/json Encoder with HTML escaping off
// does: object keys sorted, numbers in the shortest form that reads back
// the same. Every hand-off and trace event of a run goes through one, so
// it keeps its scratch between values; a value that implements
// [Appender] writes itself, and values of other types fall back to
// encoding/json. An Encoder is used by one goroutine at a time.
type Encoder struct {
	buf  []byte
	keys []Member // a stack of the entries of the objects being written
	vals []any    // a stack of the values of the large known objects being written
	// lossy is set when a value was written where encoding/json fails
	// (a NaN or infinite number, a value it cannot encode).
	lossy bool
	// orders remembers, per number of keys, the key sets of the objects
	// last written, sorted: hand-offs, payloads, results and tool
	// arguments recur in a few shapes, and an object of a known shape is
	// written by looking its keys up in order instead of sorting them.
	orders [smallObject + 1][orderWays]*keyOrder
	// kept remembers the encodings of objects that never change
	// ([Encoder.EncodeKept]), by the object's identity.
	kept [keptSlots]keptEncoding
}

// keptSlots is how many encodings an Encoder remembers for EncodeKept:
// an object's slot is the top keptBits bits of its address, hashed.
const (
	keptBits  = 6
	keptSlots = 1 << keptBits
)

// keptEncoding is an object's encoding; the encoding holds the object so
// that its address names no other object while it is remembered.
type keptEncoding struct {
	m    map[string]any
	addr uintptr
	raw  []byte
}

// orderWays bounds the shapes an Encoder remembers per number of keys (it
// remembers those of 2 to smallObject keys).
const orderWays = 4

// keyOrder is one remembered key set, sorted, with each key as written.
type keyOrder struct {
	keys   []string
	ends   []uint16 // where each key's part of quoted ends
	quoted []byte   // every key as written, each followed by ':'
	// busy counts the objects being written in this order: an order is
	// reused for another key set only when no object is.
	busy int
}

// Appender is a value that writes its own JSON through an [Encoder],
// exactly as encoding/json (HTML escaping off) would write it.
type Appender interface {
	AppendJSONValue(e *Encoder, b []byte) []byte
}

// AppendValue appends the JSON encoding of v, a decoded JSON value or an
// [Appender], to b, as an encoding/json Encoder with HTML escaping off
// writes it, and returns the extended buffer. ok is false where
// encoding/json would fail on v (a NaN or infinite number, a value it
// cannot encode); what was appended then is not to be used.
func AppendValue(b []byte, v any) (_ []byte, ok bool) {
	e := GetEncoder()
	e.buf = e.Value(e.buf[:0], v)
	b, ok = append(b, e.buf...), !e.lossy
	PutEncoder(e)
	return b, ok
}

// encoders keeps the encoders of finished runs: a run encodes a few dozen
// values and would otherwise grow its scratch from nothing.
var encoders = sync.Pool{New: func() any { return new(Encoder) }}

// GetEncoder returns an encoder from the pool.
func GetEncoder() *Encoder { return encoders.Get().(*Encoder) }

// PutEncoder hands e back to the pool; e must not be used again.
func PutEncoder(e *Encoder) {
	if e == nil || cap(e.buf) > 1<<16 || cap(e.keys) > 1<<10 || cap(e.vals) > 1<<10 {
		return // keep no outsized buffers
	}
	// Objects written clear their entries; this is for a panic's leftovers.
	clear(e.keys)
	clear(e.vals)
	e.buf, e.keys, e.vals, e.lossy = e.buf[:0], e.keys[:0], e.vals[:0], false
	encoders.Put(e)
}

// Encode returns a fresh copy of v's encoding.
func (e *Encoder) Encode(v any) []byte {
	e.buf = e.Value(e.buf[:0], v)
	return slices.Clone(e.buf)
}

// EncodeKept returns m's encoding, as [Encoder.Encode] does, for an
// object that never changes once encoded (a tool result a memo hands out
// again and again): an Encoder remembers the last few such encodings by
// the object's identity and returns them again. The bytes are shared:
// they must not be changed.
func (e *Encoder) EncodeKept(m map[string]any) []byte {
	if m == nil {
		return e.Encode(m)
	}
	addr := reflect.ValueOf(m).Pointer()
	slot := &e.kept[(uint64(addr)*0x9e3779b97f4a7c15)>>(64-keptBits)]
	if slot.m != nil && slot.addr == addr {
		return slot.raw
	}
	lossy := e.lossy
	e.lossy = false
	raw := slices.Clip(e.Encode(m))
	if !e.lossy { // a lossy encoding is written again, and marks the encoder again
		*slot = keptEncoding{m: m, addr: addr, raw: raw}
	}
	e.lossy = e.lossy || lossy
	return raw
}

// Lossy reports whether a value written since the encoder was taken from
// the pool is one encoding/json would have refused.
func (e *Encoder) Lossy() bool { return e.lossy }

// Value appends v to b.
func (e *Encoder) Value(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return AppendString(b, x, false)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			e.lossy = true
		}
		return AppendFloat(b, x) // null for NaN and ±Inf, marked lossy above
	case bool:
		if x {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case int32:
		return strconv.AppendInt(b, int64(x), 10)
	case map[string]any:
		return e.Object(b, x)
	case []any:
		if x == nil {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i, y := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.Value(b, y)
		}
		return append(b, ']')
	case []string:
		if x == nil {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i, y := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, y, false)
		}
		return append(b, ']')
	case Appender:
		return x.AppendJSONValue(e, b)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		e.lossy = true
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// Object appends m to b, keys sorted.
func (e *Encoder) Object(b []byte, m map[string]any) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	n := len(m)
	if n > 1 && n <= smallObject {
		if out, ok := e.knownObject(b, m); ok {
			return out
		}
	}
	start := len(e.keys)
	for k, v := range m {
		e.keys = append(e.keys, Member{Key: k, Value: v})
	}
	if n > smallObject {
		return e.bigObject(b, start)
	}
	// Sort positions, not entries: the arrays hold no pointers and live on
	// the stack, so moving them costs no write barriers.
	var prefix [smallObject]uint64
	var order [smallObject]uint8
	for i := range n {
		prefix[i], order[i] = keyPrefix(e.keys[start+i].Key), uint8(i)
	}
	for i := 1; i < n; i++ {
		p, o := prefix[i], order[i]
		j := i
		for ; j > 0 && (p < prefix[j-1] || p == prefix[j-1] && e.keys[start+int(o)].Key < e.keys[start+int(order[j-1])].Key); j-- {
			prefix[j], order[j] = prefix[j-1], order[j-1]
		}
		prefix[j], order[j] = p, o
	}
	if n > 1 {
		e.remember(start, order[:n])
	}
	b = append(b, '{')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		en := e.keys[start+int(order[i])] // e.keys may grow while writing the value
		b = AppendString(b, en.Key, false)
		b = append(b, ':')
		b = e.Value(b, en.Value)
	}
	clear(e.keys[start : start+n]) // drop references to the values
	e.keys = e.keys[:start]
	return append(b, '}')
}

// stackKeys is the most keys knownObject looks values up for on the
// stack; a larger object's values go on the encoder's entry stack.
const stackKeys = 16

// knownObject writes m when its keys are one of the remembered sets of
// len(m) keys; ok is false (and nothing written) when they are none.
func (e *Encoder) knownObject(b []byte, m map[string]any) (_ []byte, ok bool) {
	n := len(m)
	ways := &e.orders[n]
	var small [stackKeys]any
	for w, o := range ways {
		if o == nil || len(o.keys) != n {
			continue
		}
		// The values of a larger object go on the encoder's value stack:
		// an object written inside it grows the stack past them (maybe
		// into a new array, leaving these slots to this object alone).
		var vals []any
		start := len(e.vals)
		if n <= stackKeys {
			vals = small[:n:n]
		} else {
			e.vals = append(e.vals, make([]any, n)...)
			vals = e.vals[start : start+n : start+n]
		}
		if !lookUp(m, o.keys, vals) {
			e.vals = e.vals[:start]
			continue
		}
		copy(ways[1:w+1], ways[:w]) // most recently used first
		ways[0] = o
		o.busy++
		b = append(b, '{')
		from := uint16(0)
		for i, to := range o.ends {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, o.quoted[from:to]...)
			from = to
			b = e.Value(b, vals[i])
			vals[i] = nil
		}
		o.busy--
		if n > stackKeys {
			clear(e.vals[start:]) // the copies, if the stack moved
			e.vals = e.vals[:start]
		}
		return append(b, '}'), true
	}
	return b, false
}

// lookUp reads m's values under keys into vals; it is false when m lacks
// one of them. With as many keys as m has, m then has exactly these.
func lookUp(m map[string]any, keys []string, vals []any) bool {
	for i, k := range keys {
		v, ok := m[k]
		if !ok {
			clear(vals[:i])
			return false
		}
		vals[i] = v
	}
	return true
}

// remember records the sorted key set of the object whose entries are
// e.keys[start:], in order, as the most recent of its size, in the place
// of the least recent.
func (e *Encoder) remember(start int, order []uint8) {
	ways := &e.orders[len(order)]
	o := ways[len(ways)-1]
	if o == nil || o.busy > 0 {
		o = new(keyOrder)
	}
	o.keys, o.ends, o.quoted = o.keys[:0], o.ends[:0], o.quoted[:0]
	for _, j := range order {
		k := e.keys[start+int(j)].Key
		o.keys = append(o.keys, k)
		o.quoted = append(AppendString(o.quoted, k, false), ':')
		if len(o.quoted) > math.MaxUint16 {
			o.keys = o.keys[:0] // keys too long to remember
			return
		}
		o.ends = append(o.ends, uint16(len(o.quoted)))
	}
	copy(ways[1:], ways[:len(ways)-1])
	ways[0] = o
}

// smallObject is the most keys Object sorts on the stack.
const smallObject = 64

// bigObject writes the object whose entries are e.keys[start:].
func (e *Encoder) bigObject(b []byte, start int) []byte {
	end := len(e.keys)
	slices.SortFunc(e.keys[start:], func(x, y Member) int { return strings.Compare(x.Key, y.Key) })
	b = append(b, '{')
	for i := start; i < end; i++ {
		if i > start {
			b = append(b, ',')
		}
		en := e.keys[i]
		b = AppendString(b, en.Key, false)
		b = append(b, ':')
		b = e.Value(b, en.Value)
	}
	clear(e.keys[start:end])
	e.keys = e.keys[:start]
	return append(b, '}')
}

// Member is one key of a JSON object, with its value: an object being
// written or read, or one a decoder hands to an [ObjectFunc].
type Member struct {
	Key   string
	Value any
}

// keyPrefix is a key's first eight bytes as a big-endian number, zero
// padded: prefixes order as the keys do, except that equal prefixes need
// the whole keys compared.
func keyPrefix(k string) uint64 {
	var p [8]byte
	copy(p[:], k)
	return binary.BigEndian.Uint64(p[:])
}
