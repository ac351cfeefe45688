package mission

import "testing"

var edgeSeeds = []string{
	`{"edge":"intake->action"}`, `{"Edge":"action->boundary","x":1}`, `{"edge":"a->b","EDGE":"c->d"}`,
	`{"EDGE":"c->d","edge":"a->b"}`, `{"edge":null}`, `{"edge":7}`, `{"edge":{"a":1}}`, `{"edge":"nonsense"}`,
	`{"edges":"a->b"}`, `{}`, `null`, `[1]`, `"s"`, `{"edge":"a->b"`, `{"edge":"a->b","edge":"c->d"}`,
	`{"edge":" intake -> monitor "}`, `{"payload":{"edge":"a->b"}}`,
}

// envelopeEdgeOf answers as envelopeEdge, which reads raw with
// encoding/json.
func TestEnvelopeEdgeOf(t *testing.T) {
	for _, s := range edgeSeeds {
		checkEdgeOf(t, []byte(s))
	}
}

func FuzzEnvelopeEdgeOf(f *testing.F) {
	for _, s := range edgeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkEdgeOf(t, raw) })
}

func checkEdgeOf(t *testing.T, raw []byte) {
	t.Helper()
	want, wantOK := envelopeEdge(raw)
	msg, err := decodeObject(raw)
	got, gotOK := envelopeEdgeOf(raw, msg, err)
	if got != want || gotOK != wantOK {
		t.Fatalf("envelopeEdgeOf(%q) = %v, %v; envelopeEdge %v, %v", raw, got, gotOK, want, wantOK)
	}
}
