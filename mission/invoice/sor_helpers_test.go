package invoice

import (
	"testing"

	"github.com/baton-lab/baton/sandbox"
)

// fixture is a small system of record: two suppliers (listed out of id
// order), one order with receipts, and one invoice of an earlier email that
// is already paid.
func fixture() *Records {
	return &Records{
		Suppliers: []Supplier{
			{ID: "S2", Name: "Globex Inc", Email: "ar@globex.example", BankAccount: "US-111", Currency: "USD"},
			{ID: "S1", Name: "Acme GmbH", Email: "billing@acme.example", BankAccount: "DE-222", Currency: "EUR"},
		},
		PurchaseOrders: []PurchaseOrder{
			{Number: "PO-100", SupplierID: "S1", Currency: "EUR", Lines: []POLine{{SKU: "W-1", Qty: 10, UnitPrice: 25}}},
			{Number: "PO-050", SupplierID: "S2", Currency: "USD", Lines: []POLine{{SKU: "G-1", Qty: 1, UnitPrice: 900}, {SKU: "G-2", Qty: 2, UnitPrice: 50}}},
		},
		GoodsReceipts: []GoodsReceipt{
			{ID: "GR-2", PONumber: "PO-100", SKU: "W-1", Qty: 4},
			{ID: "GR-1", PONumber: "PO-100", SKU: "W-1", Qty: 6},
		},
		Invoices: []Invoice{
			{ID: "INV-0007", EmailID: "E0", SupplierID: "S1", Number: "A-77", DocType: "invoice", Currency: "EUR",
				Net: 100, Tax: 19, Gross: 119, DueDate: "2025-12-01", BankAccount: "DE-222", Status: "paid"},
		},
		Payments: []Payment{
			{ID: "PAY-0003", InvoiceID: "INV-0007", SupplierID: "S1", Amount: 119, Currency: "EUR", DueDate: "2025-12-01", BankAccount: "DE-222"},
		},
	}
}

// newSandbox returns a sandbox over the fixture with the given fault rates.
func newSandbox(tb testing.TB, rates sandbox.FaultRates) *sandbox.Sandbox {
	tb.Helper()
	return sandbox.New(spec().Tools, fixtureState(), sandbox.Config{Faults: rates}, sandbox.NewDice(42), sandbox.NewClock(sandbox.Epoch))
}

// mustCall makes a call that must succeed.
func mustCall(tb testing.TB, s *sandbox.Sandbox, agent, tool, item string, args sandbox.Args, key string) sandbox.Result {
	tb.Helper()
	res, err := s.Call(agent, tool, item, args, key, 0)
	if err != nil {
		tb.Fatalf("%s %s %s: %v", agent, tool, item, err)
	}
	return res
}

// mustFail makes a call that must fail and returns its error.
func mustFail(tb testing.TB, s *sandbox.Sandbox, agent, tool, item string, args sandbox.Args, key string, attempt int) *sandbox.Error {
	tb.Helper()
	res, err := s.Call(agent, tool, item, args, key, attempt)
	if err == nil {
		tb.Fatalf("%s %s %s: got %v, want an error", agent, tool, item, res)
	}
	e, ok := sandbox.AsError(err)
	if !ok {
		tb.Fatalf("%s %s %s: error %T is not *sandbox.Error", agent, tool, item, err)
	}
	return e
}

// invoiceArgs are register_invoice arguments for supplier S1.
func invoiceArgs(number string, gross float64) sandbox.Args {
	return sandbox.Args{"supplier_id": "S1", "number": number, "po_number": "PO-100", "doc_type": "invoice",
		"currency": "EUR", "net": gross / 1.19, "tax": gross - gross/1.19, "gross": gross,
		"invoice_date": "2026-01-05", "due_date": "2026-02-04", "bank_account": "DE-222"}
}

// payment describes a paid item for [pay]; zero fields take defaults.
type payment struct {
	number, currency, due, bank string
	amount                      float64
	key                         bool // use idempotency keys
}

// pay registers, approves, posts and pays one item the way the clean
// boundary does, and returns the invoice id.
func pay(tb testing.TB, s *sandbox.Sandbox, item string, p payment) string {
	tb.Helper()
	if p.number == "" {
		p.number = "A-" + item
	}
	if p.amount == 0 {
		p.amount = 100
	}
	if p.currency == "" {
		p.currency = "EUR"
	}
	if p.due == "" {
		p.due = "2026-02-04"
	}
	if p.bank == "" {
		p.bank = "DE-222"
	}
	key := func(tool string) string {
		if p.key {
			return item + ":" + tool
		}
		return ""
	}
	args := invoiceArgs(p.number, p.amount)
	args["currency"] = p.currency
	inv := mustCall(tb, s, "intake", RegisterInvoice, item, args, key(RegisterInvoice))["invoice_id"].(string)
	mustCall(tb, s, "boundary", ApproveInvoice, item, sandbox.Args{"invoice_id": inv, "amount_eur": p.amount}, key(ApproveInvoice))
	mustCall(tb, s, "boundary", PostLedger, item, sandbox.Args{"invoice_id": inv, "account": "2000-AP", "amount": p.amount, "currency": p.currency}, key(PostLedger))
	mustCall(tb, s, "boundary", SchedulePayment, item, sandbox.Args{"invoice_id": inv, "supplier_id": "S1", "amount": p.amount,
		"currency": p.currency, "due_date": p.due, "bank_account": p.bank}, key(SchedulePayment))
	return inv
}

// decide writes an escalation, rejection or closure for item.
func decide(tb testing.TB, s *sandbox.Sandbox, tool, item, reason string) {
	tb.Helper()
	mustCall(tb, s, "boundary", tool, item, sandbox.Args{"item": item, "reason": reason}, item+":"+tool)
}

// publish publishes the day's exception report.
func publish(tb testing.TB, s *sandbox.Sandbox, entries ...ReportEntry) {
	tb.Helper()
	list := make([]any, len(entries))
	for i, e := range entries {
		list[i] = map[string]any{"item": e.Item, "kind": e.Kind, "reason": e.Reason}
	}
	mustCall(tb, s, "monitor", PublishReport, "", sandbox.Args{"day": "2026-01-05", "entries": list}, "report:2026-01-05")
}

// fixtureState is the fixture as a sandbox's initial state.
func fixtureState() *sandbox.State { return &sandbox.State{Records: fixture()} }

// toolNames are the tools, in registration order.
var toolNames = func() []string {
	var out []string
	for _, t := range spec().Tools.Tools() {
		out = append(out, t.Name)
	}
	return out
}()

// countRecords counts the records of a kind (the record kind of a write
// tool) in st.
func countRecords(state *sandbox.State, kind string) int {
	st := recs(state)
	switch kind {
	case "invoice":
		return len(st.Invoices)
	case "match":
		return len(st.Matches)
	case "approval":
		return len(st.Approvals)
	case "ledger":
		return len(st.Ledger)
	case "payment":
		return len(st.Payments)
	case "escalation":
		return len(st.Escalations)
	case "rejection":
		return len(st.Rejections)
	case "closure":
		return len(st.Closures)
	case "report":
		return len(st.Reports)
	}
	panic("unknown record kind " + kind)
}

// lastLog returns the sandbox's last log entry.
func lastLog(tb testing.TB, s *sandbox.Sandbox) sandbox.LogEntry {
	tb.Helper()
	log := s.Snapshot().Log
	if len(log) == 0 {
		tb.Fatal("log is empty")
	}
	return log[len(log)-1]
}
