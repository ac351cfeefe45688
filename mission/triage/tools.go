package triage

import (
	"math"
	"slices"
	"strings"

	"github.com/baton-lab/baton/sandbox"
)

// Tool names. Each is scoped to the agents [newRegistry] lists for it.
const (
	GetInvoice     = "get_invoice"     // billing, read: {invoice_id} -> the invoice, or NF-404
	IssueRefund    = "issue_refund"    // billing, write: {ticket_id, invoice_id, amount, currency} -> {refund_id}; irreversible
	SearchKB       = "search_kb"       // tech, read: {query} -> {articles: [{id, title}]}
	OpenBug        = "open_bug"        // tech, write: {ticket_id, title, severity} -> {bug_id}
	RouteTicket    = "route_ticket"    // supervisor, write: {ticket_id, route} -> {route_id}
	GetTicket      = "get_ticket"      // supervisor, read: {ticket_id} -> {route, notes}, or NF-404
	NoteTicket     = "note_ticket"     // supervisor, write: a specialist's answer kept while waiting for the other
	ReplyToUser    = "reply_to_user"   // supervisor, write: the summary to the customer -> {reply_id}
	EscalateTicket = "escalate_ticket" // supervisor, write: {ticket_id, reason} -> {escalation_id}
	CloseTicket    = "close_ticket"    // supervisor, write: {ticket_id, reason} -> {closure_id}
)

// Money tools: what tech must never touch.
var MoneyTools = []string{GetInvoice, IssueRefund}

// Indexes of the record kinds in recordKinds.
const (
	kRefund = iota
	kBug
	kRoute
	kNote
	kEscalation
	kClosure
	kReply
)

// recordKinds are the kinds of record the tools write, with the prefix of
// their ids.
var recordKinds = []sandbox.RecordKind{
	kRefund:     {Name: "refund", Prefix: "REF", Doc: "money sent back on an invoice"},
	kBug:        {Name: "bug", Prefix: "BUG", Doc: "a bug filed for engineering"},
	kRoute:      {Name: "route", Prefix: "RTE", Doc: "the supervisor's triage of a ticket"},
	kNote:       {Name: "note", Prefix: "NTE", Doc: "a specialist's answer kept while the supervisor waits for the other"},
	kEscalation: {Name: "escalation", Prefix: "ESC", Doc: "a ticket put in front of a person"},
	kClosure:    {Name: "closure", Prefix: "CLO", Doc: "a ticket closed without a specialist"},
	kReply:      {Name: "reply", Prefix: "RPL", Doc: "the supervisor's summary to the customer"},
}

var (
	text     = sandbox.Schema{Type: sandbox.TypeString}
	nonEmpty = sandbox.Schema{Type: sandbox.TypeString, NonEmpty: true}
	number   = sandbox.Schema{Type: sandbox.TypeNumber}
	req      = func(name string, s sandbox.Schema) sandbox.Property { return sandbox.Prop(name, true, s) }
	opt      = func(name string, s sandbox.Schema) sandbox.Property { return sandbox.Prop(name, false, s) }
)

func enum(values ...string) sandbox.Schema {
	return sandbox.Schema{Type: sandbox.TypeString, NonEmpty: true, Enum: values}
}

