package contracts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/baton-lab/baton/mission/invoice"
)

// The reference mission's edges, as the BRIEF names them.
var missionEdges = []string{"intake->action", "action->boundary", "boundary->monitor", "intake->monitor", "action->monitor"}

// envelope builds a clean message for item on edge.
func envelope(edge, kind, owner, item string, payload map[string]any) map[string]any {
	return map[string]any{
		"id": "m-" + item + "-" + edge + "-1", "edge": edge, "kind": kind, "schema_version": "1.0",
		"idempotency_key": item + ":" + kind, "next_owner": []any{owner},
		"escalation": "none", "escalation_ref": "", "item": item, "payload": payload,
	}
}

// invoiceExtracted is a clean, typical USD invoice on intake->action.
func invoiceExtracted() map[string]any {
	return envelope("intake->action", "invoice.extracted", "action", "E1", map[string]any{
		"email_id": "E1", "doc_type": "invoice", "supplier_id": "S-ACME", "supplier_name": "Acme Tools Ltd",
		"invoice_number": "INV-1001", "po_number": "PO-77", "currency": "USD",
		"net": 1000.00, "tax": 200.00, "gross": 1200.00,
		"lines": []any{
			map[string]any{"sku": "BOLT-8", "description": "Bolts M8", "qty": 100.0, "unit_price": 6.0, "amount": 600.0},
			map[string]any{"sku": "NUT-8", "description": "Nuts M8", "qty": 100.0, "unit_price": 4.0, "amount": 400.0},
		},
		"invoice_date": "2025-03-03", "due_date": "2025-04-02", "bank_account": "GB33BUKB20201555555555",
		"register_id": "R-17", "duplicate": false, "flags": []any{},
	})
}

// matchPrepared is the clean match.prepared for the same invoice.
func matchPrepared() map[string]any {
	return envelope("action->boundary", "match.prepared", "boundary", "E1", map[string]any{
		"email_id": "E1", "doc_type": "invoice", "supplier_id": "S-ACME", "invoice_number": "INV-1001",
		"po_number": "PO-77", "currency": "USD", "net": 1000.00, "tax": 200.00, "gross": 1200.00,
		"due_date": "2025-04-02", "bank_account": "GB33BUKB20201555555555", "register_id": "R-17",
		"flags": []any{}, "duplicate": false, "match_id": "M-3", "match_status": "matched",
		"variance": 0.0, "variance_reason": "", "proposal": "post",
	})
}

// decisionMade is the clean decision.made for the same invoice.
func decisionMade() map[string]any {
	return envelope("boundary->monitor", "decision.made", "monitor", "E1", map[string]any{
		"email_id": "E1", "invoice_number": "INV-1001", "supplier_id": "S-ACME", "decision": "approved",
		"reason": "", "currency": "USD", "gross": 1200.00, "amount_eur": 1104.00,
		"payment_id": "P-9", "escalation_id": "",
	})
}

// exceptionRaised is a clean exception.raised from agent.
func exceptionRaised(agent string) map[string]any {
	return envelope(agent+"->monitor", "exception.raised", "monitor", "E2", map[string]any{
		"email_id": "E2", "agent": agent, "kind": "tool_failure", "tool": "lookup_supplier",
		"code": "unavailable", "message": "supplier service unavailable",
	})
}

// payload returns a message's payload for editing.
func payload(m map[string]any) map[string]any { return m["payload"].(map[string]any) }

func marshal(tb testing.TB, m map[string]any) []byte {
	tb.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func defaults(tb testing.TB) *Set {
	tb.Helper()
	s, err := LoadFS(invoice.Spec().Contracts, "mission/invoice/contracts")
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// rules returns the rule ids of violations, in order.
func rules(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Rule)
	}
	return out
}

// writeFile writes a file under dir and returns its path.
func writeFile(tb testing.TB, dir, name, body string) string {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}
