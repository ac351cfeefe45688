package invoice

import "github.com/baton-lab/baton/sandbox"

// Handlers of the finance system's tools. The engine has checked each
// call's arguments against the tool's schema before a handler runs, so a
// handler reads them without checking again: arg and argNum read what is
// there, "" and 0 for what an optional argument left out.

func arg(a sandbox.Args, name string) string {
	s, _ := a[name].(string)
	return s
}

func argNum(a sandbox.Args, name string) float64 {
	if v, ok := a[name]; ok && v != nil {
		f, _ := sandbox.ToNumber(name, v)
		return f
	}
	return 0
}

func records(tx *sandbox.Tx) *Records { return tx.Records.(*Records) }

// lookupSupplier finds a supplier by id, else by email, else by name (the
// first argument given wins; email and name compare without case).
func lookupSupplier(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	id, email, name := arg(a, "supplier_id"), arg(a, "email"), arg(a, "name")
	st := records(tx)
	for i := range st.Suppliers {
		sp := &st.Suppliers[i]
		var hit bool
		switch {
		case id != "":
			hit = sp.ID == id
		case email != "":
			hit = equalFold(sp.Email, email)
		default:
			hit = equalFold(sp.Name, name)
		}
		if hit {
			return readsOf(tx).supplier(i, sp), "", nil
		}
	}
	return nil, "", sandbox.NotFound("supplier not found")
}

// findInvoice looks an invoice up by supplier and number.
func findInvoice(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	if inv := records(tx).invoiceByNumber(arg(a, "supplier_id"), arg(a, "number")); inv != nil {
		return sandbox.Result{"invoice_id": inv.ID, "status": inv.Status}, "", nil
	}
	return nil, "", sandbox.NotFound("invoice not found")
}

// registerInvoice enters an invoice in the register, refusing a second one
// with the same supplier and number (BR-409). The number may be given as
// "number" or "invoice_number"; email_id defaults to the call's item and
// doc_type to "invoice".
func registerInvoice(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	number := arg(a, "number")
	if number == "" {
		number = arg(a, "invoice_number")
	}
	inv := Invoice{
		SupplierID: arg(a, "supplier_id"), Number: number, Currency: arg(a, "currency"),
		Gross: argNum(a, "gross"), Net: argNum(a, "net"), Tax: argNum(a, "tax"),
		EmailID: arg(a, "email_id"), PONumber: arg(a, "po_number"), DocType: arg(a, "doc_type"),
		InvoiceDate: arg(a, "invoice_date"), DueDate: arg(a, "due_date"), BankAccount: arg(a, "bank_account"),
	}
	if inv.EmailID == "" {
		inv.EmailID = tx.Item
	}
	if inv.DocType == "" {
		inv.DocType = "invoice"
	}
	st := records(tx)
	if prior := st.invoiceByNumber(inv.SupplierID, inv.Number); prior != nil {
		return nil, "", sandbox.Refuse(CodeDuplicate, "duplicate invoice number "+inv.Number+" ("+prior.ID+", "+prior.Status+")")
	}
	inv.ID = tx.NewID()
	inv.Status = "registered"
	st.Invoices = append(st.Invoices, inv)
	return sandbox.Result{"invoice_id": inv.ID}, inv.ID, nil
}

func getPurchaseOrder(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	num := arg(a, "po_number")
	st := records(tx)
	i := st.purchaseOrderIndex(num)
	if i < 0 {
		return nil, "", sandbox.NotFound("purchase order " + num + " not found")
	}
	return readsOf(tx).purchaseOrder(i, &st.PurchaseOrders[i]), "", nil
}

func getGoodsReceipts(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	num := arg(a, "po_number")
	st := records(tx)
	i := st.purchaseOrderIndex(num)
	if i < 0 {
		return nil, "", sandbox.NotFound("purchase order " + num + " not found")
	}
	return readsOf(tx).receipts(i, num, st.GoodsReceipts), "", nil
}

func recordMatch(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	inv, e := records(tx).invoiceArg(a)
	if e != nil {
		return nil, "", e
	}
	m := Match{Status: arg(a, "status"), PONumber: arg(a, "po_number"), Variance: argNum(a, "variance"), Reason: arg(a, "reason")}
	m.ID = tx.NewID()
	m.InvoiceID = inv.ID
	st := records(tx)
	st.Matches = append(st.Matches, m)
	if inv.Status == "registered" {
		inv.Status = "matched"
	}
	return sandbox.Result{"match_id": m.ID}, m.ID, nil
}

func approveInvoice(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	st := records(tx)
	inv, e := st.invoiceArg(a)
	if e != nil {
		return nil, "", e
	}
	ap := Approval{ID: tx.NewID(), InvoiceID: inv.ID, AmountEUR: argNum(a, "amount_eur")}
	st.Approvals = append(st.Approvals, ap)
	if inv.Status != "paid" {
		inv.Status = "approved"
	}
	return sandbox.Result{"approval_id": ap.ID}, ap.ID, nil
}

