package jsontext

import (
	"errors"
	"math"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// DecodeObject reads a JSON object into decoded JSON values
// (map[string]any, []any, string, float64, bool, nil), accepting and
// rejecting exactly what encoding/json does for a map[string]any target, a
// JSON null giving a nil map. Object keys found in keys (which may be nil)
// share its strings instead of allocating. It exists because every
// hand-off is parsed, and encoding/json's reflection dominated a run's
// cost.
func DecodeObject(data []byte, keys *Keys) (map[string]any, error) {
	v, err := decode(data, keys, nil)
	if v == nil || err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// An ObjectFunc makes the value of one JSON object a decoder read from its
// members in the order written, a repeated key as often as it was written.
// members is the decoder's scratch: the function copies what it keeps.
type ObjectFunc func(members []Member) any

// DecodeObjectFunc reads a JSON object as [DecodeObject] does (the same
// documents accepted, the same errors), except that every object in it,
// the top-level one included, is the value object makes of its members.
// A JSON null gives nil.
func DecodeObjectFunc(data []byte, keys *Keys, object ObjectFunc) (any, error) {
	return decode(data, keys, object)
}

func decode(data []byte, keys *Keys, object ObjectFunc) (any, error) {
	scratch := decodeScratch.Get().(*decodeState)
	d := decoder{data: data, ents: scratch.ents[:0], keys: keys, seen: &scratch.seen, nums: &scratch.nums, makeObject: object}
	defer func() {
		clear(d.ents) // what an error left; objects read clear their own
		scratch.ents = d.ents[:0]
		decodeScratch.Put(scratch)
	}()
	d.space()
	if d.peek() == 'n' {
		if err := d.literal("null"); err != nil {
			return nil, err
		}
		d.space()
		if d.pos != len(d.data) {
			return nil, d.syntax("after top-level value")
		}
		return nil, nil
	}
	if d.peek() != '{' {
		if _, err := d.value(); err != nil {
			return nil, err
		}
		return nil, errNotObject
	}
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.space()
	if d.pos != len(d.data) {
		return nil, d.syntax("after top-level value")
	}
	return v, nil
}

// errNotObject is encoding/json's error for a valid value that is not an
// object.
var errNotObject = errors.New("json: cannot unmarshal non-object into map[string]any")

type decoder struct {
	data  []byte
	pos   int
	depth int
	// ents is a stack of the key-value pairs of the objects being read:
	// an object's map is made at its final size once all are read.
	ents []Member
	keys *Keys
	seen *seenStrings
	nums *seenNumbers
	// object, when set, makes every object's value instead of a map.
	makeObject ObjectFunc
}

// decodeState is what a decoder keeps between documents: its entry stack,
// and the keys (outside any [Keys]), short string values and numbers it
// allocated lately, which the documents of a sweep repeat: trace
// payloads, results, tool arguments.
type decodeState struct {
	ents []Member
	seen seenStrings
	nums seenNumbers
}

// seenNumbers holds numbers read before, boxed, by a hash of their bits:
// a boxed number is immutable, and amounts and counts recur.
type seenNumbers [256]any

// box returns f as a value, sharing the box of an equal number (bit for
// bit) read before.
func (s *seenNumbers) box(f float64) any {
	bits := math.Float64bits(f)
	slot := &s[(bits*0x9E3779B97F4A7C15)>>56]
	if x, ok := (*slot).(float64); !ok || math.Float64bits(x) != bits {
		*slot = f
	}
	return *slot
}

// maxSeenKey and maxSeenValue are the longest key and string value a
// decoder shares with earlier ones: short values (states, codes, dates,
// ids) recur, and a pooled decoder keeps no long strings alive.
const (
	maxSeenKey   = 64
	maxSeenValue = 24
)

// seenStrings holds strings of keys (and short values) read before, by a
// hash of their bytes; a newer string takes an older one's slot. Strings
// are immutable, so any decode may share them.
type seenStrings [512]string

// intern returns b as a string, sharing the string of an equal one seen
// before.
func (s *seenStrings) intern(b []byte) string {
	h := uint32(2166136261) // FNV-1a
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &s[h%uint32(len(s))]
	if *slot != string(b) {
		*slot = string(b)
	}
	return *slot
}

// decodeScratch keeps the decoders' state between messages.
var decodeScratch = sync.Pool{New: func() any {
	return &decodeState{ents: make([]Member, 0, 64)}
}}

const maxJSONDepth = 10000

func (d *decoder) syntax(where string) error {
	return errors.New("json: syntax error at offset " + strconv.Itoa(d.pos) + " " + where)
}

func (d *decoder) peek() byte {
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) literal(lit string) error {
	if len(d.data)-d.pos < len(lit) || string(d.data[d.pos:d.pos+len(lit)]) != lit {
		return d.syntax("in literal")
	}
	d.pos += len(lit)
	return nil
}

func (d *decoder) value() (any, error) {
	d.space()
	switch c := d.peek(); {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, d.syntax("looking for beginning of value")
}

func (d *decoder) object() (any, error) {
	if d.depth++; d.depth > maxJSONDepth {
		return nil, errors.New("json: exceeded max depth")
	}
	d.pos++ // '{'
	d.space()
	if d.peek() == '}' {
		d.pos++
		d.depth--
		if d.makeObject != nil {
			return d.makeObject(nil), nil
		}
		return make(map[string]any), nil
	}
	start := len(d.ents)
	for {
		d.space()
		if d.peek() != '"' {
			return nil, d.syntax("looking for beginning of object key string")
		}
		k, err := d.key()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.peek() != ':' {
			return nil, d.syntax("after object key")
		}
		d.pos++
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		d.ents = append(d.ents, Member{Key: k, Value: v})
		d.space()
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			d.depth--
			if d.makeObject != nil {
				v := d.makeObject(d.ents[start:])
				clear(d.ents[start:])
				d.ents = d.ents[:start]
				return v, nil
			}
			m := make(map[string]any, len(d.ents)-start)
			for _, en := range d.ents[start:] {
				m[en.Key] = en.Value // a repeated key: the last one wins, as in encoding/json
			}
			clear(d.ents[start:])
			d.ents = d.ents[:start]
			return m, nil
		default:
			return nil, d.syntax("after object key:value pair")
		}
	}
}

func (d *decoder) array() (any, error) {
	if d.depth++; d.depth > maxJSONDepth {
		return nil, errors.New("json: exceeded max depth")
	}
	d.pos++ // '['
	a := make([]any, 0, 4)
	d.space()
	if d.peek() == ']' {
		d.pos++
		d.depth--
		return a, nil
	}
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.space()
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			d.depth--
			return a, nil
		default:
			return nil, d.syntax("after array element")
		}
	}
}

