package designs

import "testing"

// The memo answers as reading the envelope does, first time and again.
func TestEnvelopeEdgeMemo(t *testing.T) {
	memo := &edgeMemo{m: map[string]edgeOf{}}
	for _, tc := range []struct {
		raw  string
		edge string
		ok   bool
	}{
		{`{"edge":"intake->action","payload":{}}`, "intake->action", true},
		{`{"EDGE":"action->boundary"}`, "action->boundary", true}, // encoding/json matches keys case-insensitively
		{`{"id":"x"}`, "", true},
		{`{"edge":7}`, "", false},
		{`{"edge":`, "", false},
		{`[1]`, "", false},
	} {
		for i := range 2 {
			edge, ok := memo.of([]byte(tc.raw))
			if edge != tc.edge || ok != tc.ok {
				t.Errorf("call %d: of(%s) = %q, %v; want %q, %v", i+1, tc.raw, edge, ok, tc.edge, tc.ok)
			}
		}
	}
}
