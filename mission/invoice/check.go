package invoice

import (
	"cmp"
	"slices"
	"strconv"
	"sync"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// Expected is a scenario's expected end state, authored as business truth:
// what became of each email, and what the day's exception report says.
type Expected struct {
	Items  []ExpectedItem `json:"items" yaml:"items"`
	Report []ReportEntry  `json:"report" yaml:"report"`
}

var _ mission.Expectation = (*Expected)(nil)

// CloneExpectation returns a deep copy.
func (x *Expected) CloneExpectation() mission.Expectation {
	c := *x
	c.Items = cloneExpectedItems(x.Items)
	c.Report = slices.Clone(x.Report)
	return &c
}

func cloneExpectedItems(items []ExpectedItem) []ExpectedItem {
	out := slices.Clone(items)
	for i := range out {
		out[i].Alternatives = cloneExpectedItems(out[i].Alternatives)
	}
	return out
}

// ExpectedItem is the fate of one email.
type ExpectedItem struct {
	Item         string         `json:"item" yaml:"item"`                   // email id
	Outcome      string         `json:"outcome" yaml:"outcome"`             // paid, escalated, rejected, closed
	Invoice      string         `json:"invoice,omitempty" yaml:"invoice"`   // invoice number, when one is registered
	Supplier     string         `json:"supplier,omitempty" yaml:"supplier"` // supplier id
	Amount       float64        `json:"amount,omitempty" yaml:"amount"`     // paid: amount in Currency
	Currency     string         `json:"currency,omitempty" yaml:"currency"`
	DueDate      string         `json:"due_date,omitempty" yaml:"due_date"`
	BankAccount  string         `json:"bank_account,omitempty" yaml:"bank_account"`
	Reason       string         `json:"reason,omitempty" yaml:"reason"` // escalated, rejected, closed
	Alternatives []ExpectedItem `json:"alternatives,omitempty" yaml:"alternatives"`
}

// Item outcomes and the reasons the log can excuse.
const (
	OutcomePaid      = "paid"
	OutcomeEscalated = "escalated"
	OutcomeRejected  = "rejected"
	OutcomeClosed    = "closed"

	// ReportRecord is the Difference.Record of the report as a whole.
	ReportRecord = "report:*"
)

// Check compares an end state with the expected one and returns every
// difference, sorted by record, field, want and got.
//
// Only records the run wrote count (those named as Effect in got.Log): what
// the initial state held is history. Each expected item's outcome is read
// from its payments (through the paid invoice's email id), escalations,
// rejections and closures, and compared with the expectation: outcome,
// amount to the cent, currency, due date, bank account, supplier, invoice
// number, reason, and the count of each (two payments for one item are a
// "count" difference). Records for items not expected are differences, as
// are duplicate matches, approvals and ledger postings of one invoice.
//
// An item's authored alternatives are accepted in place of its outcome. An
// escalation with reason system_unavailable is accepted (also beside the
// expected outcome) only when got's log shows that item had a call whose
// retries ended in error: an error entry with a retryable code and no later
// success of the same agent and tool for the item. An escalation or
// rejection with reason tool_refused is accepted only when the log shows a
// refusal for the item: an error whose code is of kind ErrRefused (a
// permission violation or invalid arguments are the caller's fault and
// excuse nothing). Authored alternatives with these reasons need the same
// evidence.
//
// Exactly one exception report is expected, unless none was written and the
// log shows the last attempt to publish one failed with a retryable code or
// a refusal. Its escalation and rejection entries are compared with the
// expected ones as a multiset of (item, kind, reason), using the accepted
// outcome for items accepted other than by their expectation; missing and
// extra entries are both differences. Entries of kind tool_failure or
// refusal are not required, and accepted when the log shows a failing call
// for the item. Report differences are named "report:<item>" (field
// "entry") and [ReportRecord] (field "count").
func Check(want *Expected, got *sandbox.State) []sandbox.Difference {
	return new(checker).check(want, got)
}

// checkers hands the end-state check its scratch, run after run: the
// maps and slices of one check are cleared for the next, and nothing but
// the differences it returns outlives a check.
type checkers struct{ pool sync.Pool }

// check is [Check] with a checker from the pool.
func (p *checkers) check(want *Expected, got *sandbox.State) []sandbox.Difference {
	c, _ := p.pool.Get().(*checker)
	if c == nil {
		c = new(checker)
	}
	diffs := c.check(want, got)
	c.reset()
	p.pool.Put(c)
	return diffs
}

// check is Check on c, which must be new or reset.
func (c *checker) check(want *Expected, got *sandbox.State) []sandbox.Difference {
	if want == nil {
		want = &Expected{}
	}
	var rec *Records
	var log []sandbox.LogEntry
	if got != nil {
		rec, _ = got.Records.(*Records)
		log = got.Log
	}
	if rec == nil {
		rec = &Records{}
	}
	if c.slab == nil {
		c.slab = make([]itemRecs, 0, len(want.Items)+1)
	}
	c.read(rec, log)
	var diffs []sandbox.Difference
	expected, replaced := c.expected, c.replaced
	for i := range want.Items {
		w := &want.Items[i]
		expected[w.Item] = true
		r := c.item(w.Item)
		if r.invoices > 1 {
			diffs = append(diffs, count("invoice", w.Item, 1, r.invoices))
		}
		primary, accepted := c.accept(w, r, &c.scratch)
		switch {
		case !accepted:
			diffs = c.compare(diffs, w.Item, w, r, false)
		case !primary:
			replaced[w.Item] = true
		}
	}
	for _, item := range c.items {
		if expected[item] {
			continue
		}
		r := c.item(item)
		for _, k := range [...]struct {
			kind string
			n    int
		}{{"invoice", r.invoices}, {"payment", len(r.payments)}, {"escalation", len(r.escalations)}, {"rejection", len(r.rejections)}, {"closure", len(r.closures)}} {
			if k.n > 0 {
				diffs = append(diffs, count(k.kind, item, 0, k.n))
			}
		}
	}
	diffs = append(diffs, c.dups...)
	diffs = c.report(diffs, want, replaced)
	slices.SortFunc(diffs, func(a, b sandbox.Difference) int {
		return cmp.Or(cmp.Compare(a.Record, b.Record), cmp.Compare(a.Field, b.Field),
			cmp.Compare(a.Want, b.Want), cmp.Compare(a.Got, b.Got))
	})
	return diffs
}

// itemRecs are the records the run wrote for one item.
type itemRecs struct {
	payments    []*Payment
	escalations []*Escalation
	rejections  []*Rejection
	closures    []*Closure
	invoices    int
}

// checker is one end-state check's state. A reset checker keeps its
// maps and slices (emptied) for the next check.
type checker struct {
	got     *Records
	log     *sandbox.LogFacts
	logv    sandbox.LogFacts // what log points to
	invByID map[string]*Invoice
	recs    map[string]int // item -> its records in slab
	slab    []itemRecs
	items   []string // keys of recs, sorted
	reports []*Report
	dups    []sandbox.Difference
	seen    map[dupKey]int

	expected, replaced map[string]bool
	bal                map[balKey]int       // report: expected minus reported
	scratch            []sandbox.Difference // accept's
	escs               []*Escalation        // compare's
	none               itemRecs             // the records of an item that has none
}

// dupKey names a record written twice for one invoice.
type dupKey struct{ kind, invoice, account string }

// balKey is a report entry as the report's balance counts it.
type balKey struct{ item, kind, reason string }

// reset empties c for the next check, letting go of the run it read.
func (c *checker) reset() {
	c.got, c.log, c.logv = nil, nil, sandbox.LogFacts{}
	clear(c.invByID)
	clear(c.recs)
	for i := range c.slab {
		r := &c.slab[i]
		clear(r.payments)
		clear(r.escalations)
		clear(r.rejections)
		clear(r.closures)
		*r = itemRecs{payments: r.payments[:0], escalations: r.escalations[:0], rejections: r.rejections[:0], closures: r.closures[:0]}
	}
	c.slab = c.slab[:0]
	c.items = c.items[:0]
	clear(c.reports)
	c.reports = c.reports[:0]
	c.dups = c.dups[:0]
	clear(c.seen)
	clear(c.expected)
	clear(c.replaced)
	clear(c.bal)
	c.scratch = c.scratch[:0]
	clear(c.escs)
	c.escs = c.escs[:0]
}

// read files the records got holds that the run wrote (those named as
// Effect in log) by item.
func (c *checker) read(got *Records, log []sandbox.LogEntry) {
	c.got = got
	c.logv = *sandbox.ReadLog(log)
	c.log = &c.logv
	if c.invByID == nil {
		c.invByID = make(map[string]*Invoice, len(got.Invoices))
		c.recs = make(map[string]int)
		c.seen = make(map[dupKey]int)
		c.expected = make(map[string]bool)
		c.replaced = make(map[string]bool)
		c.bal = make(map[balKey]int)
	}
	written := c.log.Written
	for i := range got.Invoices {
		inv := &got.Invoices[i]
		if _, dup := c.invByID[inv.ID]; !dup {
			c.invByID[inv.ID] = inv
		}
		if written(inv.ID) {
			c.rec(inv.EmailID).invoices++
		}
	}
	for i := range got.Payments {
		if p := &got.Payments[i]; written(p.ID) {
			r := c.rec(c.itemOf(p.InvoiceID))
			r.payments = append(r.payments, p)
		}
	}
	for i := range got.Escalations {
		if x := &got.Escalations[i]; written(x.ID) {
			r := c.rec(x.Item)
			r.escalations = append(r.escalations, x)
		}
	}
	for i := range got.Rejections {
		if x := &got.Rejections[i]; written(x.ID) {
			r := c.rec(x.Item)
			r.rejections = append(r.rejections, x)
		}
	}
	for i := range got.Closures {
		if x := &got.Closures[i]; written(x.ID) {
			r := c.rec(x.Item)
			r.closures = append(r.closures, x)
		}
	}
	for i := range got.Reports {
		if x := &got.Reports[i]; written(x.ID) {
			c.reports = append(c.reports, x)
		}
	}
	for item := range c.recs {
		c.items = append(c.items, item)
	}
	slices.Sort(c.items)

	// The same record written twice for one invoice is an action done twice.
	for i := range got.Matches {
		if m := &got.Matches[i]; written(m.ID) {
			c.seen[dupKey{"match", m.InvoiceID, ""}]++
		}
	}
	for i := range got.Approvals {
		if a := &got.Approvals[i]; written(a.ID) {
			c.seen[dupKey{"approval", a.InvoiceID, ""}]++
		}
	}
	for i := range got.Ledger {
		if p := &got.Ledger[i]; written(p.ID) {
			c.seen[dupKey{"ledger", p.InvoiceID, p.Account}]++
		}
	}
	for k, n := range c.seen {
		if n > 1 {
			c.dups = append(c.dups, count(k.kind, c.itemOf(k.invoice), 1, n))
		}
	}
}

// rec returns item's records, adding them if item has none yet. The
// pointer is good until the next call.
func (c *checker) rec(item string) *itemRecs {
	if i, ok := c.recs[item]; ok {
		return &c.slab[i]
	}
	n := len(c.slab)
	c.recs[item] = n
	if n < cap(c.slab) {
		c.slab = c.slab[:n+1] // reset left the element empty, its slices kept
	} else {
		c.slab = append(c.slab, itemRecs{})
	}
	return &c.slab[n]
}

// item returns item's records, empty when the run wrote none.
func (c *checker) item(item string) *itemRecs {
	if i, ok := c.recs[item]; ok {
		return &c.slab[i]
	}
	c.none = itemRecs{}
	return &c.none
}

// itemOf returns the email id of an invoice, or "" when it is unknown.
func (c *checker) itemOf(invoiceID string) string {
	if inv := c.invByID[invoiceID]; inv != nil {
		return inv.EmailID
	}
	return ""
}

// accept reports whether the item's records satisfy its expectation, an
// alternative, or an outcome the log excuses; primary is true when the
// expectation itself was met by exactly the records it names.
func (c *checker) accept(w *ExpectedItem, r *itemRecs, scratch *[]sandbox.Difference) (primary, accepted bool) {
	ev := c.log.Evidence(w.Item)
	// ok reports whether e is met, first by all records, then (with the
	// log's excuse) leaving system_unavailable escalations aside.
	ok := func(e *ExpectedItem) (met, exact bool) {
		if *scratch = c.compare((*scratch)[:0], w.Item, e, r, false); len(*scratch) == 0 {
			return true, true
		}
		if ev.Retry {
			*scratch = c.compare((*scratch)[:0], w.Item, e, r, true)
			return len(*scratch) == 0, false
		}
		return false, false
	}
	if met, exact := ok(w); met {
		return exact, true
	}
	excused := func(e *ExpectedItem) bool {
		switch e.Reason {
		case ReasonSystemUnavailable:
			return ev.Retry && e.Outcome == OutcomeEscalated
		case ReasonToolRefused:
			return ev.Refusal && (e.Outcome == OutcomeEscalated || e.Outcome == OutcomeRejected)
		}
		return true
	}
	for i := range w.Alternatives {
		if alt := &w.Alternatives[i]; excused(alt) {
			if met, _ := ok(alt); met {
				return false, true
			}
		}
	}
	for _, sub := range [...]ExpectedItem{
		{Outcome: OutcomeEscalated, Reason: ReasonSystemUnavailable},
		{Outcome: OutcomeEscalated, Reason: ReasonToolRefused},
		{Outcome: OutcomeRejected, Reason: ReasonToolRefused},
	} {
		if excused(&sub) {
			if met, _ := ok(&sub); met {
				return false, true
			}
		}
	}
	return false, false
}

// outcomeKinds maps an outcome to the record kind that carries it.
var outcomeKinds = map[string]string{
	OutcomePaid: "payment", OutcomeEscalated: "escalation", OutcomeRejected: "rejection", OutcomeClosed: "closure",
}

// compare appends the differences between item's records and e. With
// dropSys, system_unavailable escalations are left out (the log excuses
// them beside any outcome).
func (c *checker) compare(dst []sandbox.Difference, item string, e *ExpectedItem, r *itemRecs, dropSys bool) []sandbox.Difference {
	escs := r.escalations
	if dropSys {
		escs = c.escs[:0]
		for _, x := range r.escalations {
			if x.Reason != ReasonSystemUnavailable {
				escs = append(escs, x)
			}
		}
		c.escs = escs
	}
	counts := [...]struct {
		kind string
		n    int
	}{{"payment", len(r.payments)}, {"escalation", len(escs)}, {"rejection", len(r.rejections)}, {"closure", len(r.closures)}}
	kind, known := outcomeKinds[e.Outcome]
	if !known {
		kind = "item"
	}
	n := 0
	for _, k := range counts {
		if k.kind == kind {
			n = k.n
		} else if k.n > 0 {
			dst = append(dst, count(k.kind, item, 0, k.n))
		}
	}
	rec := kind + ":" + item
	if n == 0 {
		return append(dst, sandbox.Difference{Record: rec, Field: "outcome", Want: e.Outcome, Got: outcomes(r, len(escs))})
	}
	if n > 1 {
		dst = append(dst, count(kind, item, 1, n))
	}
	field := func(name, want, got string) {
		if want != "" && want != got {
			dst = append(dst, sandbox.Difference{Record: rec, Field: name, Want: want, Got: got})
		}
	}
	switch kind {
	case "payment":
		p := r.payments[0]
		if e.Amount != 0 && cents(e.Amount) != cents(p.Amount) {
			dst = append(dst, sandbox.Difference{Record: rec, Field: "amount", Want: money(e.Amount), Got: money(p.Amount)})
		}
		field("currency", e.Currency, p.Currency)
		field("due_date", e.DueDate, p.DueDate)
		field("bank_account", e.BankAccount, p.BankAccount)
		field("supplier", e.Supplier, p.SupplierID)
		if e.Invoice != "" {
			num := ""
			if inv := c.invByID[p.InvoiceID]; inv != nil {
				num = inv.Number
			}
			field("invoice", e.Invoice, num)
		}
	case "escalation":
		field("reason", e.Reason, escs[0].Reason)
	case "rejection":
		field("reason", e.Reason, r.rejections[0].Reason)
	case "closure":
		field("reason", e.Reason, r.closures[0].Reason)
	}
	return dst
}

// outcomes names the outcomes an item's records show, "none" if none.
func outcomes(r *itemRecs, escalations int) string {
	s := ""
	add := func(n int, o string) {
		if n > 0 {
			if s != "" {
				s += "+"
			}
			s += o
		}
	}
	add(len(r.payments), OutcomePaid)
	add(escalations, OutcomeEscalated)
	add(len(r.rejections), OutcomeRejected)
	add(len(r.closures), OutcomeClosed)
	if s == "" {
		return "none"
	}
	return s
}

// report appends the differences of the exception report.
func (c *checker) report(dst []sandbox.Difference, want *Expected, replaced map[string]bool) []sandbox.Difference {
	if len(c.reports) == 0 && c.log.LastCallFailed(PublishReport) {
		return dst // the log shows the system would not take the report
	}
	if len(c.reports) != 1 {
		dst = append(dst, sandbox.Difference{Record: ReportRecord, Field: "count", Want: "1", Got: strconv.Itoa(len(c.reports))})
	}
	bal := c.bal
	for _, e := range want.Report {
		if (e.Kind == "escalation" || e.Kind == "rejection") && !replaced[e.Item] {
			bal[balKey{e.Item, e.Kind, e.Reason}]++
		}
	}
	for item := range replaced {
		i, ok := c.recs[item]
		if !ok {
			continue
		}
		r := &c.slab[i]
		for _, x := range r.escalations {
			bal[balKey{item, "escalation", x.Reason}]++
		}
		for _, x := range r.rejections {
			bal[balKey{item, "rejection", x.Reason}]++
		}
	}
	if len(c.reports) > 0 {
		for _, e := range c.reports[0].Entries {
			switch e.Kind {
			case "escalation", "rejection":
				bal[balKey{e.Item, e.Kind, e.Reason}]--
			case "tool_failure", "refusal":
				if !c.log.Evidence(e.Item).Failure {
					dst = append(dst, sandbox.Difference{Record: "report:" + e.Item, Field: "entry", Got: e.Kind + " " + e.Reason})
				}
			default:
				dst = append(dst, sandbox.Difference{Record: "report:" + e.Item, Field: "entry", Got: e.Kind + " " + e.Reason})
			}
		}
	}
	for k, n := range bal {
		d := sandbox.Difference{Record: "report:" + k.item, Field: "entry"}
		if n > 0 {
			d.Want = k.kind + " " + k.reason
		} else {
			d.Got = k.kind + " " + k.reason
		}
		for ; n != 0; n -= sign(n) {
			dst = append(dst, d)
		}
	}
	return dst
}

func count(kind, item string, want, got int) sandbox.Difference {
	return sandbox.Difference{Record: kind + ":" + item, Field: "count", Want: strconv.Itoa(want), Got: strconv.Itoa(got)}
}

func money(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

func sign(n int) int {
	if n < 0 {
		return -1
	}
	return 1
}
