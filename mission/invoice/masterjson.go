package invoice

import "slices"

// masterMemoMax bounds a masterMemo: a worker runs the scenarios of a
// sweep by turns, each with master data of its own.
const masterMemoMax = 128

// masterMemo remembers the JSON of recent master data, most recent first.
type masterMemo struct {
	entries []*masterEntry
}

// masterEntry is one set of master data (a deep copy) and its JSON.
type masterEntry struct {
	st   Records // Suppliers, PurchaseOrders and GoodsReceipts only
	json []byte
}

// find returns the JSON of master data equal to st's, or nil.
func (m *masterMemo) find(st *Records) []byte {
	for i, e := range m.entries {
		if sameMaster(&e.st, st) {
			copy(m.entries[1:i+1], m.entries[:i])
			m.entries[0] = e
			return e.json
		}
	}
	return nil
}

// add remembers json as the JSON of st's master data, in the place of
// the least recent when the memo is full.
func (m *masterMemo) add(st *Records, json []byte) {
	e := &masterEntry{json: slices.Clone(json)}
	e.st.Suppliers = slices.Clone(st.Suppliers)
	e.st.GoodsReceipts = slices.Clone(st.GoodsReceipts)
	e.st.PurchaseOrders = slices.Clone(st.PurchaseOrders)
	for i := range e.st.PurchaseOrders {
		po := &e.st.PurchaseOrders[i]
		po.Lines = slices.Clone(po.Lines)
	}
	if len(m.entries) < masterMemoMax {
		m.entries = append(m.entries, nil)
	}
	copy(m.entries[1:], m.entries[:len(m.entries)-1])
	m.entries[0] = e
}

// sameMaster reports whether a and b hold the same master data: the same
// records field by field (numbers bit for bit), nil where the other is nil.
func sameMaster(a, b *Records) bool {
	return sameList(a.Suppliers, b.Suppliers, func(x, y *Supplier) bool { return *x == *y }) &&
		sameList(a.GoodsReceipts, b.GoodsReceipts, func(x, y *GoodsReceipt) bool {
			return x.ID == y.ID && x.PONumber == y.PONumber && x.SKU == y.SKU && sameBits(x.Qty, y.Qty)
		}) &&
		sameList(a.PurchaseOrders, b.PurchaseOrders, func(x, y *PurchaseOrder) bool {
			return x.Number == y.Number && x.SupplierID == y.SupplierID && x.Currency == y.Currency &&
				sameList(x.Lines, y.Lines, func(l, k *POLine) bool {
					return l.SKU == k.SKU && sameBits(l.Qty, k.Qty) && sameBits(l.UnitPrice, k.UnitPrice)
				})
		})
}

// sameList reports whether a and b are both nil or both not, of one
// length, and same for each pair of elements.
func sameList[T any](a, b []T, same func(x, y *T) bool) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if !same(&a[i], &b[i]) {
			return false
		}
	}
	return true
}
