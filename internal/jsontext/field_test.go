package jsontext

import (
	"encoding/json"
	"strings"
	"testing"
)

// decodeEdge is the reference: encoding/json reading the envelope.
func decodeEdge(raw []byte) (string, bool) {
	var head struct {
		Edge string `json:"edge"`
	}
	if json.Unmarshal(raw, &head) != nil {
		return "", false
	}
	return head.Edge, true
}

var edgeCases = []struct {
	raw  string
	edge string
	ok   bool
}{
	{`{"edge":"intake->action","payload":{}}`, "intake->action", true},
	{`{"id":"m-E1","edge":"action->boundary","payload":{"lines":[{"sku":"a}\"]"}],"n":1.5e3}}`, "action->boundary", true},
	{`{"EDGE":"action->boundary"}`, "action->boundary", true}, // encoding/json matches keys case-insensitively
	{`{"e\u0064ge":"x\u003ey"}`, "x>y", true},
	{`{"edge":"a","Edge":"b"}`, "b", true}, // the last match wins
	{`{"edge":"a","edge":null}`, "a", true},
	{` { "edge" : "a" } `, "a", true},
	{`{"id":"x"}`, "", true},
	{`{}`, "", true},
	{`null`, "", true},
	{`{"edge":7}`, "", false},
	{`{"edge":{"a":1}}`, "", false},
	{`{"edge":`, "", false},
	{`[1]`, "", false},
	{`"edge"`, "", false},
	{"{\"edge\":\"\xff\"}", "\ufffd", true},
	{``, "", false},
}

// StringField answers as encoding/json reading the envelope does.
func TestStringField(t *testing.T) {
	for _, tc := range edgeCases {
		edge, ok := StringField([]byte(tc.raw), "edge", nil)
		if edge != tc.edge || ok != tc.ok {
			t.Errorf("StringField(%s) = %q, %v; want %q, %v", tc.raw, edge, ok, tc.edge, tc.ok)
		}
		if wantEdge, wantOK := decodeEdge([]byte(tc.raw)); wantEdge != tc.edge || wantOK != tc.ok {
			t.Errorf("case %s: encoding/json reads %q, %v; the table says %q, %v", tc.raw, wantEdge, wantOK, tc.edge, tc.ok)
		}
	}
}

// Nesting is limited as encoding/json limits it.
func TestStringFieldDepth(t *testing.T) {
	for _, depth := range []int{9999, 10000, 10001} {
		raw := []byte(`{"edge":"a","x":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`)
		edge, ok := StringField(raw, "edge", nil)
		wantEdge, wantOK := decodeEdge(raw)
		if edge != wantEdge || ok != wantOK {
			t.Errorf("depth %d: StringField = %q, %v; encoding/json reads %q, %v", depth, edge, ok, wantEdge, wantOK)
		}
	}
}

func FuzzStringField(f *testing.F) {
	for _, tc := range edgeCases {
		f.Add([]byte(tc.raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		edge, ok := StringField(raw, "edge", nil)
		wantEdge, wantOK := decodeEdge(raw)
		if edge != wantEdge || ok != wantOK {
			t.Fatalf("StringField(%q) = %q, %v; encoding/json reads %q, %v", raw, edge, ok, wantEdge, wantOK)
		}
	})
}

// BenchmarkStringField reads the edge of a typical golden wire message.
func BenchmarkStringField(b *testing.B) {
	edges := NewKeys("intake->action", "action->boundary")
	raw := []byte(`{"id":"m-E1-intake->action-1","edge":"intake->action","kind":"invoice.extracted","schema_version":"1.0",` +
		`"idempotency_key":"E1:invoice.extracted","next_owner":["action"],"escalation":"none","escalation_ref":"","item":"E1",` +
		`"payload":{"email_id":"E1","doc_type":"invoice","supplier_id":"SUP-1","net":1000,"tax":200,"gross":1200,"lines":[{"sku":"A","qty":1}]}}`)
	b.ReportAllocs()
	for b.Loop() {
		if e, ok := StringField(raw, "edge", edges); !ok || e != "intake->action" {
			b.Fatal(e, ok)
		}
	}
}
