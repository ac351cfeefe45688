package invoice

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/mission"
)

// scenarioValidator checks one decoded scenario against the rules of a
// scenario file, naming the place of each problem through the decoder.
type scenarioValidator struct {
	d     *input.Decoder
	label string
	sc    *scenarioDoc
}

// path returns the scenario's field at path (map keys and list indexes).
func (v *scenarioValidator) path(path []any) string {
	p := v.label
	for _, s := range path {
		switch s := s.(type) {
		case string:
			p = input.Join(p, s)
		case int:
			p = input.Index(p, s)
		}
	}
	return p
}

func (v *scenarioValidator) errorf(path []any, format string, args ...any) {
	v.d.Errorf(v.path(path), format, args...)
}

// maxAmount bounds every amount and quantity: far above any invoice, and
// small enough that cents fit an int64.
const maxAmount = 1e12

// amounts checks that amounts are within maxAmount; it returns false when
// one is not (the sums would be meaningless).
func (v *scenarioValidator) amounts(path []any, named ...any) bool {
	ok := true
	for i := 0; i+1 < len(named); i += 2 {
		if x := named[i+1].(float64); math.Abs(x) > maxAmount {
			v.errorf(append(slices.Clone(path), named[i]), "%g: want at most %g in size", x, float64(maxAmount))
			ok = false
		}
	}
	return ok
}

func scPath(path ...any) []any { return path }

