package invoice

import (
	"math"
	"sync"

	"github.com/baton-lab/baton/mission"
)

// A sweep's runs read the same scenario documents over and over: every
// build and trial hands intake the same emails. What intake's result takes
// from a document alone, its lines as result objects and its fields as
// boxed values, is made once per document and shared by every turn on it.
// A boxed string or number is immutable; the shared lines are only read
// downstream (encoded for the trace, deep-copied into each message, so
// that neither an Emit seam nor a parser reaches them). A turn whose
// reading differs from the document (a misread currency or amount, a
// looked-up name, another due date) boxes its own value: a box is reused
// only for a value equal to it, bit for bit. The memo is checked against
// the document field by field on every turn, so a changed document is
// read afresh.

// docMemoMax bounds the memo (documents, not bytes); a full memo starts
// again.
const docMemoMax = 1 << 10

// docMemo remembers docValues per document; safe for concurrent use.
type docMemo struct {
	mu sync.RWMutex
	m  map[*Document]*docValues
}

// docValues is what intake's turns share of one document, immutable.
type docValues struct {
	src   Document // a deep copy of the document the values were made from
	lines []any    // the result's "lines": never written
	// due is the document's due date as intake reads it when the
	// document has none: 30 days after the invoice date ("" when that is
	// unreadable, and the turn's day decides).
	due string
	v   extractedValues // the document's fields boxed (docType and supplierID unused)
	// from is the sender of the email the document came with, boxed.
	from any
}

// values returns d's shared values, made at the first turn on d (or
// again, if it changed). A nil memo makes them afresh each time.
func (c *docMemo) values(d *Document, em *mission.Input) *docValues {
	if c == nil {
		return newDocValues(d, em)
	}
	c.mu.RLock()
	dv := c.m[d]
	c.mu.RUnlock()
	if dv != nil && sameDocument(&dv.src, d) {
		return dv
	}
	dv = newDocValues(d, em)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= docMemoMax {
		c.m = make(map[*Document]*docValues)
	}
	c.m[d] = dv
	c.mu.Unlock()
	return dv
}

func newDocValues(d *Document, em *mission.Input) *docValues {
	dv := &docValues{src: *d, lines: resultLines(d.Lines), from: em.From}
	dv.src.Lines = append([]DocLine(nil), d.Lines...)
	if d.DueDate == "" {
		dv.due = mission.AddDays(d.InvoiceDate, 30)
	}
	due := d.DueDate
	if due == "" {
		due = dv.due
	}
	dv.v = extractedValues{
		emailID: em.ID, supplierName: d.SupplierName, invoiceNumber: d.InvoiceNumber, poNumber: d.PONumber,
		currency: d.Currency, net: round2(d.Net), tax: round2(d.Tax), gross: round2(d.Gross),
		invoiceDate: d.InvoiceDate, dueDate: due, bankAccount: d.BankAccount,
	}
	return dv
}

// resultLines returns lines as the objects of a result's "lines".
func resultLines(lines []DocLine) []any {
	out := make([]any, len(lines))
	for i, l := range lines {
		out[i] = map[string]any{
			"sku": l.SKU, "description": l.Description, "qty": l.Qty,
			"unit_price": l.UnitPrice, "amount": round2(l.Amount),
		}
	}
	return out
}

// sameDocument reports whether a and b are equal field by field, numbers
// bit for bit (0 and -0 are written differently).
func sameDocument(a, b *Document) bool {
	if a.Type != b.Type || a.SupplierName != b.SupplierName || a.InvoiceNumber != b.InvoiceNumber ||
		a.PONumber != b.PONumber || a.Currency != b.Currency || !sameBits(a.Net, b.Net) ||
		!sameBits(a.Tax, b.Tax) || !sameBits(a.Gross, b.Gross) || a.InvoiceDate != b.InvoiceDate ||
		a.DueDate != b.DueDate || a.BankAccount != b.BankAccount {
		return false
	}
	return sameList(a.Lines, b.Lines, func(x, y *DocLine) bool {
		return x.SKU == y.SKU && x.Description == y.Description && sameBits(x.Qty, y.Qty) &&
			sameBits(x.UnitPrice, y.UnitPrice) && sameBits(x.Amount, y.Amount)
	})
}

func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// boxString returns s as a value: box itself when it holds s.
func boxString(box any, s string) any {
	if b, ok := box.(string); ok && b == s {
		return box
	}
	return s
}

// boxNumber returns x as a value: box itself when it holds x, bit for bit.
func boxNumber(box any, x float64) any {
	if b, ok := box.(float64); ok && sameBits(b, x) {
		return box
	}
	return x
}

// docTypeValue returns a document type as a value, boxed by the compiler
// for the known ones.
func docTypeValue(t string) any {
	switch t {
	case DocInvoice:
		return DocInvoice
	case DocCreditNote:
		return DocCreditNote
	case DocStatement:
		return DocStatement
	case DocOutOfScope:
		return DocOutOfScope
	case DocSuspicious:
		return DocSuspicious
	}
	return t
}
