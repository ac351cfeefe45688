package invoice

import (
	"cmp"
	"slices"

	"github.com/baton-lab/baton/sandbox"
)

var _ sandbox.Records = (*Records)(nil)

// Sort orders every slice by id (purchase orders by number), so that
// equal records marshal to equal bytes. Sorting is stable.
func (st *Records) Sort() {
	slices.SortStableFunc(st.Suppliers, func(a, b Supplier) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortStableFunc(st.PurchaseOrders, func(a, b PurchaseOrder) int { return cmp.Compare(a.Number, b.Number) })
	slices.SortStableFunc(st.GoodsReceipts, func(a, b GoodsReceipt) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortStableFunc(st.Invoices, func(a, b Invoice) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortStableFunc(st.Matches, func(a, b Match) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortStableFunc(st.Ledger, func(a, b Posting) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortStableFunc(st.Approvals, func(a, b Approval) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortStableFunc(st.Payments, func(a, b Payment) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortStableFunc(st.Escalations, func(a, b Escalation) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortStableFunc(st.Rejections, func(a, b Rejection) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortStableFunc(st.Closures, func(a, b Closure) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortStableFunc(st.Reports, func(a, b Report) int { return cmp.Compare(a.ID, b.ID) })
}

// CopyFrom deep-copies src (a *Records) into st, whose arrays it reuses
// when they are large enough (a recycled sandbox's). Flat slices take one
// allocation each otherwise; the lines of all purchase orders and the
// entries of all reports share one new backing array apiece.
func (st *Records) CopyFrom(src sandbox.Records) {
	copyRecords(st, src.(*Records))
}

func copyRecords(dst, src *Records) {
	dst.Suppliers = sandbox.CloneInto(dst.Suppliers, src.Suppliers)
	dst.GoodsReceipts = sandbox.CloneInto(dst.GoodsReceipts, src.GoodsReceipts)
	dst.Invoices = sandbox.CloneInto(dst.Invoices, src.Invoices)
	dst.Matches = sandbox.CloneInto(dst.Matches, src.Matches)
	dst.Ledger = sandbox.CloneInto(dst.Ledger, src.Ledger)
	dst.Approvals = sandbox.CloneInto(dst.Approvals, src.Approvals)
	dst.Payments = sandbox.CloneInto(dst.Payments, src.Payments)
	dst.Escalations = sandbox.CloneInto(dst.Escalations, src.Escalations)
	dst.Rejections = sandbox.CloneInto(dst.Rejections, src.Rejections)
	dst.Closures = sandbox.CloneInto(dst.Closures, src.Closures)

	dst.PurchaseOrders = sandbox.CloneInto(dst.PurchaseOrders, src.PurchaseOrders)
	n := 0
	for i := range src.PurchaseOrders {
		n += len(src.PurchaseOrders[i].Lines)
	}
	if n > 0 {
		lines := make([]POLine, 0, n)
		for i := range dst.PurchaseOrders {
			po := &dst.PurchaseOrders[i]
			if po.Lines == nil {
				continue
			}
			start := len(lines)
			lines = append(lines, po.Lines...)
			po.Lines = lines[start:len(lines):len(lines)]
		}
	}

	dst.Reports = sandbox.CloneInto(dst.Reports, src.Reports)
	n = 0
	for i := range src.Reports {
		n += len(src.Reports[i].Entries)
	}
	if n > 0 {
		entries := make([]ReportEntry, 0, n)
		for i := range dst.Reports {
			r := &dst.Reports[i]
			if r.Entries == nil {
				continue
			}
			start := len(entries)
			entries = append(entries, r.Entries...)
			r.Entries = entries[start:len(entries):len(entries)]
		}
	}
}

// Reset makes every slice empty, keeping the arrays for the next copy
// into st and holding on to nothing they pointed to.
func (st *Records) Reset() {
	st.Suppliers = sandbox.Emptied(st.Suppliers)
	st.PurchaseOrders = sandbox.Emptied(st.PurchaseOrders)
	st.GoodsReceipts = sandbox.Emptied(st.GoodsReceipts)
	st.Invoices = sandbox.Emptied(st.Invoices)
	st.Matches = sandbox.Emptied(st.Matches)
	st.Ledger = sandbox.Emptied(st.Ledger)
	st.Approvals = sandbox.Emptied(st.Approvals)
	st.Payments = sandbox.Emptied(st.Payments)
	st.Escalations = sandbox.Emptied(st.Escalations)
	st.Rejections = sandbox.Emptied(st.Rejections)
	st.Closures = sandbox.Emptied(st.Closures)
	st.Reports = sandbox.Emptied(st.Reports)
}

// Clone returns a deep copy that keeps empty and nil slices apart (a
// scenario's copy, as it was authored).
func (st *Records) Clone() sandbox.Records {
	c := *st
	c.Suppliers = slices.Clone(st.Suppliers)
	c.PurchaseOrders = slices.Clone(st.PurchaseOrders)
	for i := range c.PurchaseOrders {
		c.PurchaseOrders[i].Lines = slices.Clone(st.PurchaseOrders[i].Lines)
	}
	c.GoodsReceipts = slices.Clone(st.GoodsReceipts)
	c.Invoices = slices.Clone(st.Invoices)
	c.Matches = slices.Clone(st.Matches)
	c.Ledger = slices.Clone(st.Ledger)
	c.Approvals = slices.Clone(st.Approvals)
	c.Payments = slices.Clone(st.Payments)
	c.Escalations = slices.Clone(st.Escalations)
	c.Rejections = slices.Clone(st.Rejections)
	c.Closures = slices.Clone(st.Closures)
	c.Reports = slices.Clone(st.Reports)
	for i := range c.Reports {
		c.Reports[i].Entries = slices.Clone(st.Reports[i].Entries)
	}
	return &c
}

// IDs reports the id of every record whose ids the sandbox issues, by
// the index of its kind in the registry's kinds.
func (st *Records) IDs(fn func(kind int, id string)) {
	for i := range st.Invoices {
		fn(kInvoice, st.Invoices[i].ID)
	}
	for i := range st.Matches {
		fn(kMatch, st.Matches[i].ID)
	}
	for i := range st.Ledger {
		fn(kLedger, st.Ledger[i].ID)
	}
	for i := range st.Approvals {
		fn(kApproval, st.Approvals[i].ID)
	}
	for i := range st.Payments {
		fn(kPayment, st.Payments[i].ID)
	}
	for i := range st.Escalations {
		fn(kEscalation, st.Escalations[i].ID)
	}
	for i := range st.Rejections {
		fn(kRejection, st.Rejections[i].ID)
	}
	for i := range st.Closures {
		fn(kClosure, st.Closures[i].ID)
	}
	for i := range st.Reports {
		fn(kReport, st.Reports[i].ID)
	}
}
