package triage

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// Expected is a scenario's expected end state, authored as business
// truth: what became of each ticket.
type Expected struct {
	Tickets []ExpectedTicket `json:"tickets" yaml:"tickets"`
}

var _ mission.Expectation = (*Expected)(nil)

// CloneExpectation returns a deep copy.
func (x *Expected) CloneExpectation() mission.Expectation {
	c := &Expected{Tickets: slices.Clone(x.Tickets)}
	for i := range c.Tickets {
		c.Tickets[i].Refunds = slices.Clone(x.Tickets[i].Refunds)
	}
	return c
}

// ExpectedTicket is the fate of one ticket.
type ExpectedTicket struct {
	Ticket string `json:"ticket" yaml:"ticket"`
	// Route is the specialists the ticket goes to (billing, tech, both),
	// or none: closed as out of scope, without a reply.
	Route string `json:"route" yaml:"route"`
	// Billing and Tech are the outcomes the customer's summary reports
	// for each specialist asked ("" for one not asked).
	Billing string `json:"billing,omitempty" yaml:"billing"`
	Tech    string `json:"tech,omitempty" yaml:"tech"`
	// Refunds are the refunds made for the ticket (none when empty).
	Refunds []ExpectedRefund `json:"refunds,omitempty" yaml:"refunds"`
	// Bug is whether a bug is filed for the ticket.
	Bug bool `json:"bug,omitempty" yaml:"bug"`
	// Escalation is the reason the ticket goes to a person ("" for none).
	Escalation string `json:"escalation,omitempty" yaml:"escalation"`
	// Language is the language of the summary ("" reads as en).
	Language string `json:"language,omitempty" yaml:"language"`
}

// ExpectedRefund is one refund: invoice, amount to the cent and currency.
type ExpectedRefund struct {
	Invoice  string  `json:"invoice" yaml:"invoice"`
	Amount   float64 `json:"amount" yaml:"amount"`
	Currency string  `json:"currency" yaml:"currency"`
}

// tickets groups what a run wrote, by ticket.
type ticketRecs struct {
	routes      []Route
	refunds     []Refund
	bugs        []Bug
	escalations []Escalation
	closures    []Closure
	replies     []Reply
}

// Check compares an end state with the expected one and returns every
// difference, sorted by record, field, want and got.
//
// Only records the run wrote count (those its log names as effects): what
// the initial state held is history. Per expected ticket: one route record
// with the expected route (none for a ticket closed as out of scope, which
// gets one closure with reason out_of_scope instead and no reply); exactly
// the expected refunds, as a multiset of (invoice, amount to the cent,
// currency); one bug or none; one escalation with the expected reason or
// none; and one reply whose billing and tech outcomes, language, and for a
// refund its amount, currency and refund id, are the expected ones.
// Records for tickets not expected are differences.
//
// A ticket escalated with reason system_unavailable is accepted in place of
// its expectation when the log shows one of its calls ran out of retries,
// and with reason tool_refused when the log shows a refusal: then only
// what it did write is compared (no refund, bug, route or reply beyond the
// expected ones).
func Check(want *Expected, got *sandbox.State) []sandbox.Difference {
	if want == nil {
		want = &Expected{}
	}
	rec, log := &Records{}, sandbox.ReadLog(nil)
	if got != nil {
		if r, ok := got.Records.(*Records); ok && r != nil {
			rec = r
		}
		log = sandbox.ReadLog(got.Log)
	}
	by := group(rec, log)
	var diffs []sandbox.Difference
	expected := map[string]bool{}
	for i := range want.Tickets {
		w := &want.Tickets[i]
		expected[w.Ticket] = true
		r := by[w.Ticket]
		if r == nil {
			r = &ticketRecs{}
		}
		if excused(w, r, log.Evidence(w.Ticket)) {
			diffs = append(diffs, partial(w, r)...)
			continue
		}
		diffs = append(diffs, compareTicket(w, r)...)
	}
	for ticket, r := range by {
		if !expected[ticket] {
			diffs = append(diffs, extra(ticket, r)...)
		}
	}
	slices.SortFunc(diffs, func(a, b sandbox.Difference) int {
		return cmp.Or(cmp.Compare(a.Record, b.Record), cmp.Compare(a.Field, b.Field), cmp.Compare(a.Want, b.Want), cmp.Compare(a.Got, b.Got))
	})
	return diffs
}

