package coordination

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/baton-lab/baton/internal/jsontext"
)

// jsonObject decodes a JSON object, nil when raw is not one.
func jsonObject(raw []byte) map[string]any {
	if len(raw) == 0 {
		return nil
	}
	m, err := jsontext.DecodeObject(raw, nil)
	if err != nil {
		return nil
	}
	return m
}

// fieldCache keeps the field names of one derivation's hand-offs, so that
// each is allocated once: top-level keys, and payload fields with their
// "payload." prefix.
type fieldCache struct{ top, payload map[string]string }

func newFieldCache() fieldCache {
	return fieldCache{top: map[string]string{}, payload: map[string]string{}}
}

// fieldNames lists a hand-off's fields, sorted: the envelope's top-level
// names and "payload.<name>" for each field of an object payload.
func fieldNames(msg map[string]any, names fieldCache) []string {
	out := []string{}
	for k, v := range msg {
		p, isObject := v.(map[string]any)
		if k != "payload" || !isObject {
			out = append(out, k)
			continue
		}
		for f := range p {
			n, ok := names.payload[f]
			if !ok {
				n = "payload." + f
				names.payload[f] = n
			}
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// mentions reports whether a tool call's JSON arguments hold the string
// value s: s as a JSON string, quotes included (record ids need no
// escaping).
func mentions(args []byte, s string) bool {
	for i := 0; i+len(s)+2 <= len(args); i++ {
		j := bytes.IndexByte(args[i:], '"')
		if j < 0 {
			return false
		}
		i += j
		if end := i + 1 + len(s); end < len(args) && args[end] == '"' && string(args[i+1:end]) == s {
			return true
		}
	}
	return false
}

// merge is a collecting agent's turn over its inputs: two inputs about
// one item that read a scalar payload field as different non-empty values
// conflict, and the turn's result, whose scalar values are leaves, says
// how it resolved each.
func merge(mid, agent string, ins []received, leaves []any) Merge {
	m := Merge{ID: mid, Agent: agent, Inputs: []string{}, Conflicts: []Conflict{}}
	for _, in := range ins {
		m.Inputs = append(m.Inputs, in.id)
	}
	for i := range ins {
		for j := i + 1; j < len(ins); j++ {
			a, b := ins[i], ins[j]
			if a.item != b.item {
				continue
			}
			for _, f := range a.names {
				va, vb := a.payload[f], b.payload[f]
				if !scalar(va) || !scalar(vb) || va == "" || vb == "" || jsontext.Equal(va, vb) {
					continue
				}
				m.Conflicts = append(m.Conflicts, Conflict{Field: a.item + ":" + f, Inputs: []string{a.id, b.id},
					Resolution: resolution(contains(leaves, va), contains(leaves, vb))})
			}
		}
	}
	return m
}

// resolution says what a merge did with two values from whether its
// result holds each.
func resolution(hasA, hasB bool) Resolution {
	switch {
	case hasA && hasB:
		return ResolutionConcatenated
	case hasA || hasB:
		return ResolutionResolved
	}
	return ResolutionUnresolved
}

func scalar(v any) bool {
	switch v.(type) {
	case string, float64, bool:
		return true
	}
	return false
}

// leavesOf returns the scalar values of a turn's result, at any depth;
// none unless it is a JSON object.
func leavesOf(output []byte) []any {
	if o := jsonObject(output); o != nil {
		return slices.Clip(scalars(o, nil))
	}
	return nil
}

// scalars appends the scalar values in v, at any depth.
func scalars(v any, out []any) []any {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			out = scalars(e, out)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out = scalars(x[k], out)
		}
	default:
		if scalar(v) {
			out = append(out, v)
		}
	}
	return out
}

func contains(vs []any, v any) bool {
	return slices.ContainsFunc(vs, func(x any) bool { return jsontext.Equal(x, v) })
}

// keysOf lists a hand-off's fields as [fieldNames] does, reading only the
// keys of the wire bytes (the top level and the payload object) and
// skipping their values; ok is false when raw is not valid compact JSON
// (what every emitter and parser writes; decoding reads the rest) or not
// an object it can read that way (a key with escapes).
func keysOf(raw []byte, names fieldCache) (out []string, ok bool) {
	if !jsontext.ValidCompact(raw) {
		return nil, false
	}
	s := &scan{b: raw}
	out = make([]string, 0, 16)
	payload := false
	ok = s.object(func(k []byte) bool {
		// A repeated key: the last one wins, as decoding tells.
		if string(k) == "payload" && s.peek() == '{' {
			if payload || slices.Contains(out, "payload") {
				return false
			}
			payload = true
			return s.object(func(f []byte) bool {
				n, seen := names.payload[string(f)]
				if !seen {
					n = "payload." + string(f)
					names.payload[string(f)] = n
				}
				if slices.Contains(out, n) {
					return false
				}
				out = append(out, n)
				return s.skip()
			})
		}
		n, seen := names.top[string(k)]
		if !seen {
			n = string(k)
			names.top[n] = n
		}
		if slices.Contains(out, n) || n == "payload" && payload {
			return false
		}
		out = append(out, n)
		return s.skip()
	})
	if !ok {
		return nil, false
	}
	slices.Sort(out)
	return out, true
}

// scan reads JSON keys without decoding values.
type scan struct {
	b []byte
	i int
}

func (s *scan) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *scan) peek() byte {
	s.space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// object reads an object, calling key for each key with the value next.
func (s *scan) object(key func([]byte) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		if s.peek() != '"' {
			return false
		}
		start := s.i + 1
		end := bytes.IndexByte(s.b[start:], '"')
		if end < 0 || bytes.IndexByte(s.b[start:start+end], '\\') >= 0 || !utf8.Valid(s.b[start:start+end]) {
			return false
		}
		s.i = start + end + 1
		if s.peek() != ':' {
			return false
		}
		s.i++
		if !key(s.b[start : start+end]) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// skip passes over one value.
func (s *scan) skip() bool {
	switch s.peek() {
	case 0:
		return false
	case '"':
		return s.str()
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				if !s.str() {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.i++
			if depth == 0 {
				return true
			}
		}
		return false
	}
	for s.i < len(s.b) && strings.IndexByte(",}] \t\n\r", s.b[s.i]) < 0 {
		s.i++
	}
	return true
}

// str passes over a string.
func (s *scan) str() bool {
	for s.i++; s.i < len(s.b); s.i++ {
		switch s.b[s.i] {
		case '\\':
			s.i++
		case '"':
			s.i++
			return true
		}
	}
	return false
}
