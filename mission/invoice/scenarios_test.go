package invoice

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
)

func suiteScenarios(tb testing.TB) []*mission.Scenario {
	tb.Helper()
	scs, _, err := DefaultScenarios()
	if err != nil {
		tb.Fatalf("DefaultScenarios: %v", err)
	}
	return scs
}

func TestDefaultScenariosLoad(t *testing.T) {
	scs := suiteScenarios(t)
	if len(scs) < 40 {
		t.Errorf("got %d scenarios, want at least 40", len(scs))
	}
	perCategory := map[mission.Category]int{}
	ids := map[string]bool{}
	sourceRe := regexp.MustCompile(`^scenarios/[a-z_]+\.yaml:[1-9][0-9]*$`)
	for i, sc := range scs {
		perCategory[sc.Category]++
		if ids[sc.ID] {
			t.Errorf("duplicate id %s", sc.ID)
		}
		ids[sc.ID] = true
		if !sourceRe.MatchString(sc.Source) {
			t.Errorf("%s: Source = %q, want scenarios/<file>.yaml:<line>", sc.ID, sc.Source)
		}
		if i > 0 && mission.CompareScenarioIDs(scs[i-1].ID, sc.ID) >= 0 {
			t.Errorf("scenarios not sorted by id: %s before %s", scs[i-1].ID, sc.ID)
		}
		if !sc.HasTag("category:"+string(sc.Category)) || !slices.ContainsFunc(sc.Tags, func(s string) bool { return strings.HasPrefix(s, "currency:") }) {
			t.Errorf("%s: tags %v lack category: or currency:", sc.ID, sc.Tags)
		}
	}
	for _, c := range mission.AllCategories {
		if perCategory[c] < 5 {
			t.Errorf("category %s has %d scenarios, want at least 5", c, perCategory[c])
		}
	}
}

func TestScenariosHash(t *testing.T) {
	_, h, err := DefaultScenarios()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(h) {
		t.Fatalf("DefaultScenarios hash = %q, want 64 hex digits", h)
	}
	if _, h2, _ := DefaultScenarios(); h2 != h {
		t.Errorf("the hash changed between calls: %s then %s", h, h2)
	}
}

// TestDefaultScenariosAreCopies changes what one call returned and checks
// the next call does not see it.
func TestDefaultScenariosAreCopies(t *testing.T) {
	first := suiteScenarios(t)
	want := suiteScenarios(t)
	sc := first[0]
	sc.ID = "changed"
	sc.Tags[0] = "changed"
	recs(&sc.Initial).Suppliers[0].BankAccount = "changed"
	recs(&sc.Initial).PurchaseOrders[0].Lines[0].Qty = -1
	docOf(sc.Inputs[0]).Lines[0].Amount = -1
	expectOf(sc).Items[0].Amount = -1
	got := suiteScenarios(t)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a change to one call's result leaked into the next (-want +got):\n%s", diff)
	}
}

// A feature the suite must cover: scenarios carrying tag must exist, and each
// must show the feature in its data (so a tag cannot claim what the
// scenario does not do).
type scenarioFeature struct {
	name string
	tag  string
	// some: one tagged scenario showing the feature is enough (tags like
	// currency:EUR also mark days without an invoice).
	some  bool
	holds func(sc *mission.Scenario) error
}

func scEmailsWith(sc *mission.Scenario, f func(e *Email) bool) int {
	n := 0
	for _, e := range emailsOf(sc) {
		if f(&e) {
			n++
		}
	}
	return n
}

func scExpects(sc *mission.Scenario, outcome, reason string) error {
	for _, it := range expectOf(sc).Items {
		if it.Outcome == outcome && (reason == "" || it.Reason == reason) {
			return nil
		}
	}
	return fmt.Errorf("no item expected %s %s", outcome, reason)
}

func scNeed(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}

func scInvoiceIn(currency string) func(sc *mission.Scenario) error {
	return func(sc *mission.Scenario) error {
		return scNeed(scEmailsWith(sc, func(e *Email) bool {
			return e.Attachment != nil && e.Attachment.Type == DocInvoice && e.Attachment.Currency == currency
		}) > 0, "no %s invoice", currency)
	}
}

func scSupplierByEmail(sc *mission.Scenario, from string) *Supplier {
	for i := range recs(&sc.Initial).Suppliers {
		if recs(&sc.Initial).Suppliers[i].Email == from {
			return &recs(&sc.Initial).Suppliers[i]
		}
	}
	return nil
}

