package contracts

import (
	"fmt"
	"strings"
)

// ParseLevel reads a level name: schema, ownership or semantic.
func ParseLevel(s string) (Level, error) {
	for _, l := range AllLevels {
		if strings.EqualFold(strings.TrimSpace(s), l.String()) {
			return l, nil
		}
	}
	return 0, fmt.Errorf("level %q: want schema, ownership or semantic", s)
}

// MarshalText writes the level's name ("unknown" for a level out of range).
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a level's name.
func (l *Level) UnmarshalText(b []byte) error {
	p, err := ParseLevel(string(b))
	if err != nil {
		return err
	}
	*l = p
	return nil
}
