package sandbox

import "strconv"

// apply runs a tool's effect once: it validates args, reads or writes the
// records, and returns the result and the id of the record written ("" for
// reads).
func (s *Sandbox) apply(t toolID, item string, a Args) (Result, string, *Error) {
	switch t {
	case tLookupSupplier:
		return s.lookupSupplier(a)
	case tFindInvoice:
		return s.findInvoice(a)
	case tRegisterInvoice:
		return s.registerInvoice(item, a)
	case tGetPurchaseOrder:
		return s.getPurchaseOrder(a)
	case tGetGoodsReceipts:
		return s.getGoodsReceipts(a)
	case tRecordMatch:
		return s.recordMatch(a)
	case tApproveInvoice:
		return s.approveInvoice(a)
	case tPostLedger:
		return s.postLedger(a)
	case tSchedulePayment:
		return s.schedulePayment(a)
	case tEscalate, tRejectInvoice, tCloseItem:
		return s.itemDecision(t, a)
	case tPublishReport:
		return s.publishReport(a)
	}
	return nil, "", errNotFound("unknown tool")
}

// lookupSupplier finds a supplier by id, else by email, else by name (the
// first argument given wins; email and name compare without case).
func (s *Sandbox) lookupSupplier(a Args) (Result, string, *Error) {
	id, e := optStr(a, "supplier_id")
	if e != nil {
		return nil, "", e
	}
	email, e := optStr(a, "email")
	if e != nil {
		return nil, "", e
	}
	name, e := optStr(a, "name")
	if e != nil {
		return nil, "", e
	}
	if id == "" && email == "" && name == "" {
		return nil, "", errInvalid("missing field supplier_id (or email, or name)")
	}
	for i := range s.st.Suppliers {
		sp := &s.st.Suppliers[i]
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
			return Result{
				"supplier_id": sp.ID, "name": sp.Name, "email": sp.Email,
				"bank_account": sp.BankAccount, "currency": sp.Currency,
			}, "", nil
		}
	}
	return nil, "", errNotFound("supplier not found")
}

// findInvoice looks an invoice up by supplier and number.
func (s *Sandbox) findInvoice(a Args) (Result, string, *Error) {
	sup, e := presentStr(a, "supplier_id")
	if e != nil {
		return nil, "", e
	}
	num, e := needStr(a, "number")
	if e != nil {
		return nil, "", e
	}
	if inv := s.invoiceByNumber(sup, num); inv != nil {
		return Result{"invoice_id": inv.ID, "status": inv.Status}, "", nil
	}
	return nil, "", errNotFound("invoice not found")
}

// registerInvoice enters an invoice in the register, refusing a second one
// with the same supplier and number (BR-409). The number may be given as
// "number" or "invoice_number"; email_id defaults to the call's item and
// doc_type to "invoice".
func (s *Sandbox) registerInvoice(item string, a Args) (Result, string, *Error) {
	var inv Invoice
	var e *Error
	if inv.SupplierID, e = presentStr(a, "supplier_id"); e != nil {
		return nil, "", e
	}
	field := "number"
	if _, ok := a[field]; !ok {
		if _, ok := a["invoice_number"]; ok {
			field = "invoice_number"
		}
	}
	if inv.Number, e = needStr(a, field); e != nil {
		return nil, "", e
	}
	if inv.Currency, e = needStr(a, "currency"); e != nil {
		return nil, "", e
	}
	if inv.Gross, e = needNum(a, "gross"); e != nil {
		return nil, "", e
	}
	if inv.Net, e = optNum(a, "net"); e != nil {
		return nil, "", e
	}
	if inv.Tax, e = optNum(a, "tax"); e != nil {
		return nil, "", e
	}
	if inv.EmailID, e = optStr(a, "email_id"); e != nil {
		return nil, "", e
	}
	if inv.PONumber, e = optStr(a, "po_number"); e != nil {
		return nil, "", e
	}
	if inv.DocType, e = optStr(a, "doc_type"); e != nil {
		return nil, "", e
	}
	if inv.InvoiceDate, e = optStr(a, "invoice_date"); e != nil {
		return nil, "", e
	}
	if inv.DueDate, e = optStr(a, "due_date"); e != nil {
		return nil, "", e
	}
	if inv.BankAccount, e = optStr(a, "bank_account"); e != nil {
		return nil, "", e
	}
	if inv.EmailID == "" {
		inv.EmailID = item
	}
	if inv.DocType == "" {
		inv.DocType = "invoice"
	}
	if prior := s.invoiceByNumber(inv.SupplierID, inv.Number); prior != nil {
		return nil, "", &Error{Kind: ErrRefused, Code: CodeDuplicate,
			Message: "duplicate invoice number " + inv.Number + " (" + prior.ID + ", " + prior.Status + ")"}
	}
	inv.ID = s.newID(kInvoice)
	inv.Status = "registered"
	s.st.Invoices = append(s.st.Invoices, inv)
	return Result{"invoice_id": inv.ID}, inv.ID, nil
}

