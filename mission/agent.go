package mission

import (
	"fmt"
	"strings"
)

// Agent names one agent of a mission.
type Agent string

func (a Agent) String() string { return string(a) }

// Edge is a hand-off route from one agent to another.
type Edge struct {
	From, To Agent
}

// String writes the edge as "from->to".
func (e Edge) String() string { return string(e.From) + "->" + string(e.To) }

// MarshalText writes the edge as "from->to".
func (e Edge) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText reads "from->to".
func (e *Edge) UnmarshalText(b []byte) error {
	p, err := ParseEdge(string(b))
	if err != nil {
		return err
	}
	*e = p
	return nil
}

// ParseEdge reads "from->to". It checks the form, not that a mission has
// the edge.
func ParseEdge(s string) (Edge, error) {
	from, to, ok := strings.Cut(s, "->")
	from, to = strings.TrimSpace(from), strings.TrimSpace(to)
	if !ok || from == "" || to == "" {
		return Edge{}, fmt.Errorf("edge %q: want from->to", s)
	}
	return Edge{From: Agent(from), To: Agent(to)}, nil
}

// Location is a ground-truth or blamed place: an agent ("boundary") or an
// edge ("intake->action").
type Location string

// AgentLocation writes an agent as a location.
func AgentLocation(a Agent) Location { return Location(a) }

// EdgeLocation writes an edge as a location.
func EdgeLocation(e Edge) Location { return Location(e.String()) }

// Edge returns the location's edge, if it is one.
func (l Location) Edge() (Edge, bool) {
	e, err := ParseEdge(string(l))
	return e, err == nil
}

// Adjacent reports whether l names edge e or one of its two agents.
func (l Location) Adjacent(e Edge) bool {
	return l == EdgeLocation(e) || l == Location(e.From) || l == Location(e.To)
}
