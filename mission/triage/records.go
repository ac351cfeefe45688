package triage

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/baton-lab/baton/sandbox"
)

// Records are the support desk's system of record for one run, the
// mission's [sandbox.Records]. Scenarios author the initial part (invoices,
// knowledge-base articles, today's outages, and any refunds and bugs on
// file); the tools write the rest: the ticket log (routes, notes, replies,
// escalations, closures), refunds and bugs. Every slice is kept in
// insertion order; a snapshot sorts a copy by id.
type Records struct {
	Invoices    []Invoice    `json:"invoices" yaml:"invoices"`
	Articles    []Article    `json:"articles" yaml:"articles"`
	Outages     []Outage     `json:"outages" yaml:"outages"`
	Refunds     []Refund     `json:"refunds" yaml:"refunds"`
	Bugs        []Bug        `json:"bugs" yaml:"bugs"`
	Routes      []Route      `json:"routes" yaml:"routes"`
	Notes       []Note       `json:"notes" yaml:"notes"`
	Escalations []Escalation `json:"escalations" yaml:"escalations"`
	Closures    []Closure    `json:"closures" yaml:"closures"`
	Replies     []Reply      `json:"replies" yaml:"replies"`
}

// Invoice is a customer's invoice: what it was for, how often it was
// charged, and what was refunded on it already.
type Invoice struct {
	ID           string  `json:"id" yaml:"id"`
	Customer     string  `json:"customer" yaml:"customer"` // the customer's e-mail address
	Amount       float64 `json:"amount" yaml:"amount"`
	Currency     string  `json:"currency" yaml:"currency"`
	ChargedTwice bool    `json:"charged_twice" yaml:"charged_twice"`
	Refunded     float64 `json:"refunded" yaml:"refunded"` // in the invoice's currency
}

// Article is a knowledge-base article, found by its keywords.
type Article struct {
	ID       string   `json:"id" yaml:"id"`
	Title    string   `json:"title" yaml:"title"`
	Keywords []string `json:"keywords" yaml:"keywords"`
}

// Outage is a tool that is down for the whole day: every call answers
// SYS-503.
type Outage struct {
	Tool string `json:"tool" yaml:"tool"`
}

// Refund is money sent back on an invoice. The refund service trusts its
// caller: it checks neither the invoice nor what is due.
type Refund struct {
	ID        string  `json:"id" yaml:"id"`
	Ticket    string  `json:"ticket" yaml:"ticket"`
	InvoiceID string  `json:"invoice_id" yaml:"invoice_id"`
	Amount    float64 `json:"amount" yaml:"amount"`
	Currency  string  `json:"currency" yaml:"currency"`
}

// Bug is a bug filed for engineering.
type Bug struct {
	ID       string `json:"id" yaml:"id"`
	Ticket   string `json:"ticket" yaml:"ticket"`
	Title    string `json:"title" yaml:"title"`
	Severity string `json:"severity" yaml:"severity"` // normal, high
}

// Route is the supervisor's triage of a ticket in the ticket log.
type Route struct {
	ID     string `json:"id" yaml:"id"`
	Ticket string `json:"ticket" yaml:"ticket"`
	Route  string `json:"route" yaml:"route"` // billing, tech, both
}

// Note is a specialist's answer the supervisor keeps in the ticket log
// while it waits for the other specialist.
type Note struct {
	ID         string  `json:"id" yaml:"id"`
	Ticket     string  `json:"ticket" yaml:"ticket"`
	From       string  `json:"from" yaml:"from"`
	Status     string  `json:"status" yaml:"status"`
	Reason     string  `json:"reason" yaml:"reason"`
	InvoiceID  string  `json:"invoice_id" yaml:"invoice_id"`
	RefundID   string  `json:"refund_id" yaml:"refund_id"`
	Amount     float64 `json:"amount" yaml:"amount"`
	Currency   string  `json:"currency" yaml:"currency"`
	Article    string  `json:"article" yaml:"article"`
	BugID      string  `json:"bug_id" yaml:"bug_id"`
	Language   string  `json:"language" yaml:"language"`
	Escalation string  `json:"escalation" yaml:"escalation"`
}

// Escalation is a ticket put in front of a person.
type Escalation struct {
	ID     string `json:"id" yaml:"id"`
	Ticket string `json:"ticket" yaml:"ticket"`
	Reason string `json:"reason" yaml:"reason"`
}

// Closure is a ticket closed without a specialist.
type Closure struct {
	ID     string `json:"id" yaml:"id"`
	Ticket string `json:"ticket" yaml:"ticket"`
	Reason string `json:"reason" yaml:"reason"`
}

// Reply is the supervisor's summary to the customer: each specialist's
// outcome, in the customer's language.
type Reply struct {
	ID           string  `json:"id" yaml:"id"`
	Ticket       string  `json:"ticket" yaml:"ticket"`
	Language     string  `json:"language" yaml:"language"`
	Billing      string  `json:"billing" yaml:"billing"` // billing's status, "" when billing was not asked
	Tech         string  `json:"tech" yaml:"tech"`
	Amount       float64 `json:"amount" yaml:"amount"`
	Currency     string  `json:"currency" yaml:"currency"`
	RefundID     string  `json:"refund_id" yaml:"refund_id"`
	Article      string  `json:"article" yaml:"article"`
	BugID        string  `json:"bug_id" yaml:"bug_id"`
	EscalationID string  `json:"escalation_id" yaml:"escalation_id"`
	Message      string  `json:"message" yaml:"message"`
}

var _ sandbox.Records = (*Records)(nil)

