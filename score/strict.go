package score

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Errors of the strict reader of observation files; a [*LineError] wraps
// one of them (or [ErrNotJSON], [ErrBadField], [ErrMissingID],
// [ErrDuplicateID]).
var (
	ErrUnknownKey   = errors.New("unknown key")
	ErrDuplicateKey = errors.New("duplicate key")
	ErrInvalidUTF8  = errors.New("invalid UTF-8")
	ErrBOM          = errors.New("UTF-8 byte order mark")
	ErrNonFinite    = errors.New("non-finite number")
	ErrBadValue     = errors.New("bad value")
	ErrNoRecords    = errors.New("no records")
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// located maps the JSON path of every value read ("tasks[0].events[2].at_ms")
// to the line it starts on, so that checks made after decoding can still
// name a line.
type located map[string]int

// line returns the line of path, or of its nearest enclosing value that was
// read (a missing key is reported on its object's line); 1 if none.
func (l located) line(path string) int {
	for {
		if n, ok := l[path]; ok {
			return n
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			if n, ok := l[""]; ok {
				return n
			}
			return 1
		}
		path = path[:i]
	}
}

// decodeStrict decodes the one JSON value in data into v, a pointer to a
// struct, refusing what encoding/json lets through: a byte order mark,
// invalid UTF-8 in a string, a key the struct does not have (matched
// exactly, not ignoring case), a key given twice, a number that does not
// fit its field (an integer with a fraction, a float beyond float64). The
// error's Line counts from 1 at the start of data and its Field is the JSON
// path of the offending value; File is left to the caller. With track it
// also returns the line of every value read.
func decodeStrict(data []byte, v any, track bool) (located, *LineError) {
	if bytes.HasPrefix(data, utf8BOM) {
		return nil, &LineError{Line: 1, Msg: "starts with a UTF-8 byte order mark: save the file without it", Err: ErrBOM}
	}
	w := &walker{data: data, dec: json.NewDecoder(bytes.NewReader(data)), fields: map[reflect.Type]map[string]reflect.StructField{}}
	w.dec.UseNumber()
	if track {
		w.lines = located{}
	}
	t := reflect.TypeOf(v).Elem()
	tok, start, err := w.token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, w.errAt(start, "not JSON: want an object, got "+tokenKind(tok), ErrNotJSON)
	}
	if err := w.value(t, tok, start); err != nil {
		return nil, err
	}
	rest := bytes.TrimLeft(data[w.dec.InputOffset():], " \t\r\n")
	switch tok, start, err := w.token(); {
	case err == nil:
		return nil, w.errAt(start, "not JSON: "+tokenKind(tok)+" after the top-level object", ErrNotJSON)
	case errors.Is(err, ErrNotJSON) && len(rest) > 0:
		return nil, w.errAt(len(data)-len(rest), "not JSON: "+strconv.QuoteRune(firstRune(rest))+" after the top-level object", ErrNotJSON)
	case err.Err != ErrNoRecords:
		return nil, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return nil, &LineError{Line: 1, Msg: strings.TrimPrefix(err.Error(), "json: "), Err: ErrBadField}
	}
	return w.lines, nil
}

// walker checks a JSON token stream against a Go type.
type walker struct {
	data   []byte
	dec    *json.Decoder
	path   []string // ".name" and "[i]" segments
	lines  located  // nil unless tracking
	fields map[reflect.Type]map[string]reflect.StructField
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// token reads the next token and the offset it starts at. At the end of
// the input it returns an error wrapping ErrNoRecords.
func (w *walker) token() (json.Token, int, *LineError) {
	start := int(w.dec.InputOffset())
	for start < len(w.data) && strings.IndexByte(" \t\r\n,:", w.data[start]) >= 0 {
		start++
	}
	tok, err := w.dec.Token()
	if err == io.EOF {
		return nil, start, &LineError{Err: ErrNoRecords}
	}
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			start = int(se.Offset)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, len(w.data), w.errAt(len(w.data), "not JSON: unexpected end of JSON input", ErrNotJSON)
		}
		return nil, start, w.errAt(start, "not JSON: "+strings.TrimPrefix(err.Error(), "json: "), ErrNotJSON)
	}
	if _, ok := tok.(string); ok && !utf8.Valid(w.data[start:w.dec.InputOffset()]) {
		return nil, start, w.errAt(start, "invalid UTF-8 in a string", ErrInvalidUTF8)
	}
	return tok, start, nil
}

