package contracts

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/baton-lab/baton/input"
)

// Bounds on a file of messages to check, far above one item's hand-offs.
const (
	// MaxMessagesBytes bounds a file of messages.
	MaxMessagesBytes = 16 << 20
	// MaxMessages bounds the messages of one file.
	MaxMessages = 10_000
)

// Input is one message read from a file, with the line it starts on.
type Input struct {
	Raw  []byte
	Line int
}

// EnvelopeKeys are the keys a hand-off message may have.
func EnvelopeKeys() []string {
	keys := make([]string, len(envelopeVars))
	for i, v := range envelopeVars {
		keys[i] = v.name
	}
	return keys
}

// ReadMessages reads the messages of a file to check: one JSON object
// (over as many lines as it likes), a JSON array of objects, or JSON
// Lines, one object per line. It reads strictly: a key given twice,
// invalid UTF-8, a number beyond float64, a key that is not an envelope
// key, or anything that is not a JSON object is an [*input.Error] naming
// file, line, column and field.
func ReadMessages(file string, data []byte) ([]Input, error) {
	j := input.NewJSON(file, data)
	if len(data) > MaxMessagesBytes {
		return nil, &input.Error{File: file, Problem: fmt.Sprintf("%d bytes: larger than the %s a file of messages may be", len(data), input.Size(MaxMessagesBytes))}
	}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, &input.Error{File: file, Pos: input.Pos{Line: 1, Column: 1}, Problem: "starts with a UTF-8 byte order mark: save the file without it"}
	}
	start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
	if start == len(data) {
		return nil, &input.Error{File: file, Pos: input.Pos{Line: 1}, Problem: "empty file, want a JSON hand-off message"}
	}
	var out []Input
	switch {
	case data[start] == '[':
		out = readArray(j, data, start)
	case jsonLines(data, start):
		out = readLines(j, data)
	default:
		if j.Object(start, len(data), "", EnvelopeKeys()) {
			out = []Input{{Raw: bytes.TrimSpace(data[start:]), Line: j.Pos(start).Line}}
		}
	}
	if err := j.Err(); err != nil {
		return nil, err
	}
	if len(out) > MaxMessages {
		return nil, &input.Error{File: file, Problem: fmt.Sprintf("%d messages: more than the %d one file may have", len(out), MaxMessages)}
	}
	return out, nil
}

// jsonLines tells JSON Lines from one object written over several lines:
// the first line is a whole JSON value and more follows it.
func jsonLines(data []byte, start int) bool {
	first, rest, _ := bytes.Cut(data[start:], []byte("\n"))
	return json.Valid(first) && len(bytes.TrimSpace(rest)) > 0
}

func readLines(j *input.JSON, data []byte) []Input {
	var out []Input
	off := 0
	for n := 1; off < len(data); n++ {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data) - off
		}
		line := data[off : off+end]
		if t := bytes.TrimSpace(line); len(t) > 0 && j.Object(off, off+end, "", EnvelopeKeys()) {
			out = append(out, Input{Raw: t, Line: n})
		}
		off += end + 1
	}
	return out
}

func readArray(j *input.JSON, data []byte, start int) []Input {
	var raw []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data[start:]))
	if err := dec.Decode(&raw); err != nil {
		j.Syntax(err, start)
		return nil
	}
	var out []Input
	off := start + 1
	for i, r := range raw {
		at := off + bytes.Index(data[off:], r[:1])
		if j.Object(at, at+len(r), input.Index("", i), EnvelopeKeys()) {
			out = append(out, Input{Raw: r, Line: j.Pos(at).Line})
		}
		off = at + len(r)
	}
	end := start + int(dec.InputOffset())
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
		j.Errorf(len(data)-len(rest), "", "more after the array: want one array of messages")
	}
	return out
}
