package mission

// EnvelopeFields are the top-level fields of every hand-off message.
var EnvelopeFields = []string{"id", "edge", "kind", "schema_version", "idempotency_key", "next_owner", "escalation", "escalation_ref", "item", "payload"}

// payloadFields lists, per message kind, the payload fields the reference
// mission's emitters write.
var payloadFields = map[string][]string{
	KindInvoiceExtracted: {"email_id", "doc_type", "supplier_id", "supplier_name", "invoice_number", "po_number", "currency", "net", "tax", "gross", "lines", "invoice_date", "due_date", "bank_account", "register_id", "duplicate", "flags"},
	KindMatchPrepared:    {"email_id", "doc_type", "supplier_id", "invoice_number", "po_number", "currency", "net", "tax", "gross", "due_date", "bank_account", "register_id", "flags", "duplicate", "match_id", "match_status", "variance", "variance_reason", "proposal"},
	KindDecisionMade:     {"email_id", "invoice_number", "supplier_id", "decision", "reason", "currency", "gross", "amount_eur", "payment_id", "escalation_id"},
	KindExceptionRaised:  {"email_id", "agent", "kind", "tool", "code", "message"},
}

// edgeKinds gives the message kind each reference edge carries.
var edgeKinds = map[Edge]string{
	IntakeToAction:    KindInvoiceExtracted,
	ActionToBoundary:  KindMatchPrepared,
	BoundaryToMonitor: KindDecisionMade,
	IntakeToMonitor:   KindExceptionRaised,
	ActionToMonitor:   KindExceptionRaised,
}

// EdgeKind returns the message kind a reference edge carries, or "" when the
// reference mission has no such edge.
func EdgeKind(e Edge) string { return edgeKinds[e] }

// PayloadFields returns the payload fields the reference mission writes on
// edge e (nil when it has no such edge). Mutant catalogues are validated
// against it: a defect on a field the edge does not carry is an error.
func PayloadFields(e Edge) []string { return payloadFields[edgeKinds[e]] }

// HasAgent reports whether the reference mission has agent a.
func HasAgent(a Agent) bool {
	for _, x := range AllAgents {
		if x == a {
			return true
		}
	}
	return false
}
