package mission

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/baton-lab/baton/sandbox"
)

// jsonEncoder writes decoded JSON values (maps, slices, strings, numbers,
// booleans, nil) the way encoding/json does with HTML escaping off: object
// keys sorted, numbers in the shortest form that reads back the same. It is
// the mission's hot path (every hand-off and trace event goes through it);
// values of other types fall back to encoding/json.
type jsonEncoder struct {
	buf  []byte
	keys []string
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
		return appendFloat(b, x)
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
		return append(b, "null"...)
	}
	return append(b, raw...)
}

func (e *jsonEncoder) object(b []byte, m map[string]any) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	start := len(e.keys)
	for k := range m {
		e.keys = append(e.keys, k)
	}
	slices.Sort(e.keys[start:])
	end := len(e.keys)
	b = append(b, '{')
	for i := start; i < end; i++ {
		if i > start {
			b = append(b, ',')
		}
		k := e.keys[i]
		b = appendString(b, k)
		b = append(b, ':')
		b = e.value(b, m[k])
	}
	e.keys = e.keys[:start]
	return append(b, '}')
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

// appendFloat formats like encoding/json: 'f' for ordinary magnitudes, 'e'
// (with a short exponent) for very small or very large ones.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string, escaping as encoding/json does
// with HTML escaping off.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