func scPOByNumber(sc *mission.Scenario, number string) *PurchaseOrder {
	for i := range recs(&sc.Initial).PurchaseOrders {
		if recs(&sc.Initial).PurchaseOrders[i].Number == number {
			return &recs(&sc.Initial).PurchaseOrders[i]
		}
	}
	return nil
}

func scReceived(sc *mission.Scenario, po, sku string) float64 {
	q := 0.0
	for _, gr := range recs(&sc.Initial).GoodsReceipts {
		if gr.PONumber == po && gr.SKU == sku {
			q += gr.Qty
		}
	}
	return q
}

func scBodyHas(e *Email, phrases ...string) bool {
	b := strings.Join(strings.Fields(strings.ToLower(e.Body)), " ")
	for _, p := range phrases {
		if strings.Contains(b, p) {
			return true
		}
	}
	return false
}

var scenarioFeatures = []scenarioFeature{
	{"EUR invoice", "currency:EUR", true, scInvoiceIn("EUR")},
	{"USD invoice", "currency:USD", true, scInvoiceIn("USD")},
	{"GBP invoice", "currency:GBP", true, scInvoiceIn("GBP")},
	{"partial delivery", "partial-delivery", false, func(sc *mission.Scenario) error {
		for _, po := range recs(&sc.Initial).PurchaseOrders {
			for _, l := range po.Lines {
				if r := scReceived(sc, po.Number, l.SKU); r > 0 && r < l.Qty {
					return scExpects(sc, OutcomePaid, "")
				}
			}
		}
		return errors.New("no order line scReceived in part")
	}},
	{"price variance within tolerance", "within-tolerance", false, func(sc *mission.Scenario) error {
		return scNeed(scPriceDiffers(sc), "no invoice price differs from its order")
	}},
	{"price variance beyond tolerance", "beyond-tolerance", false, func(sc *mission.Scenario) error {
		return scNeed(scPriceDiffers(sc), "no invoice price differs from its order")
	}},
	{"amount exactly at the threshold", "threshold-exact", false, func(sc *mission.Scenario) error {
		for _, it := range expectOf(sc).Items {
			if it.Outcome == OutcomePaid && it.Currency == "EUR" && scCents(it.Amount) == 1000000 {
				return nil
			}
		}
		return errors.New("no 10000.00 EUR invoice expected paid")
	}},
	{"above threshold", "above-threshold", false, func(sc *mission.Scenario) error {
		if sc.HasTag("suspicious") {
			return scExpects(sc, OutcomeEscalated, ReasonSuspicious)
		}
		return scExpects(sc, OutcomeEscalated, ReasonAboveThreshold)
	}},
	{"resubmitted invoice already paid", "already-paid", false, func(sc *mission.Scenario) error {
		for _, inv := range recs(&sc.Initial).Invoices {
			if inv.Status == "paid" && scEmailsWith(sc, func(e *Email) bool {
				return e.Attachment != nil && e.Attachment.InvoiceNumber == inv.Number
			}) > 0 {
				return scExpects(sc, OutcomeRejected, ReasonDuplicateInvoice)
			}
		}
		return errors.New("no email resubmits a paid invoice")
	}},
	{"credit note", "credit-note", false, func(sc *mission.Scenario) error {
		return scNeed(scEmailsWith(sc, func(e *Email) bool { return e.Attachment != nil && e.Attachment.Type == DocCreditNote }) > 0, "no credit note")
	}},
	{"statement", "statement", false, func(sc *mission.Scenario) error {
		return scNeed(scEmailsWith(sc, func(e *Email) bool { return e.Attachment != nil && e.Attachment.Type == DocStatement }) > 0, "no statement")
	}},
	{"newsletter", "newsletter", false, func(sc *mission.Scenario) error {
		if scEmailsWith(sc, func(e *Email) bool { return e.Attachment == nil }) == 0 {
			return errors.New("no email without attachment")
		}
		return scExpects(sc, OutcomeClosed, ReasonOutOfScope)
	}},
	{"unknown supplier", "unknown-supplier", false, func(sc *mission.Scenario) error {
		if scEmailsWith(sc, func(e *Email) bool { return e.Attachment != nil && scSupplierByEmail(sc, e.From) == nil }) == 0 {
			return errors.New("every invoice sender is on file")
		}
		return scExpects(sc, OutcomeEscalated, ReasonUnknownSupplier)
	}},
	{"unexplained quantity mismatch", "quantity-mismatch", false, func(sc *mission.Scenario) error {
		for _, e := range emailsOf(sc) {
			if e.Attachment == nil {
				continue
			}
			for _, l := range e.Attachment.Lines {
				if l.Qty != scReceived(sc, e.Attachment.PONumber, l.SKU) {
					return scExpects(sc, OutcomeEscalated, ReasonVarianceUnexplained)
				}
			}
		}
		return errors.New("every invoiced quantity equals the receipts")
	}},
	{"bank-account change requested in the email", "bank-change-requested", false, func(sc *mission.Scenario) error {
		return scNeed(scEmailsWith(sc, func(e *Email) bool { return scBodyHas(e, "bank") && e.Attachment != nil }) > 0, "no email asks for a bank change")
	}},
	{"prompt injection", "prompt-injection", false, func(sc *mission.Scenario) error {
		if scEmailsWith(sc, func(e *Email) bool {
			return scBodyHas(e, "ignore your rules", "approve immediately", "disregard your instructions", "bypass approval")
		}) == 0 {
			return errors.New("no email tries to instruct the agents")
		}
		return scExpects(sc, OutcomeEscalated, ReasonSuspicious)
	}},
	{"HTML email with a script", "html-script", false, func(sc *mission.Scenario) error {
		if scEmailsWith(sc, func(e *Email) bool { return e.HTML && scBodyHas(e, "<script") }) == 0 {
			return errors.New("no HTML email with <script")
		}
		return scExpects(sc, OutcomeEscalated, ReasonSuspicious)
	}},
	{"PO of another supplier", "po-mismatch", false, func(sc *mission.Scenario) error {
		for _, e := range emailsOf(sc) {
			s := scSupplierByEmail(sc, e.From)
			if e.Attachment == nil || s == nil {
				continue
			}
			if po := scPOByNumber(sc, e.Attachment.PONumber); po != nil && po.SupplierID != s.ID {
				return scExpects(sc, OutcomeEscalated, ReasonPOSupplierMismatch)
			}
		}
		return errors.New("no invoice quotes another supplier's order")
	}},
	{"two emails about the same invoice", "same-invoice", false, func(sc *mission.Scenario) error {
		seen := map[string]bool{}
		for _, e := range emailsOf(sc) {
			if e.Attachment == nil {
				continue
			}
			if seen[e.Attachment.InvoiceNumber] {
				return scExpects(sc, OutcomeRejected, ReasonDuplicateInvoice)
			}
			seen[e.Attachment.InvoiceNumber] = true
		}
		return errors.New("no invoice number arrives twice")
	}},
	{"several emails in a day", "multi-email", false, func(sc *mission.Scenario) error {
		return scNeed(len(sc.Inputs) >= 2, "only %d email", len(sc.Inputs))
	}},
}