// newRegistry registers the support desk's record kinds and tools.
func newRegistry() (*sandbox.Registry, error) {
	w := func(t sandbox.Tool, record, id string) sandbox.Tool {
		t.Access, t.Record, t.ResultID = sandbox.Write, record, id
		return t
	}
	sup, bil, tec := []string{string(Supervisor)}, []string{string(Billing)}, []string{string(Tech)}
	answer := []sandbox.Property{opt("status", text), opt("reason", text), opt("invoice_id", text), opt("refund_id", text),
		opt("amount", number), opt("currency", text), opt("article", text), opt("bug_id", text)}
	return sandbox.NewRegistry(sandbox.Setup{
		Records: func() sandbox.Records { return new(Records) },
		Kinds:   recordKinds,
		Tools: []sandbox.Tool{
			{Name: GetInvoice, Agents: bil, Handler: down(GetInvoice, getInvoice),
				Args:        sandbox.Object("", req("invoice_id", nonEmpty)),
				Description: "Look an invoice up: its customer, amount and currency, whether it was charged twice, and what was refunded on it already."},
			w(sandbox.Tool{Name: IssueRefund, Agents: bil, Handler: down(IssueRefund, issueRefund),
				Args: sandbox.Object("", req("ticket_id", nonEmpty), req("invoice_id", nonEmpty), req("amount", number),
					req("currency", nonEmpty)),
				Description: "Send money back on an invoice, in its currency. Irreversible; the refund service checks neither the invoice nor what is due."}, "refund", "refund_id"),
			{Name: SearchKB, Agents: tec, Handler: down(SearchKB, searchKB),
				Args:        sandbox.Object("", req("query", nonEmpty)),
				Description: "Search the troubleshooting articles; returns those whose keywords the query mentions."},
			w(sandbox.Tool{Name: OpenBug, Agents: tec, Handler: down(OpenBug, openBug),
				Args:        sandbox.Object("", req("ticket_id", nonEmpty), req("title", nonEmpty), req("severity", enum("normal", "high"))),
				Description: "File a bug for engineering, linked to the ticket."}, "bug", "bug_id"),
			w(sandbox.Tool{Name: RouteTicket, Agents: sup, Handler: down(RouteTicket, routeTicket),
				Args:        sandbox.Object("", req("ticket_id", nonEmpty), req("route", enum(RouteBilling, RouteTech, RouteBoth))),
				Description: "Record in the ticket log which specialists the ticket was handed to."}, "route", "route_id"),
			{Name: GetTicket, Agents: sup, Handler: down(GetTicket, getTicket),
				Args:        sandbox.Object("", req("ticket_id", nonEmpty)),
				Description: "Read a ticket's log: its route and the specialists' answers noted so far."},
			w(sandbox.Tool{Name: NoteTicket, Agents: sup, Handler: down(NoteTicket, noteTicket),
				Args:        sandbox.Object("", append([]sandbox.Property{req("ticket_id", nonEmpty), req("from", enum(string(Billing), string(Tech))), opt("language", text), opt("escalation", text)}, answer...)...),
				Description: "Keep a specialist's answer in the ticket log while waiting for the other specialist."}, "note", "note_id"),
			w(sandbox.Tool{Name: ReplyToUser, Agents: sup, Handler: down(ReplyToUser, replyToUser),
				Args: sandbox.Object("", req("ticket_id", nonEmpty), req("language", nonEmpty), opt("billing", text), opt("tech", text),
					opt("amount", number), opt("currency", text), opt("refund_id", text), opt("article", text), opt("bug_id", text),
					opt("escalation_id", text), req("message", nonEmpty)),
				Description: "Send the customer the summary of what was done about the ticket, in their language."}, "reply", "reply_id"),
			w(sandbox.Tool{Name: EscalateTicket, Agents: sup, Handler: down(EscalateTicket, ticketDecision(kEscalation)),
				Args:        sandbox.Object("", req("ticket_id", nonEmpty), req("reason", nonEmpty)),
				Description: "Put a ticket in front of a person, with the reason."}, "escalation", "escalation_id"),
			w(sandbox.Tool{Name: CloseTicket, Agents: sup, Handler: down(CloseTicket, ticketDecision(kClosure)),
				Args:        sandbox.Object("", req("ticket_id", nonEmpty), req("reason", nonEmpty)),
				Description: "Close a ticket no specialist needs to see (out of scope), with the reason."}, "closure", "closure_id"),
		},
	})
}

// down wraps a handler so that a tool listed in the day's outages answers
// SYS-503 to every call.
func down(tool string, h sandbox.Handler) sandbox.Handler {
	return func(tx *sandbox.Tx, args sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
		if slices.ContainsFunc(tx.Records.(*Records).Outages, func(o Outage) bool { return o.Tool == tool }) {
			return nil, "", &sandbox.Error{Kind: sandbox.ErrUnavailable, Code: sandbox.CodeUnavailable, Message: tool + " is down"}
		}
		return h(tx, args)
	}
}

func str(args sandbox.Args, k string) string {
	s, _ := args[k].(string)
	return s
}

func num(args sandbox.Args, k string) float64 {
	n, _ := sandbox.ToNumber(k, args[k])
	return n
}

func (st *Records) invoice(id string) *Invoice {
	for i := range st.Invoices {
		if st.Invoices[i].ID == id {
			return &st.Invoices[i]
		}
	}
	return nil
}

func getInvoice(tx *sandbox.Tx, args sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	id := str(args, "invoice_id")
	inv := tx.Records.(*Records).invoice(id)
	if inv == nil {
		return nil, "", sandbox.NotFound("no invoice " + id)
	}
	return sandbox.Result{"invoice_id": inv.ID, "customer": inv.Customer, "amount": inv.Amount, "currency": inv.Currency,
		"charged_twice": inv.ChargedTwice, "refunded": inv.Refunded}, "", nil
}

