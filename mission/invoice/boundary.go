package invoice

import (
	"context"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// boundaryRule is the clean boundary's decision and reason for a
// match.prepared, as it reads it. See the package overview for the order.
func boundaryRule(p map[string]any, escalation string) (decision, reason string) {
	flags := list(p["flags"])
	docType := str(p["doc_type"])
	proposal := str(p["proposal"])
	duplicate, _ := p["duplicate"].(bool)
	switch {
	case docType == DocSuspicious || hasString(flags, FlagPromptInjection) || hasString(flags, FlagHTMLScript):
		return DecisionEscalated, ReasonSuspicious
	case duplicate || proposal == ProposalReject:
		return DecisionRejected, ReasonDuplicateInvoice
	case proposal == ProposalClose || docType == DocCreditNote || docType == DocStatement || docType == DocOutOfScope:
		switch docType {
		case DocCreditNote:
			return DecisionClosed, ReasonCreditNote
		case DocStatement:
			return DecisionClosed, ReasonStatement
		}
		return DecisionClosed, ReasonOutOfScope
	case str(p["supplier_id"]) == "" || hasString(flags, FlagUnknownSupplier):
		return DecisionEscalated, ReasonUnknownSupplier
	case hasString(flags, FlagBankAccountChanged):
		return DecisionEscalated, ReasonBankAccountChanged
	case hasString(flags, FlagPOSupplierMismatch):
		return DecisionEscalated, ReasonPOSupplierMismatch
	case hasString(flags, FlagSystemUnavailable):
		return DecisionEscalated, ReasonSystemUnavailable
	case hasString(flags, FlagToolRefused):
		return DecisionEscalated, ReasonToolRefused
	case str(p["match_status"]) == MatchVarianceUnexplained:
		return DecisionEscalated, ReasonVarianceUnexplained
	case str(p["match_status"]) == MatchNoPO:
		return DecisionEscalated, ReasonNoPO
	}
	gross, _ := p["gross"].(float64)
	amountEUR, known := amountInEUR(gross, str(p["currency"]))
	switch {
	case !known:
		return DecisionEscalated, ReasonUnknownCurrency
	case cents(amountEUR) > cents(ApprovalThresholdEUR):
		return DecisionEscalated, ReasonAboveThreshold
	case escalation == mission.EscalationRequested || proposal != ProposalPost:
		return DecisionEscalated, ReasonReviewRequested
	}
	return DecisionApproved, ReasonApproved
}

// amountInEUR converts with the fixed rate table, rounded to cents.
func amountInEUR(amount float64, currency string) (float64, bool) {
	rate, ok := RateToEUR(currency)
	return round2(amount * rate), ok
}

// defaultReasons is the reason boundary gives a decision the Decide seam
// changed to, when the clean rule had none for it.
var defaultReasons = map[string]string{
	DecisionApproved:  ReasonApproved,
	DecisionEscalated: ReasonReviewRequested,
	DecisionRejected:  ReasonDuplicateInvoice,
	DecisionClosed:    ReasonOutOfScope,
}

// boundary is the boundary agent's core on one match.prepared (as it reads
// it): decide, then escalate, reject, close, or look up, approve, post and
// schedule payment. A write that fails for good turns the item into an
// escalation with reason system_unavailable. The result is the
// decision.made payload plus "escalation" and "escalation_ref".
func boundary(_ context.Context, t *mission.Turn) (mission.Result, error) {
	h := t.Messages[0]
	p := h.Payload
	item := h.Item
	gross, _ := p["gross"].(float64)
	currency := str(p["currency"])
	amountEUR, _ := amountInEUR(gross, currency)
	// The payload's own values (str and float64 of them), to pass on
	// without boxing them again.
	grossV, currencyV := floatValue(p["gross"]), strValue(p["currency"])
	supplierIDV, registerIDV := strValue(p["supplier_id"]), strValue(p["register_id"])

	decision, reason := boundaryRule(p, h.Escalation)
	if h.Escalation == mission.EscalationEscalated {
		// A person already has it: say so, do not escalate again.
		if decision != DecisionEscalated {
			decision, reason = DecisionEscalated, ReasonReviewRequested
		}
	}
	if d := t.Decide("decision", decision); d != decision {
		decision, reason = d, defaultReasons[d]
	}
	t.Step("decision", decision, 0, len(reason))

	res := mission.Result{
		"email_id": item, "invoice_number": p["invoice_number"], "supplier_id": supplierIDV,
		"decision": decision, "reason": reason, "currency": currencyV, "gross": grossV,
		"amount_eur": amountEUR, "payment_id": "", "escalation_id": "",
		"escalation": mission.EscalationNone, "escalation_ref": "",
	}
	escalate := func(reason string) {
		res["decision"], res["reason"] = DecisionEscalated, reason
		if h.Escalation == mission.EscalationEscalated {
			res["escalation"], res["escalation_ref"] = mission.EscalationEscalated, h.EscalationRef
			res["escalation_id"] = h.EscalationRef
			return
		}
		t.Escalation(reason)
		out, err := t.Call(Escalate, sandbox.Args{"item": item, "reason": reason})
		if err != nil {
			t.Exception(Escalate, err.Code)
			return
		}
		id := str(out["escalation_id"])
		res["escalation_id"] = id
		res["escalation"], res["escalation_ref"] = mission.EscalationEscalated, id
	}
	// write runs one write; on failure for good it escalates instead.
	write := func(tool string, args sandbox.Args) (sandbox.Result, bool) {
		out, err := t.Call(tool, args)
		if err != nil {
			t.Exception(tool, err.Code)
			escalate(failureReason(err))
			return nil, false
		}
		return out, true
	}

	switch decision {
	case DecisionEscalated:
		escalate(reason)
	case DecisionRejected:
		write(RejectInvoice, sandbox.Args{"item": item, "reason": reason})
	case DecisionClosed:
		write(CloseItem, sandbox.Args{"item": item, "reason": reason})
	case DecisionApproved:
		bank := str(p["bank_account"])
		if !t.Slip(SkipLookup, "lookup") {
			sup, err := t.Call(LookupSupplier, sandbox.Args{"supplier_id": supplierIDV})
			switch {
			case err != nil && failedForGood(err):
				escalate(failureReason(err))
				return res, nil
			case err != nil:
				escalate(ReasonUnknownSupplier)
				return res, nil
			}
			bank = str(sup["bank_account"])
		}
		if _, ok := write(ApproveInvoice, sandbox.Args{"invoice_id": registerIDV, "amount_eur": amountEUR}); !ok {
			return res, nil
		}
		if _, ok := write(PostLedger, sandbox.Args{
			"invoice_id": registerIDV, "account": LedgerAccount, "amount": grossV, "currency": currencyV,
		}); !ok {
			return res, nil
		}
		out, ok := write(SchedulePayment, sandbox.Args{
			"invoice_id": registerIDV, "supplier_id": supplierIDV, "amount": grossV,
			"currency": currencyV, "due_date": p["due_date"], "bank_account": bank,
		})
		if !ok {
			return res, nil
		}
		res["payment_id"] = str(out["payment_id"])
	}
	return res, nil
}
