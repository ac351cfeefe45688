package mutants

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/mission"
)

// Error is one problem in a catalogue file: the file, line and column,
// the field (the entry, named by its id, and its key: "my-drop-tax.field";
// "mutants[2]" for an entry without a valid id) and what is wrong. It is
// the one located error type of baton's input readers ([input.Error]).
type Error = input.Error

// MaxCatalogueBytes bounds a catalogue file: the default one is 10 KB.
const MaxCatalogueBytes = 4 << 20

// catalogueFile is a catalogue file's top level.
type catalogueFile struct {
	Mutants []yaml.Node `yaml:"mutants"`
}

// Parse reads a catalogue of spec's mission from YAML data; name is the file
// name errors give. The document is a mapping with one key, mutants,
// holding a list of entries (see the package doc). Unknown keys, invalid
// entries and duplicate ids are errors, all reported (a few dozen at most,
// then their count), each an *Error naming file, line and entry.
func Parse(name string, data []byte, spec *mission.Spec) (*Catalogue, error) {
	d := input.NewDecoder(name, input.Options{Kind: "catalogue", Limits: input.Limits{Bytes: MaxCatalogueBytes}})
	muts := parse(d, data, spec)
	if err := d.Err(); err != nil {
		return nil, err
	}
	return &Catalogue{Mutants: muts, Sources: []Source{sourceOf(name, data)}}, nil
}

func parse(d *input.Decoder, data []byte, spec *mission.Spec) []*Mutant {
	root := d.Parse(data)
	if root == nil {
		return nil
	}
	var f catalogueFile
	d.DecodeNode(root, "", &f)
	switch {
	case d.Failed():
		return nil
	case !d.Has("mutants"):
		d.Errorf("mutants", "missing")
		return nil
	case len(f.Mutants) == 0:
		d.Errorf("mutants", "no entries")
		return nil
	}
	var out []*Mutant
	first := map[string]*Mutant{}
	for i := range f.Mutants {
		if d.Full() {
			break
		}
		m, label, ok := entry(d, i, &f.Mutants[i], spec)
		if !ok {
			continue
		}
		if prev, dup := first[m.ID]; dup {
			d.Errorf(label+".id", "duplicate id (first at %s)", prev.Source)
			continue
		}
		first[m.ID] = m
		out = append(out, m)
	}
	return out
}

// entry decodes and validates one entry, named by its id (by its place in
// the list when it has no valid one). ok is false when the entry has
// problems (already recorded).
func entry(d *input.Decoder, i int, n *yaml.Node, spec *mission.Spec) (m *Mutant, label string, ok bool) {
	label = input.Index("mutants", i)
	if id := input.Deref(input.Lookup(n, "id")); id != nil && id.Kind == yaml.ScalarNode && validID(strings.TrimSpace(id.Value)) {
		label = strings.TrimSpace(id.Value)
	}
	before := d.Count()
	m = &Mutant{}
	d.DecodeNode(n, label, m)
	if d.Count() > before {
		return nil, label, false
	}
	m.Source = fmt.Sprintf("%s:%d", d.File(), d.Pos(label).Line)
	for _, s := range m.strings() {
		*s = strings.TrimSpace(*s)
	}
	if d.Has(label+".intent") && m.Intent != IntentRegression && m.Intent != IntentVersionChange {
		d.Unknown(label+".intent", "intent", m.Intent, []string{IntentRegression, IntentVersionChange})
	}
	if d.Has(label+".value") && m.Value == nil {
		d.Errorf(label+".value", "null: want a value")
	}
	for _, err := range m.Validate(spec) {
		var fe *FieldError
		if errors.As(err, &fe) {
			d.Errorf(label+"."+fe.Field, "%s", fe.Problem)
		} else {
			d.Errorf(label, "%v", err)
		}
	}
	return m, label, d.Count() == before
}

// strings returns the entry's string fields.
func (m *Mutant) strings() []*string {
	return []*string{&m.ID, (*string)(&m.Class), &m.Operator, &m.Edge, &m.Agent, &m.Field, &m.To, &m.Format, &m.Tool, &m.Arg, &m.Decision, &m.From, &m.Change, &m.Description, &m.Intent}
}

// checkNew reports every mutant of user whose id base already has.
func checkNew(base, user *Catalogue) error {
	var errs []error
	for _, m := range user.Mutants {
		if prev, dup := base.ByID(m.ID); dup {
			file, line := splitSource(m.Source)
			errs = append(errs, &Error{File: file, Pos: input.Pos{Line: line}, Field: m.ID + ".id", Problem: fmt.Sprintf("already in the base catalogue (%s)", prev.Source)})
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
