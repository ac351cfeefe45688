package invoice

import "github.com/baton-lab/baton/mission"

// messages are the hand-off kinds, their payload fields in the order the
// emitters write them, and how the consumers' parsers read each one: its
// type and silent default. A missing currency reads as EUR, a missing
// document type as an invoice, a missing match status as matched, a
// missing proposal as post, and an unreadable due date as the invoice date
// (else the business day) plus 30 days.
func messages() []mission.MessageSpec {
	s := func(name string) mission.Field { return mission.Field{Name: name, Type: mission.FieldString} }
	sd := func(name, def string) mission.Field {
		return mission.Field{Name: name, Type: mission.FieldString, Default: def}
	}
	n := func(name string) mission.Field { return mission.Field{Name: name, Type: mission.FieldNumber} }
	b := func(name string) mission.Field { return mission.Field{Name: name, Type: mission.FieldBool} }
	date := mission.Field{Name: "invoice_date", Type: mission.FieldDate}
	due := mission.Field{Name: "due_date", Type: mission.FieldDate, DefaultDays: 30, DefaultFrom: "invoice_date"}
	flags := mission.Field{Name: "flags", Type: mission.FieldStrings}
	lines := mission.Field{Name: "lines", Type: mission.FieldObjects, Fields: []mission.Field{
		s("sku"), s("description"), n("qty"), n("unit_price"), n("amount"),
	}}
	return []mission.MessageSpec{
		{Kind: KindInvoiceExtracted, Doc: "intake's reading of an email and its document, registered", Fields: []mission.Field{
			s("email_id"), sd("doc_type", DocInvoice), s("supplier_id"), s("supplier_name"), s("invoice_number"),
			s("po_number"), sd("currency", "EUR"), n("net"), n("tax"), n("gross"), lines, date, due,
			s("bank_account"), s("register_id"), b("duplicate"), flags,
		}},
		{Kind: KindMatchPrepared, Doc: "action's match of the invoice and its proposal", Fields: []mission.Field{
			s("email_id"), sd("doc_type", DocInvoice), s("supplier_id"), s("invoice_number"), s("po_number"),
			sd("currency", "EUR"), n("net"), n("tax"), n("gross"), due, s("bank_account"), s("register_id"), flags,
			b("duplicate"), s("match_id"), sd("match_status", MatchMatched), n("variance"), s("variance_reason"),
			sd("proposal", ProposalPost),
		}},
		{Kind: KindDecisionMade, Doc: "boundary's decision on the item", Fields: []mission.Field{
			s("email_id"), s("invoice_number"), s("supplier_id"), s("decision"), s("reason"), sd("currency", "EUR"),
			n("gross"), n("amount_eur"), s("payment_id"), s("escalation_id"),
		}},
		{Kind: KindExceptionRaised, Doc: "a tool call that failed for good", Fields: []mission.Field{
			s("email_id"), s("agent"), sd("kind", ExceptionToolFailure), s("tool"), s("code"), s("message"),
		}},
	}
}
