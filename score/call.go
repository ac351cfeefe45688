package score

import "github.com/baton-lab/baton/internal/jsontext"

// Call is one tool call: the tool's name and its arguments as JSON values.
type Call struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args,omitempty"`
}

// Run is one recorded agent run, one line of a JSON Lines file.
type Run struct {
	// ID names the run; unique within a file.
	ID string `json:"run"`
	// ExpectedCalls is the reference trajectory. Nil (key absent or null)
	// means no recorded truth for the tool calls: the run is left out of
	// tool-call accuracy. An empty list means "no calls expected".
	ExpectedCalls []Call `json:"expected_calls"`
	// Calls is what the agent did; absent means it made no calls.
	Calls []Call `json:"calls"`
	// ExpectedAnswer is the recorded truth; nil (absent or null) means there
	// is none and the run's output is unscoreable.
	ExpectedAnswer *string `json:"expected_answer"`
	// Answer is what the agent answered.
	Answer string `json:"answer"`

	// Line is the 1-based line the run was read from (0 if not read).
	Line int `json:"-"`
}

// Match says which matchers accept a trajectory.
type Match struct {
	Exact        bool `json:"exact"`         // same calls, names and arguments, in order
	NameOnly     bool `json:"name_only"`     // same tool names in the same order
	OrderIgnored bool `json:"order_ignored"` // same multiset of name + arguments
}

// Passed reports whether matcher m accepted the trajectory.
func (m Match) Passed(k Matcher) bool {
	switch k {
	case MatchExact:
		return m.Exact
	case MatchNameOnly:
		return m.NameOnly
	case MatchOrderIgnored:
		return m.OrderIgnored
	}
	return false
}

// Matcher names one of the three trajectory matchers.
type Matcher int

// The matchers, strictest first.
const (
	MatchExact Matcher = iota
	MatchNameOnly
	MatchOrderIgnored
)

// AllMatchers lists every matcher, strictest first.
var AllMatchers = []Matcher{MatchExact, MatchNameOnly, MatchOrderIgnored}

// String returns the matcher's name as used in output ("exact",
// "name_only", "order_ignored").
func (m Matcher) String() string {
	switch m {
	case MatchExact:
		return "exact"
	case MatchNameOnly:
		return "name_only"
	case MatchOrderIgnored:
		return "order_ignored"
	}
	return "unknown"
}

// Trajectory compares the calls an agent made with the expected ones under
// all three matchers. Arguments compare as JSON values: 140 equals 140.0,
// key order does not matter, and a nil Args equals an empty one.
//
// It is cheap for the values JSON decoding produces (map[string]any, []any,
// string, float64, bool, nil) and for Go integers and floats; other types
// are compared by reflection, and only types with their own JSON encoding
// (structs, json.Marshaler, []byte, ...) are marshalled.
func Trajectory(expected, got []Call) Match {
	var m Match
	if len(expected) != len(got) {
		return m
	}
	m.NameOnly = true
	for i := range expected {
		if expected[i].Name != got[i].Name {
			m.NameOnly = false
			break
		}
	}
	if m.NameOnly {
		m.Exact = true
		for i := range expected {
			if !equalArgs(expected[i].Args, got[i].Args) {
				m.Exact = false
				break
			}
		}
	}
	m.OrderIgnored = m.Exact || sameMultiset(expected, got)
	return m
}

// sameMultiset reports whether every call of a pairs with a distinct equal
// call of b (len(a) == len(b)). Equality of calls is an equivalence, so
// greedy pairing is exact.
func sameMultiset(a, b []Call) bool {
	var buf [32]bool
	var used []bool
	if len(b) <= len(buf) {
		used = buf[:len(b)]
	} else {
		used = make([]bool, len(b))
	}
outer:
	for i := range a {
		for j := range b {
			if !used[j] && a[i].Name == b[j].Name && equalArgs(a[i].Args, b[j].Args) {
				used[j] = true
				continue outer
			}
		}
		return false
	}
	return true
}

// equalArgs compares two argument maps as JSON objects ([jsontext.Equal]);
// nil equals empty.
func equalArgs(a, b map[string]any) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return jsontext.Equal(a, b)
}