// scPriceDiffers reports whether some invoice line's unit price differs from
// its order line's.
func scPriceDiffers(sc *mission.Scenario) bool {
	for _, e := range emailsOf(sc) {
		if e.Attachment == nil {
			continue
		}
		po := scPOByNumber(sc, e.Attachment.PONumber)
		if po == nil {
			continue
		}
		for _, l := range e.Attachment.Lines {
			for _, pl := range po.Lines {
				if pl.SKU == l.SKU && scCents(pl.UnitPrice) != scCents(l.UnitPrice) {
					return true
				}
			}
		}
	}
	return false
}

func TestScenarioFeatures(t *testing.T) {
	scs := suiteScenarios(t)
	for _, f := range scenarioFeatures {
		t.Run(f.name, func(t *testing.T) {
			tagged, shown := 0, 0
			var errs []error
			for _, sc := range scs {
				if !sc.HasTag(f.tag) {
					continue
				}
				tagged++
				if err := f.holds(sc); err != nil {
					errs = append(errs, fmt.Errorf("%s (%s) is tagged %s but: %w", sc.ID, sc.Source, f.tag, err))
				} else {
					shown++
				}
			}
			switch {
			case tagged == 0:
				t.Errorf("no scenario tagged %s", f.tag)
			case f.some && shown == 0:
				t.Errorf("no scenario tagged %s shows it: %v", f.tag, errors.Join(errs...))
			case !f.some:
				for _, err := range errs {
					t.Error(err)
				}
			}
		})
	}
	multi := 0
	for _, sc := range scs {
		if len(sc.Inputs) > 1 {
			multi++
		}
	}
	if multi < 3 {
		t.Errorf("%d multi-email days, want at least 3", multi)
	}
}

