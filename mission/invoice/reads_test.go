package invoice

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/sandbox"
)

// randomReads returns records from a small vocabulary, so that the runs of
// recycled sandboxes meet records equal to earlier ones, and records that
// differ from them in one field, a -0 or a receipt more or less.
func randomReads(rnd *rand.Rand) *Records {
	pick := func(s ...string) string { return s[rnd.IntN(len(s))] }
	num := func() float64 {
		return []float64{0, math.Copysign(0, -1), 1, 2.5, 10, 900}[rnd.IntN(6)]
	}
	st := &Records{}
	for i := range 1 + rnd.IntN(3) {
		st.Suppliers = append(st.Suppliers, Supplier{
			ID: "S" + itoa(i), Name: pick("Acme", "Globex"), Email: pick("a@x.example", "b@x.example"),
			BankAccount: pick("DE-1", "DE-2"), Currency: pick("EUR", "USD"),
		})
	}
	for i := range 1 + rnd.IntN(3) {
		po := PurchaseOrder{Number: "PO-" + itoa(i), SupplierID: pick("S0", "S1"), Currency: pick("EUR", "USD")}
		for range rnd.IntN(3) {
			po.Lines = append(po.Lines, POLine{SKU: pick("W-1", "W-2"), Qty: num(), UnitPrice: num()})
		}
		if rnd.IntN(4) == 0 {
			po.Lines = []POLine{}
		}
		st.PurchaseOrders = append(st.PurchaseOrders, po)
	}
	for i := range rnd.IntN(5) {
		st.GoodsReceipts = append(st.GoodsReceipts, GoodsReceipt{
			ID: "GR-" + itoa(i%3), PONumber: pick("PO-0", "PO-1", "PO-9"), SKU: pick("W-1", "W-2"), Qty: num(),
		})
	}
	return st
}

// jsonOf encodes v with encoding/json, which writes -0 apart from 0.
func jsonOf(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// TestReadsAsBuilt checks that the read tools' memoised results are, byte
// for byte, the results built afresh from the records the call sees, over
// the runs of recycled sandboxes and records that change within a run.
func TestReadsAsBuilt(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	reg := spec().Tools
	compared := 0
	for run := range 400 {
		s := sandbox.New(reg, &sandbox.State{Records: randomReads(rnd)}, sandbox.Config{}, sandbox.NewDice(1), nil)
		for call := range 12 {
			st := s.Records().(*Records)
			if call%4 == 3 { // the records change under the memo
				*st = *randomReads(rnd)
			}
			var got sandbox.Result
			var want any
			switch rnd.IntN(3) {
			case 0:
				i := rnd.IntN(len(st.Suppliers))
				sp := st.Suppliers[i]
				args := []sandbox.Args{{"supplier_id": sp.ID}, {"email": sp.Email}, {"name": sp.Name}}[rnd.IntN(3)]
				got = mustCall(t, s, "boundary", LookupSupplier, "E1", args, "")
				for j := range st.Suppliers { // the first that answers, as lookupSupplier reads args
					c := &st.Suppliers[j]
					if (args["supplier_id"] != nil && c.ID == sp.ID) || (args["email"] != nil && equalFold(c.Email, sp.Email)) ||
						(args["name"] != nil && equalFold(c.Name, sp.Name)) {
						want = supplierResult(c)
						break
					}
				}
			case 1:
				po := &st.PurchaseOrders[rnd.IntN(len(st.PurchaseOrders))]
				got = mustCall(t, s, "action", GetPurchaseOrder, "E1", sandbox.Args{"po_number": po.Number}, "")
				want = orderResult(&st.PurchaseOrders[st.purchaseOrderIndex(po.Number)])
			default:
				po := &st.PurchaseOrders[rnd.IntN(len(st.PurchaseOrders))]
				got = mustCall(t, s, "action", GetGoodsReceipts, "E1", sandbox.Args{"po_number": po.Number}, "")
				want = receiptsResult(po.Number, st.GoodsReceipts)
			}
			if diff := cmp.Diff(jsonOf(t, want), jsonOf(t, got)); diff != "" {
				t.Fatalf("run %d call %d: result (-want +got):\n%s", run, call, diff)
			}
			compared++
		}
		s.Recycle()
	}
	if compared == 0 {
		t.Fatal("no call compared")
	}
}

// TestReadsShared checks that a read tool returns the result it kept when
// its record has not changed, in the same run and in a recycled sandbox's
// next run, and a new one when a float changed only in sign.
func TestReadsShared(t *testing.T) {
	reg := spec().Tools
	state := fixtureState()
	s := sandbox.New(reg, state, sandbox.Config{}, sandbox.NewDice(1), nil)
	first := mustCall(t, s, "action", GetPurchaseOrder, "E1", sandbox.Args{"po_number": "PO-100"}, "")
	again := mustCall(t, s, "action", GetPurchaseOrder, "E2", sandbox.Args{"po_number": "PO-100"}, "")
	if !sameMap(first, again) {
		t.Error("the same order's result was built twice in one run")
	}
	s.Recycle()
	s = sandbox.New(reg, state, sandbox.Config{}, sandbox.NewDice(1), nil)
	next := mustCall(t, s, "action", GetPurchaseOrder, "E1", sandbox.Args{"po_number": "PO-100"}, "")
	if !sameMap(first, next) {
		t.Log("the pool gave a new sandbox: nothing to compare across runs")
	}
	s.Records().(*Records).PurchaseOrders[0].Lines[0].Qty = 0
	zero := mustCall(t, s, "action", GetPurchaseOrder, "E1", sandbox.Args{"po_number": "PO-100"}, "")
	s.Records().(*Records).PurchaseOrders[0].Lines[0].Qty = math.Copysign(0, -1)
	negZero := mustCall(t, s, "action", GetPurchaseOrder, "E1", sandbox.Args{"po_number": "PO-100"}, "")
	if sameMap(zero, negZero) || jsonOf(t, negZero) == jsonOf(t, zero) {
		t.Errorf("a quantity of -0 answered as 0: %s", jsonOf(t, negZero))
	}
}

// sameMap reports whether a and b are the same map, not just equal ones.
func sameMap(a, b sandbox.Result) bool {
	if len(a) != len(b) {
		return false
	}
	a["\x00probe"] = true
	_, same := b["\x00probe"]
	delete(a, "\x00probe")
	return same
}

// TestValuesAsRead checks that strValue and floatValue hold what str and a
// float64 assertion read, for every kind of decoded value.
func TestValuesAsRead(t *testing.T) {
	for _, v := range []any{nil, "", "EUR", 0.0, math.Copysign(0, -1), 1.5, true, []any{"x"}, map[string]any{}, json.Number("2")} {
		if got := strValue(v); got != any(str(v)) {
			t.Errorf("strValue(%#v) = %#v, want %#v", v, got, str(v))
		}
		f, _ := v.(float64)
		if got, ok := floatValue(v).(float64); !ok || math.Float64bits(got) != math.Float64bits(f) {
			t.Errorf("floatValue(%#v) = %#v, want %#v", v, got, f)
		}
	}
}
