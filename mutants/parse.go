package mutants

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/baton-lab/baton/mission"
)

// Error is one problem in a catalogue file, at an entry's key when it has
// one.
type Error struct {
	File    string
	Line    int
	Mutant  string // the entry's id, or "#n" (1-based) when it has none
	Field   string // the entry's key, or "" for the file's structure
	Problem string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	if e.Mutant != "" {
		fmt.Fprintf(&b, "mutant %s: ", e.Mutant)
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Problem)
	return b.String()
}

// keys are the keys a catalogue entry may have.
var keys = func() []string {
	k := []string{"id", "class", "operator", "edge", "agent", "description", "intent"}
	for _, p := range AllParams {
		k = append(k, string(p))
	}
	return k
}()

// Parse reads a catalogue of spec's mission from YAML data; name is the file
// name errors give. The document is a mapping with one key, mutants,
// holding a list of entries (see the package doc). Unknown keys, invalid
// entries and duplicate ids are errors, all reported, each an *Error naming
// file, line and entry.
func Parse(name string, data []byte, spec *mission.Spec) (*Catalogue, error) {
	p := parser{file: name, spec: spec}
	muts := p.parse(data)
	if len(p.errs) > 0 {
		slices.SortStableFunc(p.errs, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
		errs := make([]error, len(p.errs))
		for i, e := range p.errs {
			errs[i] = e
		}
		return nil, errors.Join(errs...)
	}
	return &Catalogue{Mutants: muts, Sources: []Source{sourceOf(name, data)}}, nil
}

type parser struct {
	file string
	spec *mission.Spec
	errs []*Error
}

func (p *parser) errorf(line int, mutant, field, format string, args ...any) {
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Mutant: mutant, Field: field, Problem: fmt.Sprintf(format, args...)})
}

func (p *parser) parse(data []byte) []*Mutant {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		p.errorf(yamlErrorLine(err), "", "", "%v", err)
		return nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		p.errorf(1, "", "", "empty catalogue: want a mapping with key mutants")
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		p.errorf(root.Line, "", "", "want a mapping with key mutants, got %s", kindName(root))
		return nil
	}
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch {
		case k.Value != "mutants":
			p.errorf(k.Line, "", k.Value, "unknown key (want mutants)")
		case list != nil:
			p.errorf(k.Line, "", k.Value, "repeated key")
		default:
			list = v
		}
	}
	switch {
	case list == nil:
		p.errorf(root.Line, "", "mutants", "missing")
		return nil
	case list.Kind != yaml.SequenceNode:
		p.errorf(list.Line, "", "mutants", "want a list of entries, got %s", kindName(list))
		return nil
	case len(list.Content) == 0:
		p.errorf(list.Line, "", "mutants", "no entries")
		return nil
	}
	var out []*Mutant
	first := map[string]*Mutant{}
	for i, n := range list.Content {
		m, lines, ok := p.entry(i, n)
		if !ok {
			continue
		}
		if prev, dup := first[m.ID]; dup {
			p.errorf(lines["id"], m.ID, "id", "duplicate id (first at %s)", prev.Source)
			continue
		}
		first[m.ID] = m
		out = append(out, m)
	}
	return out
}