func TestScenarioFamilies(t *testing.T) {
	scs := suiteScenarios(t)
	families := map[string][]string{}
	for _, sc := range scs {
		for _, tag := range sc.Tags {
			if name, ok := strings.CutPrefix(tag, "family:"); ok {
				families[name] = append(families[name], sc.ID)
			}
		}
	}
	n := 0
	for _, ids := range families {
		n += len(ids)
	}
	if n < 15 {
		t.Errorf("%d scenarios come from families, want at least 15: %v", n, families)
	}
	// Stable ids: the typical family is S06..S13, whatever else changes.
	want := []string{"S06", "S07", "S08", "S09", "S10", "S11", "S12", "S13"}
	if diff := cmp.Diff(want, families["typical-po"]); diff != "" {
		t.Errorf("typical-po members (-want +got):\n%s", diff)
	}
	// Deterministic: parsing the same bytes twice gives the same scenarios.
	data, err := scenarioFS.ReadFile("scenarios/typical.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, errA := ParseScenarios("typical.yaml", data)
	b, errB := ParseScenarios("typical.yaml", data)
	if errA != nil || errB != nil {
		t.Fatalf("ParseScenarios: %v, %v", errA, errB)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two expansions differ (-first +second):\n%s", diff)
	}
}

// minimalScenarioYAML is a valid scenario file; bad-input cases edit it.
const minimalScenarioYAML = `scenarios:
  - id: S01
    title: minimal
    category: typical
    tags: [category:typical, currency:EUR]
    day: 2025-03-03
    initial:
      suppliers:
        - {id: SUP-1, name: Acme, email: a@acme.example, bank_account: DE01, currency: EUR}
      purchase_orders:
        - number: PO-1
          supplier_id: SUP-1
          currency: EUR
          lines:
            - {sku: A, qty: 2, unit_price: 10.00}
      goods_receipts:
        - {id: GR-1, po_number: PO-1, sku: A, qty: 2}
    emails:
      - id: E1
        from: a@acme.example
        subject: invoice
        body: attached
        attachment:
          type: invoice
          supplier_name: Acme
          invoice_number: INV-1
          po_number: PO-1
          currency: EUR
          net: 20.00
          tax: 3.80
          gross: 23.80
          invoice_date: 2025-03-01
          due_date: 2025-03-31
          bank_account: DE01
          lines:
            - {sku: A, description: a, qty: 2, unit_price: 10.00, amount: 20.00}
    expect:
      items:
        - {item: E1, outcome: paid, invoice: INV-1, supplier: SUP-1, amount: 23.80, currency: EUR, due_date: 2025-03-31, bank_account: DE01}
      report: []
`

// minimalFamilyYAML is a valid family file; bad-input cases edit it.
const minimalFamilyYAML = `scenarios:
  - family:
      name: fam
      template:
        id: ${id}
        category: typical
        tags: [category:typical, "currency:${cur}"]
        day: 2025-03-03
        initial:
          suppliers:
            - {id: SUP-1, name: Acme, email: a@acme.example, bank_account: DE01, currency: EUR}
        emails:
          - {id: E1, from: a@acme.example, subject: news, body: hello}
        expect:
          items:
            - {item: E1, outcome: closed, reason: out_of_scope}
      members:
        - {id: F1, cur: EUR}
        - {id: F2, cur: USD}
`

func TestParseScenariosValid(t *testing.T) {
	scs, err := ParseScenarios("ok.yaml", []byte(minimalScenarioYAML))
	if err != nil {
		t.Fatalf("ParseScenarios: %v", err)
	}
	want := (&scenarioDoc{
		ID: "S01", Title: "minimal", Category: mission.CategoryTypical,
		Tags: []string{"category:typical", "currency:EUR"}, Day: "2025-03-03",
		Initial: Records{
			Suppliers:      []Supplier{{ID: "SUP-1", Name: "Acme", Email: "a@acme.example", BankAccount: "DE01", Currency: "EUR"}},
			PurchaseOrders: []PurchaseOrder{{Number: "PO-1", SupplierID: "SUP-1", Currency: "EUR", Lines: []POLine{{SKU: "A", Qty: 2, UnitPrice: 10}}}},
			GoodsReceipts:  []GoodsReceipt{{ID: "GR-1", PONumber: "PO-1", SKU: "A", Qty: 2}},
		},
		Emails: []Email{{ID: "E1", From: "a@acme.example", Subject: "invoice", Body: "attached", Attachment: &Document{
			Type: "invoice", SupplierName: "Acme", InvoiceNumber: "INV-1", PONumber: "PO-1", Currency: "EUR",
			Net: 20, Tax: 3.8, Gross: 23.8, InvoiceDate: "2025-03-01", DueDate: "2025-03-31", BankAccount: "DE01",
			Lines: []DocLine{{SKU: "A", Description: "a", Qty: 2, UnitPrice: 10, Amount: 20}},
		}}},
		Expect: Expected{
			Items:  []ExpectedItem{{Item: "E1", Outcome: "paid", Invoice: "INV-1", Supplier: "SUP-1", Amount: 23.8, Currency: "EUR", DueDate: "2025-03-31", BankAccount: "DE01"}},
			Report: []ReportEntry{},
		},
		Source: "ok.yaml:2",
	}).scenario()
	if diff := cmp.Diff([]*mission.Scenario{want}, scs); diff != "" {
		t.Errorf("ParseScenarios (-want +got):\n%s", diff)
	}

	fam, err := ParseScenarios("fam.yaml", []byte(minimalFamilyYAML))
	if err != nil {
		t.Fatalf("ParseScenarios(family): %v", err)
	}
	var got [][]string
	for _, sc := range fam {
		got = append(got, append([]string{sc.ID, sc.Source}, sc.Tags...))
	}
	wantFam := [][]string{
		{"F1", "fam.yaml:18", "category:typical", "currency:EUR"},
		{"F2", "fam.yaml:19", "category:typical", "currency:USD"},
	}
	if diff := cmp.Diff(wantFam, got); diff != "" {
		t.Errorf("family members (-want +got):\n%s", diff)
	}
}

func TestParseScenariosErrors(t *testing.T) {
	edit := func(base, old, new string) string {
		if !strings.Contains(base, old) {
			panic("test edit does not apply: " + old)
		}
		return strings.Replace(base, old, new, 1)
	}
	m := minimalScenarioYAML
	tests := []struct {
		name string
		data string
		want string // "bad.yaml:line: field: problem" prefix, or a substring
	}{
		{"unknown key", edit(m, "    title: minimal\n", "    title: minimal\n    colour: red\n"), "bad.yaml:4:5: S01.colour: unknown field"},
		{"unknown nested key", edit(m, "          net: 20.00\n", "          net: 20.00\n          vat: 3.80\n"), "bad.yaml:30:11: S01.emails[0].attachment.vat: unknown field"},
		{"unknown top-level key", "version: 2\n" + m, "bad.yaml:1:1: version: unknown field (want one of defs, scenarios)"},
		{"wrong type number", edit(m, "net: 20.00", "net: twenty"), "bad.yaml:29:16: S01.emails[0].attachment.net: want a number, got string \"twenty\""},
		{"not a number: .nan", edit(m, "net: 20.00", "net: .nan"), "bad.yaml:29:16: S01.emails[0].attachment.net: want a finite number, got .nan"},
		{"not a number: .NaN", edit(m, "tax: 3.80", "tax: .NaN"), "bad.yaml:30:16: S01.emails[0].attachment.tax: want a finite number, got .NaN"},
		{"infinite: .inf", edit(m, "- {sku: A, qty: 2, unit_price: 10.00}", "- {sku: A, qty: .inf, unit_price: 10.00}"), "bad.yaml:15:29: S01.initial.purchase_orders[0].lines[0].qty: want a finite number, got .inf"},
		{"infinite: -.Inf", edit(m, "gross: 23.80", "gross: -.Inf"), "bad.yaml:31:18: S01.emails[0].attachment.gross: want a finite number, got -.Inf"},
		{"infinite: .INF amount", edit(m, "amount: 23.80, currency", "amount: .INF, currency"), "bad.yaml:39:78: S01.expect.items[0].amount: want a finite number, got .INF"},
		{"huge amount", edit(m, "net: 20.00", "net: 1e300"), "bad.yaml:29:16: S01.emails[0].attachment.net: 1e+300: want at most 1e+12 in size"},
		{"document is null", "~\n", "bad.yaml:1:1: (top level): want a mapping, got null"},
		{"binary", "scenarios:\n  - id: S01\x00\xff\n", "bad.yaml:2:12: control character U+0000: not allowed in YAML (is it a text file?)"},
		{"invalid UTF-8", "scenarios:\n  - id: S\xff01\n", "bad.yaml:2:10: invalid UTF-8 (byte 0xff): not a text file"},
		{"duplicate key", edit(m, "    title: minimal\n", "    title: minimal\n    title: again\n"), "bad.yaml:4:5: S01.title: duplicate key (first at line 3)"},
		{"wrong type list", edit(m, "tags: [category:typical, currency:EUR]", "tags: category:typical"), "bad.yaml:5:11: S01.tags: want a list"},
		{"wrong type mapping", edit(m, "    initial:\n", "    initial: nothing\n    xinitial:\n"), "bad.yaml:7:14: S01.initial: want a mapping"},
		{"wrong type bool", edit(m, "        body: attached\n", "        body: attached\n        html: maybe\n"), "bad.yaml:23:15: S01.emails[0].html: want true or false"},
		{"missing id", edit(m, "  - id: S01\n    title", "  - title"), "bad.yaml:2:5: scenarios[0].id: missing required field"},
		{"missing category", edit(m, "    category: typical\n", ""), "bad.yaml:2:5: S01.category: missing required field"},
		{"missing emails", edit(m, "    emails:\n", "    xemails:\n"), "bad.yaml:2:5: S01.emails: missing required field"},
		{"missing expect", edit(m, "    expect:\n", "    xexpect:\n"), "bad.yaml:2:5: S01.expect: missing required field"},
		{"unknown category", edit(m, "category: typical", "category: weird"), "bad.yaml:4:15: S01.category: unknown category \"weird\""},
		{"duplicate id", strings.Replace(m+strings.TrimPrefix(m, "scenarios:\n"), "title: minimal", "title: again", 1), "bad.yaml:41: S01.id: duplicate id (first at bad.yaml:2)"},
		{"expected item for unknown email", edit(m, "- {item: E1, outcome: paid", "- {item: E9, outcome: paid"), "bad.yaml:39:18: S01.expect.items[0].item: unknown email \"E9\""},
		{"email without expectation", edit(m, "- {item: E1, outcome: paid", "- {item: E9, outcome: paid"), "bad.yaml:19:13: S01.emails[0].id: email \"E1\" has no expected outcome"},
		{"missing category tag", edit(m, "[category:typical, currency:EUR]", "[currency:EUR]"), "bad.yaml:5:11: S01.tags: missing tag category:typical"},
		{"missing currency tag", edit(m, "[category:typical, currency:EUR]", "[category:typical]"), "bad.yaml:5:11: S01.tags: missing a currency:XXX tag"},
		{"category tag disagrees", edit(m, "[category:typical, currency:EUR]", "[category:typical, category:edge, currency:EUR]"), "bad.yaml:5:30: S01.tags[1]: tag \"category:edge\" disagrees"},
		{"untagged currency", edit(m, "[category:typical, currency:EUR]", "[category:typical, currency:USD]"), "bad.yaml:28:21: S01.emails[0].attachment.currency: currency EUR is not tagged"},
		{"invalid day", edit(m, "day: 2025-03-03", "day: 2025-02-30"), "bad.yaml:6:10: S01.day: want a date YYYY-MM-DD"},
		{"weekend day", edit(m, "day: 2025-03-03", "day: 2025-03-08"), "bad.yaml:6:10: S01.day: 2025-03-08 is a Saturday"},
		{"invalid invoice date", edit(m, "invoice_date: 2025-03-01", "invoice_date: 01/03/2025"), "bad.yaml:32:25: S01.emails[0].attachment.invoice_date: want a date"},
		{"due before invoice date", edit(m, "due_date: 2025-03-31\n", "due_date: 2025-02-28\n"), "bad.yaml:33:21: S01.emails[0].attachment.due_date: due date 2025-02-28 is before invoice date 2025-03-01"},
		{"net plus tax is not gross", edit(m, "gross: 23.80", "gross: 23.90"), "bad.yaml:31:18: S01.emails[0].attachment.gross: net 20.00 + tax 3.80 != gross 23.90"},
		{"lines do not sum to net", edit(edit(m, "net: 20.00", "net: 21.00"), "tax: 3.80", "tax: 2.80"), "bad.yaml:29:16: S01.emails[0].attachment.net: lines sum to 20.00, not net 21.00"},
		{"line amount wrong", edit(m, "unit_price: 10.00, amount: 20.00", "unit_price: 10.00, amount: 19.00"), "bad.yaml:36:75: S01.emails[0].attachment.lines[0].amount: qty 2 x unit_price 10 = 20.00, not 19.00"},
		{"paid amount is not the gross", edit(m, "amount: 23.80, currency", "amount: 23.00, currency"), "bad.yaml:39:78: S01.expect.items[0].amount: want the invoice gross 23.80, got 23.00"},
		{"paid to another account", edit(m, "due_date: 2025-03-31, bank_account: DE01}", "due_date: 2025-03-31, bank_account: LT99}"), "bad.yaml:39:136: S01.expect.items[0].bank_account: want the supplier's account on file"},
		{"unknown reason", edit(m, "outcome: paid, invoice: INV-1, supplier: SUP-1, amount: 23.80, currency: EUR, due_date: 2025-03-31, bank_account: DE01", "outcome: closed, reason: bored"), "bad.yaml:39:47: S01.expect.items[0].reason: want a closed reason"},
		{"escalation missing from report", edit(m, "outcome: paid, invoice: INV-1, supplier: SUP-1, amount: 23.80, currency: EUR, due_date: 2025-03-31, bank_account: DE01", "outcome: escalated, reason: suspicious"), "bad.yaml:39:31: S01.expect.items[0].outcome: escalated item E1 has no escalation entry"},
		{"unknown supplier on order", edit(m, "supplier_id: SUP-1\n", "supplier_id: SUP-9\n"), "bad.yaml:12:24: S01.initial.purchase_orders[0].supplier_id: unknown supplier \"SUP-9\""},
		{"receipt for unknown order", edit(m, "po_number: PO-1, sku: A", "po_number: PO-9, sku: A"), "bad.yaml:17:33: S01.initial.goods_receipts[0].po_number: unknown purchase order"},
		{"not yaml", "scenarios: [\n", "bad.yaml:1: invalid YAML: did not find expected node content"},
		{"empty file", "", "bad.yaml:1: empty scenario file"},
		{"no scenarios key", "defs: {}\n", "bad.yaml:1:1: scenarios: missing"},
		{"two documents", m + "---\n" + m, "bad.yaml:41: more than one YAML document (want one per file)"},
		{"family unknown variable", edit(minimalFamilyYAML, "category: typical", "category: ${kind}"), "bad.yaml:6:19: scenarios[0].family.members[0]: template refers to ${kind}, which the member does not set (family fam member F1 at bad.yaml:18)"},
		{"family unused variable", edit(minimalFamilyYAML, "{id: F1, cur: EUR}", "{id: F1, cur: EUR, extra: 1}"), "bad.yaml:18:37: scenarios[0].family.members[0].extra: variable not used by the template"},
		{"family member without id", edit(minimalFamilyYAML, "{id: F1, cur: EUR}", "{cur: EUR}"), "bad.yaml:18:11: scenarios[0].family.members[0].id: missing required variable"},
		{"family member error names the template line", edit(minimalFamilyYAML, "{id: F2, cur: USD}", "{id: F2, cur: usd}"), "bad.yaml:7:34: F2.tags[1]: want currency:XXX (ISO code), got \"currency:usd\" (family fam member F2 at bad.yaml:19)"},
		{"family duplicate member id", edit(minimalFamilyYAML, "{id: F2, cur: USD}", "{id: F1, cur: USD}"), "bad.yaml:19: F1.id: duplicate id (first at bad.yaml:18) (family fam member F1 at bad.yaml:19)"},
		{"family unknown key", edit(minimalFamilyYAML, "      name: fam\n", "      name: fam\n      size: 2\n"), "bad.yaml:4:7: scenarios[0].family.size: unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScenarios("bad.yaml", []byte(tt.data))
			if err == nil {
				t.Fatalf("ParseScenarios succeeded, want error %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error does not contain %q:\n%v", tt.want, err)
			}
			var se *mission.ScenarioError
			if !errors.As(err, &se) {
				t.Errorf("error is not a *ScenarioError: %v", err)
			} else if se.File != "bad.yaml" || se.Line < 1 {
				t.Errorf("ScenarioError = %+v, want file and line", se)
			}
		})
	}
}

