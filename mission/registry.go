package mission

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Registry is the missions a program runs, by name, in the order they were
// given: the first is the default (a protocol that names no mission runs
// it). The command line builds one and passes it down; nothing registers
// itself. A Registry is immutable.
type Registry struct {
	missions []Mission
}

// NewRegistry returns the registry of ms, at least one, each with its own
// name.
func NewRegistry(ms ...Mission) (*Registry, error) {
	if len(ms) == 0 {
		return nil, errors.New("mission registry: no missions")
	}
	seen := map[string]bool{}
	for _, m := range ms {
		name := m.Spec().Name
		if seen[name] {
			return nil, fmt.Errorf("mission registry: mission %q given twice", name)
		}
		seen[name] = true
	}
	return &Registry{missions: slices.Clone(ms)}, nil
}

// Lookup returns the mission called name.
func (r *Registry) Lookup(name string) (Mission, bool) {
	for _, m := range r.missions {
		if m.Spec().Name == name {
			return m, true
		}
	}
	return nil, false
}

// Default returns the first mission.
func (r *Registry) Default() Mission { return r.missions[0] }

// All returns the missions in order.
func (r *Registry) All() []Mission { return slices.Clone(r.missions) }

// Names lists the missions' names in order, comma-separated, for messages.
func (r *Registry) Names() string {
	names := make([]string, len(r.missions))
	for i, m := range r.missions {
		names[i] = m.Spec().Name
	}
	return strings.Join(names, ", ")
}