func postLedger(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	st := records(tx)
	inv, e := st.invoiceArg(a)
	if e != nil {
		return nil, "", e
	}
	p := Posting{ID: tx.NewID(), InvoiceID: inv.ID, Account: arg(a, "account"), Amount: argNum(a, "amount"), Currency: arg(a, "currency")}
	st.Ledger = append(st.Ledger, p)
	return sandbox.Result{"posting_id": p.ID}, p.ID, nil
}

// schedulePayment schedules a payment of an approved invoice (BR-412
// without an approval). It does not refuse a second payment of the same
// invoice: preventing that is the caller's idempotency key's job.
func schedulePayment(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	st := records(tx)
	inv, e := st.invoiceArg(a)
	if e != nil {
		return nil, "", e
	}
	approved := false
	for i := range st.Approvals {
		if st.Approvals[i].InvoiceID == inv.ID {
			approved = true
			break
		}
	}
	if !approved {
		return nil, "", sandbox.Refuse(CodeNoApproval, "no approval for invoice "+inv.ID)
	}
	p := Payment{
		ID: tx.NewID(), InvoiceID: inv.ID, SupplierID: arg(a, "supplier_id"), Amount: argNum(a, "amount"),
		Currency: arg(a, "currency"), DueDate: arg(a, "due_date"), BankAccount: arg(a, "bank_account"),
	}
	st.Payments = append(st.Payments, p)
	return sandbox.Result{"payment_id": p.ID}, p.ID, nil
}

// itemDecision returns the handler that writes an escalation, rejection or
// closure for an item and moves the item's open invoices to the matching
// status.
func itemDecision(kind int) sandbox.Handler {
	status, resultID := "escalated", "escalation_id"
	switch kind {
	case kRejection:
		status, resultID = "rejected", "rejection_id"
	case kClosure:
		status, resultID = "closed", "closure_id"
	}
	return func(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
		item, reason := arg(a, "item"), arg(a, "reason")
		st := records(tx)
		id := tx.NewID()
		switch kind {
		case kEscalation:
			st.Escalations = append(st.Escalations, Escalation{ID: id, Item: item, Reason: reason})
		case kRejection:
			st.Rejections = append(st.Rejections, Rejection{ID: id, Item: item, Reason: reason})
		default:
			st.Closures = append(st.Closures, Closure{ID: id, Item: item, Reason: reason})
		}
		for i := range st.Invoices {
			inv := &st.Invoices[i]
			if inv.EmailID == item && inv.Status != "paid" {
				inv.Status = status
			}
		}
		return sandbox.Result{resultID: id}, id, nil
	}
}

func publishReport(tx *sandbox.Tx, a sandbox.Args) (sandbox.Result, string, *sandbox.Error) {
	var entries []ReportEntry
	switch list := a["entries"].(type) {
	case []ReportEntry:
		entries = append(make([]ReportEntry, 0, len(list)), list...)
	case []any:
		entries = make([]ReportEntry, 0, len(list))
		for _, x := range list {
			entries = append(entries, reportEntry(x.(map[string]any)))
		}
	case []map[string]any:
		entries = make([]ReportEntry, 0, len(list))
		for _, m := range list {
			entries = append(entries, reportEntry(m))
		}
	default:
		return nil, "", sandbox.Invalid("field entries: want a list of entries")
	}
	st := records(tx)
	r := Report{ID: tx.NewID(), Day: arg(a, "day"), Entries: entries}
	st.Reports = append(st.Reports, r)
	return sandbox.Result{"report_id": r.ID}, r.ID, nil
}

func reportEntry(m map[string]any) ReportEntry {
	return ReportEntry{Item: arg(m, "item"), Kind: arg(m, "kind"), Reason: arg(m, "reason")}
}

// invoiceArg returns the invoice invoice_id names.
func (st *Records) invoiceArg(a sandbox.Args) (*Invoice, *sandbox.Error) {
	id := arg(a, "invoice_id")
	for i := range st.Invoices {
		if st.Invoices[i].ID == id {
			return &st.Invoices[i], nil
		}
	}
	return nil, sandbox.NotFound("invoice " + id + " not found")
}

func (st *Records) invoiceByNumber(supplier, number string) *Invoice {
	for i := range st.Invoices {
		inv := &st.Invoices[i]
		if inv.Number == number && inv.SupplierID == supplier {
			return inv
		}
	}
	return nil
}

// purchaseOrderIndex returns the index of the purchase order numbered num,
// or -1.
func (st *Records) purchaseOrderIndex(num string) int {
	for i := range st.PurchaseOrders {
		if st.PurchaseOrders[i].Number == num {
			return i
		}
	}
	return -1
}

// equalFold compares ASCII case-insensitively (emails and names on file).
func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