// entry decodes and validates one entry; lines maps each key it has to its
// line. ok is false when the entry has errors (already reported).
func (p *parser) entry(i int, n *yaml.Node) (m *Mutant, lines map[string]int, ok bool) {
	label := "#" + strconv.Itoa(i+1)
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, label, "", "want a mapping, got %s", kindName(n))
		return nil, nil, false
	}
	// The id first, so that every error names the entry.
	for j := 0; j+1 < len(n.Content); j += 2 {
		if k, v := n.Content[j], n.Content[j+1]; k.Value == "id" && v.Kind == yaml.ScalarNode && v.Value != "" {
			label = v.Value
			break
		}
	}
	before := len(p.errs)
	m = &Mutant{Source: fmt.Sprintf("%s:%d", p.file, n.Line)}
	lines = map[string]int{}
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], n.Content[j+1]
		key := k.Value
		if !slices.Contains(keys, key) {
			p.errorf(k.Line, label, key, "unknown key (want one of %s)", strings.Join(keys, ", "))
			continue
		}
		if _, seen := lines[key]; seen {
			p.errorf(k.Line, label, key, "repeated key")
			continue
		}
		lines[key] = k.Line
		if key == string(ParamValue) {
			var x any
			if err := v.Decode(&x); err != nil {
				p.errorf(v.Line, label, key, "%v", err)
				continue
			}
			if x == nil {
				p.errorf(v.Line, label, key, "null")
				continue
			}
			jv, err := jsonValue(x)
			if err != nil {
				p.errorf(v.Line, label, key, "%v", err)
				continue
			}
			m.Value = jv
			continue
		}
		if v.Kind != yaml.ScalarNode || (v.Tag != "!!str" && v.Tag != "!!int" && v.Tag != "!!float" && v.Tag != "!!bool") {
			p.errorf(v.Line, label, key, "want a string, got %s", kindName(v))
			continue
		}
		*m.str(key) = strings.TrimSpace(v.Value)
	}
	if l, ok := lines["intent"]; ok && m.Intent != IntentRegression && m.Intent != IntentVersionChange {
		p.errorf(l, label, "intent", "unknown intent %q (want %s or %s)", m.Intent, IntentRegression, IntentVersionChange)
	}
	for _, err := range m.Validate(p.spec) {
		var fe *FieldError
		if !errors.As(err, &fe) {
			p.errorf(n.Line, label, "", "%v", err)
			continue
		}
		line, ok := lines[fe.Field]
		if !ok {
			line = n.Line
		}
		p.errorf(line, label, fe.Field, "%s", fe.Problem)
	}
	if _, ok := lines["id"]; !ok {
		lines["id"] = n.Line
	}
	return m, lines, len(p.errs) == before
}

// str returns the string field a key other than value decodes into.
func (m *Mutant) str(key string) *string {
	switch key {
	case "id":
		return &m.ID
	case "class":
		return (*string)(&m.Class)
	case "operator":
		return &m.Operator
	case "edge":
		return &m.Edge
	case "agent":
		return &m.Agent
	case "description":
		return &m.Description
	case "intent":
		return &m.Intent
	case "field":
		return &m.Field
	case "to":
		return &m.To
	case "format":
		return &m.Format
	case "tool":
		return &m.Tool
	case "arg":
		return &m.Arg
	case "decision":
		return &m.Decision
	case "from":
		return &m.From
	case "change":
		return &m.Change
	}
	panic("mutants: no string field " + key)
}

// checkNew reports every mutant of user whose id base already has.
func checkNew(base, user *Catalogue) error {
	var errs []error
	for _, m := range user.Mutants {
		if prev, dup := base.ByID(m.ID); dup {
			file, line := splitSource(m.Source)
			errs = append(errs, &Error{File: file, Line: line, Mutant: m.ID, Field: "id", Problem: fmt.Sprintf("already in the base catalogue (%s)", prev.Source)})
		}
	}
	return errors.Join(errs...)
}

func splitSource(s string) (string, int) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0
	}
	n, _ := strconv.Atoi(s[i+1:])
	return s[:i], n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return fmt.Sprintf("%s %q", strings.TrimPrefix(n.Tag, "!!"), n.Value)
	}
	return "nothing"
}

// yamlErrorLine pulls the line out of a yaml syntax error ("yaml: line 3:
// ..."), or returns 1.
func yamlErrorLine(err error) int {
	s := err.Error()
	if _, rest, ok := strings.Cut(s, "line "); ok {
		if num, _, ok := strings.Cut(rest, ":"); ok {
			if n, err := strconv.Atoi(num); err == nil {
				return n
			}
		}
	}
	return 1
}
