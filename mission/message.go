package mission

import (
	"errors"
	"iter"
	"slices"
	"strings"

	"github.com/baton-lab/baton/internal/jsontext"
)

// Message is a hand-off message as the Emit and Parse seams see it: a JSON
// object held as a list of fields, keys in the order encoding/json writes
// a map's (sorted byte for byte, each key once). Every object inside it
// (the payload, the objects of a list) is a *Message too; other values are
// decoded JSON values (string, float64, bool, nil, []any), or what a core
// put in its result. A seam may set any value encoding/json writes (a
// map[string]any among them); the wire bytes are its encoding.
//
// A message is copy-on-write: the decoder's messages are shared by every
// parser that reads the same wire bytes, and [Message.Clone] shares
// everything. A change copies only the level it changes: [Message.Set] and
// [Message.Delete] copy this message's field list on the first write,
// [Message.Object] gives the object under a key ready to change, copying
// that level only. So a seam reads with [Message.Get] and changes what it
// means to change, never a value in place (a list is replaced, not
// edited). A seam that drops a payload field:
//
//	func (s *dropField) Emit(e mission.Edge, msg *mission.Message) {
//		if e != s.edge {
//			return
//		}
//		if p := msg.Object("payload"); p != nil {
//			p.Delete("amount")
//		}
//	}
//
// A *Message from Object is its parent's to change until the parent is
// next copied (by Clone); ask the parent again after that.
type Message struct {
	fields []jsontext.Member
	own    bool // fields is this message's alone: written in place
	// A message Object handed out is its parent's while parent is set to
	// it and epoch is the parent's: the parent's epoch moves on when it
	// is shared or copies its fields.
	parent *Message
	epoch  uint32
}

var _ jsontext.Appender = (*Message)(nil)

// DecodeMessage reads a JSON object (as encoding/json reads one into a
// map: a repeated key's last value wins) into a message. A JSON null
// gives nil.
func DecodeMessage(raw []byte) (*Message, error) { return decodeMessage(raw, nil) }

func decodeMessage(raw []byte, keys *jsontext.Keys) (*Message, error) {
	v, err := jsontext.DecodeObjectFunc(raw, keys, newDecoded)
	if v == nil || err != nil {
		return nil, err
	}
	return v.(*Message), nil
}

// newDecoded makes a decoded object's message from its members in the
// order written: sorted, a repeated key's last value kept.
func newDecoded(members []jsontext.Member) any {
	fs := slices.Clone(members)
	if !sortedKeys(fs) {
		slices.SortStableFunc(fs, func(a, b jsontext.Member) int { return strings.Compare(a.Key, b.Key) })
		out := fs[:0]
		for i, f := range fs {
			if i+1 < len(fs) && fs[i+1].Key == f.Key {
				continue // the last of equal keys wins
			}
			out = append(out, f)
		}
		clear(fs[len(out):])
		fs = out
	}
	return &Message{fields: fs}
}

// sortedKeys reports whether fs's keys are strictly increasing.
func sortedKeys(fs []jsontext.Member) bool {
	for i := 1; i < len(fs); i++ {
		if fs[i-1].Key >= fs[i].Key {
			return false
		}
	}
	return true
}

// messageOf makes a message of a decoded object (or a core's map), each
// object in it a message; the values are copied as [jsontext.Clone]
// copies them.
func messageOf(m map[string]any) *Message {
	fs := make([]jsontext.Member, 0, len(m))
	for k, v := range m {
		fs = append(fs, jsontext.Member{Key: k, Value: messageValue(v)})
	}
	slices.SortFunc(fs, func(a, b jsontext.Member) int { return strings.Compare(a.Key, b.Key) })
	return &Message{fields: fs, own: true}
}

// asMessage returns an object (a message, or a map a seam set) as a
// message; nil for anything else.
func asMessage(v any) *Message {
	switch x := v.(type) {
	case *Message:
		return x
	case map[string]any:
		if x != nil {
			return messageOf(x)
		}
	}
	return nil
}

// messageValue is v as a message holds it: a deep copy with every object a
// message (a nil map stays a nil map: it is written null).
func messageValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		return messageOf(x)
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = messageValue(y)
		}
		return out
	}
	return jsontext.Clone(v)
}

// plainValue is v as a parser hands it to a core: a deep copy with every
// message a map.
func plainValue(v any) any {
	switch x := v.(type) {
	case *Message:
		if x == nil {
			return map[string]any(nil)
		}
		m := make(map[string]any, len(x.fields))
		for _, f := range x.fields {
			m[f.Key] = plainValue(f.Value)
		}
		return m
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = plainValue(y)
		}
		return out
	}
	return jsontext.Clone(v)
}