func (s *Sandbox) getPurchaseOrder(a Args) (Result, string, *Error) {
	num, e := needStr(a, "po_number")
	if e != nil {
		return nil, "", e
	}
	po := s.purchaseOrder(num)
	if po == nil {
		return nil, "", errNotFound("purchase order " + num + " not found")
	}
	lines := make([]any, len(po.Lines))
	for i, l := range po.Lines {
		lines[i] = map[string]any{"sku": l.SKU, "qty": l.Qty, "unit_price": l.UnitPrice}
	}
	return Result{"po_number": po.Number, "supplier_id": po.SupplierID, "currency": po.Currency, "lines": lines}, "", nil
}

func (s *Sandbox) getGoodsReceipts(a Args) (Result, string, *Error) {
	num, e := needStr(a, "po_number")
	if e != nil {
		return nil, "", e
	}
	if s.purchaseOrder(num) == nil {
		return nil, "", errNotFound("purchase order " + num + " not found")
	}
	receipts := []any{}
	for i := range s.st.GoodsReceipts {
		g := &s.st.GoodsReceipts[i]
		if g.PONumber == num {
			receipts = append(receipts, map[string]any{"id": g.ID, "sku": g.SKU, "qty": g.Qty})
		}
	}
	return Result{"po_number": num, "receipts": receipts}, "", nil
}

// matchStatuses are the statuses record_match accepts.
var matchStatuses = map[string]bool{
	"matched": true, "variance_explained": true, "variance_unexplained": true,
	"no_po": true, "not_applicable": true,
}

func (s *Sandbox) recordMatch(a Args) (Result, string, *Error) {
	inv, e := s.invoiceArg(a)
	if e != nil {
		return nil, "", e
	}
	var m Match
	if m.Status, e = needStr(a, "status"); e != nil {
		return nil, "", e
	}
	if !matchStatuses[m.Status] {
		return nil, "", errInvalid("field status: unknown match status " + strconv.Quote(m.Status))
	}
	if m.PONumber, e = optStr(a, "po_number"); e != nil {
		return nil, "", e
	}
	if m.Variance, e = optNum(a, "variance"); e != nil {
		return nil, "", e
	}
	if m.Reason, e = optStr(a, "reason"); e != nil {
		return nil, "", e
	}
	m.ID = s.newID(kMatch)
	m.InvoiceID = inv.ID
	s.st.Matches = append(s.st.Matches, m)
	if inv.Status == "registered" {
		inv.Status = "matched"
	}
	return Result{"match_id": m.ID}, m.ID, nil
}

func (s *Sandbox) approveInvoice(a Args) (Result, string, *Error) {
	inv, e := s.invoiceArg(a)
	if e != nil {
		return nil, "", e
	}
	amt, e := needNum(a, "amount_eur")
	if e != nil {
		return nil, "", e
	}
	ap := Approval{ID: s.newID(kApproval), InvoiceID: inv.ID, AmountEUR: amt}
	s.st.Approvals = append(s.st.Approvals, ap)
	if inv.Status != "paid" {
		inv.Status = "approved"
	}
	return Result{"approval_id": ap.ID}, ap.ID, nil
}

func (s *Sandbox) postLedger(a Args) (Result, string, *Error) {
	inv, e := s.invoiceArg(a)
	if e != nil {
		return nil, "", e
	}
	var p Posting
	if p.Account, e = needStr(a, "account"); e != nil {
		return nil, "", e
	}
	if p.Amount, e = needNum(a, "amount"); e != nil {
		return nil, "", e
	}
	if p.Currency, e = needStr(a, "currency"); e != nil {
		return nil, "", e
	}
	p.ID = s.newID(kLedger)
	p.InvoiceID = inv.ID
	s.st.Ledger = append(s.st.Ledger, p)
	return Result{"posting_id": p.ID}, p.ID, nil
}

// schedulePayment schedules a payment of an approved invoice (BR-412
// without an approval). It does not refuse a second payment of the same
// invoice: preventing that is the caller's idempotency key's job.
func (s *Sandbox) schedulePayment(a Args) (Result, string, *Error) {
	inv, e := s.invoiceArg(a)
	if e != nil {
		return nil, "", e
	}
	var p Payment
	if p.SupplierID, e = needStr(a, "supplier_id"); e != nil {
		return nil, "", e
	}
	if p.Amount, e = needNum(a, "amount"); e != nil {
		return nil, "", e
	}
	if p.Currency, e = needStr(a, "currency"); e != nil {
		return nil, "", e
	}
	if p.DueDate, e = needStr(a, "due_date"); e != nil {
		return nil, "", e
	}
	if p.BankAccount, e = needStr(a, "bank_account"); e != nil {
		return nil, "", e
	}
	approved := false
	for i := range s.st.Approvals {
		if s.st.Approvals[i].InvoiceID == inv.ID {
			approved = true
			break
		}
	}
	if !approved {
		return nil, "", &Error{Kind: ErrRefused, Code: CodeNoApproval, Message: "no approval for invoice " + inv.ID}
	}
	p.ID = s.newID(kPayment)
	p.InvoiceID = inv.ID
	s.st.Payments = append(s.st.Payments, p)
	return Result{"payment_id": p.ID}, p.ID, nil
}

