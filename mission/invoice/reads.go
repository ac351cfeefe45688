package invoice

import (
	"math"
	"slices"

	"github.com/baton-lab/baton/sandbox"
)

// reads is the memo of a read tool's handler (see [sandbox.Tx.Memo]): the
// results it built, by the index of the record they were built from, and
// a copy of that record. No tool writes suppliers, purchase orders or
// goods receipts, so a run asks again and again for results built from
// records equal to those of earlier calls and runs: a kept result is
// returned again when its record still equals the copy, field for field
// and float for float (bit for bit: -0 is not 0), and rebuilt otherwise.
type reads struct {
	suppliers    []keptSupplier
	orders       []keptOrder
	receiptLists []keptReceipts
}

type keptSupplier struct {
	from Supplier
	res  sandbox.Result
}

type keptOrder struct {
	from PurchaseOrder // its lines are the memo's own copy
	res  sandbox.Result
}

type keptReceipts struct {
	num  string
	from []GoodsReceipt // the receipts of num, in order
	res  sandbox.Result
}

// readsOf returns the memo of tx's tool, made on its first call.
func readsOf(tx *sandbox.Tx) *reads {
	p := tx.Memo()
	r, _ := (*p).(*reads)
	if r == nil {
		r = &reads{}
		*p = r
	}
	return r
}

// slot returns the element i of *s, growing *s to hold it.
func slot[T any](s *[]T, i int) *T {
	if i >= len(*s) {
		*s = append(*s, make([]T, i+1-len(*s))...)
	}
	return &(*s)[i]
}

// supplier is lookupSupplier's result for sp, the supplier at index i.
func (r *reads) supplier(i int, sp *Supplier) sandbox.Result {
	k := slot(&r.suppliers, i)
	if k.res == nil || k.from != *sp {
		k.from, k.res = *sp, supplierResult(sp)
	}
	return k.res
}

// purchaseOrder is getPurchaseOrder's result for po, the order at index i.
func (r *reads) purchaseOrder(i int, po *PurchaseOrder) sandbox.Result {
	k := slot(&r.orders, i)
	if k.res == nil || !sameOrder(&k.from, po) {
		k.from = *po
		k.from.Lines = slices.Clone(po.Lines)
		k.res = orderResult(po)
	}
	return k.res
}

// receipts is getGoodsReceipts's result for num, the number of the order
// at index i, over all the goods receipts on file.
func (r *reads) receipts(i int, num string, all []GoodsReceipt) sandbox.Result {
	k := slot(&r.receiptLists, i)
	if k.res == nil || k.num != num || !sameReceipts(k.from, num, all) {
		k.num, k.from = num, k.from[:0]
		for j := range all {
			if all[j].PONumber == num {
				k.from = append(k.from, all[j])
			}
		}
		k.res = receiptsResult(num, all)
	}
	return k.res
}

func supplierResult(sp *Supplier) sandbox.Result {
	return sandbox.Result{
		"supplier_id": sp.ID, "name": sp.Name, "email": sp.Email,
		"bank_account": sp.BankAccount, "currency": sp.Currency,
	}
}

func orderResult(po *PurchaseOrder) sandbox.Result {
	lines := make([]any, len(po.Lines))
	for i, l := range po.Lines {
		lines[i] = map[string]any{"sku": l.SKU, "qty": l.Qty, "unit_price": l.UnitPrice}
	}
	return sandbox.Result{"po_number": po.Number, "supplier_id": po.SupplierID, "currency": po.Currency, "lines": lines}
}

func receiptsResult(num string, all []GoodsReceipt) sandbox.Result {
	receipts := []any{}
	for i := range all {
		g := &all[i]
		if g.PONumber == num {
			receipts = append(receipts, map[string]any{"id": g.ID, "sku": g.SKU, "qty": g.Qty})
		}
	}
	return sandbox.Result{"po_number": num, "receipts": receipts}
}

// sameFloat compares bit for bit: the results encode -0 and 0 apart.
func sameFloat(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

func sameOrder(a, b *PurchaseOrder) bool {
	return a.Number == b.Number && a.SupplierID == b.SupplierID && a.Currency == b.Currency &&
		slices.EqualFunc(a.Lines, b.Lines, func(x, y POLine) bool {
			return x.SKU == y.SKU && sameFloat(x.Qty, y.Qty) && sameFloat(x.UnitPrice, y.UnitPrice)
		})
}

// sameReceipts reports whether the receipts of num among all are kept, in
// order.
func sameReceipts(kept []GoodsReceipt, num string, all []GoodsReceipt) bool {
	n := 0
	for i := range all {
		g := &all[i]
		if g.PONumber != num {
			continue
		}
		if n == len(kept) {
			return false
		}
		k := &kept[n]
		if k.ID != g.ID || k.PONumber != g.PONumber || k.SKU != g.SKU || !sameFloat(k.Qty, g.Qty) {
			return false
		}
		n++
	}
	return n == len(kept)
}