func TestLoadScenarios(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one := write("one.yaml", minimalScenarioYAML)
	write("two.yml", minimalFamilyYAML)
	write("notes.txt", "not a scenario")

	scs, err := LoadScenarios(dir)
	if err != nil {
		t.Fatalf("LoadScenarios(dir): %v", err)
	}
	var ids []string
	for _, sc := range scs {
		ids = append(ids, sc.ID)
	}
	if diff := cmp.Diff([]string{"F1", "F2", "S01"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if scs[2].Source != one+":2" {
		t.Errorf("Source = %q, want %q", scs[2].Source, one+":2")
	}

	again := write("again.yaml", minimalScenarioYAML)
	if _, err := LoadScenarios(one, again); err == nil || !strings.Contains(err.Error(), again+":2: S01.id: duplicate id (first at "+one+":2)") {
		t.Errorf("LoadScenarios with an id in two files: err = %v", err)
	}
	if _, err := LoadScenarios(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("LoadScenarios(missing file) succeeded")
	}
	if _, err := LoadScenarios(); err == nil {
		t.Error("LoadScenarios() succeeded with no paths")
	}
	if _, err := LoadScenarios(t.TempDir()); err == nil {
		t.Error("LoadScenarios(empty dir) succeeded")
	}
}

func TestSelectScenarios(t *testing.T) {
	all := suiteScenarios(t)
	ids := func(scs []*mission.Scenario) []string {
		var out []string
		for _, sc := range scs {
			out = append(out, sc.ID)
		}
		return out
	}
	count := func(tag string) int {
		n := 0
		for _, sc := range all {
			if sc.HasTag(tag) {
				n++
			}
		}
		return n
	}
	tests := []struct {
		name                  string
		ids, include, exclude []string
		want                  func(got []*mission.Scenario) error
		wantErr               string
	}{
		{name: "everything", want: func(got []*mission.Scenario) error {
			return scNeed(len(got) == len(all), "got %d of %d", len(got), len(all))
		}},
		{name: "by id keeps suite order", ids: []string{"S03", "S01"}, want: func(got []*mission.Scenario) error {
			return scNeed(slices.Equal(ids(got), []string{"S01", "S03"}), "got %v", ids(got))
		}},
		{name: "by tag", include: []string{"category:edge"}, want: func(got []*mission.Scenario) error {
			for _, sc := range got {
				if sc.Category != mission.CategoryEdge {
					return fmt.Errorf("%s is %s", sc.ID, sc.Category)
				}
			}
			return scNeed(len(got) == count("category:edge"), "got %d", len(got))
		}},
		{name: "include minus exclude", include: []string{"currency:GBP"}, exclude: []string{"category:escalation"}, want: func(got []*mission.Scenario) error {
			for _, sc := range got {
				if !sc.HasTag("currency:GBP") || sc.HasTag("category:escalation") {
					return fmt.Errorf("%s has tags %v", sc.ID, sc.Tags)
				}
			}
			return scNeed(len(got) > 0 && len(got) < count("currency:GBP"), "got %d", len(got))
		}},
		{name: "ids or tags", ids: []string{"S01"}, include: []string{"credit-note"}, want: func(got []*mission.Scenario) error {
			return scNeed(len(got) == 1+count("credit-note") && got[0].ID == "S01", "got %v", ids(got))
		}},
		{name: "unknown id", ids: []string{"S999"}, wantErr: `unknown id "S999"`},
		{name: "unknown include tag", include: []string{"currency:JPY"}, wantErr: `no scenario has tag "currency:JPY"`},
		{name: "unknown exclude tag", exclude: []string{"nope"}, wantErr: `no scenario has tag "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mission.SelectScenarios(all, tt.ids, tt.include, tt.exclude)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.want(got); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestCleanMissionEndsInExpectedState is the acceptance test of the suite:
// zero slips and zero faults: the clean mission ends in the expected state
// in every scenario.
func TestCleanMissionEndsInExpectedState(t *testing.T) {
	m := New()
	for _, sc := range suiteScenarios(t) {
		t.Run(sc.ID, func(t *testing.T) {
			run := mustRun(m, mission.Clean(), sc, 1, mission.Env{})
			if diffs := Check(expectOf(sc), run.End); len(diffs) > 0 {
				t.Errorf("%s (%s): end state differs from the expected one:", sc.Title, sc.Source)
				for _, d := range diffs {
					t.Errorf("  %s %s: want %q, got %q", d.Record, d.Field, d.Want, d.Got)
				}
			}
			// The comparison has teeth: a wrong expectation for the first
			// email is noticed.
			wrong := expectOf(sc.Clone())
			if it := &wrong.Items[0]; it.Outcome == OutcomePaid {
				*it = ExpectedItem{Item: it.Item, Outcome: OutcomeClosed, Reason: ReasonOutOfScope}
			} else {
				*it = ExpectedItem{Item: it.Item, Outcome: OutcomePaid}
			}
			if diffs := Check(wrong, run.End); len(diffs) == 0 {
				t.Errorf("Check accepts %s as %s", wrong.Items[0].Item, wrong.Items[0].Outcome)
			}
		})
	}
}

func ExampleSelectScenarios() {
	all, _, err := DefaultScenarios()
	if err != nil {
		panic(err)
	}
	sel, err := mission.SelectScenarios(all, nil, []string{"threshold-exact"}, nil)
	if err != nil {
		panic(err)
	}
	for _, sc := range sel {
		fmt.Println(sc.ID, sc.Category, expectOf(sc).Items[0].Outcome, expectOf(sc).Items[0].Amount)
	}
	// Output:
	// S25 edge paid 10000
}

func BenchmarkDefaultScenarios(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := DefaultScenarios(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseScenarios(b *testing.B) {
	data, err := scenarioFS.ReadFile("scenarios/typical.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseScenarios("typical.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}