// itemDecision writes an escalation, rejection or closure for an item and
// moves the item's open invoices to the matching status.
func (s *Sandbox) itemDecision(t toolID, a Args) (Result, string, *Error) {
	item, e := needStr(a, "item")
	if e != nil {
		return nil, "", e
	}
	reason, e := needStr(a, "reason")
	if e != nil {
		return nil, "", e
	}
	var id, status string
	switch t {
	case tEscalate:
		id, status = s.newID(kEscalation), "escalated"
		s.st.Escalations = append(s.st.Escalations, Escalation{ID: id, Item: item, Reason: reason})
	case tRejectInvoice:
		id, status = s.newID(kRejection), "rejected"
		s.st.Rejections = append(s.st.Rejections, Rejection{ID: id, Item: item, Reason: reason})
	default:
		id, status = s.newID(kClosure), "closed"
		s.st.Closures = append(s.st.Closures, Closure{ID: id, Item: item, Reason: reason})
	}
	for i := range s.st.Invoices {
		inv := &s.st.Invoices[i]
		if inv.EmailID == item && inv.Status != "paid" {
			inv.Status = status
		}
	}
	return Result{resultKeys[t]: id}, id, nil
}

func (s *Sandbox) publishReport(a Args) (Result, string, *Error) {
	day, e := needStr(a, "day")
	if e != nil {
		return nil, "", e
	}
	v, ok := a["entries"]
	if !ok || v == nil {
		return nil, "", errInvalid("missing field entries")
	}
	var entries []ReportEntry
	switch list := v.(type) {
	case []ReportEntry:
		entries = append(make([]ReportEntry, 0, len(list)), list...)
	case []any:
		entries = make([]ReportEntry, 0, len(list))
		for i, x := range list {
			m, ok := x.(map[string]any)
			if !ok {
				return nil, "", errInvalid("field entries[" + strconv.Itoa(i) + "]: want object, got " + typeName(x))
			}
			en, e := reportEntry(i, m)
			if e != nil {
				return nil, "", e
			}
			entries = append(entries, en)
		}
	case []map[string]any:
		entries = make([]ReportEntry, 0, len(list))
		for i, m := range list {
			en, e := reportEntry(i, m)
			if e != nil {
				return nil, "", e
			}
			entries = append(entries, en)
		}
	default:
		return nil, "", errInvalid("field entries: want array, got " + typeName(v))
	}
	r := Report{ID: s.newID(kReport), Day: day, Entries: entries}
	s.st.Reports = append(s.st.Reports, r)
	return Result{"report_id": r.ID}, r.ID, nil
}

func reportEntry(i int, m map[string]any) (ReportEntry, *Error) {
	var en ReportEntry
	for _, f := range [...]struct {
		name string
		dst  *string
	}{{"item", &en.Item}, {"kind", &en.Kind}, {"reason", &en.Reason}} {
		path := "entries[" + strconv.Itoa(i) + "]." + f.name
		v, ok := m[f.name]
		if !ok || v == nil {
			return en, errInvalid("missing field " + path)
		}
		str, ok := v.(string)
		if !ok {
			return en, errInvalid("field " + path + ": want string, got " + typeName(v))
		}
		*f.dst = str
	}
	return en, nil
}

// invoiceArg reads invoice_id and returns the invoice it names.
func (s *Sandbox) invoiceArg(a Args) (*Invoice, *Error) {
	id, e := needStr(a, "invoice_id")
	if e != nil {
		return nil, e
	}
	for i := range s.st.Invoices {
		if s.st.Invoices[i].ID == id {
			return &s.st.Invoices[i], nil
		}
	}
	return nil, errNotFound("invoice " + id + " not found")
}

func (s *Sandbox) invoiceByNumber(supplier, number string) *Invoice {
	for i := range s.st.Invoices {
		inv := &s.st.Invoices[i]
		if inv.Number == number && inv.SupplierID == supplier {
			return inv
		}
	}
	return nil
}

func (s *Sandbox) purchaseOrder(num string) *PurchaseOrder {
	for i := range s.st.PurchaseOrders {
		if s.st.PurchaseOrders[i].Number == num {
			return &s.st.PurchaseOrders[i]
		}
	}
	return nil
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
