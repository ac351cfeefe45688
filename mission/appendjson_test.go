package mission

import (
	"math"
	"testing"
)

// AppendJSON writes what encoding/json writes, after what the buffer
// held, and says when encoding/json would have failed instead.
func TestAppendJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		ok   bool
	}{
		{"handoff", &Handoff{ID: "m-E1", Edge: "intake->action", NextOwner: []string{"action"}, Escalation: "none",
			Item: "E1", Payload: map[string]any{"gross": 1234.5, "lines": []any{map[string]any{"sku": "<a&b>"}}, "flags": []any{}}}, true},
		{"nil handoff payload", &Handoff{EscalationRef: "ESC-1"}, true},
		{"object", map[string]any{"b": "é\u2028", "a": nil, "c": []string{"x"}}, true},
		{"NaN", map[string]any{"gross": math.NaN()}, false},
		{"infinity", []any{math.Inf(-1)}, false},
		{"unsupported", map[string]any{"f": func() {}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := AppendJSON([]byte("prefix:"), tc.v)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if want := "prefix:" + stdMarshal(t, tc.v); string(got) != want {
				t.Errorf("AppendJSON = %s, want %s", got, want)
			}
		})
	}
}
