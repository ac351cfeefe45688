package mutants

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/mission"
)

// How [Load] combines a user catalogue with a base one.
const (
	ModeReplace = "replace" // the user's mutants alone
	ModeExtend  = "extend"  // the base's mutants, then the user's
)

// Catalogue is an ordered set of mutants with unique ids, and the sources
// they were read from.
type Catalogue struct {
	Mutants []*Mutant
	Sources []Source
}

// Source is one YAML file a catalogue was read from.
type Source struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"` // hex SHA-256 of the file's bytes
}

// Default returns the default catalogue of spec's mission (its
// Spec.Catalogue). Every call returns a fresh copy.
func Default(spec *mission.Spec) (*Catalogue, error) {
	if len(spec.Catalogue.Data) == 0 {
		return nil, errors.New("default catalogue: mission " + spec.Name + " has none")
	}
	c, err := Parse(spec.Catalogue.Name, spec.Catalogue.Data, spec)
	if err != nil {
		return nil, fmt.Errorf("default catalogue: %w", err)
	}
	return c, nil
}

// Load reads a user catalogue of spec's mission from path. In mode
// "replace" it is the whole catalogue and base is ignored; in mode "extend"
// its mutants follow base's (the mission's default catalogue when base is
// nil), and an id already in base is an error.
func Load(path string, base *Catalogue, mode string, spec *mission.Spec) (*Catalogue, error) {
	if mode != ModeReplace && mode != ModeExtend {
		return nil, fmt.Errorf("load mutants: mode %q: want %s or %s", mode, ModeReplace, ModeExtend)
	}
	data, err := input.ReadFile(path, MaxCatalogueBytes, "a catalogue")
	if err != nil {
		return nil, fmt.Errorf("load mutants: %w", err)
	}
	user, err := Parse(path, data, spec)
	if err != nil {
		return nil, fmt.Errorf("load mutants: %w", err)
	}
	if mode == ModeReplace {
		return user, nil
	}
	if base == nil {
		if base, err = Default(spec); err != nil {
			return nil, fmt.Errorf("load mutants: %w", err)
		}
	}
	if err := checkNew(base, user); err != nil {
		return nil, fmt.Errorf("load mutants: %w", err)
	}
	return &Catalogue{
		Mutants: append(slices.Clone(base.Mutants), user.Mutants...),
		Sources: append(slices.Clone(base.Sources), user.Sources...),
	}, nil
}

// Hash returns the hex SHA-256 of the catalogue's sources, in order: the same
// files loaded the same way give the same hash.
func (c *Catalogue) Hash() string {
	h := sha256.New()
	for _, s := range c.Sources {
		fmt.Fprintf(h, "%s\n", s.SHA256)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ByID returns the mutant with id.
func (c *Catalogue) ByID(id string) (*Mutant, bool) {
	for _, m := range c.Mutants {
		if m.ID == id {
			return m, true
		}
	}
	return nil, false
}

// Classes returns the classes the catalogue has mutants of, in the order of
// [AllClasses].
func (c *Catalogue) Classes() []Class {
	var out []Class
	for _, cl := range AllClasses {
		if len(c.ByClass(cl)) > 0 {
			out = append(out, cl)
		}
	}
	return out
}

// ByClass returns the catalogue's mutants of class cl, in catalogue order.
func (c *Catalogue) ByClass(cl Class) []*Mutant {
	var out []*Mutant
	for _, m := range c.Mutants {
		if m.Class == cl {
			out = append(out, m)
		}
	}
	return out
}

func sourceOf(name string, data []byte) Source {
	sum := sha256.Sum256(data)
	return Source{Name: name, SHA256: hex.EncodeToString(sum[:])}
}
