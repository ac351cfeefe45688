package mission

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/baton-lab/baton/internal/jsontext"
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
	st := jsonlState{compactRaw: t.compactRaw}
	for i := range t.Events {
		var ok bool
		if b, ok = st.appendEvent(b, &t.Events[i]); !ok {
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

// jsonlState is what writing a trace's events learns on the way.
type jsonlState struct {
	// compactRaw is the trace's: its raw JSON fields are valid and
	// compact, written by the runner's jsontext encoder.
	compactRaw bool
	// raw is the last wire bytes written, escaped in b[rawFrom:rawTo]: a
	// message's sent, received and dropped events carry the same.
	raw            string
	rawFrom, rawTo int
}

// appendEvent writes e as encoding/json does with HTML escaping off: the
// struct's fields in order, empty ones omitted. ok is false when a raw JSON
// field is not compact and valid as it stands.
func (st *jsonlState) appendEvent(b []byte, e *Event) (_ []byte, ok bool) {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, int64(e.Seq), 10)
	b = append(b, `,"at_ms":`...)
	b = strconv.AppendInt(b, e.At, 10)
	b = append(b, `,"kind":`...)
	b = jsontext.AppendString(b, string(e.Kind), false)
	b = jsontext.AppendOptString(b, `,"agent":`, string(e.Agent))
	b = jsontext.AppendOptString(b, `,"item":`, e.Item)
	b = jsontext.AppendOptString(b, `,"decision":`, e.Decision)
	b = jsontext.AppendOptString(b, `,"choice":`, e.Choice)
	b = jsontext.AppendOptInt(b, `,"tokens_in":`, e.TokensIn)
	b = jsontext.AppendOptInt(b, `,"tokens_out":`, e.TokensOut)
	b = jsontext.AppendOptString(b, `,"tool":`, e.Tool)
	if b, ok = st.appendOptRaw(b, `,"args":`, e.Args); !ok {
		return b, false
	}
	if b, ok = st.appendOptRaw(b, `,"output":`, e.Output); !ok {
		return b, false
	}
	b = jsontext.AppendOptString(b, `,"error":`, e.Error)
	b = jsontext.AppendOptString(b, `,"key":`, e.Key)
	b = jsontext.AppendOptInt(b, `,"attempt":`, e.Attempt)
	b = jsontext.AppendOptString(b, `,"effect":`, e.Effect)
	b = jsontext.AppendOptString(b, `,"edge":`, e.Edge)
	if e.Raw != "" {
		b = append(b, `,"raw":`...)
		if e.Raw == st.raw { // equal pointers compare in constant time
			b = append(b, b[st.rawFrom:st.rawTo]...)
		} else {
			st.rawFrom = len(b)
			b = jsontext.AppendString(b, e.Raw, false)
			st.raw, st.rawTo = e.Raw, len(b)
		}
	}
	if b, ok = st.appendOptRaw(b, `,"parsed":`, e.Parsed); !ok {
		return b, false
	}
	if len(e.To) > 0 {
		b = append(b, `,"to":[`...)
		for i, a := range e.To {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontext.AppendString(b, string(a), false)
		}
		b = append(b, ']')
	}
	b = jsontext.AppendOptString(b, `,"reason":`, e.Reason)
	return append(b, '}'), true
}

// appendOptRaw is jsontext.AppendOptRaw, with no check of raw JSON known
// valid and compact.
func (st *jsonlState) appendOptRaw(b []byte, key string, raw []byte) ([]byte, bool) {
	if st.compactRaw && len(raw) > 0 {
		return append(append(b, key...), raw...), true
	}
	return jsontext.AppendOptRaw(b, key, raw)
}