// key reads an object key, sharing the string of a known field name.
func (d *decoder) key() (string, error) {
	start := d.pos + 1
	for i := start; i < len(d.data); i++ {
		c := d.data[i]
		if c == '"' {
			k, ok := d.keys.lookup(d.data[start:i])
			switch {
			case ok:
			case i-start <= maxSeenKey: // plain ASCII: what the loop let through
				k = d.seen.intern(d.data[start:i])
			default:
				k = string(d.data[start:i])
			}
			d.pos = i + 1
			return k, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	return d.str()
}

// Keys is a set of object keys a decoder shares rather than allocating:
// the field names of a mission's messages. It is immutable.
type Keys struct {
	m map[string]string
}

// NewKeys returns the set of names.
func NewKeys(names ...string) *Keys {
	k := &Keys{m: make(map[string]string, len(names))}
	for _, n := range names {
		k.m[n] = n
	}
	return k
}

func (k *Keys) lookup(b []byte) (string, bool) {
	if k == nil {
		return "", false
	}
	s, ok := k.m[string(b)]
	return s, ok
}

// str reads a string, with encoding/json's treatment of escapes and of
// invalid UTF-8 (replaced by U+FFFD).
func (d *decoder) str() (string, error) {
	d.pos++ // opening quote
	start := d.pos
	// Fast path: no escapes, ASCII or valid UTF-8.
	for i := start; i < len(d.data); i++ {
		c := d.data[i]
		if c == '"' {
			if utf8.Valid(d.data[start:i]) {
				d.pos = i + 1
				if i-start <= maxSeenValue {
					return d.seen.intern(d.data[start:i]), nil
				}
				return string(d.data[start:i]), nil
			}
			break
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			d.pos = i
			return "", d.syntax("in string literal")
		}
	}
	var b []byte
	i := start
	for {
		if i >= len(d.data) {
			d.pos = i
			return "", d.syntax("in string literal")
		}
		c := d.data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return string(b), nil
		case c < 0x20:
			d.pos = i
			return "", d.syntax("in string literal")
		case c == '\\':
			if i+1 >= len(d.data) {
				d.pos = i
				return "", d.syntax("in string escape code")
			}
			e := d.data[i+1]
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
				i += 2
			case 'b':
				b = append(b, '\b')
				i += 2
			case 'f':
				b = append(b, '\f')
				i += 2
			case 'n':
				b = append(b, '\n')
				i += 2
			case 'r':
				b = append(b, '\r')
				i += 2
			case 't':
				b = append(b, '\t')
				i += 2
			case 'u':
				r, ok := hex4(d.data, i+2)
				if !ok {
					d.pos = i
					return "", d.syntax("in \\u hexadecimal character escape")
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok2 := rune(-1), false
					if i+6 <= len(d.data) && d.data[i] == '\\' && d.data[i+1] == 'u' {
						r2, ok2 = hex4(d.data, i+2)
					}
					if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
						i += 6
						b = utf8.AppendRune(b, dec)
						break
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				d.pos = i
				return "", d.syntax("in string escape code")
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(d.data[i:])
			i += size
			b = utf8.AppendRune(b, r)
		}
	}
}

func hex4(s []byte, at int) (rune, bool) {
	if at+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// number reads a JSON number (strict grammar) as float64.
func (d *decoder) number() (any, error) {
	start := d.pos
	i := d.pos
	if i < len(d.data) && d.data[i] == '-' {
		i++
	}
	switch {
	case i < len(d.data) && d.data[i] == '0':
		i++
	case i < len(d.data) && d.data[i] >= '1' && d.data[i] <= '9':
		for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
		}
	default:
		d.pos = i
		return nil, d.syntax("in numeric literal")
	}
	if i < len(d.data) && d.data[i] == '.' {
		i++
		if i >= len(d.data) || d.data[i] < '0' || d.data[i] > '9' {
			d.pos = i
			return nil, d.syntax("after decimal point in numeric literal")
		}
		for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if i >= len(d.data) || d.data[i] < '0' || d.data[i] > '9' {
			d.pos = i
			return nil, d.syntax("in exponent of numeric literal")
		}
		for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
		}
	}
	d.pos = i
	f, err := strconv.ParseFloat(string(d.data[start:i]), 64)
	if err != nil {
		return nil, errors.New("json: cannot unmarshal number " + string(d.data[start:i]) + " into Go value of type float64")
	}
	return d.nums.box(f), nil
}