// Len returns the number of fields.
func (m *Message) Len() int {
	if m == nil {
		return 0
	}
	return len(m.fields)
}

// find returns where key is among m's fields, or where it would go.
func (m *Message) find(key string) (int, bool) {
	lo, hi := 0, len(m.fields)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if m.fields[mid].Key < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(m.fields) && m.fields[lo].Key == key
}

// lookUp sets at[i] to where specs[i]'s field is among m's (-1: not
// there), walking both in key order (order is specs' indexes in it), and
// returns at.
func (m *Message) lookUp(specs []Field, order []int, at []int) []int {
	j, n := 0, m.Len()
	for _, i := range order {
		name := specs[i].Name
		for j < n && m.fields[j].Key < name {
			j++
		}
		at[i] = -1
		if j < n && m.fields[j].Key == name {
			at[i] = j
		}
	}
	return at
}

// Get returns the value under key; ok is false when m has no such field.
// An object is a *Message, to read only: change it through
// [Message.Object].
func (m *Message) Get(key string) (v any, ok bool) {
	if m == nil {
		return nil, false
	}
	i, ok := m.find(key)
	if !ok {
		return nil, false
	}
	return m.fields[i].Value, true
}

// All yields m's fields in order.
func (m *Message) All() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		if m == nil {
			return
		}
		for _, f := range m.fields {
			if !yield(f.Key, f.Value) {
				return
			}
		}
	}
}

// write makes m's fields its own before a change.
func (m *Message) write() {
	if !m.own {
		m.fields = slices.Clone(m.fields)
		m.own = true
		m.epoch++
	}
}

// Set sets the field key to v, a JSON value as a message holds it.
func (m *Message) Set(key string, v any) {
	m.write()
	i, ok := m.find(key)
	if ok {
		m.fields[i].Value = v
		return
	}
	m.fields = slices.Insert(m.fields, i, jsontext.Member{Key: key, Value: v})
}

// Delete removes the field key, if m has it.
func (m *Message) Delete(key string) {
	if _, ok := m.find(key); !ok {
		return
	}
	m.write()
	i, _ := m.find(key)
	m.fields = slices.Delete(m.fields, i, i+1)
}

// Object returns the object under key, ready to change (its changes are
// m's); nil when m has no object there. It copies m's field list if m
// shares it, and gives a message of its own in the object's place.
func (m *Message) Object(key string) *Message {
	i, ok := m.find(key)
	if !ok {
		return nil
	}
	o, isMsg := m.fields[i].Value.(*Message)
	if !isMsg || o == nil {
		return nil
	}
	m.write()
	if o.parent == m && o.epoch == m.epoch {
		return o
	}
	w := &Message{fields: o.fields, parent: m, epoch: m.epoch}
	m.fields[i].Value = w
	return w
}

// Clone returns a copy of m that shares everything until either is
// changed.
func (m *Message) Clone() *Message {
	if m == nil {
		return nil
	}
	if m.own {
		m.own = false // shared now: the next change copies
	}
	return &Message{fields: m.fields}
}

// Equal reports whether m and o hold the same fields with equal values
// (as reflect.DeepEqual compares them, messages field by field).
func (m *Message) Equal(o *Message) bool {
	if m == nil || o == nil {
		return m == o
	}
	if len(m.fields) != len(o.fields) {
		return false
	}
	if len(m.fields) > 0 && &m.fields[0] == &o.fields[0] {
		return true
	}
	for i := range m.fields {
		a, b := &m.fields[i], &o.fields[i]
		if a.Key != b.Key || !equalValue(a.Value, b.Value) {
			return false
		}
	}
	return true
}

// AppendJSONValue writes m as encoding/json writes the map it stands for.
func (m *Message) AppendJSONValue(e *jsontext.Encoder, b []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, f := range m.fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, f.Key)
		b = e.Value(b, f.Value)
	}
	return append(b, '}')
}

// appendKey writes an object key and its colon: a key of plain ASCII (a
// field name) as it is, any other escaped as encoding/json escapes it.
func appendKey(b []byte, k string) []byte {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return append(jsontext.AppendString(b, k, false), ':')
		}
	}
	b = append(b, '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

// MarshalJSON writes m as encoding/json writes the map it stands for.
func (m *Message) MarshalJSON() ([]byte, error) {
	e := jsontext.GetEncoder()
	defer jsontext.PutEncoder(e)
	b := e.Encode(m)
	if e.Lossy() {
		return nil, errLossy
	}
	return b, nil
}

var errLossy = errors.New("mission: message holds a value JSON cannot encode")
