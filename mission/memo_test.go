package mission

import (
	"encoding/json"
	"testing"
)

// TestHandoffClone: a clone encodes as the hand-off does (no next owners
// stays null, an empty list stays empty), and changing it, next owners
// and payload down to a nested list, leaves the original as it was.
func TestHandoffClone(t *testing.T) {
	for _, owners := range [][]string{nil, {}, {"action"}, {"action", "boundary", "monitor"}} {
		h := &Handoff{ID: "m-1", Edge: "intake->action", Kind: "invoice.extracted", NextOwner: owners, Escalation: EscalationNone, Item: "E1",
			Payload: map[string]any{"gross": 12.5, "flags": []any{"a", map[string]any{"b": "c"}}}}
		want, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		c := h.clone()
		if got, _ := json.Marshal(c); string(got) != string(want) {
			t.Errorf("owners %q: clone encodes as %s, want %s", owners, got, want)
		}
		if len(c.NextOwner) > 0 {
			c.NextOwner[0] = "changed"
		}
		c.NextOwner = append(c.NextOwner, "added")
		c.Payload["flags"].([]any)[1].(map[string]any)["b"] = "changed"
		c.Payload["gross"] = 0.0
		if got, _ := json.Marshal(h); string(got) != string(want) {
			t.Errorf("owners %q: changing the clone changed the hand-off to %s, was %s", owners, got, want)
		}
	}
}
