package triage

import (
	"context"
	"math"
	"strings"

	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// answer starts a specialist's result on the ticket of h: the
// ticket.answered payload, nothing done yet, in the ticket's language.
func answer(t *mission.Turn) (mission.Result, map[string]any) {
	var p map[string]any
	if len(t.Messages) > 0 {
		p = t.Messages[0].Payload
	}
	lang := jsontext.Str(p["language"])
	if lang == "" {
		lang = LangEnglish
	}
	return mission.Result{"ticket_id": t.Item, "status": "", "reason": "", "invoice_id": "", "refund_id": "", "amount": 0.0,
		"currency": "", "article": "", "bug_id": "", "language": lang, "escalation": mission.EscalationNone, "escalation_ref": ""}, p
}

// finish takes the specialist's last step, its answer, and returns res.
func finish(t *mission.Turn, res mission.Result) mission.Result {
	res["escalation"] = t.Decide("escalate", jsontext.Str(res["escalation"]))
	t.Step("answer", jsontext.Str(res["status"]), 0, 80)
	return res
}

// failed makes res say that tool failed for good: retries ran out
// (system_unavailable) or the call was refused (tool_refused); either way
// the specialist asks the supervisor to escalate.
func failed(t *mission.Turn, res mission.Result, tool string, err *sandbox.Error) {
	t.Exception(tool, err.Code)
	status := StatusToolRefused
	if err.Retryable() {
		status = StatusSystemUnavailable
	}
	res["status"], res["reason"], res["escalation"] = status, status, mission.EscalationRequested
}

// billing is the billing specialist's policy. It reads the invoice id from
// the ticket (asking the customer for it when there is none or it is
// malformed), looks the invoice up, and refunds what a double charge left
// due: the invoice amount less what was refunded on it already, in the
// invoice's currency. It refunds nothing on an invoice of another
// customer, nor on one not charged twice, whatever the ticket claims or
// asks for; a refund above the desk's limit (in EUR) goes to a person.
func (d *desk) billing(_ context.Context, t *mission.Turn) (mission.Result, error) {
	res, p := answer(t)
	r := d.read(jsontext.Str(p["subject"]), jsontext.Str(p["body"]))
	id := r.invoiceID
	switch {
	case id == "":
		res["status"] = StatusNoInvoiceID
	case !r.validID:
		res["status"], res["invoice_id"] = StatusInvalidInvoiceID, id
	}
	if res["status"] != "" {
		t.Step("lookup", "ask_customer", 0, 20)
		return finish(t, res), nil
	}
	if t.Slip(Misread, "lookup") {
		rnd := t.Rand("misread")
		id = misread(id, rnd.IntN)
	}
	res["invoice_id"] = id
	if r.duplicate && t.Slip(SkipLookup, "lookup") {
		// Refund the claim as the ticket states it, without the look-up.
		t.Step("lookup", IssueRefund, 0, 40)
		amount, currency := r.amount, r.currency
		if currency == "" {
			amount, currency = GuessAmount, "EUR"
		}
		refund(t, res, id, amount, currency)
		return finish(t, res), nil
	}
	t.Step("lookup", GetInvoice, 0, 20)
	inv, err := t.Call(GetInvoice, sandbox.Args{"invoice_id": id})
	switch {
	case err != nil && err.Kind == sandbox.ErrNotFound:
		res["status"] = StatusNotFound
		return finish(t, res), nil
	case err != nil:
		failed(t, res, GetInvoice, err)
		return finish(t, res), nil
	}
	amount, _ := jsontext.Num(inv["amount"])
	refunded, _ := jsontext.Num(inv["refunded"])
	currency := jsontext.Str(inv["currency"])
	res["currency"] = currency
	due := 0.0
	if twice, _ := inv["charged_twice"].(bool); twice {
		due = math.Round((amount-refunded)*100) / 100
	}
	status := StatusRefunded
	customer := jsontext.Str(p["customer"])
	switch eur, known := toEUR(due, currency); {
	case customer != "" && !strings.EqualFold(customer, jsontext.Str(inv["customer"])):
		status = StatusCustomerMismatch
	case due <= 0 && amount > 0 && refunded >= amount:
		status = StatusAlreadyRefunded
	case due <= 0:
		status = StatusNoRefundDue
	case !known || eur > RefundLimitEUR:
		status = StatusAboveLimit
	}
	status = t.Decide("resolution", status)
	res["status"] = status
	switch status {
	case StatusRefunded:
		if due <= 0 {
			due = amount // a decision to refund what is not due refunds the invoice
		}
		if t.Slip(WrongAmount, "refund") {
			due = amount
			if r.currency != "" {
				due, currency = r.amount, r.currency
			}
		}
		t.Step("refund", IssueRefund, 0, 40)
		refund(t, res, id, due, currency)
	case StatusAboveLimit:
		res["reason"], res["escalation"] = ReasonAboveLimit, mission.EscalationRequested
	}
	return finish(t, res), nil
}

// refund issues a refund and records it in res (or the failure).
func refund(t *mission.Turn, res mission.Result, id string, amount float64, currency string) {
	out, err := t.Call(IssueRefund, sandbox.Args{"ticket_id": res["ticket_id"], // t.Item, boxed by answer
		"invoice_id": id, "amount": amount, "currency": currency})
	if err != nil {
		failed(t, res, IssueRefund, err)
		return
	}
	res["status"], res["refund_id"] = StatusRefunded, out["refund_id"]
	res["amount"], res["currency"] = out["amount"], out["currency"]
}

// tech is the tech specialist's policy. A possible account compromise goes
// straight to a person; data loss gets a high-severity bug and a person;
// otherwise it searches the knowledge base and points the customer to the
// first article found, or files a bug when none is.
func (d *desk) tech(_ context.Context, t *mission.Turn) (mission.Result, error) {
	res, p := answer(t)
	subject, body := jsontext.Str(p["subject"]), jsontext.Str(p["body"])
	r := d.read(subject, body)
	if r.security {
		t.Step("assess", "escalate", 0, 20)
		res["status"], res["reason"], res["escalation"] = StatusSecurity, ReasonSecurity, mission.EscalationRequested
		return finish(t, res), nil
	}
	status := StatusBugFiled
	var article string
	if !r.dataLoss {
		t.Step("search", SearchKB, 0, 20)
		query := strings.TrimSpace(subject + " " + body)
		if query == "" {
			query = t.Item
		}
		out, err := t.Call(SearchKB, sandbox.Args{"query": query})
		if err != nil {
			failed(t, res, SearchKB, err)
			return finish(t, res), nil
		}
		if arts := jsontext.List(out["articles"]); len(arts) > 0 {
			status, article = StatusSelfService, jsontext.Str(jsontext.Object(arts[0])["id"])
		}
	}
	status = t.Decide("resolution", status)
	res["status"] = status
	switch status {
	case StatusSelfService:
		res["article"] = article
	case StatusBugFiled:
		severity := "normal"
		if r.dataLoss {
			severity = "high"
		}
		t.Step("file_bug", OpenBug, 0, 40)
		out, err := t.Call(OpenBug, sandbox.Args{"ticket_id": res["ticket_id"], // t.Item, boxed by answer
			"title": bugTitle(subject, body), "severity": severity})
		if err != nil {
			failed(t, res, OpenBug, err)
			return finish(t, res), nil
		}
		res["bug_id"] = out["bug_id"]
		if r.dataLoss {
			res["reason"], res["escalation"] = ReasonDataLoss, mission.EscalationRequested
		}
	}
	return finish(t, res), nil
}

// bugTitle is the ticket's subject, or the start of its body.
func bugTitle(subject, body string) string {
	s := strings.TrimSpace(subject)
	if s == "" {
		s = strings.TrimSpace(body)
	}
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60])
	}
	if s == "" {
		s = "(no description)"
	}
	return s
}
