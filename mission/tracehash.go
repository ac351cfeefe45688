package mission

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/baton-lab/baton/internal/xxh64"
)

// A trace's identity is a hash of its compact encoding, not of its JSON
// Lines: a sweep hashes every run's trace and keeps the bytes of a few, and
// writing JSON cost more than everything else the hash needed.
//
// The compact encoding writes each event as the tag byte 'E' and its
// fields in declaration order, integers as varints, strings and raw JSON
// as a length and the bytes, owners as a count and the names. Strings and
// raw JSON are taken as the JSON Lines would carry them (invalid UTF-8 as
// U+FFFD, raw JSON compacted), so two traces have the same encoding
// exactly when they have the same JSON Lines, and [AppendCompactJSONL]
// recovers the encoding from the JSON Lines alone.

// AppendCompact appends the trace's compact encoding to b.
func (t *Trace) AppendCompact(b []byte) []byte {
	st := compactState{compactRaw: t.compactRaw}
	for i := range t.Events {
		b = appendCompactEvent(b, &t.Events[i], &st)
	}
	return b
}

// WriteCompact writes the trace's compact encoding, the bytes AppendCompact
// appends, to d, through buf (scratch, given back for the next call): a
// sweep hashes every run's trace, and needs none of them whole.
func (t *Trace) WriteCompact(d *xxh64.Digest, buf []byte) []byte {
	st := compactState{compactRaw: t.compactRaw}
	b := buf[:0]
	for i := range t.Events {
		b = appendCompactEvent(b, &t.Events[i], &st)
		if len(b) >= 2048 { // written while the bytes are in cache
			d.Write(b)
			b = b[:0]
		}
	}
	d.Write(b)
	return b[:0]
}

// AppendCompactRun appends the compact encoding of a {"run":"<name>"} line
// of a trace file that holds several runs: the tag byte 'R' and the name.
func AppendCompactRun(b []byte, name string) []byte {
	return appendCompactString(append(b, 'R'), name)
}

// compactState is what encoding a trace's events learns on the way: the
// last value of some fields found valid UTF-8 (a trace repeats its kinds,
// agents, items, edges and wire bytes from event to event, and a string
// equal to one found valid is valid), and whether the raw JSON fields are
// known compact.
type compactState struct {
	kind, agent, item, edge string
	wire                    string // the last wire bytes (e.Raw)
	// compactRaw is set when the trace's raw JSON fields were written by
	// the mission's own encoder, which writes no white space outside
	// strings (see [Trace]).
	compactRaw bool
}

// appendCompactEvent appends e's compact encoding.
func appendCompactEvent(b []byte, e *Event, st *compactState) []byte {
	b = append(b, 'E')
	b = appendVarint(b, int64(e.Seq))
	b = appendVarint(b, e.At)
	b = appendKnownString(b, string(e.Kind), &st.kind)
	b = appendKnownString(b, string(e.Agent), &st.agent)
	b = appendKnownString(b, e.Item, &st.item)
	b = appendCompactString(b, e.Decision)
	b = appendCompactString(b, e.Choice)
	b = appendVarint(b, int64(e.TokensIn))
	b = appendVarint(b, int64(e.TokensOut))
	b = appendCompactString(b, e.Tool)
	b = st.appendRaw(b, e.Args)
	b = st.appendRaw(b, e.Output)
	b = appendCompactString(b, e.Error)
	b = appendCompactString(b, e.Key)
	b = appendVarint(b, int64(e.Attempt))
	b = appendCompactString(b, e.Effect)
	b = appendKnownString(b, e.Edge, &st.edge)
	b = appendKnownString(b, e.Raw, &st.wire)
	b = st.appendRaw(b, e.Parsed)
	b = appendLen(b, len(e.To))
	for _, a := range e.To {
		b = appendCompactString(b, string(a))
	}
	return appendCompactString(b, e.Reason)
}

// appendVarint is binary.AppendVarint, one byte at once for the small
// numbers most fields hold.
func appendVarint(b []byte, v int64) []byte {
	if uint64(v) < 64 {
		return append(b, byte(v)<<1)
	}
	return binary.AppendVarint(b, v)
}