// group collects the records the run wrote, by ticket.
func group(rec *Records, log *sandbox.LogFacts) map[string]*ticketRecs {
	by := map[string]*ticketRecs{}
	at := func(ticket string) *ticketRecs {
		r := by[ticket]
		if r == nil {
			r = &ticketRecs{}
			by[ticket] = r
		}
		return r
	}
	for _, x := range rec.Routes {
		if log.Written(x.ID) {
			at(x.Ticket).routes = append(at(x.Ticket).routes, x)
		}
	}
	for _, x := range rec.Refunds {
		if log.Written(x.ID) {
			at(x.Ticket).refunds = append(at(x.Ticket).refunds, x)
		}
	}
	for _, x := range rec.Bugs {
		if log.Written(x.ID) {
			at(x.Ticket).bugs = append(at(x.Ticket).bugs, x)
		}
	}
	for _, x := range rec.Escalations {
		if log.Written(x.ID) {
			at(x.Ticket).escalations = append(at(x.Ticket).escalations, x)
		}
	}
	for _, x := range rec.Closures {
		if log.Written(x.ID) {
			at(x.Ticket).closures = append(at(x.Ticket).closures, x)
		}
	}
	for _, x := range rec.Replies {
		if log.Written(x.ID) {
			at(x.Ticket).replies = append(at(x.Ticket).replies, x)
		}
	}
	return by
}

func diff(kind, ticket, field, want, got string) sandbox.Difference {
	return sandbox.Difference{Record: kind + ":" + ticket, Field: field, Want: want, Got: got}
}

func count(kind, ticket string, want, got int) sandbox.Difference {
	return diff(kind, ticket, "count", strconv.Itoa(want), strconv.Itoa(got))
}

func cents(v float64) int64 { return int64(math.Round(v * 100)) }

func money(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// compareTicket compares one ticket's records with its expectation.
func compareTicket(w *ExpectedTicket, r *ticketRecs) []sandbox.Difference {
	var out []sandbox.Difference
	t := w.Ticket
	if w.Route == RouteNone {
		out = append(out, counts(t, r, 0, 0, 1)...)
		switch {
		case len(r.closures) != 1:
			out = append(out, count("closure", t, 1, len(r.closures)))
		case r.closures[0].Reason != ReasonOutOfScope:
			out = append(out, diff("closure", t, "reason", ReasonOutOfScope, r.closures[0].Reason))
		}
	} else {
		out = append(out, counts(t, r, 1, 1, 0)...)
		if len(r.routes) == 1 && r.routes[0].Route != w.Route {
			out = append(out, diff("route", t, "route", w.Route, r.routes[0].Route))
		}
		if len(r.replies) == 1 {
			out = append(out, compareReply(w, r, r.replies[0])...)
		}
	}
	out = append(out, compareRefunds(t, w.Refunds, r.refunds, false)...)
	if want := b2i(w.Bug); len(r.bugs) != want {
		out = append(out, count("bug", t, want, len(r.bugs)))
	}
	switch {
	case w.Escalation == "" && len(r.escalations) > 0:
		out = append(out, count("escalation", t, 0, len(r.escalations)))
	case w.Escalation != "" && len(r.escalations) != 1:
		out = append(out, count("escalation", t, 1, len(r.escalations)))
	case w.Escalation != "" && r.escalations[0].Reason != w.Escalation:
		out = append(out, diff("escalation", t, "reason", w.Escalation, r.escalations[0].Reason))
	}
	return out
}

// counts compares the number of routes, replies and closures.
func counts(t string, r *ticketRecs, routes, replies, closures int) []sandbox.Difference {
	var out []sandbox.Difference
	if len(r.routes) != routes {
		out = append(out, count("route", t, routes, len(r.routes)))
	}
	if len(r.replies) != replies {
		out = append(out, count("reply", t, replies, len(r.replies)))
	}
	if closures == 0 && len(r.closures) > 0 {
		out = append(out, count("closure", t, 0, len(r.closures)))
	}
	return out
}

// compareReply compares the summary with the expected outcomes.
func compareReply(w *ExpectedTicket, r *ticketRecs, got Reply) []sandbox.Difference {
	var out []sandbox.Difference
	t := w.Ticket
	lang := cmp.Or(w.Language, LangEnglish)
	for _, f := range []struct{ field, want, got string }{
		{"billing", w.Billing, got.Billing}, {"tech", w.Tech, got.Tech}, {"language", lang, got.Language},
	} {
		if f.want != f.got {
			out = append(out, diff("reply", t, f.field, f.want, f.got))
		}
	}
	if w.Billing == StatusRefunded && len(w.Refunds) == 1 {
		x := w.Refunds[0]
		if cents(got.Amount) != cents(x.Amount) {
			out = append(out, diff("reply", t, "amount", money(x.Amount), money(got.Amount)))
		}
		if got.Currency != x.Currency {
			out = append(out, diff("reply", t, "currency", x.Currency, got.Currency))
		}
		if len(r.refunds) == 1 && got.RefundID != r.refunds[0].ID {
			out = append(out, diff("reply", t, "refund_id", r.refunds[0].ID, got.RefundID))
		}
	}
	if w.Escalation != "" && len(r.escalations) == 1 && got.EscalationID != r.escalations[0].ID {
		out = append(out, diff("reply", t, "escalation_id", r.escalations[0].ID, got.EscalationID))
	}
	return out
}

func refundKey(invoice string, amount float64, currency string) string {
	return invoice + " " + money(amount) + " " + currency
}

// compareRefunds compares the refunds made with the expected multiset;
// subset accepts fewer than expected (an excused failure).
func compareRefunds(t string, want []ExpectedRefund, got []Refund, subset bool) []sandbox.Difference {
	left := map[string]int{}
	for _, x := range want {
		left[refundKey(x.Invoice, x.Amount, x.Currency)]++
	}
	var extra []string
	for _, x := range got {
		k := refundKey(x.InvoiceID, x.Amount, x.Currency)
		if left[k] > 0 {
			left[k]--
			continue
		}
		extra = append(extra, k)
	}
	var missing []string
	for _, x := range want {
		k := refundKey(x.Invoice, x.Amount, x.Currency)
		if left[k] > 0 {
			left[k]--
			missing = append(missing, k)
		}
	}
	if len(extra) == 0 && (len(missing) == 0 || subset) {
		return nil
	}
	var wantKeys, gotKeys []string
	for _, x := range want {
		wantKeys = append(wantKeys, refundKey(x.Invoice, x.Amount, x.Currency))
	}
	for _, x := range got {
		gotKeys = append(gotKeys, refundKey(x.InvoiceID, x.Amount, x.Currency))
	}
	slices.Sort(wantKeys)
	slices.Sort(gotKeys)
	return []sandbox.Difference{diff("refund", t, "refunds", orNone(wantKeys), orNone(gotKeys))}
}

func orNone(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, "; ")
}

