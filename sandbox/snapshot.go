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

// copyState deep-copies src into dst, whose arrays it reuses when they are
// large enough (a recycled sandbox's). Flat slices take one allocation
// each otherwise; the lines of all purchase orders and the entries of all
// reports share one new backing array apiece.
func copyState(dst, src *State) {
	dst.Suppliers = cloneInto(dst.Suppliers, src.Suppliers)
	dst.GoodsReceipts = cloneInto(dst.GoodsReceipts, src.GoodsReceipts)
	dst.Invoices = cloneInto(dst.Invoices, src.Invoices)
	dst.Matches = cloneInto(dst.Matches, src.Matches)
	dst.Ledger = cloneInto(dst.Ledger, src.Ledger)
	dst.Approvals = cloneInto(dst.Approvals, src.Approvals)
	dst.Payments = cloneInto(dst.Payments, src.Payments)
	dst.Escalations = cloneInto(dst.Escalations, src.Escalations)
	dst.Rejections = cloneInto(dst.Rejections, src.Rejections)
	dst.Closures = cloneInto(dst.Closures, src.Closures)
	dst.Log = cloneInto(dst.Log, src.Log)

	dst.PurchaseOrders = cloneInto(dst.PurchaseOrders, src.PurchaseOrders)
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

	dst.Reports = cloneInto(dst.Reports, src.Reports)
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

// cloneInto copies s into dst's array when it is large enough, else into
// a new one. An empty s copies into an empty dst: nil for a nil dst (a
// new state), so that a copy of an empty state costs nothing and a
// snapshot of one holds nil.
func cloneInto[T any](dst, s []T) []T {
	if len(s) == 0 {
		return dst[:0]
	}
	if cap(dst) < len(s) {
		dst = make([]T, 0, len(s))
	}
	return append(dst[:0], s...)
}

// empty makes every slice of st empty, keeping the arrays for the next
// copy into st and holding on to nothing they pointed to.
func (st *State) empty() {
	st.Suppliers = emptied(st.Suppliers)
	st.PurchaseOrders = emptied(st.PurchaseOrders)
	st.GoodsReceipts = emptied(st.GoodsReceipts)
	st.Invoices = emptied(st.Invoices)
	st.Matches = emptied(st.Matches)
	st.Ledger = emptied(st.Ledger)
	st.Approvals = emptied(st.Approvals)
	st.Payments = emptied(st.Payments)
	st.Escalations = emptied(st.Escalations)
	st.Rejections = emptied(st.Rejections)
	st.Closures = emptied(st.Closures)
	st.Reports = emptied(st.Reports)
	st.Log = emptied(st.Log)
}

func emptied[T any](s []T) []T {
	clear(s)
	return s[:0]
}