// appendLen is binary.AppendUvarint of a length, one byte at once for a
// short one.
func appendLen(b []byte, n int) []byte {
	if uint(n) < 0x80 {
		return append(b, byte(n))
	}
	return binary.AppendUvarint(b, uint64(n))
}

// appendKnownString is appendCompactString of s, which needs no check
// when it equals *valid, the field's last value found valid UTF-8 (equal
// strings that share their bytes compare in constant time); s becomes
// *valid when it is valid.
func appendKnownString(b []byte, s string, valid *string) []byte {
	if s == "" {
		return append(b, 0)
	}
	if s != *valid {
		if !utf8.ValidString(s) {
			return appendCompactString(b, s)
		}
		*valid = s
	}
	return append(appendLen(b, len(s)), s...)
}

// appendCompactString appends s's length and bytes, invalid UTF-8 replaced
// by U+FFFD byte by byte as encoding/json writes it.
func appendCompactString(b []byte, s string) []byte {
	if s == "" {
		return append(b, 0)
	}
	if utf8.ValidString(s) {
		b = appendLen(b, len(s))
		return append(b, s...)
	}
	v := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			v = append(v, "\uFFFD"...)
		} else {
			v = append(v, s[i:i+n]...)
		}
		i += n
	}
	b = appendLen(b, len(v))
	return append(b, v...)
}

// appendRaw is appendCompactRaw, with no check of raw JSON known compact.
func (st *compactState) appendRaw(b []byte, raw []byte) []byte {
	if st.compactRaw {
		return append(appendLen(b, len(raw)), raw...)
	}
	return appendCompactRaw(b, raw)
}

// appendCompactRaw appends raw's length and bytes, compacted first when it
// is not compact already (the mission always writes it compact): what
// json.Compact makes of it, or raw itself when it is not JSON.
func appendCompactRaw(b []byte, raw []byte) []byte {
	if len(raw) > 0 && !noSpaceOutsideStrings(raw) {
		var c bytes.Buffer
		if json.Compact(&c, raw) == nil {
			raw = c.Bytes()
		}
	}
	return append(appendLen(b, len(raw)), raw...)
}

// noSpaceOutsideStrings reports whether raw has no JSON white space
// outside its strings: then json.Compact has nothing to elide, and gives
// raw back or fails (raw is not JSON). Cheaper than validating raw: the
// strings, most of a message's bytes, are skipped from quote to quote.
func noSpaceOutsideStrings(raw []byte) bool {
	if bytes.IndexByte(raw, ' ') < 0 {
		// No space at all, and an encoder escapes the other white space
		// in strings: a few vector scans, not one per string.
		return bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\t') < 0 && bytes.IndexByte(raw, '\r') < 0 ||
			quotedSpaceOnly(raw)
	}
	return quotedSpaceOnly(raw)
}

// quotedSpaceOnly is noSpaceOutsideStrings, string by string.
func quotedSpaceOnly(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			return false
		case '"':
			for { // to the closing quote: one after an even run of backslashes
				j := bytes.IndexByte(raw[i+1:], '"')
				if j < 0 {
					return true // an open string: not JSON
				}
				i += 1 + j
				k := i - 1
				for raw[k] == '\\' { // the opening quote stops it
					k--
				}
				if (i-1-k)%2 == 0 {
					break
				}
			}
		}
	}
	return true
}

// AppendCompactJSONL appends to b the compact encoding of a trace file's
// JSON Lines, as written by [Trace.AppendJSONL], with {"run":"<name>"}
// lines introducing each run when the file holds several: what the runs'
// traces encode to with [AppendCompactRun] and [Trace.AppendCompact], in
// the file's order.
func AppendCompactJSONL(b []byte, jsonl []byte) ([]byte, error) {
	n := 0
	var st compactState // the lines decoded: their raw JSON is checked
	for line := range bytes.Lines(jsonl) {
		n++
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			continue
		}
		if bytes.HasPrefix(line, []byte(`{"run":`)) {
			var r struct {
				Run string `json:"run"`
			}
			if err := json.Unmarshal(line, &r); err != nil {
				return b, fmt.Errorf("trace line %d: %w", n, err)
			}
			b = AppendCompactRun(b, r.Run)
			continue
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			return b, fmt.Errorf("trace line %d: %w", n, err)
		}
		b = appendCompactEvent(b, &e, &st)
	}
	return b, nil
}