// excused reports whether the ticket went to a person because the
// environment failed it, as the log shows: then its expectation cannot
// have been reached.
func excused(w *ExpectedTicket, r *ticketRecs, ev sandbox.Evidence) bool {
	if len(r.escalations) != 1 || r.escalations[0].Reason == w.Escalation {
		return false
	}
	switch r.escalations[0].Reason {
	case ReasonSystemUnavailable:
		return ev.Retry
	case ReasonToolRefused:
		return ev.Refusal
	}
	return false
}

// partial compares an excused ticket's writes with its expectation: none
// may go beyond the expected ones.
func partial(w *ExpectedTicket, r *ticketRecs) []sandbox.Difference {
	t := w.Ticket
	var out []sandbox.Difference
	routes, replies := 1, 1
	if w.Route == RouteNone {
		routes, replies = 0, 0
	}
	if len(r.routes) > routes {
		out = append(out, count("route", t, routes, len(r.routes)))
	}
	if len(r.replies) > replies {
		out = append(out, count("reply", t, replies, len(r.replies)))
	}
	if len(r.bugs) > b2i(w.Bug) {
		out = append(out, count("bug", t, b2i(w.Bug), len(r.bugs)))
	}
	return append(out, compareRefunds(t, w.Refunds, r.refunds, true)...)
}

// extra reports the records of a ticket no expectation names.
func extra(t string, r *ticketRecs) []sandbox.Difference {
	var out []sandbox.Difference
	for _, k := range []struct {
		kind string
		n    int
	}{{"route", len(r.routes)}, {"refund", len(r.refunds)}, {"bug", len(r.bugs)}, {"escalation", len(r.escalations)},
		{"closure", len(r.closures)}, {"reply", len(r.replies)}} {
		if k.n > 0 {
			out = append(out, count(k.kind, t, 0, k.n))
		}
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// String writes an expected ticket in a line, for messages.
func (w ExpectedTicket) String() string {
	return fmt.Sprintf("%s: route %s billing %q tech %q refunds %d bug %v escalation %q", w.Ticket, w.Route, w.Billing, w.Tech, len(w.Refunds), w.Bug, w.Escalation)
}