// value checks the value starting with tok against t.
func (w *walker) value(t reflect.Type, tok json.Token, start int) *LineError {
	if w.lines != nil {
		w.lines[w.pathString()] = w.lineAt(start)
	}
	if tok == nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			return nil
		}
		return w.errAt(start, "want "+goKind(t)+", got null", ErrBadField)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType || t.Kind() == reflect.Interface {
		return w.anyValue(tok, start)
	}
	switch tok := tok.(type) {
	case json.Delim:
		switch {
		case tok == '{' && t.Kind() == reflect.Struct:
			return w.object(start, func(key string, start int) (reflect.Type, *LineError) {
				f, ok := w.structFields(t)[key]
				if !ok {
					return nil, w.errAt(start, fmt.Sprintf("unknown key %q (want one of: %s)", key, strings.Join(w.keys(t), ", ")), ErrUnknownKey)
				}
				return f.Type, nil
			})
		case tok == '{' && t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
			return w.object(start, func(string, int) (reflect.Type, *LineError) { return t.Elem(), nil })
		case tok == '[' && t.Kind() == reflect.Slice:
			return w.array(t.Elem())
		}
	case string:
		if t.Kind() == reflect.String {
			return nil
		}
	case bool:
		if t.Kind() == reflect.Bool {
			return nil
		}
	case json.Number:
		return w.number(t, tok, start)
	}
	return w.errAt(start, "want "+goKind(t)+", got "+tokenKind(tok), ErrBadField)
}

// number checks that n fits a field of type t.
func (w *walker) number(t reflect.Type, n json.Number, start int) *LineError {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if _, err := strconv.ParseInt(string(n), 10, t.Bits()); err != nil {
			return w.errAt(start, fmt.Sprintf("want an integer of %d bits, got %s", t.Bits(), n), ErrBadField)
		}
		return nil
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(string(n), t.Bits())
		if err != nil || math.IsInf(f, 0) {
			return w.errAt(start, fmt.Sprintf("%s is beyond the range of a %d-bit float", n, t.Bits()), ErrNonFinite)
		}
		return nil
	}
	return w.errAt(start, "want "+goKind(t)+", got number", ErrBadField)
}

// object reads the members of an object whose '{' has been read; typeOf
// gives the type of each key's value or refuses the key.
func (w *walker) object(_ int, typeOf func(key string, start int) (reflect.Type, *LineError)) *LineError {
	seen := map[string]bool{}
	for {
		tok, start, err := w.token()
		if err != nil {
			return w.eof(err)
		}
		if d, ok := tok.(json.Delim); ok && d == '}' {
			return nil
		}
		key := tok.(string) // the decoder allows only strings here
		w.path = append(w.path, "."+key)
		if seen[key] {
			return w.errAt(start, "key given twice", ErrDuplicateKey)
		}
		seen[key] = true
		t, err := typeOf(key, start)
		if err != nil {
			return err
		}
		vtok, vstart, err := w.token()
		if err != nil {
			return w.eof(err)
		}
		if err := w.value(t, vtok, vstart); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
	}
}

// array reads the elements of an array whose '[' has been read.
func (w *walker) array(elem reflect.Type) *LineError {
	for i := 0; ; i++ {
		tok, start, err := w.token()
		if err != nil {
			return w.eof(err)
		}
		if d, ok := tok.(json.Delim); ok && d == ']' {
			return nil
		}
		w.path = append(w.path, "["+strconv.Itoa(i)+"]")
		if err := w.value(elem, tok, start); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
	}
}

// anyValue checks a value of any shape: keys unique, strings valid UTF-8,
// numbers finite.
func (w *walker) anyValue(tok json.Token, start int) *LineError {
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '[' {
			return w.array(reflect.TypeFor[any]())
		}
		return w.object(start, func(string, int) (reflect.Type, *LineError) { return reflect.TypeFor[any](), nil })
	case json.Number:
		return w.number(reflect.TypeFor[float64](), tok, start)
	}
	return nil
}

// eof turns the end of input inside a value into a syntax error.
func (w *walker) eof(err *LineError) *LineError {
	if err.Err == ErrNoRecords {
		return w.errAt(len(w.data), "not JSON: unexpected end of JSON input", ErrNotJSON)
	}
	return err
}

// structFields maps t's JSON keys to its fields.
func (w *walker) structFields(t reflect.Type) map[string]reflect.StructField {
	if m, ok := w.fields[t]; ok {
		return m
	}
	m := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f
	}
	w.fields[t] = m
	return m
}

// keys lists t's JSON keys in order.
func (w *walker) keys(t reflect.Type) []string {
	var ks []string
	for k := range w.structFields(t) {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func (w *walker) pathString() string {
	return strings.TrimPrefix(strings.Join(w.path, ""), ".")
}

func (w *walker) lineAt(offset int) int {
	return 1 + bytes.Count(w.data[:min(offset, len(w.data))], []byte{'\n'})
}

func (w *walker) errAt(offset int, msg string, kind error) *LineError {
	return &LineError{Line: w.lineAt(offset), Field: w.pathString(), Msg: msg, Err: kind}
}

// tokenKind names the JSON kind of tok.
func tokenKind(tok json.Token) string {
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '[' {
			return "array"
		}
		return "object"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	}
	return "null"
}

// goKind names the JSON kind a Go type decodes from.
func goKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	}
	return jsonType(t.Kind().String())
}

// firstRune returns the first character of b.
func firstRune(b []byte) rune {
	r, _ := utf8.DecodeRune(b)
	return r
}
