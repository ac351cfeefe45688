package contracts

import (
	"encoding/json"
	"testing"

	"github.com/baton-lab/baton/mission/invoice"
)

func FuzzLoad(f *testing.F) {
	for _, b := range Sources(invoice.Spec().Contracts) {
		f.Add(b)
	}
	f.Add([]byte(minimal))
	f.Add([]byte("edge: a->b\nkind: [unclosed\n"))
	f.Add([]byte("edge: a->b\nkind: k\nversion: \"1\"\nowner: b\nrules:\n  - {id: r, expr: 'payload.x', message: m}\n"))
	f.Add([]byte("&a [*a]"))
	f.Fuzz(func(t *testing.T, src []byte) {
		c, err := Parse("fuzz.yaml", src)
		if err != nil {
			return
		}
		s, err := NewSet(c)
		if err != nil {
			t.Fatal(err)
		}
		// A contract that loads must check anything without panicking.
		for _, l := range AllLevels {
			s.Check(c.Edge, []byte(`{"id":"1","edge":"`+c.Edge+`","payload":{"x":1}}`), l)
		}
	})
}

func FuzzCheck(f *testing.F) {
	for _, m := range []map[string]any{invoiceExtracted(), matchPrepared(), decisionMade(), exceptionRaised("intake"), exceptionRaised("action")} {
		b, _ := json.Marshal(m)
		f.Add(m["edge"].(string), b)
	}
	f.Add("intake->action", []byte(`{"payload":{"lines":[{"amount":"x"}],"flags":"bank_account_changed"}}`))
	f.Add("boundary->monitor", []byte(`{"payload":{"decision":"approved","currency":"XXX","gross":1e308,"amount_eur":-0}}`))
	f.Add("intake->action", []byte(`{"next_owner":[1,null],"escalation":7,"idempotency_key":{}}`))
	f.Add("nowhere", []byte(`null`))
	s, err := LoadFS(invoice.Spec().Contracts, "mission/invoice/contracts")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, edge string, raw []byte) {
		for _, l := range AllLevels {
			for _, v := range s.Check(edge, raw, l) {
				if v.Rule == "" || v.Level == "" {
					t.Fatalf("violation without rule or level: %+v", v)
				}
			}
		}
		s.CheckSequence(edge, [][]byte{raw, raw, []byte(`{}`)}, LevelSemantic)
	})
}
