package input

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Options set up a [Decoder]. The zero value is a generic file within the
// default limits.
type Options struct {
	// Kind names what the file holds ("protocol", "catalogue"), for
	// messages such as "empty protocol".
	Kind string
	// Limits bound the file; a zero field takes its default.
	Limits Limits
	// MaxErrors is the most problems reported; 0 means DefaultMaxErrors.
	MaxErrors int
}

// Decoder reads one YAML file strictly into typed Go values and collects
// its problems, each an [*Error] naming file, line, column and field. It
// remembers where every value it decoded was written, so that checks made
// after decoding (a value out of range, an id defined twice) still name
// the line: see [Decoder.Errorf].
//
// Decoding follows the Go types: a struct is a mapping whose keys are its
// fields' yaml tag names (else json tag names, else the lower-cased field
// names); an unknown key, a key given twice or a value of the wrong kind
// is a problem naming what was wanted. Strings take any scalar but null
// and booleans (a version written 1.2 is "1.2"); integers must be whole and
// fit; floats must be finite (.nan and .inf are refused); an interface
// takes a JSON-like value (numbers as float64). A field missing from the
// file keeps the value it had, so decoding over a filled-in struct
// overlays it; a map, slice or pointer present in the file replaces the
// old value whole. Aliases and merge keys (<<) are followed, within a
// budget of values so that a few lines cannot expand into millions. A
// [yaml.Node] field takes its node undecoded; an [Ordered] map keeps the
// file's order; an encoding.TextUnmarshaler takes the scalar's text.
type Decoder struct {
	file   string
	opt    Options
	lim    Limits
	errs   Collector
	at     map[string]place
	values int
	over   bool // the value budget is spent: decode nothing more
	note   string
	failed map[string]bool // fields with a problem: one problem per value
	quiet  int             // problems not reported for a field that has one
}

// place is where a value was written: its key (nil for a list element or
// the top level) and the value's node.
type place struct{ key, val *yaml.Node }

// NewDecoder returns a decoder of the file called file (its name in
// errors).
func NewDecoder(file string, opt Options) *Decoder {
	return &Decoder{file: file, opt: opt, lim: opt.Limits.withDefaults(), errs: Collector{Max: opt.MaxErrors}, at: map[string]place{}, failed: map[string]bool{}}
}

// File returns the name of the file.
func (d *Decoder) File() string { return d.file }

// Decode parses data and decodes it into v, a pointer. Problems are
// collected: see [Decoder.Err].
func (d *Decoder) Decode(data []byte, v any) {
	if root := d.Parse(data); root != nil {
		d.DecodeNode(root, "", v)
	}
}

// Parse reads data as one YAML document and returns its top node, or nil
// (with the problem recorded) when data is too large, is not text, is not
// YAML, is empty or holds more than one document.
func (d *Decoder) Parse(data []byte) (root *yaml.Node) {
	if len(data) > d.lim.Bytes {
		d.add(&Error{File: d.file, Problem: fmt.Sprintf("%d bytes: larger than the %s %s may be", len(data), Size(d.lim.Bytes), d.article())})
		return nil
	}
	if p, problem := scanText(data); problem != "" {
		d.add(&Error{File: d.file, Pos: p, Problem: problem})
		return nil
	}
	defer func() {
		if r := recover(); r != nil { // the YAML parser must not take the process down
			d.add(&Error{File: d.file, Pos: Pos{Line: 1}, Problem: fmt.Sprintf("invalid YAML: %v", r)})
			root = nil
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			d.add(&Error{File: d.file, Pos: Pos{Line: 1}, Problem: "empty " + d.kind()})
		} else {
			d.add(d.syntax(err))
		}
		return nil
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		d.add(&Error{File: d.file, Pos: Pos{Line: max(extra.Line, 1)}, Problem: "more than one YAML document (want one per file)"})
		return nil
	case !errors.Is(err, io.EOF):
		d.add(d.syntax(err))
		return nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		d.add(&Error{File: d.file, Pos: Pos{Line: 1}, Problem: "empty " + d.kind()})
		return nil
	}
	return doc.Content[0]
}

func (d *Decoder) kind() string { return cmp.Or(d.opt.Kind, "file") }

func (d *Decoder) article() string {
	k := d.kind()
	if strings.ContainsRune("aeiou", rune(k[0])) {
		return "an " + k
	}
	return "a " + k
}

var yamlLine = regexp.MustCompile(`^line (\d+): `)

// syntax turns a YAML parser error into a located problem.
func (d *Decoder) syntax(err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &Error{File: d.file, Pos: Pos{Line: 1}}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	e.Problem = "invalid YAML: " + msg
	return e
}

// DecodeNode decodes node n, found at path ("" for the top level), into
// v, a pointer. A mission's parser uses it to decode the parts of a file
// it walks itself (a scenario of a list, a family member), naming them as
// it likes ("S03" instead of "scenarios[2]").
func (d *Decoder) DecodeNode(n *yaml.Node, path string, v any) {
	rv := reflectPointer(v)
	if pl, ok := d.at[path]; !ok || pl.val != n {
		d.at[path] = place{key: pl.key, val: n}
	}
	if path == "" && isNull(deref(n)) {
		d.errorAt(n, "(top level)", "want a mapping, got null")
		return
	}
	d.decode(n, path, rv)
}