func issueRefund(tx *sandbox.Tx, args sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	st := tx.Records.(*Records)
	amount, err := sandbox.ToNumber("amount", args["amount"])
	if err != nil {
		return nil, "", err
	}
	if !(amount > 0) {
		return nil, "", sandbox.Invalid("field amount: want a positive amount")
	}
	r := Refund{ID: tx.NewID(), Ticket: str(args, "ticket_id"), InvoiceID: str(args, "invoice_id"), Amount: amount, Currency: str(args, "currency")}
	st.Refunds = append(st.Refunds, r)
	if inv := st.invoice(r.InvoiceID); inv != nil && inv.Currency == r.Currency {
		inv.Refunded = math.Round((inv.Refunded+amount)*100) / 100
	}
	return sandbox.Result{"refund_id": r.ID, "amount": r.Amount, "currency": r.Currency}, r.ID, nil
}

func searchKB(tx *sandbox.Tx, args sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	q := strings.ToLower(str(args, "query"))
	found := []any{}
	for _, a := range tx.Records.(*Records).Articles {
		if slices.ContainsFunc(a.Keywords, func(k string) bool { return k != "" && strings.Contains(q, strings.ToLower(k)) }) {
			found = append(found, map[string]any{"id": a.ID, "title": a.Title})
		}
	}
	return sandbox.Result{"articles": found}, "", nil
}

func openBug(tx *sandbox.Tx, args sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	st := tx.Records.(*Records)
	b := Bug{ID: tx.NewID(), Ticket: str(args, "ticket_id"), Title: str(args, "title"), Severity: str(args, "severity")}
	st.Bugs = append(st.Bugs, b)
	return sandbox.Result{"bug_id": b.ID}, b.ID, nil
}

func routeTicket(tx *sandbox.Tx, args sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	st := tx.Records.(*Records)
	r := Route{ID: tx.NewID(), Ticket: str(args, "ticket_id"), Route: str(args, "route")}
	st.Routes = append(st.Routes, r)
	return sandbox.Result{"route_id": r.ID}, r.ID, nil
}

func getTicket(tx *sandbox.Tx, args sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	st := tx.Records.(*Records)
	id := str(args, "ticket_id")
	route := ""
	for _, r := range st.Routes {
		if r.Ticket == id {
			route = r.Route
		}
	}
	if route == "" {
		return nil, "", sandbox.NotFound("no ticket " + id + " in the log")
	}
	notes := []any{}
	for _, n := range st.Notes {
		if n.Ticket == id {
			notes = append(notes, map[string]any{"from": n.From, "status": n.Status, "reason": n.Reason, "invoice_id": n.InvoiceID,
				"refund_id": n.RefundID, "amount": n.Amount, "currency": n.Currency, "article": n.Article, "bug_id": n.BugID,
				"language": n.Language, "escalation": n.Escalation})
		}
	}
	return sandbox.Result{"ticket_id": id, "route": route, "notes": notes}, "", nil
}

func noteTicket(tx *sandbox.Tx, args sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	st := tx.Records.(*Records)
	n := Note{ID: tx.NewID(), Ticket: str(args, "ticket_id"), From: str(args, "from"), Status: str(args, "status"),
		Reason: str(args, "reason"), InvoiceID: str(args, "invoice_id"), RefundID: str(args, "refund_id"), Amount: num(args, "amount"),
		Currency: str(args, "currency"), Article: str(args, "article"), BugID: str(args, "bug_id"), Language: str(args, "language"),
		Escalation: str(args, "escalation")}
	st.Notes = append(st.Notes, n)
	return sandbox.Result{"note_id": n.ID}, n.ID, nil
}

func replyToUser(tx *sandbox.Tx, args sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	st := tx.Records.(*Records)
	r := Reply{ID: tx.NewID(), Ticket: str(args, "ticket_id"), Language: str(args, "language"), Billing: str(args, "billing"),
		Tech: str(args, "tech"), Amount: num(args, "amount"), Currency: str(args, "currency"), RefundID: str(args, "refund_id"),
		Article: str(args, "article"), BugID: str(args, "bug_id"), EscalationID: str(args, "escalation_id"), Message: str(args, "message")}
	st.Replies = append(st.Replies, r)
	return sandbox.Result{"reply_id": r.ID}, r.ID, nil
}

// ticketDecision writes an escalation or a closure of a ticket.
func ticketDecision(kind int) sandbox.Handler {
	return func(tx *sandbox.Tx, args sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
		st := tx.Records.(*Records)
		id := tx.NewID()
		ticket, reason := str(args, "ticket_id"), str(args, "reason")
		field := "escalation_id"
		if kind == kClosure {
			st.Closures = append(st.Closures, Closure{ID: id, Ticket: ticket, Reason: reason})
			field = "closure_id"
		} else {
			st.Escalations = append(st.Escalations, Escalation{ID: id, Ticket: ticket, Reason: reason})
		}
		return sandbox.Result{field: id}, id, nil
	}
}
