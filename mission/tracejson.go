package mission

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// MarshalJSONL writes the trace as JSON Lines, one event per line, exactly
// as an encoding/json Encoder with HTML escaping off writes each event. The
// same run gives the same bytes.
//
// Every kept trace and every trace hash of a sweep goes through here, so
// events are written field by field; an event whose raw JSON fields are
// not already compact and valid (never one the mission wrote) falls back to
// encoding/json, which compacts them or fails.
func (t *Trace) MarshalJSONL() ([]byte, error) {
	return t.AppendJSONL(make([]byte, 0, t.sizeJSONL()))
}

// AppendJSONL appends what MarshalJSONL returns to b, so that a caller that
// only hashes a trace can reuse one buffer.
func (t *Trace) AppendJSONL(b []byte) ([]byte, error) {
	start := len(b)
	for i := range t.Events {
		var ok bool
		if b, ok = appendEvent(b, &t.Events[i]); !ok {
			std, err := t.marshalJSONLStd()
			if err != nil {
				return b[:start], err
			}
			return append(b[:start], std...), nil
		}
		b = append(b, '\n')
	}
	return b, nil
}

// sizeJSONL estimates the bytes of the trace's JSON Lines, a little over.
func (t *Trace) sizeJSONL() int {
	size := 0
	for i := range t.Events {
		e := &t.Events[i]
		size += 128 + len(e.Args) + len(e.Output) + len(e.Parsed) + len(e.Raw)*5/4
	}
	return size
}

// marshalJSONLStd is MarshalJSONL through encoding/json.
func (t *Trace) marshalJSONLStd() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range t.Events {
		if err := enc.Encode(&t.Events[i]); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// appendEvent writes e as encoding/json does with HTML escaping off: the
// struct's fields in order, empty ones omitted. ok is false when a raw JSON
// field is not compact and valid as it stands.
func appendEvent(b []byte, e *Event) (_ []byte, ok bool) {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, int64(e.Seq), 10)
	b = append(b, `,"at_ms":`...)
	b = strconv.AppendInt(b, e.At, 10)
	b = append(b, `,"kind":`...)
	b = appendString(b, string(e.Kind))
	b = appendOptString(b, `,"agent":`, string(e.Agent))
	b = appendOptString(b, `,"item":`, e.Item)
	b = appendOptString(b, `,"decision":`, e.Decision)
	b = appendOptString(b, `,"choice":`, e.Choice)
	b = appendOptInt(b, `,"tokens_in":`, e.TokensIn)
	b = appendOptInt(b, `,"tokens_out":`, e.TokensOut)
	b = appendOptString(b, `,"tool":`, e.Tool)
	if b, ok = appendOptRaw(b, `,"args":`, e.Args); !ok {
		return b, false
	}
	if b, ok = appendOptRaw(b, `,"output":`, e.Output); !ok {
		return b, false
	}
	b = appendOptString(b, `,"error":`, e.Error)
	b = appendOptString(b, `,"key":`, e.Key)
	b = appendOptInt(b, `,"attempt":`, e.Attempt)
	b = appendOptString(b, `,"effect":`, e.Effect)
	b = appendOptString(b, `,"edge":`, e.Edge)
	b = appendOptString(b, `,"raw":`, e.Raw)
	if b, ok = appendOptRaw(b, `,"parsed":`, e.Parsed); !ok {
		return b, false
	}
	if len(e.To) > 0 {
		b = append(b, `,"to":[`...)
		for i, a := range e.To {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, string(a))
		}
		b = append(b, ']')
	}
	b = appendOptString(b, `,"reason":`, e.Reason)
	return append(b, '}'), true
}

func appendOptString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendString(append(b, key...), s)
}

func appendOptInt(b []byte, key string, n int) []byte {
	if n == 0 {
		return b
	}
	return strconv.AppendInt(append(b, key...), int64(n), 10)
}

// appendOptRaw copies raw JSON that encoding/json would copy unchanged:
// valid, and with no whitespace outside its strings to compact away.
func appendOptRaw(b []byte, key string, raw json.RawMessage) ([]byte, bool) {
	if len(raw) == 0 {
		return b, true
	}
	if !validCompact(raw) {
		return b, false
	}
	return append(append(b, key...), raw...), true
}
