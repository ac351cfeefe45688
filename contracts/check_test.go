package contracts

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission/invoice"
)

func TestDefaultCoversMissionEdges(t *testing.T) {
	s := defaults(t)
	if diff := cmp.Diff(slices.Sorted(slices.Values(missionEdges)), s.Edges()); diff != "" {
		t.Errorf("Edges() (-want +got):\n%s", diff)
	}
	kinds := map[string]string{
		"intake->action": "invoice.extracted", "action->boundary": "match.prepared",
		"boundary->monitor": "decision.made", "intake->monitor": "exception.raised", "action->monitor": "exception.raised",
	}
	for e, k := range kinds {
		c, ok := s.Contract(e)
		if !ok || c.Kind != k || c.Owner != e[strings.Index(e, ">")+1:] {
			t.Errorf("Contract(%s) = %+v, want kind %s owned by the edge's target", e, c, k)
		}
	}
}

// Clean messages of every kind the reference mission sends must keep the
// default contracts at the strongest level.
func TestDefaultCleanMessagesPass(t *testing.T) {
	s := defaults(t)
	tests := []struct {
		name string
		msg  func() map[string]any
	}{
		{"typical USD invoice", invoiceExtracted},
		{"invoice with null lines and flags", func() map[string]any {
			m := invoiceExtracted()
			payload(m)["lines"], payload(m)["flags"] = nil, nil
			return m
		}},
		{"bank account changed asks escalation", func() map[string]any {
			m := invoiceExtracted()
			payload(m)["flags"] = []any{"bank_account_changed"}
			m["escalation"] = "requested"
			return m
		}},
		{"unknown supplier", func() map[string]any {
			m := invoiceExtracted()
			payload(m)["supplier_id"] = ""
			payload(m)["flags"] = []any{"unknown_supplier"}
			m["escalation"] = "requested"
			return m
		}},
		{"newsletter out of scope, fields empty", func() map[string]any {
			m := invoiceExtracted()
			p := payload(m)
			for _, k := range []string{"supplier_id", "supplier_name", "invoice_number", "po_number", "currency", "invoice_date", "due_date", "bank_account", "register_id"} {
				p[k] = ""
			}
			p["doc_type"], p["net"], p["tax"], p["gross"], p["lines"] = "out_of_scope", 0.0, 0.0, 0.0, []any{}
			return m
		}},
		{"statement", func() map[string]any {
			m := invoiceExtracted()
			p := payload(m)
			p["doc_type"], p["net"], p["tax"], p["gross"], p["lines"] = "statement", 0.0, 0.0, 5400.0, []any{}
			return m
		}},
		{"credit note", func() map[string]any {
			m := invoiceExtracted()
			p := payload(m)
			p["doc_type"], p["po_number"] = "credit_note", ""
			return m
		}},
		{"typical match", matchPrepared},
		{"unexplained variance held", func() map[string]any {
			m := matchPrepared()
			p := payload(m)
			p["match_status"], p["variance"], p["variance_reason"], p["proposal"] = "variance_unexplained", 80.0, "qty_mismatch", "hold"
			m["escalation"] = "requested"
			return m
		}},
		{"no po", func() map[string]any {
			m := matchPrepared()
			p := payload(m)
			p["po_number"], p["match_status"], p["match_id"] = "", "no_po", ""
			return m
		}},
		{"statement closed", func() map[string]any {
			m := matchPrepared()
			p := payload(m)
			p["doc_type"], p["match_status"], p["match_id"], p["proposal"] = "statement", "not_applicable", "", "close"
			return m
		}},
		{"approved", decisionMade},
		{"approved exactly at the threshold", func() map[string]any {
			m := decisionMade()
			p := payload(m)
			p["currency"], p["gross"], p["amount_eur"] = "EUR", 10000.00, 10000.00
			return m
		}},
		{"escalated above threshold", func() map[string]any {
			m := decisionMade()
			p := payload(m)
			p["decision"], p["reason"], p["gross"], p["amount_eur"], p["payment_id"], p["escalation_id"] = "escalated", "above_threshold", 12000.0, 11040.0, "", "ESC-1"
			return m
		}},
		{"closed newsletter", func() map[string]any {
			m := decisionMade()
			p := payload(m)
			p["decision"], p["reason"], p["currency"], p["gross"], p["amount_eur"], p["payment_id"] = "closed", "out_of_scope", "", 0.0, 0.0, ""
			return m
		}},
		{"intake exception", func() map[string]any { return exceptionRaised("intake") }},
		{"action exception with a longer key", func() map[string]any {
			m := exceptionRaised("action")
			m["idempotency_key"] = "E2:exception.raised:get_purchase_order"
			return m
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.msg()
			if got := s.Check(m["edge"].(string), marshal(t, m), LevelSemantic); len(got) != 0 {
				t.Errorf("clean message flagged: %+v", got)
			}
		})
	}
}