var (
	scenarioIDRe   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
	scenarioTagRe  = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(:[A-Za-z0-9._-]+)?$`)
	currencyCodeRe = regexp.MustCompile(`^[A-Z]{3}$`)
)

func validScenarioID(s string) bool { return scenarioIDRe.MatchString(s) }

func parseScenarioDate(s string) (time.Time, bool) {
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}

// scCents converts an amount to whole scCents.
func scCents(x float64) int64 { return int64(math.Round(x * 100)) }

func scMoney(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

func (v *scenarioValidator) scenario(sc *scenarioDoc) {
	v.sc = sc
	if !validScenarioID(sc.ID) {
		v.errorf(scPath("id"), "want an id like S01, got %q", sc.ID)
	}
	if !slices.Contains(mission.AllCategories, sc.Category) {
		v.errorf(scPath("category"), "unknown category %q (want one of %s)", sc.Category, scenarioCategoryList())
	}
	v.tags(sc)
	if d, ok := parseScenarioDate(sc.Day); !ok {
		v.errorf(scPath("day"), "want a date YYYY-MM-DD, got %q", sc.Day)
	} else if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
		v.errorf(scPath("day"), "%s is a %s, not a business day", sc.Day, wd)
	}
	suppliers := v.initial(&sc.Initial)
	emails := map[string]*Email{}
	if len(sc.Emails) == 0 {
		v.errorf(scPath("emails"), "want at least one email")
	}
	for i := range sc.Emails {
		e := &sc.Emails[i]
		switch {
		case !validScenarioID(e.ID):
			v.errorf(scPath("emails", i, "id"), "want an email id like E1, got %q", e.ID)
		case emails[e.ID] != nil:
			v.errorf(scPath("emails", i, "id"), "duplicate email id %q", e.ID)
		default:
			emails[e.ID] = e
		}
		if e.From == "" {
			v.errorf(scPath("emails", i, "from"), "missing sender")
		}
		if e.Attachment != nil {
			v.document(e.Attachment, scPath("emails", i, "attachment"))
		}
	}
	v.expect(&sc.Expect, emails, suppliers)
	for i, g := range sc.Golden {
		if !spec().HasAgent(g.Agent) {
			v.errorf(scPath("golden", i, "agent"), "unknown agent %q", g.Agent)
		}
		if emails[g.Item] == nil {
			v.errorf(scPath("golden", i, "item"), "unknown email %q", g.Item)
		}
	}
}

func scenarioCategoryList() string {
	s := make([]string, len(mission.AllCategories))
	for i, c := range mission.AllCategories {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

func (v *scenarioValidator) tags(sc *scenarioDoc) {
	seen := map[string]bool{}
	var hasCat, hasCur bool
	for i, t := range sc.Tags {
		if !scenarioTagRe.MatchString(t) {
			v.errorf(scPath("tags", i), "want a tag like po-backed or currency:EUR, got %q", t)
			continue
		}
		if seen[t] {
			v.errorf(scPath("tags", i), "duplicate tag %q", t)
		}
		seen[t] = true
		key, val, ok := strings.Cut(t, ":")
		switch {
		case ok && key == "category":
			hasCat = true
			if val != string(sc.Category) {
				v.errorf(scPath("tags", i), "tag %q disagrees with category %q", t, sc.Category)
			}
		case ok && key == "currency":
			hasCur = true
			if !currencyCodeRe.MatchString(val) {
				v.errorf(scPath("tags", i), "want currency:XXX (ISO code), got %q", t)
			}
		}
	}
	if !hasCat {
		v.errorf(scPath("tags"), "missing tag category:%s", sc.Category)
	}
	if !hasCur {
		v.errorf(scPath("tags"), "missing a currency:XXX tag")
	}
	for i, e := range sc.Emails {
		if e.Attachment != nil && currencyCodeRe.MatchString(e.Attachment.Currency) && !seen["currency:"+e.Attachment.Currency] {
			v.errorf(scPath("emails", i, "attachment", "currency"), "currency %s is not tagged (add tag currency:%s)", e.Attachment.Currency, e.Attachment.Currency)
		}
	}
}

func (v *scenarioValidator) initial(st *Records) map[string]*Supplier {
	suppliers := map[string]*Supplier{}
	for i := range st.Suppliers {
		s := &st.Suppliers[i]
		switch {
		case s.ID == "":
			v.errorf(scPath("initial", "suppliers", i, "id"), "missing supplier id")
		case suppliers[s.ID] != nil:
			v.errorf(scPath("initial", "suppliers", i, "id"), "duplicate supplier id %q", s.ID)
		default:
			suppliers[s.ID] = s
		}
		if s.Email == "" {
			v.errorf(scPath("initial", "suppliers", i, "email"), "missing supplier email")
		}
		if s.BankAccount == "" {
			v.errorf(scPath("initial", "suppliers", i, "bank_account"), "missing bank account")
		}
		if s.Currency != "" && !currencyCodeRe.MatchString(s.Currency) {
			v.errorf(scPath("initial", "suppliers", i, "currency"), "want an ISO currency code, got %q", s.Currency)
		}
	}
	pos := map[string]*PurchaseOrder{}
	for i := range st.PurchaseOrders {
		po := &st.PurchaseOrders[i]
		switch {
		case po.Number == "":
			v.errorf(scPath("initial", "purchase_orders", i, "number"), "missing order number")
		case pos[po.Number] != nil:
			v.errorf(scPath("initial", "purchase_orders", i, "number"), "duplicate order number %q", po.Number)
		default:
			pos[po.Number] = po
		}
		if suppliers[po.SupplierID] == nil {
			v.errorf(scPath("initial", "purchase_orders", i, "supplier_id"), "unknown supplier %q", po.SupplierID)
		}
		if !currencyCodeRe.MatchString(po.Currency) {
			v.errorf(scPath("initial", "purchase_orders", i, "currency"), "want an ISO currency code, got %q", po.Currency)
		}
		if len(po.Lines) == 0 {
			v.errorf(scPath("initial", "purchase_orders", i, "lines"), "want at least one line")
		}
		skus := map[string]bool{}
		for j, l := range po.Lines {
			if l.SKU == "" || skus[l.SKU] {
				v.errorf(scPath("initial", "purchase_orders", i, "lines", j, "sku"), "missing or repeated sku %q", l.SKU)
			}
			skus[l.SKU] = true
			if !v.amounts(scPath("initial", "purchase_orders", i, "lines", j), "qty", l.Qty, "unit_price", l.UnitPrice) {
				continue
			}
			if l.Qty <= 0 || l.UnitPrice <= 0 {
				v.errorf(scPath("initial", "purchase_orders", i, "lines", j), "want a positive qty and unit_price")
			}
		}
	}
	received := map[string]bool{}
	for i, gr := range st.GoodsReceipts {
		if gr.ID == "" || received[gr.ID] {
			v.errorf(scPath("initial", "goods_receipts", i, "id"), "missing or repeated receipt id %q", gr.ID)
		}
		received[gr.ID] = true
		po := pos[gr.PONumber]
		if po == nil {
			v.errorf(scPath("initial", "goods_receipts", i, "po_number"), "unknown purchase order %q", gr.PONumber)
			continue
		}
		if !slices.ContainsFunc(po.Lines, func(l POLine) bool { return l.SKU == gr.SKU }) {
			v.errorf(scPath("initial", "goods_receipts", i, "sku"), "sku %q is not on order %s", gr.SKU, gr.PONumber)
		}
		if !v.amounts(scPath("initial", "goods_receipts", i), "qty", gr.Qty) {
			continue
		}
		if gr.Qty <= 0 {
			v.errorf(scPath("initial", "goods_receipts", i, "qty"), "want a positive quantity")
		}
	}
	invoices := map[string]bool{}
	for i, inv := range st.Invoices {
		if inv.ID == "" || invoices[inv.ID] {
			v.errorf(scPath("initial", "invoices", i, "id"), "missing or repeated invoice id %q", inv.ID)
		}
		invoices[inv.ID] = true
		if suppliers[inv.SupplierID] == nil {
			v.errorf(scPath("initial", "invoices", i, "supplier_id"), "unknown supplier %q", inv.SupplierID)
		}
		if inv.Number == "" {
			v.errorf(scPath("initial", "invoices", i, "number"), "missing invoice number")
		}
		if !v.amounts(scPath("initial", "invoices", i), "net", inv.Net, "tax", inv.Tax, "gross", inv.Gross) {
			continue
		}
		if scCents(inv.Net)+scCents(inv.Tax) != scCents(inv.Gross) {
			v.errorf(scPath("initial", "invoices", i, "gross"), "net %s + tax %s != gross %s", scMoney(scCents(inv.Net)), scMoney(scCents(inv.Tax)), scMoney(scCents(inv.Gross)))
		}
		v.dates(inv.InvoiceDate, inv.DueDate, scPath("initial", "invoices", i))
	}
	for i, pay := range st.Payments {
		if !invoices[pay.InvoiceID] {
			v.errorf(scPath("initial", "payments", i, "invoice_id"), "unknown invoice %q", pay.InvoiceID)
		}
		if suppliers[pay.SupplierID] == nil {
			v.errorf(scPath("initial", "payments", i, "supplier_id"), "unknown supplier %q", pay.SupplierID)
		}
	}
	return suppliers
}

// dates checks an invoice date (required) and a due date (optional, not
// before the invoice date).
func (v *scenarioValidator) dates(invoiceDate, dueDate string, path []any) {
	inv, ok := parseScenarioDate(invoiceDate)
	if !ok {
		v.errorf(append(path, "invoice_date"), "want a date YYYY-MM-DD, got %q", invoiceDate)
	}
	if dueDate == "" {
		return
	}
	due, dok := parseScenarioDate(dueDate)
	switch {
	case !dok:
		v.errorf(append(path, "due_date"), "want a date YYYY-MM-DD, got %q", dueDate)
	case ok && due.Before(inv):
		v.errorf(append(path, "due_date"), "due date %s is before invoice date %s", dueDate, invoiceDate)
	}
}

func (v *scenarioValidator) document(d *Document, path []any) {
	switch d.Type {
	case DocInvoice, DocCreditNote, DocStatement:
	default:
		v.errorf(append(path, "type"), "want invoice, credit_note or statement, got %q", d.Type)
	}
	if !currencyCodeRe.MatchString(d.Currency) {
		v.errorf(append(path, "currency"), "want an ISO currency code, got %q", d.Currency)
	}
	if d.Type != DocStatement && d.InvoiceNumber == "" {
		v.errorf(append(path, "invoice_number"), "missing document number")
	}
	v.dates(d.InvoiceDate, d.DueDate, path)
	ok := v.amounts(path, "net", d.Net, "tax", d.Tax, "gross", d.Gross)
	for j, l := range d.Lines {
		ok = v.amounts(append(slices.Clone(path), "lines", j), "qty", l.Qty, "unit_price", l.UnitPrice, "amount", l.Amount) && ok
	}
	if !ok {
		return
	}
	var sum int64
	for j, l := range d.Lines {
		if got, want := scCents(l.Amount), scCents(l.Qty*l.UnitPrice); got != want {
			v.errorf(append(path, "lines", j, "amount"), "qty %g x unit_price %g = %s, not %s", l.Qty, l.UnitPrice, scMoney(want), scMoney(got))
		}
		sum += scCents(l.Amount)
	}
	if len(d.Lines) > 0 && sum != scCents(d.Net) {
		v.errorf(append(path, "net"), "lines sum to %s, not net %s", scMoney(sum), scMoney(scCents(d.Net)))
	}
	if scCents(d.Net)+scCents(d.Tax) != scCents(d.Gross) {
		v.errorf(append(path, "gross"), "net %s + tax %s != gross %s", scMoney(scCents(d.Net)), scMoney(scCents(d.Tax)), scMoney(scCents(d.Gross)))
	}
}

// dueDate is the date a document is payable: its due date, else 30 days
// after its invoice date.
func (d *Document) dueDate() string {
	if d.DueDate != "" {
		return d.DueDate
	}
	if t, ok := parseScenarioDate(d.InvoiceDate); ok {
		return t.AddDate(0, 0, 30).Format(time.DateOnly)
	}
	return ""
}

func (v *scenarioValidator) expect(x *Expected, emails map[string]*Email, suppliers map[string]*Supplier) {
	covered := map[string]bool{}
	outcome := map[string]string{}
	reason := map[string]string{}
	for i := range x.Items {
		it := &x.Items[i]
		path := scPath("expect", "items", i)
		e := emails[it.Item]
		switch {
		case e == nil:
			v.errorf(append(path, "item"), "unknown email %q", it.Item)
			continue
		case covered[it.Item]:
			v.errorf(append(path, "item"), "email %q already has an expected outcome", it.Item)
			continue
		}
		covered[it.Item] = true
		outcome[it.Item], reason[it.Item] = it.Outcome, it.Reason
		v.item(it, e, suppliers, path)
		for j := range it.Alternatives {
			alt := &it.Alternatives[j]
			apath := append(slices.Clone(path), "alternatives", j)
			if alt.Item != "" && alt.Item != it.Item {
				v.errorf(append(apath, "item"), "an alternative is for the same email %q, got %q", it.Item, alt.Item)
			}
			if len(alt.Alternatives) > 0 {
				v.errorf(append(apath, "alternatives"), "alternatives do not nest")
			}
			v.item(alt, e, suppliers, apath)
		}
	}
	for i, e := range v.sc.Emails {
		if e.ID != "" && !covered[e.ID] {
			v.errorf(scPath("emails", i, "id"), "email %q has no expected outcome in expect.items", e.ID)
		}
	}
	reported := map[string]string{}
	for i, r := range x.Report {
		path := scPath("expect", "report", i)
		if emails[r.Item] == nil {
			v.errorf(append(path, "item"), "unknown email %q", r.Item)
			continue
		}
		if !slices.Contains(scenarioReportKinds, r.Kind) {
			v.errorf(append(path, "kind"), "want one of %s, got %q", strings.Join(scenarioReportKinds, ", "), r.Kind)
			continue
		}
		if r.Reason == "" {
			v.errorf(append(path, "reason"), "missing reason")
		}
		key := r.Item + "/" + r.Kind
		if _, dup := reported[key]; dup {
			v.errorf(path, "second %s entry for %s", r.Kind, r.Item)
		}
		reported[key] = r.Reason
		want := map[string]string{"escalation": OutcomeEscalated, "rejection": OutcomeRejected}[r.Kind]
		if want != "" && outcome[r.Item] != want {
			v.errorf(append(path, "kind"), "report has a %s for %s, whose expected outcome is %q", r.Kind, r.Item, outcome[r.Item])
		} else if want != "" && reason[r.Item] != r.Reason {
			v.errorf(append(path, "reason"), "report reason %q differs from the item's %q", r.Reason, reason[r.Item])
		}
	}
	for i, it := range x.Items {
		kind := map[string]string{OutcomeEscalated: "escalation", OutcomeRejected: "rejection"}[it.Outcome]
		if _, ok := reported[it.Item+"/"+kind]; kind != "" && !ok {
			v.errorf(scPath("expect", "items", i, "outcome"), "%s item %s has no %s entry in expect.report", it.Outcome, it.Item, kind)
		}
	}
}

func (v *scenarioValidator) item(it *ExpectedItem, e *Email, suppliers map[string]*Supplier, path []any) {
	if it.Supplier != "" && suppliers[it.Supplier] == nil {
		v.errorf(append(path, "supplier"), "unknown supplier %q", it.Supplier)
	}
	doc := e.Attachment
	if it.Invoice != "" && (doc == nil || doc.InvoiceNumber != it.Invoice) {
		v.errorf(append(path, "invoice"), "email %s carries no document numbered %q", e.ID, it.Invoice)
	}
	if it.Outcome != OutcomePaid {
		reasons, ok := scenarioReasons[it.Outcome]
		switch {
		case !ok:
			v.errorf(append(path, "outcome"), "want paid, escalated, rejected or closed, got %q", it.Outcome)
		case !slices.Contains(reasons, it.Reason):
			v.errorf(append(path, "reason"), "want a %s reason (%s), got %q", it.Outcome, strings.Join(reasons, ", "), it.Reason)
		}
		if it.Amount != 0 || it.DueDate != "" || it.BankAccount != "" {
			v.errorf(append(path, "amount"), "only a paid item has amount, due_date and bank_account")
		}
		return
	}
	if it.Reason != "" {
		v.errorf(append(path, "reason"), "a paid item has no reason")
	}
	s := suppliers[it.Supplier]
	if s == nil {
		v.errorf(append(path, "supplier"), "a paid item names the supplier paid")
	} else if it.BankAccount != s.BankAccount {
		v.errorf(append(path, "bank_account"), "want the supplier's account on file %q, got %q", s.BankAccount, it.BankAccount)
	}
	if doc == nil || doc.Type != DocInvoice {
		v.errorf(append(path, "outcome"), "email %s carries no invoice to pay", e.ID)
		return
	}
	if it.Invoice == "" {
		v.errorf(append(path, "invoice"), "a paid item names the invoice number")
	}
	if !v.amounts(path, "amount", it.Amount) {
		return
	}
	if scCents(it.Amount) != scCents(doc.Gross) {
		v.errorf(append(path, "amount"), "want the invoice gross %s, got %s", scMoney(scCents(doc.Gross)), scMoney(scCents(it.Amount)))
	}
	if it.Currency != doc.Currency {
		v.errorf(append(path, "currency"), "want the invoice currency %q, got %q", doc.Currency, it.Currency)
	}
	if due := doc.dueDate(); it.DueDate != due {
		v.errorf(append(path, "due_date"), "want the invoice's due date %q, got %q", due, it.DueDate)
	}
}
