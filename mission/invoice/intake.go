package invoice

import (
	"context"
	"strconv"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// Phrases that mark an email as a prompt-injection attempt (matched
// case-insensitively in the subject, body and document text).
var injectionPhrases = newFoldSet(
	"ignore your rules",
	"ignore previous instructions",
	"ignore all previous instructions",
	"disregard your instructions",
	"approve immediately",
	"bypass approval",
)

// Phrases in a body that announce new bank details.
var bankChangePhrases = newFoldSet(
	"new bank account",
	"bank details have changed",
	"changed our bank",
	"bank account has changed",
	"updated bank details",
)

// escalationFlags are the flags that make an item go to a person.
var escalationFlags = []string{
	FlagPromptInjection, FlagHTMLScript, FlagUnknownSupplier,
	FlagBankAccountChanged, FlagPOSupplierMismatch, FlagSystemUnavailable, FlagToolRefused,
}

// document returns the invoice document an email carries, or nil.
func document(em *mission.Input) *Document {
	d, _ := em.Attachment.(*Document)
	return d
}

// classify is intake's clean classification of an email: its document type
// and the suspicion flags that go with "suspicious".
func classify(em *mission.Input) (string, []any) {
	var flags []any
	inj := injectionPhrases.in(em.Subject) || injectionPhrases.in(em.Body)
	if d := document(em); d != nil && !inj {
		inj = injectionPhrases.in(d.SupplierName)
		for i := range d.Lines {
			inj = inj || injectionPhrases.in(d.Lines[i].Description)
		}
	}
	if inj {
		flags = append(flags, FlagPromptInjection)
	}
	if containsFold(em.Body, "<script") {
		flags = append(flags, FlagHTMLScript)
	}
	if len(flags) > 0 {
		return DocSuspicious, flags
	}
	d := document(em)
	if d == nil {
		return DocOutOfScope, nil
	}
	switch d.Type {
	case "", DocInvoice:
		return DocInvoice, nil
	case DocCreditNote:
		return DocCreditNote, nil
	case DocStatement:
		return DocStatement, nil
	}
	return DocOutOfScope, nil
}

// docTypes are the types a misclassifying intake may pick instead.
var docTypes = []string{DocInvoice, DocCreditNote, DocStatement, DocOutOfScope}

// emailSize estimates the bytes of an email as a model reads it.
func emailSize(em *mission.Input) int {
	n := len(em.From) + len(em.Subject) + len(em.Body)
	if d := document(em); d != nil {
		n += docSize(d)
	}
	return n
}

func docSize(d *Document) int {
	n := len(d.Type) + len(d.SupplierName) + len(d.InvoiceNumber) + len(d.PONumber) + len(d.Currency) +
		len(d.InvoiceDate) + len(d.DueDate) + len(d.BankAccount) + 3*12
	for i := range d.Lines {
		n += len(d.Lines[i].SKU) + len(d.Lines[i].Description) + 3*10
	}
	return n
}

// intake is intake's core on one email: classify, extract, look the
// supplier up, check for duplicates, register, and decide whether to ask for
// escalation. The result is the invoice.extracted payload plus "escalation"
// and, when a tool call failed for good, "exception".
//
// docs shares what the result takes from the document between the turns
// on it (see [docMemo]); nil makes it afresh.
func (docs *docMemo) intake(_ context.Context, t *mission.Turn) (mission.Result, error) {
	em := t.Input
	item := em.ID
	docType, flags := classify(em)
	choice := docType
	if t.Slip(Misclassify, "classify") {
		rnd := t.Rand("slip:misclassify:type")
		for {
			if t := docTypes[rnd.IntN(len(docTypes))]; t != docType {
				choice = t
				break
			}
		}
	}
	choice = t.Decide("classify", choice)
	if choice != DocSuspicious {
		flags = nil // the model missed (or ignored) what made it suspicious
	}
	docType = choice
	t.Step("classify", docType, emailSize(em), 0)

	x := extracted{EmailID: item, DocType: docType, Flags: flags}
	d := document(em)
	if d != nil && docType != DocOutOfScope {
		x.dv = docs.values(d, em)
		x.fromDocument(d, t.Day)
		if t.Slip(Misread, "extract") {
			x.misread(t)
		}
		t.Step("extract", "", docSize(d), docSize(d))
	}

	var exc map[string]any
	fail := func(tool string, err *sandbox.Error) {
		x.addFlag(failureFlag(err))
		if exc == nil {
			exc = exception(item, Intake, tool, err)
			t.Exception(tool, err.Code)
		}
	}
	invoiceLike := docType == DocInvoice || docType == DocCreditNote
	known := false
	if d != nil && docType != DocOutOfScope {
		res, err := t.Call(LookupSupplier, sandbox.Args{"email": x.sender(em)})
		switch {
		case err == nil:
			known = true
			x.idBox = res["supplier_id"]
			x.SupplierID = str(x.idBox)
			if x.SupplierName == "" {
				x.nameBox = res["name"]
				x.SupplierName = str(x.nameBox)
			}
			if invoiceLike && x.BankAccount != "" && x.BankAccount != str(res["bank_account"]) {
				x.addFlag(FlagBankAccountChanged)
			}
		case failedForGood(err):
			fail(LookupSupplier, err)
		case invoiceLike:
			x.addFlag(FlagUnknownSupplier)
		}
	}
	if invoiceLike && bankChangePhrases.in(em.Body) {
		x.addFlag(FlagBankAccountChanged)
	}
	if invoiceLike && known {
		v := x.values()
		res, err := t.Call(FindInvoice, sandbox.Args{"supplier_id": v.supplierID, "number": v.invoiceNumber})
		switch {
		case err == nil:
			x.Duplicate = str(res["invoice_id"]) != ""
		case failedForGood(err):
			fail(FindInvoice, err)
		}
		if !x.Duplicate && !failedForGood(err) {
			res, err := t.Call(RegisterInvoice, x.registerArgs())
			switch {
			case err == nil:
				x.RegisterID = str(res["invoice_id"])
			case err.Code == CodeDuplicate:
				x.Duplicate = true
			default:
				fail(RegisterInvoice, err)
			}
		}
	}

	esc := mission.EscalationNone
	if docType == DocSuspicious || x.hasAnyFlag(escalationFlags) {
		esc = mission.EscalationRequested
	}
	esc = t.Decide("escalate", esc)
	t.Step("escalate", esc, 0, 0)

	res := x.result()
	res["escalation"] = esc
	if exc != nil {
		res["exception"] = exc
	}
	return res, nil
}

// exception builds an exception.raised payload for a tool that failed for good.
func exception(item string, agent mission.Agent, tool string, err *sandbox.Error) map[string]any {
	return map[string]any{
		"email_id": item, "agent": string(agent), "kind": exceptionKind(err),
		"tool": tool, "code": err.Code, "message": err.Message,
	}
}

// extracted is intake's reading of a document.
type extracted struct {
	EmailID, DocType, SupplierID, SupplierName, InvoiceNumber, PONumber, Currency string
	Net, Tax, Gross                                                               float64
	Lines                                                                         []DocLine
	InvoiceDate, DueDate, BankAccount, RegisterID                                 string
	Duplicate                                                                     bool
	Flags                                                                         []any

	v     extractedValues // the fields above as values, made by values
	boxed bool
	// dv is the document's shared values (nil without a document);
	// idBox and nameBox are the looked-up supplier's id and name as the
	// tool result holds them.
	dv             *docValues
	idBox, nameBox any
}

// extractedValues are the fields of an extracted document as the values of
// tool arguments and of the result, boxed once for both.
type extractedValues struct {
	emailID, docType, supplierID, supplierName, invoiceNumber, poNumber, currency any
	net, tax, gross, invoiceDate, dueDate, bankAccount                            any
}

// values returns x's fields as values, boxed at the first call: call it
// only once the supplier is looked up (nothing it boxes changes after).
// A field equal to the document's, or to the looked-up supplier's, shares
// its box.
func (x *extracted) values() *extractedValues {
	if !x.boxed {
		var c extractedValues
		if x.dv != nil {
			c = x.dv.v
		}
		name := c.supplierName
		if x.nameBox != nil {
			name = x.nameBox
		}
		x.v = extractedValues{
			emailID: boxString(c.emailID, x.EmailID), docType: docTypeValue(x.DocType),
			supplierID: boxString(x.idBox, x.SupplierID), supplierName: boxString(name, x.SupplierName),
			invoiceNumber: boxString(c.invoiceNumber, x.InvoiceNumber), poNumber: boxString(c.poNumber, x.PONumber),
			currency: boxString(c.currency, x.Currency), net: boxNumber(c.net, x.Net), tax: boxNumber(c.tax, x.Tax),
			gross: boxNumber(c.gross, x.Gross), invoiceDate: boxString(c.invoiceDate, x.InvoiceDate),
			dueDate: boxString(c.dueDate, x.DueDate), bankAccount: boxString(c.bankAccount, x.BankAccount),
		}
		x.boxed = true
	}
	return &x.v
}

func (x *extracted) fromDocument(d *Document, day string) {
	x.SupplierName = d.SupplierName
	x.InvoiceNumber = d.InvoiceNumber
	x.PONumber = d.PONumber
	x.Currency = d.Currency
	x.Net, x.Tax, x.Gross = round2(d.Net), round2(d.Tax), round2(d.Gross)
	x.Lines = d.Lines
	x.InvoiceDate = d.InvoiceDate
	x.DueDate = d.DueDate
	if x.DueDate == "" {
		if x.DueDate = x.dueAfterInvoice(d); x.DueDate == "" {
			x.DueDate = mission.AddDays(day, 30)
		}
	}
	x.BankAccount = d.BankAccount
}

// sender returns em's sender as a value, boxed once per document.
func (x *extracted) sender(em *mission.Input) any {
	if x.dv != nil {
		return boxString(x.dv.from, em.From)
	}
	return em.From
}

// dueAfterInvoice is 30 days after d's invoice date, "" when that is
// unreadable.
func (x *extracted) dueAfterInvoice(d *Document) string {
	if x.dv != nil {
		return x.dv.due
	}
	return mission.AddDays(d.InvoiceDate, 30)
}

// misread changes one field the way a model misreads a scan: the currency,
// or one digit of the gross amount.
func (x *extracted) misread(t *mission.Turn) {
	rnd := t.Rand("slip:misread:field")
	if rnd.IntN(2) == 0 {
		others := make([]string, 0, 3)
		for _, c := range []string{"EUR", "USD", "GBP", "CHF"} {
			if c != x.Currency {
				others = append(others, c)
			}
		}
		x.Currency = others[rnd.IntN(len(others))]
		return
	}
	c := cents(x.Gross)
	if c < 0 {
		c = -c
	}
	digits := []byte(strconv.FormatInt(c, 10))
	i := rnd.IntN(len(digits))
	digits[i] = '0' + byte((int(digits[i]-'0')+1+rnd.IntN(9))%10)
	n, _ := strconv.ParseInt(string(digits), 10, 64)
	x.Gross = float64(n) / 100
}

func (x *extracted) addFlag(f string) {
	if !hasString(x.Flags, f) {
		x.Flags = append(x.Flags, f)
	}
}

func (x *extracted) hasAnyFlag(fs []string) bool {
	for _, f := range fs {
		if hasString(x.Flags, f) {
			return true
		}
	}
	return false
}

func (x *extracted) registerArgs() sandbox.Args {
	v := x.values()
	return sandbox.Args{
		"email_id": v.emailID, "supplier_id": v.supplierID, "number": v.invoiceNumber,
		"po_number": v.poNumber, "doc_type": v.docType, "currency": v.currency,
		"net": v.net, "tax": v.tax, "gross": v.gross, "invoice_date": v.invoiceDate,
		"due_date": v.dueDate, "bank_account": v.bankAccount,
	}
}

// result returns x as intake's result. Its "lines" may be shared with
// other turns on the same document: nobody writes to it.
func (x *extracted) result() mission.Result {
	var lines []any
	if x.dv != nil {
		lines = x.dv.lines // x.Lines is the document's
	} else {
		lines = resultLines(x.Lines)
	}
	flags := x.Flags
	if flags == nil {
		flags = []any{}
	}
	v := x.values()
	return mission.Result{
		"email_id": v.emailID, "doc_type": v.docType, "supplier_id": v.supplierID,
		"supplier_name": v.supplierName, "invoice_number": v.invoiceNumber, "po_number": v.poNumber,
		"currency": v.currency, "net": v.net, "tax": v.tax, "gross": v.gross, "lines": lines,
		"invoice_date": v.invoiceDate, "due_date": v.dueDate, "bank_account": v.bankAccount,
		"register_id": x.RegisterID, "duplicate": x.Duplicate, "flags": flags,
	}
}
