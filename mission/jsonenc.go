package mission

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/sandbox"
)

// jsonEncoder writes decoded JSON values (maps, slices, strings, numbers,
// booleans, nil) the way encoding/json does with HTML escaping off: object
// keys sorted, numbers in the shortest form that reads back the same. It is
// the mission's hot path (every hand-off and trace event goes through it);
// values of other types fall back to encoding/json.
type jsonEncoder struct {
	buf  []byte
	keys []objectEntry // a stack of the entries of the objects being written
	// lossy is set when a value was written where encoding/json fails
	// (a NaN or infinite number, a value it cannot encode).
	lossy bool
}

// AppendJSON appends the JSON encoding of v, a decoded JSON value (maps,
// slices, strings, numbers, booleans, nil) or a *[Handoff], to b, as an
// encoding/json Encoder with HTML escaping off writes it, and returns the
// extended buffer. ok is false where encoding/json would fail on v (a NaN or
// infinite number, a value it cannot encode); what was appended then is
// not to be used.
func AppendJSON(b []byte, v any) (_ []byte, ok bool) {
	e := getEncoder()
	e.buf = e.value(e.buf[:0], v)
	b, ok = append(b, e.buf...), !e.lossy
	putEncoder(e)
	return b, ok
}

// encoders keeps the encoders of finished runs: a run encodes a few dozen
// values and would otherwise grow its scratch from nothing.
var encoders = sync.Pool{New: func() any { return new(jsonEncoder) }}

func getEncoder() *jsonEncoder { return encoders.Get().(*jsonEncoder) }

// putEncoder hands e to later runs; e must not be used again.
func putEncoder(e *jsonEncoder) {
	if e == nil || cap(e.buf) > 1<<16 || cap(e.keys) > 1<<10 {
		return // keep no outsized buffers
	}
	clear(e.keys) // objects written clear their entries; this is for a panic's leftovers
	e.buf, e.keys, e.lossy = e.buf[:0], e.keys[:0], false
	encoders.Put(e)
}

// encode returns a fresh copy of v's encoding.
func (e *jsonEncoder) encode(v any) []byte {
	e.buf = e.value(e.buf[:0], v)
	return slices.Clone(e.buf)
}

func (e *jsonEncoder) value(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendString(b, x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			e.lossy = true
		}
		return jsontext.AppendFloat(b, x) // null for NaN and ±Inf, marked lossy above
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
		return e.object(b, x)
	case Result:
		return e.object(b, x)
	case sandbox.Args:
		return e.object(b, x)
	case sandbox.Result:
		return e.object(b, x)
	case []any:
		if x == nil {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i, y := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.value(b, y)
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
			b = appendString(b, y)
		}
		return append(b, ']')
	case *Handoff:
		return e.handoff(b, x)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		e.lossy = true
		return append(b, "null"...)
	}
	return append(b, raw...)
}

func (e *jsonEncoder) object(b []byte, m map[string]any) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	start := len(e.keys)
	for k, v := range m {
		e.keys = append(e.keys, objectEntry{key: k, val: v})
	}
	n := len(e.keys) - start
	if n > smallObject {
		return e.bigObject(b, start)
	}
	// Sort positions, not entries: the arrays hold no pointers and live on
	// the stack, so moving them costs no write barriers.
	var prefix [smallObject]uint64
	var order [smallObject]uint8
	for i := range n {
		prefix[i], order[i] = keyPrefix(e.keys[start+i].key), uint8(i)
	}
	for i := 1; i < n; i++ {
		p, o := prefix[i], order[i]
		j := i
		for ; j > 0 && (p < prefix[j-1] || p == prefix[j-1] && e.keys[start+int(o)].key < e.keys[start+int(order[j-1])].key); j-- {
			prefix[j], order[j] = prefix[j-1], order[j-1]
		}
		prefix[j], order[j] = p, o
	}
	b = append(b, '{')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		en := e.keys[start+int(order[i])] // e.keys may grow while writing the value
		b = appendString(b, en.key)
		b = append(b, ':')
		b = e.value(b, en.val)
	}
	clear(e.keys[start : start+n]) // drop references to the values
	e.keys = e.keys[:start]
	return append(b, '}')
}

// smallObject is the most keys object sorts on the stack.
const smallObject = 64

// bigObject writes the object whose entries are e.keys[start:].
func (e *jsonEncoder) bigObject(b []byte, start int) []byte {
	end := len(e.keys)
	slices.SortFunc(e.keys[start:], func(x, y objectEntry) int { return strings.Compare(x.key, y.key) })
	b = append(b, '{')
	for i := start; i < end; i++ {
		if i > start {
			b = append(b, ',')
		}
		en := e.keys[i]
		b = appendString(b, en.key)
		b = append(b, ':')
		b = e.value(b, en.val)
	}
	clear(e.keys[start:end])
	e.keys = e.keys[:start]
	return append(b, '}')
}

// objectEntry is one key of an object being written, with its value.
type objectEntry struct {
	key string
	val any
}

// keyPrefix is a key's first eight bytes as a big-endian number, zero
// padded: prefixes order as the keys do, except that equal prefixes need
// the whole keys compared.
func keyPrefix(k string) uint64 {
	var p [8]byte
	copy(p[:], k)
	return binary.BigEndian.Uint64(p[:])
}

// handoff writes a Handoff as encoding/json would (struct field order).
func (e *jsonEncoder) handoff(b []byte, h *Handoff) []byte {
	if h == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"id":`...)
	b = appendString(b, h.ID)
	b = append(b, `,"edge":`...)
	b = appendString(b, h.Edge)
	b = append(b, `,"kind":`...)
	b = appendString(b, h.Kind)
	b = append(b, `,"schema_version":`...)
	b = appendString(b, h.SchemaVersion)
	b = append(b, `,"idempotency_key":`...)
	b = appendString(b, h.IdempotencyKey)
	b = append(b, `,"next_owner":`...)
	b = e.value(b, h.NextOwner)
	b = append(b, `,"escalation":`...)
	b = appendString(b, h.Escalation)
	if h.EscalationRef != "" {
		b = append(b, `,"escalation_ref":`...)
		b = appendString(b, h.EscalationRef)
	}
	b = append(b, `,"item":`...)
	b = appendString(b, h.Item)
	b = append(b, `,"payload":`...)
	b = e.object(b, h.Payload)
	return append(b, '}')
}

// appendString writes s as a JSON string, escaped as an encoding/json
// Encoder with SetEscapeHTML(false) escapes it (the wire's form).
func appendString(b []byte, s string) []byte { return jsontext.AppendString(b, s, false) }
