package mission

import (
	"encoding/json"
	"testing"
)

var edgeSeeds = []string{
	`{"edge":"intake->action"}`, `{"Edge":"action->boundary","x":1}`, `{"edge":"a->b","EDGE":"c->d"}`,
	`{"EDGE":"c->d","edge":"a->b"}`, `{"edge":null}`, `{"edge":7}`, `{"edge":{"a":1}}`, `{"edge":"nonsense"}`,
	`{"edges":"a->b"}`, `{}`, `null`, `[1]`, `"s"`, `{"edge":"a->b"`, `{"edge":"a->b","edge":"c->d"}`,
	`{"edge":" intake -> monitor "}`, `{"payload":{"edge":"a->b"}}`,
}

// EnvelopeEdge reads the edge as encoding/json reading the envelope, then
// ParseEdge, would.
func TestEnvelopeEdge(t *testing.T) {
	for _, s := range edgeSeeds {
		checkEdge(t, []byte(s))
	}
}

func FuzzEnvelopeEdge(f *testing.F) {
	for _, s := range edgeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkEdge(t, raw) })
}

func checkEdge(t *testing.T, raw []byte) {
	t.Helper()
	var env struct {
		Edge string `json:"edge"`
	}
	var want Edge
	wantOK := json.Unmarshal(raw, &env) == nil
	if wantOK {
		var err error
		want, err = ParseEdge(env.Edge)
		wantOK = err == nil
	}
	got, gotOK := EnvelopeEdge(raw)
	if got != want || gotOK != wantOK {
		t.Fatalf("EnvelopeEdge(%q) = %v, %v; encoding/json %v, %v", raw, got, gotOK, want, wantOK)
	}
	name, nameOK := EnvelopeEdgeName(raw)
	if jsonOK := json.Unmarshal(raw, &env) == nil; name != env.Edge && jsonOK || nameOK != jsonOK {
		t.Fatalf("EnvelopeEdgeName(%q) = %q, %v; encoding/json %q, %v", raw, name, nameOK, env.Edge, jsonOK)
	}
}

func BenchmarkEnvelopeEdge(b *testing.B) {
	raw := []byte(`{"id":"m-E1-intake->action-1","edge":"intake->action","kind":"doc.extracted","schema_version":"1.0",` +
		`"idempotency_key":"E1:doc.extracted","next_owner":["action"],"escalation":"none","escalation_ref":"","item":"E1",` +
		`"payload":{"email_id":"E1","doc_type":"doc","party_id":"P-1","net":1000,"tax":200,"gross":1200,"lines":[{"sku":"A","qty":1}]}}`)
	b.ReportAllocs()
	for b.Loop() {
		if e, ok := EnvelopeEdge(raw); !ok || e != (Edge{From: "intake", To: "action"}) {
			b.Fatal(e, ok)
		}
	}
}