// Each kind of rule: a message that breaks it and one that holds it.
func TestCheckRules(t *testing.T) {
	s := defaults(t)
	type mut func(m map[string]any)
	set := func(k string, v any) mut { return func(m map[string]any) { m[k] = v } }
	pset := func(k string, v any) mut { return func(m map[string]any) { payload(m)[k] = v } }
	both := func(fs ...mut) mut {
		return func(m map[string]any) {
			for _, f := range fs {
				f(m)
			}
		}
	}
	tests := []struct {
		name      string
		base      func() map[string]any
		mutate    mut
		want      []string // rule ids; nil: the rule holds
		wantField string   // of the first violation
	}{
		// schema
		{"required: payload field dropped", invoiceExtracted, func(m map[string]any) { delete(payload(m), "currency") }, []string{"required"}, "payload.currency"},
		{"required: envelope field dropped", invoiceExtracted, func(m map[string]any) { delete(m, "item") }, []string{"required"}, "item"},
		{"required holds: optional field dropped", invoiceExtracted, func(m map[string]any) { delete(m, "escalation_ref") }, nil, ""},
		{"type: decimal comma string", invoiceExtracted, pset("gross", "1200,00"), []string{"type"}, "payload.gross"},
		{"type: nested line amount", invoiceExtracted, func(m map[string]any) {
			payload(m)["lines"].([]any)[1].(map[string]any)["amount"] = "400"
		}, []string{"type"}, "payload.lines[1].amount"},
		{"type holds: integer where number", invoiceExtracted, pset("gross", 1200), nil, ""},
		{"format: DD/MM/YYYY date", invoiceExtracted, pset("due_date", "02/04/2025"), []string{"format"}, "payload.due_date"},
		{"format holds: allowed empty", invoiceExtracted, pset("due_date", ""), nil, ""},
		{"enum: unknown document type", invoiceExtracted, pset("doc_type", "receipt"), []string{"enum"}, "payload.doc_type"},
		{"enum holds: another document type", invoiceExtracted, pset("doc_type", "credit_note"), nil, ""},
		{"pattern: currency not an ISO code", invoiceExtracted, pset("currency", "usd"), []string{"pattern"}, "payload.currency"},
		{"pattern holds: currency outside the rate table", invoiceExtracted, pset("currency", "SEK"), nil, ""},
		{"range: negative tax", invoiceExtracted, both(pset("tax", -1.0), pset("gross", 999.0)), []string{"range"}, "payload.tax"},
		{"range holds: zero tax", invoiceExtracted, both(pset("tax", 0.0), pset("gross", 1000.0)), nil, ""},
		{"length: empty tool", func() map[string]any { return exceptionRaised("intake") }, pset("tool", ""), []string{"length"}, "payload.tool"},
		{"version: other schema version", invoiceExtracted, set("schema_version", "2.0"), []string{"version"}, "schema_version"},
		{"kind: other kind", invoiceExtracted, set("kind", "match.prepared"), []string{"kind"}, "kind"},
		{"edge: envelope names another edge", invoiceExtracted, set("edge", "intake->monitor"), []string{"edge"}, "edge"},
		// ownership
		{"owner: cleared", invoiceExtracted, set("next_owner", []any{}), []string{"owner"}, "next_owner"},
		{"owner: doubled", invoiceExtracted, set("next_owner", []any{"action", "boundary"}), []string{"owner"}, "next_owner"},
		{"owner: misrouted", invoiceExtracted, set("next_owner", []any{"monitor"}), []string{"owner"}, "next_owner"},
		{"owner: missing", invoiceExtracted, func(m map[string]any) { delete(m, "next_owner") }, []string{"owner"}, "next_owner"},
		{"idempotency: missing", invoiceExtracted, set("idempotency_key", ""), []string{"idempotency"}, "idempotency_key"},
		{"idempotency: fresh key", invoiceExtracted, set("idempotency_key", "E1:invoice.extracted#retry1"), []string{"idempotency"}, "idempotency_key"},
		{"idempotency: another item's key", invoiceExtracted, set("idempotency_key", "E2:invoice.extracted"), []string{"idempotency"}, "idempotency_key"},
		{"escalation: unknown state", invoiceExtracted, set("escalation", "maybe"), []string{"escalation"}, "escalation"},
		{"escalation: missing", invoiceExtracted, func(m map[string]any) { delete(m, "escalation") }, []string{"escalation"}, "escalation"},
		{"escalation-ref: escalated assumed, no ticket", invoiceExtracted, set("escalation", "escalated"), []string{"escalation-ref"}, "escalation_ref"},
		{"escalation-ref holds: escalated with ticket", invoiceExtracted, both(set("escalation", "escalated"), set("escalation_ref", "ESC-4")), nil, ""},
		// semantic: intake->action
		{"email-is-item", invoiceExtracted, pset("email_id", "E9"), []string{"email-is-item"}, "payload.email_id"},
		{"currency-with-amount", invoiceExtracted, pset("currency", ""), []string{"currency-with-amount"}, "payload.gross"},
		{"currency-with-amount holds: no amount", invoiceExtracted, both(pset("currency", ""), pset("doc_type", "out_of_scope"), pset("net", 0.0), pset("tax", 0.0), pset("gross", 0.0)), nil, ""},
		{"amounts-add-up: gross in cents", invoiceExtracted, pset("gross", 120000), []string{"amounts-add-up"}, "payload.gross"},
		{"amounts-add-up holds: within a cent", invoiceExtracted, pset("gross", 1200.005), nil, ""},
		{"lines-sum-to-net", invoiceExtracted, pset("net", 1100.0), []string{"amounts-add-up", "lines-sum-to-net"}, "payload.gross"},
		{"due-after-invoice-date", invoiceExtracted, pset("due_date", "2025-02-01"), []string{"due-after-invoice-date"}, "payload.due_date"},
		{"flagged-asks-escalation: bank change not escalated", invoiceExtracted, pset("flags", []any{"bank_account_changed"}), []string{"flagged-asks-escalation"}, "escalation"},
		{"flagged-asks-escalation: suspicious", invoiceExtracted, pset("doc_type", "suspicious"), []string{"flagged-asks-escalation"}, "escalation"},
		{"flagged-asks-escalation holds: harmless flag", invoiceExtracted, pset("flags", []any{"duplicate_line"}), nil, ""},
		{"unknown-supplier-flagged", invoiceExtracted, pset("supplier_id", ""), []string{"unknown-supplier-flagged"}, "payload.supplier_id"},
		// semantic: action->boundary
		{"unexplained-variance-holds: posted", matchPrepared, pset("match_status", "variance_unexplained"), []string{"unexplained-variance-holds"}, "payload.proposal"},
		{"unexplained-variance-holds: held, not escalated", matchPrepared, both(pset("match_status", "variance_unexplained"), pset("proposal", "hold")), []string{"unexplained-variance-holds"}, "payload.proposal"},
		{"match-needs-invoice-with-po", matchPrepared, pset("po_number", ""), []string{"match-needs-invoice-with-po"}, "payload.match_status"},
		{"match-recorded", matchPrepared, pset("match_id", ""), []string{"match-recorded"}, "payload.match_id"},
		{"match-recorded holds: system unavailable", matchPrepared, both(pset("match_id", ""), pset("flags", []any{"system_unavailable"})), nil, ""},
		{"closed-docs-close", matchPrepared, both(pset("doc_type", "statement"), pset("match_status", "not_applicable")), []string{"closed-docs-close"}, "payload.proposal"},
		// semantic: boundary->monitor
		{"escalated-has-ticket", decisionMade, both(pset("decision", "escalated"), pset("reason", "unknown_supplier")), []string{"escalated-has-ticket"}, "payload.escalation_id"},
		{"approved-has-payment", decisionMade, pset("payment_id", ""), []string{"approved-has-payment"}, "payload.payment_id"},
		{"approved-within-threshold", decisionMade, both(pset("gross", 11000.0), pset("amount_eur", 10120.0)), []string{"approved-within-threshold"}, "payload.amount_eur"},
		{"amount-converted-to-eur: currency read as EUR", decisionMade, pset("amount_eur", 1200.0), []string{"amount-converted-to-eur"}, "payload.amount_eur"},
		{"amount-converted-to-eur: approved outside the rate table", decisionMade, pset("currency", "SEK"), []string{"amount-converted-to-eur"}, "payload.amount_eur"},
		{"refusal-has-reason", decisionMade, both(pset("decision", "rejected"), pset("payment_id", "")), []string{"refusal-has-reason"}, "payload.reason"},
		// semantic: exceptions
		{"code-present", func() map[string]any { return exceptionRaised("action") }, pset("code", ""), []string{"code-present"}, "payload.code"},
		{"enum: exception from another agent", func() map[string]any { return exceptionRaised("action") }, pset("agent", "intake"), []string{"enum"}, "payload.agent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.base()
			edge := m["edge"].(string)
			tt.mutate(m)
			got := s.Check(edge, marshal(t, m), LevelSemantic)
			if diff := cmp.Diff(tt.want, rules(got)); diff != "" {
				t.Fatalf("rules (-want +got):\n%s\nviolations: %+v", diff, got)
			}
			if len(got) > 0 {
				v := got[0]
				if v.Field != tt.wantField {
					t.Errorf("Field = %q, want %q", v.Field, tt.wantField)
				}
				if v.Edge != edge || v.Level == "" || v.Expected == "" || v.Got == "" || v.Message == "" {
					t.Errorf("violation lacks edge, level, expected, got or message: %+v", v)
				}
			}
		})
	}
}

