package invoice

import (
	"context"
	"math"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// Variance reasons the action agent records on a match.
const (
	VarianceQuantity   = "quantity_mismatch"
	VariancePrice      = "price_variance"
	VarianceCurrency   = "currency_mismatch"
	VariancePONotFound = "po_not_found"
)

// action is the action agent's core on one invoice.extracted (as it reads
// it): match against the purchase order and receipts, record the match and
// propose post, hold, close or reject. The result is the match.prepared
// payload plus "escalation", "escalation_ref" and maybe "exception".
func action(_ context.Context, t *mission.Turn) (mission.Result, error) {
	h := t.Messages[0]
	p := h.Payload
	item := h.Item
	in := list(p["flags"])
	flags := append(make([]any, 0, len(in)+1), in...)
	addFlag := func(f string) {
		if !hasString(flags, f) {
			flags = append(flags, f)
		}
	}
	docType := str(p["doc_type"])
	poNumber := str(p["po_number"])
	registerID := str(p["register_id"])
	// The payload's own values, to pass on without boxing them again.
	docTypeV, poNumberV, registerIDV := strValue(p["doc_type"]), strValue(p["po_number"]), strValue(p["register_id"])
	duplicate, _ := p["duplicate"].(bool)

	var exc map[string]any
	fail := func(tool string, err *sandbox.Error) {
		addFlag(failureFlag(err))
		if exc == nil {
			exc = exception(item, Action, tool, err)
			t.Exception(tool, err.Code)
		}
	}

	status, reason, variance, matchID := MatchNotApplicable, "", 0.0, ""
	if docType == DocInvoice && !duplicate && registerID != "" {
		status, reason, variance = match(t, p, poNumber, addFlag, fail)
		t.Step("match", status, 0, len(reason)+16)
		if status != "" {
			res, err := t.Call(RecordMatch, sandbox.Args{
				"invoice_id": registerIDV, "po_number": poNumberV, "status": status,
				"variance": variance, "reason": reason,
			})
			if err == nil {
				matchID = str(res["match_id"])
			} else {
				fail(RecordMatch, err)
			}
		} else {
			status = MatchNotApplicable
		}
	}

	proposal := propose(docType, duplicate, status, flags)
	proposal = t.Decide("proposal", proposal)
	t.Step("proposal", proposal, 0, 0)

	esc, ref := mission.EscalationNone, ""
	switch {
	case h.Escalation == mission.EscalationEscalated:
		esc, ref = mission.EscalationEscalated, h.EscalationRef
	case h.Escalation == mission.EscalationRequested || proposal == ProposalHold:
		esc = mission.EscalationRequested
	}
	if esc != mission.EscalationEscalated {
		esc = t.Decide("escalate", esc)
	}

	res := mission.Result{
		"email_id": item, "doc_type": docTypeV, "supplier_id": p["supplier_id"],
		"invoice_number": p["invoice_number"], "po_number": poNumberV, "currency": p["currency"],
		"net": p["net"], "tax": p["tax"], "gross": p["gross"], "due_date": p["due_date"],
		"bank_account": p["bank_account"], "register_id": registerIDV, "flags": flags,
		"duplicate": duplicate, "match_id": matchID, "match_status": status,
		"variance": variance, "variance_reason": reason, "proposal": proposal,
		"escalation": esc, "escalation_ref": ref,
	}
	if exc != nil {
		res["exception"] = exc
	}
	return res, nil
}

// match compares an invoice with its order and receipts. It returns "" as
// the status when a lookup failed for good (nothing to record).
func match(t *mission.Turn, p map[string]any, poNumber string, addFlag func(string), fail func(string, *sandbox.Error)) (status, reason string, variance float64) {
	if poNumber == "" {
		return MatchNoPO, "", 0
	}
	poNumberV := p["po_number"] // the string poNumber, boxed already
	po, err := t.Call(GetPurchaseOrder, sandbox.Args{"po_number": poNumberV})
	switch {
	case err != nil && failedForGood(err):
		fail(GetPurchaseOrder, err)
		return "", "", 0
	case err != nil:
		return MatchNoPO, VariancePONotFound, 0
	}
	if str(po["supplier_id"]) != str(p["supplier_id"]) {
		addFlag(FlagPOSupplierMismatch)
		return MatchVarianceUnexplained, ReasonPOSupplierMismatch, 0
	}
	net, _ := p["net"].(float64)
	if c := str(po["currency"]); c != "" && c != str(p["currency"]) {
		return MatchVarianceUnexplained, VarianceCurrency, 0
	}
	gr, err := t.Call(GetGoodsReceipts, sandbox.Args{"po_number": poNumberV})
	if err != nil {
		if failedForGood(err) {
			fail(GetGoodsReceipts, err)
			return "", "", 0
		}
		gr = nil
	}
	return matchLines(list(po["lines"]), list(gr["receipts"]), list(p["lines"]), net)
}

// matchLines applies the tolerance rules to an invoice's net and lines
// against PO lines and receipts (decoded JSON values).
func matchLines(poLines, receipts, docLines []any, net float64) (status, reason string, variance float64) {
	received := func(sku string) float64 {
		q := 0.0
		for _, x := range receipts {
			m := object(x)
			if str(m["sku"]) == sku {
				n, _ := num(m["qty"])
				q += n
			}
		}
		return q
	}
	poPrice := func(sku string) (float64, bool) {
		for _, x := range poLines {
			m := object(x)
			if str(m["sku"]) == sku {
				n, _ := num(m["unit_price"])
				return n, true
			}
		}
		return 0, false
	}
	value := 0.0
	for _, x := range poLines {
		m := object(x)
		price, _ := num(m["unit_price"])
		value += received(str(m["sku"])) * price
	}
	value = round2(value)
	variance = round2(net - value)
	tol := math.Max(0.01*value, 5.00)
	if cents(math.Abs(variance)) <= cents(tol) {
		return MatchMatched, "", variance
	}
	qtyOK, priceDiff := len(docLines) > 0, false
	for _, x := range docLines {
		m := object(x)
		sku := str(m["sku"])
		qty, _ := num(m["qty"])
		if qty != received(sku) {
			qtyOK = false
		}
		price, _ := num(m["unit_price"])
		if pp, ok := poPrice(sku); !ok {
			qtyOK = false
		} else if cents(pp) != cents(price) {
			priceDiff = true
		}
	}
	switch {
	case !qtyOK:
		return MatchVarianceUnexplained, VarianceQuantity, variance
	case priceDiff && cents(math.Abs(variance)) <= cents(0.05*value):
		return MatchVarianceExplained, VariancePrice, variance
	}
	return MatchVarianceUnexplained, VariancePrice, variance
}

// propose is the action agent's clean proposal.
func propose(docType string, duplicate bool, status string, flags []any) string {
	switch {
	case docType == DocSuspicious:
		return ProposalHold
	case duplicate:
		return ProposalReject
	case docType == DocCreditNote || docType == DocStatement || docType == DocOutOfScope:
		return ProposalClose
	}
	for _, f := range escalationFlags {
		if hasString(flags, f) {
			return ProposalHold
		}
	}
	if status == MatchMatched || status == MatchVarianceExplained {
		return ProposalPost
	}
	return ProposalHold
}
