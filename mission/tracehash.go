package mission

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"unicode/utf8"
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
	var wire string // the last wire bytes found valid UTF-8
	for i := range t.Events {
		b = appendCompactEvent(b, &t.Events[i], &wire)
	}
	return b
}

// AppendCompactRun appends the compact encoding of a {"run":"<name>"} line
// of a trace file that holds several runs: the tag byte 'R' and the name.
func AppendCompactRun(b []byte, name string) []byte {
	return appendCompactString(append(b, 'R'), name)
}

// appendCompactEvent appends e's compact encoding. wire is the last wire
// bytes (e.Raw) of the trace found valid UTF-8: a message's sent,
// received and dropped events share them, and are checked once.
func appendCompactEvent(b []byte, e *Event, wire *string) []byte {
	b = append(b, 'E')
	b = binary.AppendVarint(b, int64(e.Seq))
	b = binary.AppendVarint(b, e.At)
	b = appendCompactString(b, string(e.Kind))
	b = appendCompactString(b, string(e.Agent))
	b = appendCompactString(b, e.Item)
	b = appendCompactString(b, e.Decision)
	b = appendCompactString(b, e.Choice)
	b = binary.AppendVarint(b, int64(e.TokensIn))
	b = binary.AppendVarint(b, int64(e.TokensOut))
	b = appendCompactString(b, e.Tool)
	b = appendCompactRaw(b, e.Args)
	b = appendCompactRaw(b, e.Output)
	b = appendCompactString(b, e.Error)
	b = appendCompactString(b, e.Key)
	b = binary.AppendVarint(b, int64(e.Attempt))
	b = appendCompactString(b, e.Effect)
	b = appendCompactString(b, e.Edge)
	if e.Raw != "" && e.Raw == *wire { // equal pointers compare in constant time
		b = append(binary.AppendUvarint(b, uint64(len(e.Raw))), e.Raw...)
	} else {
		b = appendCompactString(b, e.Raw)
		if utf8.ValidString(e.Raw) {
			*wire = e.Raw
		}
	}
	b = appendCompactRaw(b, e.Parsed)
	b = binary.AppendUvarint(b, uint64(len(e.To)))
	for _, a := range e.To {
		b = appendCompactString(b, string(a))
	}
	return appendCompactString(b, e.Reason)
}

// appendCompactString appends s's length and bytes, invalid UTF-8 replaced
// by U+FFFD byte by byte as encoding/json writes it.
func appendCompactString(b []byte, s string) []byte {
	if s == "" {
		return append(b, 0)
	}
	if utf8.ValidString(s) {
		b = binary.AppendUvarint(b, uint64(len(s)))
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
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
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
	b = binary.AppendUvarint(b, uint64(len(raw)))
	return append(b, raw...)
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
	var wire string
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
		b = appendCompactEvent(b, &e, &wire)
	}
	return b, nil
}