// A defect that only a semantic rule sees: caught at semantic, missed at
// schema and ownership.
func TestLevelGating(t *testing.T) {
	s := defaults(t)
	flagged := invoiceExtracted()
	payload(flagged)["flags"] = []any{"bank_account_changed"} // escalation stays "none"
	cleared := invoiceExtracted()
	cleared["next_owner"] = []any{}
	tests := []struct {
		name  string
		msg   map[string]any
		level Level
		want  []string
	}{
		{"escalation gap at schema", flagged, LevelSchema, nil},
		{"escalation gap at ownership", flagged, LevelOwnership, nil},
		{"escalation gap at semantic", flagged, LevelSemantic, []string{"flagged-asks-escalation"}},
		{"cleared owner at schema", cleared, LevelSchema, nil},
		{"cleared owner at ownership", cleared, LevelOwnership, []string{"owner"}},
		{"cleared owner at semantic", cleared, LevelSemantic, []string{"owner"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.Check("intake->action", marshal(t, tt.msg), tt.level)
			if diff := cmp.Diff(tt.want, rules(got)); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
}

func TestViolationDetail(t *testing.T) {
	s := defaults(t)
	m := invoiceExtracted()
	payload(m)["flags"] = []any{"bank_account_changed"}
	got := s.Check("intake->action", marshal(t, m), LevelSemantic)
	want := []Violation{{
		Edge: "intake->action", Rule: "flagged-asks-escalation", Level: "semantic", Field: "escalation",
		Expected: `!(payload.doc_type == "suspicious" ||` + "\n" + `  (payload.flags != null && payload.flags.exists(f, f in escalating_flags))) ||` + "\n" + `escalation == "requested"`,
		Got:      `payload.doc_type="invoice" payload.flags=["bank_account_changed"] escalation="none"`,
		Message:  "a suspicious document, a changed bank account or an unknown supplier must ask for escalation",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	m = invoiceExtracted()
	payload(m)["doc_type"] = "receipt"
	got = s.Check("intake->action", marshal(t, m), LevelSchema)
	want = []Violation{{
		Edge: "intake->action", Rule: "enum", Level: "schema", Field: "payload.doc_type",
		Expected: `one of "invoice", "credit_note", "statement", "out_of_scope", "suspicious"`, Got: `"receipt"`, Message: "value not allowed",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCheckBadInput(t *testing.T) {
	s := defaults(t)
	tests := []struct {
		name string
		edge string
		raw  string
		want []string
	}{
		{"not JSON", "intake->action", `{"id":`, []string{"json"}},
		{"JSON null", "intake->action", `null`, []string{"json"}},
		{"JSON array", "intake->action", `[1,2]`, []string{"json"}},
		{"empty object", "intake->action", `{}`, []string{"required", "required", "required", "required", "required", "required"}},
		{"payload not an object", "boundary->monitor", `{"id":"m","edge":"boundary->monitor","kind":"decision.made","schema_version":"1.0","item":"E1","payload":[],"next_owner":["monitor"],"idempotency_key":"E1:decision.made","escalation":"none"}`, []string{"type"}},
		{"unknown edge", "intake->boundary", `{}`, []string{"edge"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.Check(tt.edge, []byte(tt.raw), LevelSchema)
			if diff := cmp.Diff(tt.want, rules(got)); diff != "" {
				t.Errorf("rules (-want +got):\n%s\n%+v", diff, got)
			}
		})
	}
}

// A rule that cannot be evaluated is reported when the schema passed (here
// the contract declares the field optional), and left to the schema
// violation when it did not.
func TestRuleEvaluationError(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "c.yaml", `edge: a->b
kind: k
version: "1"
owner: b
fields:
  n: {type: number}
  s: {type: string, required: true}
rules:
  - id: n-positive
    expr: payload.n > 0.0
    message: n must be positive
`)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	msg := func(payload string) []byte {
		return []byte(`{"id":"1","edge":"a->b","kind":"k","schema_version":"1","item":"I","idempotency_key":"I:k","next_owner":["b"],"escalation":"none","payload":` + payload + `}`)
	}
	got := s.Check("a->b", msg(`{"s":"x"}`), LevelSemantic)
	if len(got) != 1 || got[0].Rule != "n-positive" || !strings.HasPrefix(got[0].Got, "cannot evaluate") {
		t.Errorf("missing field under a passing schema: got %+v, want one n-positive that cannot evaluate", got)
	}
	got = s.Check("a->b", msg(`{}`), LevelSemantic)
	if diff := cmp.Diff([]string{"required"}, rules(got)); diff != "" {
		t.Errorf("failing schema (-want +got):\n%s", diff)
	}
}

func TestParseLevel(t *testing.T) {
	for _, l := range AllLevels {
		got, err := ParseLevel(l.String())
		if err != nil || got != l {
			t.Errorf("ParseLevel(%q) = %v, %v", l.String(), got, err)
		}
	}
	if _, err := ParseLevel("strict"); err == nil {
		t.Error("ParseLevel(strict): want an error")
	}
	var l Level
	if err := l.UnmarshalText([]byte("Ownership")); err != nil || l != LevelOwnership {
		t.Errorf("UnmarshalText(Ownership) = %v, %v", l, err)
	}
}

// Check uses what Parse compiled: checking a message costs a small fraction
// of the allocations of compiling its contract.
func TestCheckDoesNotCompile(t *testing.T) {
	s := defaults(t)
	c, ok := s.Contract("intake->action")
	if !ok {
		t.Fatal("no intake->action contract")
	}
	raw := marshal(t, invoiceExtracted())
	src := Sources(invoice.Spec().Contracts)["intake-action.yaml"]
	// The uncached path: Check's memo would answer repeated bytes without
	// checking anything.
	check := testing.AllocsPerRun(20, func() {
		if v := s.check(c, "intake->action", raw, LevelSemantic); len(v) != 0 {
			t.Fatal(v)
		}
	})
	parse := testing.AllocsPerRun(2, func() {
		if _, err := Parse("intake-action.yaml", src); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("uncached check: %.0f allocations, compiling the contract: %.0f", check, parse)
	if check*10 > parse {
		t.Errorf("Check allocates %.0f times, compiling the contract %.0f: Check seems to compile", check, parse)
	}
}

func TestNullOwnerIsAnOwnershipMatter(t *testing.T) {
	s := defaults(t)
	m := invoiceExtracted()
	m["next_owner"] = nil
	if got := s.Check("intake->action", marshal(t, m), LevelSchema); len(got) != 0 {
		t.Errorf("schema: %+v", got)
	}
	if diff := cmp.Diff([]string{"owner"}, rules(s.Check("intake->action", marshal(t, m), LevelOwnership))); diff != "" {
		t.Errorf("ownership (-want +got):\n%s", diff)
	}
}
