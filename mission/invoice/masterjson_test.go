package invoice

import (
	"bytes"
	"math"
	"reflect"
	"strconv"
	"testing"
)

// TestAppendJSONMemo writes the records of many end states through one
// memo, twice in different orders, with master data changed in place
// between writes and more sets of master data than the memo holds: every
// write is AppendJSON's, byte for byte.
func TestAppendJSONMemo(t *testing.T) {
	_, ends := endStates(t)
	var states []*Records
	for _, st := range ends {
		states = append(states, recs(st))
	}
	odd := recs(fixtureState())
	odd.Suppliers[0].Name = "<Acme & \"Sons\">\n\u2028\xff"
	odd.GoodsReceipts[0].Qty = math.Copysign(0, -1)
	states = append(states, odd, &Records{}, &Records{Suppliers: []Supplier{}, PurchaseOrders: []PurchaseOrder{{Number: "P"}}})
	for i := range masterMemoMax + 5 {
		r := recs(fixtureState())
		r.Suppliers[0].BankAccount = "DE" + strconv.Itoa(i)
		states = append(states, r)
	}
	var memo any
	check := func(where string, st *Records) {
		t.Helper()
		want, err := st.AppendJSON([]byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.AppendJSONMemo([]byte("x"), &memo)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: AppendJSONMemo:\n%s\nAppendJSON:\n%s", where, got, want)
		}
	}
	for pass := range 2 {
		for k := range states {
			i := k
			if pass == 1 {
				i = (k * 7) % len(states)
			}
			check("state "+strconv.Itoa(i), states[i])
		}
	}
	// Master data changed in place after a write is written as it is now.
	st := recs(fixtureState())
	check("fixture", st)
	for _, change := range []func(){
		func() { st.Suppliers[0].BankAccount = "CH00" },
		func() { st.PurchaseOrders[0].Lines[0].Qty = math.Copysign(0, -1) },
		func() { st.PurchaseOrders[0].Lines = []POLine{} },
		func() { st.PurchaseOrders[0].Lines = nil },
		func() { st.GoodsReceipts = st.GoodsReceipts[:0] },
		func() { st.GoodsReceipts = nil },
	} {
		change()
		check("changed fixture", st)
	}
	if n := len(memo.(*masterMemo).entries); n > masterMemoMax {
		t.Errorf("the memo holds %d sets of master data, more than %d", n, masterMemoMax)
	}
	bad := recs(fixtureState())
	bad.GoodsReceipts[0].Qty = math.NaN()
	if got, err := bad.AppendJSONMemo([]byte("x"), &memo); err == nil || string(got) != "x" {
		t.Errorf("AppendJSONMemo with NaN = %q, %v; want x and an error", got, err)
	}
}

// TestSameMasterEveryField changes each field of each kind of master
// record in turn: sameMaster tells every change.
func TestSameMasterEveryField(t *testing.T) {
	base := func() *Records {
		return &Records{
			Suppliers:      []Supplier{{ID: "S", Name: "n", Email: "e", BankAccount: "b", Currency: "EUR"}},
			PurchaseOrders: []PurchaseOrder{{Number: "P", SupplierID: "S", Currency: "EUR", Lines: []POLine{{SKU: "k", Qty: 1, UnitPrice: 2}}}},
			GoodsReceipts:  []GoodsReceipt{{ID: "G", PONumber: "P", SKU: "k", Qty: 1}},
		}
	}
	if !sameMaster(base(), base()) {
		t.Fatal("sameMaster says two copies differ")
	}
	changes := 0
	for _, path := range []func(*Records) reflect.Value{
		func(r *Records) reflect.Value { return reflect.ValueOf(&r.Suppliers[0]).Elem() },
		func(r *Records) reflect.Value { return reflect.ValueOf(&r.PurchaseOrders[0]).Elem() },
		func(r *Records) reflect.Value { return reflect.ValueOf(&r.PurchaseOrders[0].Lines[0]).Elem() },
		func(r *Records) reflect.Value { return reflect.ValueOf(&r.GoodsReceipts[0]).Elem() },
	} {
		for i := range path(base()).NumField() {
			r := base()
			v := path(r)
			changeField(t, v.Field(i))
			changes++
			if sameMaster(base(), r) {
				t.Errorf("changing %s.%s: sameMaster says equal", v.Type().Name(), v.Type().Field(i).Name)
			}
		}
	}
	if changes != 5+4+3+4 {
		t.Errorf("%d fields changed, want 16", changes)
	}
	neg := base()
	neg.GoodsReceipts[0].Qty = 0
	zero := base()
	zero.GoodsReceipts[0].Qty = math.Copysign(0, -1)
	if sameMaster(neg, zero) {
		t.Error("sameMaster says 0 and -0 are the same quantity")
	}
}