// SetNote sets the note added to every problem recorded from now on
// ("family fam member F2 at s.yaml:19"); "" clears it.
func (d *Decoder) SetNote(note string) { d.note = note }

// Err returns the problems recorded, as a [*List], or nil.
func (d *Decoder) Err() error { return d.errs.Err() }

// Failed reports whether any problem was recorded.
func (d *Decoder) Failed() bool { return d.Count() > 0 }

// Count returns how many problems were recorded so far: a parser compares
// it before and after a part to tell whether that part failed.
func (d *Decoder) Count() int { return d.errs.Len() + d.quiet }

// Full reports whether the decoder has stopped keeping problems (it still
// counts them).
func (d *Decoder) Full() bool { return d.errs.Full() }

// Add records problems found otherwise (another file's, a loader's): an
// [*Error] or [*List] as it is, any other error as a problem of this file.
func (d *Decoder) Add(err error) {
	var e *Error
	var l *List
	if err != nil && !errors.As(err, &e) && !errors.As(err, &l) {
		err = &Error{File: d.file, Err: err}
	}
	d.errs.Add(err)
}

func (d *Decoder) add(e *Error) {
	if e.Field != "" {
		if d.failed[e.Field] {
			d.quiet++
			return // one problem per value: the first says it
		}
		d.failed[e.Field] = true
	}
	if d.note != "" && e.Note == "" {
		e.Note = d.note
	}
	d.errs.Add(e)
}

// Errorf records a problem at the value written at path, or at the
// closest enclosing value written when the file does not have path (a
// missing key is reported at its mapping). It returns the problem, for
// setting its choices.
func (d *Decoder) Errorf(path, format string, args ...any) *Error {
	e := &Error{File: d.file, Pos: d.Pos(path), Field: fieldName(path), Problem: fmt.Sprintf(format, args...)}
	d.add(e)
	return e
}

// Unknown records that the value at path is not one of choices: what
// names the kind of value ("design", "agent"), got is the value written.
// A map key is reported at the key.
func (d *Decoder) Unknown(path, what, got string, choices []string) *Error {
	e := &Error{File: d.file, Pos: d.Pos(path), Field: fieldName(path), Problem: fmt.Sprintf("unknown %s %s", what, Quote(got))}
	if k := d.at[path].key; k != nil && k.Value == got {
		e.Pos = Pos{Line: k.Line, Column: k.Column}
	}
	e.Choices = choices
	d.add(e)
	if d.errs.Keeps(e) {
		e.Suggest = Suggest(got, choices)
	}
	return e
}

// Has reports whether the file wrote a value at path.
func (d *Decoder) Has(path string) bool {
	_, ok := d.at[path]
	return ok
}

// Node returns the node of the value at path, or nil.
func (d *Decoder) Node(path string) *yaml.Node { return d.at[path].val }

// Pos returns where the value at path was written, or the closest
// enclosing value's place when the file does not have path: the value's
// own position when it starts on its key's line, else its key's.
func (d *Decoder) Pos(path string) Pos {
	for p := path; ; p = Parent(p) {
		if pl, ok := d.at[p]; ok {
			return pl.pos()
		}
		if p == "" {
			return Pos{}
		}
	}
}

// Positions returns where every value decoded was written, by path: for
// reporting problems found after the decoder is gone.
func (d *Decoder) Positions() map[string]Pos {
	out := make(map[string]Pos, len(d.at))
	for p, pl := range d.at {
		out[p] = pl.pos()
	}
	return out
}

func (pl place) pos() Pos {
	v := pl.val
	if pl.key != nil && (v == nil || v.Line != pl.key.Line) {
		return Pos{Line: pl.key.Line, Column: pl.key.Column}
	}
	if v == nil {
		return Pos{}
	}
	return Pos{Line: v.Line, Column: v.Column}
}

// errorAt records a problem at node n.
func (d *Decoder) errorAt(n *yaml.Node, path, format string, args ...any) *Error {
	e := &Error{File: d.file, Field: fieldName(path), Problem: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Pos = Pos{Line: n.Line, Column: n.Column}
	}
	d.add(e)
	return e
}

// fieldName is how a path is shown: "(top level)" for "".
func fieldName(path string) string {
	if path == "" {
		return "(top level)"
	}
	return path
}

// Join returns the path of key inside path: "a.b", or `a["x y"]` for a
// key that would not read back as one segment.
func Join(path, key string) string {
	if !simpleKey(key) {
		return path + "[" + Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// Index returns the path of element i of the list at path: "a[2]".
func Index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// Parent returns the path enclosing path: "a.b[2]" -> "a.b", "a.b" -> "a",
// "a" -> "".
func Parent(path string) string {
	if strings.HasSuffix(path, "]") {
		if i := strings.LastIndexByte(path, '['); i >= 0 {
			if q := strings.LastIndex(path, `["`); q >= 0 && q < i { // a quoted key holding '['
				i = q
			}
			return path[:i]
		}
	}
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return ""
}

func simpleKey(k string) bool {
	if k == "" || len(k) > maxQuote {
		return false
	}
	for _, r := range k {
		if r <= ' ' || r == '.' || r == '[' || r == ']' || r == '"' || r == 0x7f || r == 0xfffd {
			return false
		}
	}
	return true
}
