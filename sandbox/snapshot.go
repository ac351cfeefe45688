package sandbox

import (
	"cmp"
	"slices"
)

// Clone returns a deep copy of st, keeping its order.
func (st *State) Clone() *State {
	out := new(State)
	copyState(out, st)
	return out
}

// Sort orders every slice of st by id (purchase orders by number, the log by
// sequence), so that equal states marshal to equal bytes. Sorting is stable.
func (st *State) Sort() {
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
	slices.SortStableFunc(st.Log, func(a, b LogEntry) int { return cmp.Compare(a.Seq, b.Seq) })
}

// copyState deep-copies src into dst. Flat slices take one allocation each;
// the lines of all purchase orders and the entries of all reports share one
// backing array apiece.
func copyState(dst, src *State) {
	dst.Suppliers = clone(src.Suppliers)
	dst.GoodsReceipts = clone(src.GoodsReceipts)
	dst.Invoices = clone(src.Invoices)
	dst.Matches = clone(src.Matches)
	dst.Ledger = clone(src.Ledger)
	dst.Approvals = clone(src.Approvals)
	dst.Payments = clone(src.Payments)
	dst.Escalations = clone(src.Escalations)
	dst.Rejections = clone(src.Rejections)
	dst.Closures = clone(src.Closures)
	dst.Log = clone(src.Log)

	dst.PurchaseOrders = clone(src.PurchaseOrders)
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

	dst.Reports = clone(src.Reports)
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

// clone copies s; nil and empty stay nil so that a copy of an empty state
// costs nothing.
func clone[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}
