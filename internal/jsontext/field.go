package jsontext

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// StringField returns the top-level string field key of a JSON document
// as encoding/json reads it into a struct{ F string } tagged
// `json:"<key>"`; ok is false when raw is not JSON it can read so. One pass
// over raw validates it as json.Valid does and picks the field out of the
// top-level object, without allocating for a value found in values (which
// may be nil) and with no state kept between calls. key must be ASCII.
//
// Like encoding/json it matches the key case-insensitively, the last
// matching key wins, a null value (or no such key) leaves the field
// empty, and any other non-string value (or a top-level value other than
// an object or null) is an error.
func StringField(raw []byte, key string, values *Keys) (string, bool) {
	s := scan{raw: raw}
	s.space()
	if s.i >= len(raw) {
		return "", false
	}
	val, ok := "", true
	switch raw[s.i] {
	case '{':
		s.i++
		s.space()
		if s.peek() == '}' {
			s.i++
			break
		}
		for {
			ks := s.i
			if !s.str() {
				return "", false
			}
			k := raw[ks:s.i]
			s.space()
			if s.peek() != ':' {
				return "", false
			}
			s.i++
			s.space()
			vs := s.i
			if !s.value(1) {
				return "", false
			}
			if keyIs(k, key) {
				switch raw[vs] {
				case '"':
					var good bool
					if val, good = unquote(raw[vs:s.i], values); !good {
						return "", false
					}
				case 'n':
				default:
					ok = false // a type error: encoding/json reads on, then fails
				}
			}
			s.space()
			switch s.peek() {
			case ',':
				s.i++
				s.space()
				continue
			case '}':
				s.i++
			default:
				return "", false
			}
			break
		}
	case 'n':
		if !s.value(0) {
			return "", false
		}
	default:
		if !s.value(0) {
			return "", false
		}
		ok = false // valid JSON that is not an object
	}
	s.space()
	if s.i != len(raw) || !ok {
		return "", false
	}
	return val, true
}

// keyIs reports whether a quoted key names field key as encoding/json
// matches it (case-insensitively).
func keyIs(quoted []byte, key string) bool {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return len(quoted) == len(key)+2 && bytes.EqualFold(quoted[1:len(quoted)-1], []byte(key))
	}
	k, ok := unquote(quoted, nil)
	return ok && bytes.EqualFold([]byte(k), []byte(key))
}

// unquote decodes a JSON string as encoding/json does; a value in values
// is returned without allocating.
func unquote(quoted []byte, values *Keys) (string, bool) {
	body := quoted[1 : len(quoted)-1]
	plain := true
	for _, c := range body {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		if v, ok := values.lookup(body); ok {
			return v, true
		}
		return string(body), true
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return "", false
	}
	return s, true
}

// scan is a JSON validator over raw, at index i, accepting what
// json.Valid accepts.
type scan struct {
	raw []byte
	i   int
}

func (s *scan) peek() byte {
	if s.i < len(s.raw) {
		return s.raw[s.i]
	}
	return 0
}

func (s *scan) space() {
	for s.i < len(s.raw) {
		switch s.raw[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value reads one value nested depth levels deep.
func (s *scan) value(depth int) bool {
	switch c := s.peek(); {
	case c == '"':
		return s.str()
	case c == '{' || c == '[':
		if depth+1 > maxJSONDepth {
			return false
		}
		return s.composite(depth + 1)
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.num()
	}
	return false
}

// composite reads an object or an array.
func (s *scan) composite(depth int) bool {
	object := s.raw[s.i] == '{'
	end := byte(']')
	if object {
		end = '}'
	}
	s.i++
	s.space()
	if s.peek() == end {
		s.i++
		return true
	}
	for {
		if object {
			if s.peek() != '"' || !s.str() {
				return false
			}
			s.space()
			if s.peek() != ':' {
				return false
			}
			s.i++
			s.space()
		}
		if !s.value(depth) {
			return false
		}
		s.space()
		switch s.peek() {
		case ',':
			s.i++
			s.space()
		case end:
			s.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string: no control characters, valid escapes (invalid UTF-8
// is accepted, as encoding/json does).
func (s *scan) str() bool {
	if s.peek() != '"' {
		return false
	}
	for s.i++; s.i < len(s.raw); s.i++ {
		switch c := s.raw[s.i]; {
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			s.i++
			switch s.peek() {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for range 4 {
					s.i++
					if !isHex(s.peek()) {
						return false
					}
				}
			default:
				return false
			}
		}
	}
	return false
}

func (s *scan) digits() bool {
	start := s.i
	for s.i < len(s.raw) && s.raw[s.i] >= '0' && s.raw[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// num reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scan) num() bool {
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.peek() == '.' {
		s.i++
		if !s.digits() {
			return false
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

func (s *scan) lit(word string) bool {
	if !bytes.HasPrefix(s.raw[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}
