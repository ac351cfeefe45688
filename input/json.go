package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSON checks JSON text strictly, where encoding/json is lenient: it
// refuses a key given twice, invalid UTF-8 (which encoding/json silently
// replaces), a number beyond float64 (JSON's Infinity), and, when told the
// keys, an unknown top-level key. Each problem is an [*Error] naming file,
// line, column and the value's path ("payload.lines[1].qty").
type JSON struct {
	file   string
	data   []byte
	starts []int // offset of each line's first byte
	errs   Collector
}

// NewJSON returns a checker of data, the whole of the file called file:
// offsets given to its methods are into data.
func NewJSON(file string, data []byte) *JSON {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &JSON{file: file, data: data, starts: starts}
}

// Pos returns the line and column (in characters) of offset off.
func (j *JSON) Pos(off int) Pos {
	off = min(max(off, 0), len(j.data))
	i := sort.Search(len(j.starts), func(i int) bool { return j.starts[i] > off }) - 1
	return Pos{Line: i + 1, Column: utf8.RuneCount(j.data[j.starts[i]:off]) + 1}
}

// Err returns the problems found, as a [*List], or nil.
func (j *JSON) Err() error { return j.errs.Err() }

// Full reports whether the checker has stopped keeping problems.
func (j *JSON) Full() bool { return j.errs.Full() }

// Syntax records err, from encoding/json reading the text that starts at
// offset start, at the place it names.
func (j *JSON) Syntax(err error, start int) {
	w := &jsonWalk{j: j, base: start, src: j.data[start:]}
	w.syntax(err, -1, "")
}

// Errorf records a problem at offset off.
func (j *JSON) Errorf(off int, field, format string, args ...any) *Error {
	e := &Error{File: j.file, Pos: j.Pos(off), Field: field, Problem: fmt.Sprintf(format, args...)}
	j.errs.Add(e)
	return e
}

// Object checks that data[start:end] holds one JSON object and nothing
// else; path names it in errors ("" for a whole file or line, "[2]" for
// an array's element), keys, when not nil, are the top-level keys it may
// have. It reports whether the object is sound.
func (j *JSON) Object(start, end int, path string, keys []string) bool {
	w := &jsonWalk{j: j, base: start, src: j.data[start:end]}
	if i := InvalidUTF8(w.src); i >= 0 {
		j.Errorf(start+i, path, "invalid UTF-8 (byte 0x%02x): not a text file", w.src[i])
		return false
	}
	w.dec = json.NewDecoder(bytes.NewReader(w.src))
	w.dec.UseNumber()
	tok, off, ok := w.token(path)
	if !ok {
		return false
	}
	if d, isDelim := tok.(json.Delim); !isDelim || d != '{' {
		j.Errorf(off, path, "want a JSON object, got %s", tokenKind(tok))
		return false
	}
	if !w.object(path, keys) {
		return false
	}
	if tok, off, err := w.next(); err != io.EOF {
		if err == nil {
			j.Errorf(off, path, "%s after the object: want one object", tokenKind(tok))
		} else {
			w.syntax(err, off, path)
		}
		return false
	}
	return true
}

// jsonWalk walks one JSON value's tokens.
type jsonWalk struct {
	j    *JSON
	base int // offset of src in the file
	src  []byte
	dec  *json.Decoder
}

// next reads a token and the file offset it starts at.
func (w *jsonWalk) next() (json.Token, int, error) {
	off := int(w.dec.InputOffset())
	for off < len(w.src) && strings.IndexByte(" \t\r\n,:", w.src[off]) >= 0 {
		off++
	}
	tok, err := w.dec.Token()
	return tok, w.base + off, err
}

// token reads a token, reporting a syntax error at path.
func (w *jsonWalk) token(path string) (json.Token, int, bool) {
	tok, off, err := w.next()
	if err != nil {
		w.syntax(err, off, path)
		return nil, off, false
	}
	return tok, off, true
}

func (w *jsonWalk) syntax(err error, off int, path string) {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		w.j.Errorf(w.base+len(w.src), "", "invalid JSON: unexpected end of input")
	case errors.As(err, &se) && off < 0:
		w.j.Errorf(w.base+max(int(se.Offset)-1, 0), "", "invalid JSON: %s", strings.TrimPrefix(se.Error(), "json: "))
	default: // at the token that broke it
		w.j.Errorf(max(off, w.base), "", "invalid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
}

// value checks the value that starts with tok.
func (w *jsonWalk) value(tok json.Token, off int, path string) bool {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return w.object(path, nil)
		}
		return w.array(path)
	case json.Number:
		if f, err := strconv.ParseFloat(string(t), 64); err != nil || math.IsInf(f, 0) {
			w.j.Errorf(off, fieldName(path), "want a finite number, got %s", Clip(string(t)))
			return false
		}
	}
	return true
}

func (w *jsonWalk) object(path string, keys []string) bool {
	seen := map[string]int{}
	for {
		tok, off, ok := w.token(fieldName(path))
		if !ok {
			return false
		}
		if d, isDelim := tok.(json.Delim); isDelim && d == '}' {
			return true
		}
		key, _ := tok.(string)
		p := Join(path, key)
		if first, dup := seen[key]; dup {
			w.j.Errorf(off, p, "duplicate key (first at line %d)", w.j.Pos(first).Line)
			return false
		}
		seen[key] = off
		if keys != nil && !slices.Contains(keys, key) {
			e := w.j.Errorf(off, p, "unknown key")
			e.Choices = keys
			if w.j.errs.Keeps(e) {
				e.Suggest = Suggest(key, keys)
			}
			return false
		}
		tok, voff, ok := w.token(p)
		if !ok || !w.value(tok, voff, p) {
			return false
		}
	}
}

func (w *jsonWalk) array(path string) bool {
	for i := 0; ; i++ {
		tok, off, ok := w.token(fieldName(path))
		if !ok {
			return false
		}
		if d, isDelim := tok.(json.Delim); isDelim && d == ']' {
			return true
		}
		if !w.value(tok, off, Index(path, i)) {
			return false
		}
	}
}

// InvalidUTF8 returns the offset of the first byte of b that is not
// UTF-8, or -1.
func InvalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return "a list"
		}
		return fmt.Sprintf("%q", string(t))
	case string:
		return "string " + Quote(t)
	case json.Number:
		return "number " + Clip(string(t))
	case bool:
		return fmt.Sprintf("boolean %v", t)
	case nil:
		return "null"
	}
	return "?"
}