// Sort orders every kind by id (outages by tool), stably.
func (st *Records) Sort() {
	byID := func(a, b string) int { return cmp.Compare(a, b) }
	slices.SortStableFunc(st.Invoices, func(a, b Invoice) int { return byID(a.ID, b.ID) })
	slices.SortStableFunc(st.Articles, func(a, b Article) int { return byID(a.ID, b.ID) })
	slices.SortStableFunc(st.Outages, func(a, b Outage) int { return byID(a.Tool, b.Tool) })
	slices.SortStableFunc(st.Refunds, func(a, b Refund) int { return byID(a.ID, b.ID) })
	slices.SortStableFunc(st.Bugs, func(a, b Bug) int { return byID(a.ID, b.ID) })
	slices.SortStableFunc(st.Routes, func(a, b Route) int { return byID(a.ID, b.ID) })
	slices.SortStableFunc(st.Notes, func(a, b Note) int { return byID(a.ID, b.ID) })
	slices.SortStableFunc(st.Escalations, func(a, b Escalation) int { return byID(a.ID, b.ID) })
	slices.SortStableFunc(st.Closures, func(a, b Closure) int { return byID(a.ID, b.ID) })
	slices.SortStableFunc(st.Replies, func(a, b Reply) int { return byID(a.ID, b.ID) })
}

// CopyFrom deep-copies src (a *Records) into st, reusing st's arrays when
// they are large enough. The keywords of all articles share one new
// backing array (each article's capped to its own), nil ones kept nil.
func (st *Records) CopyFrom(src sandbox.Records) {
	s := src.(*Records)
	st.Invoices = sandbox.CloneInto(st.Invoices, s.Invoices)
	st.Articles = sandbox.CloneInto(st.Articles, s.Articles)
	n := 0
	for i := range st.Articles {
		n += len(st.Articles[i].Keywords)
	}
	var keywords []string
	for i := range st.Articles {
		a := &st.Articles[i]
		if a.Keywords == nil {
			continue
		}
		if keywords == nil {
			keywords = make([]string, 0, n) // not nil, even for n == 0
		}
		start := len(keywords)
		keywords = append(keywords, a.Keywords...)
		a.Keywords = keywords[start:len(keywords):len(keywords)]
	}
	st.Outages = sandbox.CloneInto(st.Outages, s.Outages)
	st.Refunds = sandbox.CloneInto(st.Refunds, s.Refunds)
	st.Bugs = sandbox.CloneInto(st.Bugs, s.Bugs)
	st.Routes = sandbox.CloneInto(st.Routes, s.Routes)
	st.Notes = sandbox.CloneInto(st.Notes, s.Notes)
	st.Escalations = sandbox.CloneInto(st.Escalations, s.Escalations)
	st.Closures = sandbox.CloneInto(st.Closures, s.Closures)
	st.Replies = sandbox.CloneInto(st.Replies, s.Replies)
}

// Reset empties every kind, keeping the arrays.
func (st *Records) Reset() {
	st.Invoices = sandbox.Emptied(st.Invoices)
	st.Articles = sandbox.Emptied(st.Articles)
	st.Outages = sandbox.Emptied(st.Outages)
	st.Refunds = sandbox.Emptied(st.Refunds)
	st.Bugs = sandbox.Emptied(st.Bugs)
	st.Routes = sandbox.Emptied(st.Routes)
	st.Notes = sandbox.Emptied(st.Notes)
	st.Escalations = sandbox.Emptied(st.Escalations)
	st.Closures = sandbox.Emptied(st.Closures)
	st.Replies = sandbox.Emptied(st.Replies)
}

// Clone returns a deep copy that keeps empty and nil slices apart.
func (st *Records) Clone() sandbox.Records {
	c := *st
	c.Invoices = slices.Clone(st.Invoices)
	c.Articles = slices.Clone(st.Articles)
	for i := range c.Articles {
		c.Articles[i].Keywords = slices.Clone(st.Articles[i].Keywords)
	}
	c.Outages = slices.Clone(st.Outages)
	c.Refunds = slices.Clone(st.Refunds)
	c.Bugs = slices.Clone(st.Bugs)
	c.Routes = slices.Clone(st.Routes)
	c.Notes = slices.Clone(st.Notes)
	c.Escalations = slices.Clone(st.Escalations)
	c.Closures = slices.Clone(st.Closures)
	c.Replies = slices.Clone(st.Replies)
	return &c
}

// IDs reports the id of every record of a kind whose ids the sandbox
// issues, by the index of the kind in recordKinds.
func (st *Records) IDs(fn func(kind int, id string)) {
	for i := range st.Refunds {
		fn(kRefund, st.Refunds[i].ID)
	}
	for i := range st.Bugs {
		fn(kBug, st.Bugs[i].ID)
	}
	for i := range st.Routes {
		fn(kRoute, st.Routes[i].ID)
	}
	for i := range st.Notes {
		fn(kNote, st.Notes[i].ID)
	}
	for i := range st.Escalations {
		fn(kEscalation, st.Escalations[i].ID)
	}
	for i := range st.Closures {
		fn(kClosure, st.Closures[i].ID)
	}
	for i := range st.Replies {
		fn(kReply, st.Replies[i].ID)
	}
}

// AppendJSON appends the records as encoding/json marshals them. The
// triage desk's records are few, so reflection is fast enough here.
func (st *Records) AppendJSON(b []byte) ([]byte, error) {
	j, err := json.Marshal(st)
	if err != nil {
		return b, err
	}
	return append(b, j...), nil
}
