package invoice

import (
	"context"
	"encoding/json"
	"math"
	"sync"
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// Inline scenarios: small business days built in Go, independent of the
// YAML suite, each with its expected end state authored by hand.

var testSuppliers = []Supplier{
	{ID: "SUP-A", Name: "Alpha Office GmbH", Email: "billing@alpha.example", BankAccount: "DE00ALPHA", Currency: "EUR"},
	{ID: "SUP-B", Name: "Beta Cloud Inc.", Email: "ar@beta.example", BankAccount: "US00BETA", Currency: "USD"},
	{ID: "SUP-C", Name: "Gamma Freight Ltd", Email: "accounts@gamma.example", BankAccount: "GB00GAMMA", Currency: "GBP"},
}

// po builds a purchase order with one line per (sku, qty, price) and, when
// received, a goods receipt per line for receivedQty[i].
func po(number, supplier, currency string, lines []POLine, received []float64) (PurchaseOrder, []GoodsReceipt) {
	var grs []GoodsReceipt
	for i, l := range lines {
		if i < len(received) && received[i] > 0 {
			grs = append(grs, GoodsReceipt{ID: "GR-" + number + "-" + l.SKU, PONumber: number, SKU: l.SKU, Qty: received[i]})
		}
	}
	return PurchaseOrder{Number: number, SupplierID: supplier, Currency: currency, Lines: lines}, grs
}

// invoiceMail builds an invoice email; net is the sum of the lines, tax
// taxRate of it.
func invoiceMail(id, from, supplierName, number, poNumber, currency, bank string, taxRate float64, lines ...DocLine) Email {
	net := 0.0
	for i := range lines {
		lines[i].Amount = round2(lines[i].Qty * lines[i].UnitPrice)
		net += lines[i].Amount
	}
	net = round2(net)
	tax := round2(net * taxRate)
	return Email{
		ID: id, From: from, Subject: "Invoice " + number, Body: "Please find attached invoice " + number + ".",
		Attachment: &Document{
			Type: DocInvoice, SupplierName: supplierName, InvoiceNumber: number, PONumber: poNumber,
			Currency: currency, Net: net, Tax: tax, Gross: round2(net + tax),
			InvoiceDate: "2026-03-01", DueDate: "2026-03-31", BankAccount: bank, Lines: lines,
		},
	}
}

func gross(em Email) float64 { return em.Attachment.Gross }

// testScenarios returns the inline scenarios.
func testScenarios(tb testing.TB) []*mission.Scenario {
	tb.Helper()
	var out []*mission.Scenario

	// One EUR invoice, two lines, fully received: paid.
	{
		p, grs := po("PO-1", "SUP-A", "EUR", []POLine{{SKU: "PAPER", Qty: 100, UnitPrice: 4.5}, {SKU: "TONER", Qty: 4, UnitPrice: 80}}, []float64{100, 4})
		e1 := invoiceMail("E1", "billing@alpha.example", "Alpha Office GmbH", "A-100", "PO-1", "EUR", "DE00ALPHA", 0.19,
			DocLine{SKU: "PAPER", Description: "Paper A4", Qty: 100, UnitPrice: 4.5}, DocLine{SKU: "TONER", Description: "Toner", Qty: 4, UnitPrice: 80})
		out = append(out, (&scenarioDoc{
			ID: "T1", Title: "EUR invoice paid", Category: mission.CategoryTypical, Tags: []string{"category:typical", "currency:EUR"},
			Day:     "2026-03-02",
			Initial: Records{Suppliers: testSuppliers, PurchaseOrders: []PurchaseOrder{p}, GoodsReceipts: grs},
			Emails:  []Email{e1},
			Expect: Expected{Items: []ExpectedItem{
				{Item: "E1", Outcome: "paid", Invoice: "A-100", Supplier: "SUP-A", Amount: gross(e1), Currency: "EUR", DueDate: "2026-03-31", BankAccount: "DE00ALPHA"},
			}},
		}).scenario())
	}

	// A day of four emails: a USD invoice (paid), the same invoice again
	// (rejected as a duplicate), a newsletter (closed) and an invoice for
	// more than was received (escalated).
	{
		p1, g1 := po("PO-2", "SUP-B", "USD", []POLine{{SKU: "VM", Qty: 10, UnitPrice: 300}}, []float64{10})
		p2, g2 := po("PO-3", "SUP-A", "EUR", []POLine{{SKU: "DESK", Qty: 10, UnitPrice: 250}}, []float64{6})
		e1 := invoiceMail("E1", "ar@beta.example", "Beta Cloud Inc.", "B-7", "PO-2", "USD", "US00BETA", 0,
			DocLine{SKU: "VM", Description: "Virtual machine", Qty: 10, UnitPrice: 300})
		e2 := invoiceMail("E2", "ar@beta.example", "Beta Cloud Inc.", "B-7", "PO-2", "USD", "US00BETA", 0,
			DocLine{SKU: "VM", Description: "Virtual machine", Qty: 10, UnitPrice: 300})
		e2.Subject = "Reminder: invoice B-7"
		e3 := Email{ID: "E3", From: "news@vendor.example", Subject: "Our spring newsletter", Body: "Ten new products this season."}
		e4 := invoiceMail("E4", "billing@alpha.example", "Alpha Office GmbH", "A-200", "PO-3", "EUR", "DE00ALPHA", 0.19,
			DocLine{SKU: "DESK", Description: "Desk", Qty: 10, UnitPrice: 250})
		out = append(out, (&scenarioDoc{
			ID: "T2", Title: "busy day", Category: mission.CategoryEdge, Tags: []string{"category:edge", "currency:USD"},
			Day:     "2026-03-03",
			Initial: Records{Suppliers: testSuppliers, PurchaseOrders: []PurchaseOrder{p1, p2}, GoodsReceipts: append(g1, g2...)},
			Emails:  []Email{e1, e2, e3, e4},
			Expect: Expected{
				Items: []ExpectedItem{
					{Item: "E1", Outcome: "paid", Invoice: "B-7", Supplier: "SUP-B", Amount: gross(e1), Currency: "USD", DueDate: "2026-03-31", BankAccount: "US00BETA"},
					{Item: "E2", Outcome: "rejected", Reason: ReasonDuplicateInvoice},
					{Item: "E3", Outcome: "closed", Reason: ReasonOutOfScope},
					{Item: "E4", Outcome: "escalated", Invoice: "A-200", Reason: ReasonVarianceUnexplained},
				},
				Report: []ReportEntry{
					{Item: "E2", Kind: EntryRejection, Reason: ReasonDuplicateInvoice},
					{Item: "E4", Kind: EntryEscalation, Reason: ReasonVarianceUnexplained},
				},
			},
		}).scenario())
	}

	// Threshold: exactly 10000.00 EUR is paid, GBP above it in EUR is not.
	{
		p1, g1 := po("PO-4", "SUP-A", "EUR", []POLine{{SKU: "SRV", Qty: 1, UnitPrice: 10000}}, []float64{1})
		p2, g2 := po("PO-5", "SUP-C", "GBP", []POLine{{SKU: "FRT", Qty: 1, UnitPrice: 8600}}, []float64{1})
		e1 := invoiceMail("E1", "billing@alpha.example", "Alpha Office GmbH", "A-300", "PO-4", "EUR", "DE00ALPHA", 0,
			DocLine{SKU: "SRV", Description: "Server", Qty: 1, UnitPrice: 10000})
		e2 := invoiceMail("E2", "accounts@gamma.example", "Gamma Freight Ltd", "G-1", "PO-5", "GBP", "GB00GAMMA", 0,
			DocLine{SKU: "FRT", Description: "Freight", Qty: 1, UnitPrice: 8600})
		out = append(out, (&scenarioDoc{
			ID: "T3", Title: "threshold", Category: mission.CategoryEdge, Tags: []string{"category:edge", "currency:GBP"},
			Day:     "2026-03-04",
			Initial: Records{Suppliers: testSuppliers, PurchaseOrders: []PurchaseOrder{p1, p2}, GoodsReceipts: append(g1, g2...)},
			Emails:  []Email{e1, e2},
			Expect: Expected{
				Items: []ExpectedItem{
					{Item: "E1", Outcome: "paid", Invoice: "A-300", Supplier: "SUP-A", Amount: 10000, Currency: "EUR", DueDate: "2026-03-31", BankAccount: "DE00ALPHA"},
					{Item: "E2", Outcome: "escalated", Invoice: "G-1", Reason: ReasonAboveThreshold},
				},
				Report: []ReportEntry{{Item: "E2", Kind: EntryEscalation, Reason: ReasonAboveThreshold}},
			},
		}).scenario())
	}

	// Adversarial: a changed bank account, a <script> element and an
	// unknown sender all go to a person.
	{
		p1, g1 := po("PO-6", "SUP-A", "EUR", []POLine{{SKU: "CHAIR", Qty: 5, UnitPrice: 120}}, []float64{5})
		e1 := invoiceMail("E1", "billing@alpha.example", "Alpha Office GmbH", "A-400", "PO-6", "EUR", "DE99MULE", 0.19,
			DocLine{SKU: "CHAIR", Description: "Chair", Qty: 5, UnitPrice: 120})
		e1.Body = "Please note our new bank account for this and future payments."
		e2 := invoiceMail("E2", "billing@alpha.example", "Alpha Office GmbH", "A-401", "PO-6", "EUR", "DE00ALPHA", 0.19,
			DocLine{SKU: "CHAIR", Description: "Chair", Qty: 5, UnitPrice: 120})
		e2.HTML = true
		e2.Body = "<html><body>Invoice attached<SCRIPT>fetch('https://x.example')</SCRIPT></body></html>"
		e3 := invoiceMail("E3", "sales@unknown.example", "Unknown Trading", "U-1", "PO-6", "EUR", "XX00", 0,
			DocLine{SKU: "CHAIR", Description: "Chair", Qty: 5, UnitPrice: 120})
		out = append(out, (&scenarioDoc{
			ID: "T4", Title: "adversarial", Category: mission.CategoryAdversarial, Tags: []string{"category:adversarial", "currency:EUR"},
			Day:     "2026-03-05",
			Initial: Records{Suppliers: testSuppliers, PurchaseOrders: []PurchaseOrder{p1}, GoodsReceipts: g1},
			Emails:  []Email{e1, e2, e3},
			Expect: Expected{
				Items: []ExpectedItem{
					{Item: "E1", Outcome: "escalated", Invoice: "A-400", Reason: ReasonBankAccountChanged},
					{Item: "E2", Outcome: "escalated", Reason: ReasonSuspicious},
					{Item: "E3", Outcome: "escalated", Reason: ReasonUnknownSupplier},
				},
				Report: []ReportEntry{
					{Item: "E1", Kind: EntryEscalation, Reason: ReasonBankAccountChanged},
					{Item: "E2", Kind: EntryEscalation, Reason: ReasonSuspicious},
					{Item: "E3", Kind: EntryEscalation, Reason: ReasonUnknownSupplier},
				},
			},
		}).scenario())
	}
	return out
}

func scenarioByID(tb testing.TB, id string) *mission.Scenario {
	tb.Helper()
	for _, sc := range testScenarios(tb) {
		if sc.ID == id {
			return sc
		}
	}
	tb.Fatalf("no inline scenario %s", id)
	return nil
}

// protocolFaults are the default protocol's fault rates
// (experiment/default_protocol.yaml).
var protocolFaults = sandbox.FaultRates{
	"*": {
		sandbox.TimeoutBeforeCommit: 0.01, sandbox.TimeoutAfterCommit: 0.01, sandbox.Refusal: 0,
		sandbox.Unavailable: 0.02, sandbox.RateLimit: 0.01, sandbox.Latency: 0.05,
	},
	"transport": {sandbox.Redelivery: 0.02},
}

// scaled returns rates multiplied by k (capped at 1).
func scaled(rates sandbox.FaultRates, k float64) sandbox.FaultRates {
	out := sandbox.FaultRates{}
	for tool, m := range rates {
		out[tool] = map[sandbox.FaultKind]float64{}
		for kind, p := range m {
			out[tool][kind] = math.Min(1, p*k)
		}
	}
	return out
}

func jsonl(tb testing.TB, tr *mission.Trace) string {
	tb.Helper()
	b, err := tr.MarshalJSONL()
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// recordingSeams records every hook call and changes nothing.
type recordingSeams struct {
	mu       sync.Mutex
	decide   map[string]int // agent/kind
	toolArgs int
	retryKey []int // attempts
	emit     map[mission.Edge]int
	parse    map[mission.Edge]int
	route    int
	dedup    int
}

func newRecordingSeams() *recordingSeams {
	return &recordingSeams{decide: map[string]int{}, emit: map[mission.Edge]int{}, parse: map[mission.Edge]int{}}
}

func (s *recordingSeams) Decide(agent mission.Agent, kind, _, choice string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.decide[string(agent)+"/"+kind]++
	return choice
}

func (s *recordingSeams) ToolArgs(mission.Agent, string, string, sandbox.Args) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.toolArgs++
}

func (s *recordingSeams) RetryKey(_ mission.Agent, _, _, key string, attempt int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retryKey = append(s.retryKey, attempt)
	return key
}

func (s *recordingSeams) Emit(e mission.Edge, _ *mission.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emit[e]++
}

func (s *recordingSeams) Parse(e mission.Edge, _ *mission.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parse[e]++
}

func (s *recordingSeams) Route(_ mission.Edge, owners []mission.Agent) []mission.Agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.route++
	return owners
}

func (s *recordingSeams) Dedup(mission.Edge) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dedup++
	return true
}

var _ mission.Seams = (*recordingSeams)(nil)

// hook is a mission.Seams that changes one thing; unset hooks change nothing.
type hook struct {
	mission.NoSeams
	decide   func(agent mission.Agent, kind, item, choice string) string
	toolArgs func(agent mission.Agent, tool, item string, args sandbox.Args)
	retryKey func(agent mission.Agent, tool, item, key string, attempt int) string
	emit     func(e mission.Edge, msg *mission.Message)
	parse    func(e mission.Edge, msg *mission.Message)
	route    func(e mission.Edge, owners []mission.Agent) []mission.Agent
	dedup    func(e mission.Edge) bool
}

var _ mission.Seams = hook{}

func (h hook) Decide(agent mission.Agent, kind, item, choice string) string {
	if h.decide != nil {
		return h.decide(agent, kind, item, choice)
	}
	return choice
}

func (h hook) ToolArgs(agent mission.Agent, tool, item string, args sandbox.Args) {
	if h.toolArgs != nil {
		h.toolArgs(agent, tool, item, args)
	}
}

func (h hook) RetryKey(agent mission.Agent, tool, item, key string, attempt int) string {
	if h.retryKey != nil {
		return h.retryKey(agent, tool, item, key, attempt)
	}
	return key
}

func (h hook) Emit(e mission.Edge, msg *mission.Message) {
	if h.emit != nil {
		h.emit(e, msg)
	}
}

func (h hook) Parse(e mission.Edge, msg *mission.Message) {
	if h.parse != nil {
		h.parse(e, msg)
	}
}

func (h hook) Route(e mission.Edge, owners []mission.Agent) []mission.Agent {
	if h.route != nil {
		return h.route(e, owners)
	}
	return owners
}

func (h hook) Dedup(e mission.Edge) bool {
	if h.dedup != nil {
		return h.dedup(e)
	}
	return true
}

func jsonMarshal(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// run runs m's whole mission; the policy cores never fail, so an error is
// a bug.
func mustRun(m mission.Mission, b mission.Build, sc *mission.Scenario, seed uint64, env mission.Env) *mission.Run {
	r, err := m.Run(context.Background(), b, sc, seed, env)
	if err != nil {
		panic(err)
	}
	return r
}

// runCore runs one of m's agents alone.
func mustRunCore(m mission.Mission, b mission.Build, agent mission.Agent, sc *mission.Scenario, in mission.CoreInput, seed uint64, env mission.Env) *mission.CoreRun {
	cr, err := m.RunCore(context.Background(), b, agent, sc, in, seed, env)
	if err != nil {
		panic(err)
	}
	return cr
}

// recordGolden records sc's goldens from m's clean build.
func recordGolden(m mission.Mission, sc *mission.Scenario) ([]mission.Golden, error) {
	return m.RecordGolden(sc)
}

// expectOf returns a scenario's expected end state.
func expectOf(sc *mission.Scenario) *Expected { return sc.Expect.(*Expected) }

// docOf returns an input's invoice document, or nil.
func docOf(in mission.Input) *Document { return document(&in) }

// recs returns a state's invoice records.
func recs(st *sandbox.State) *Records { return st.Records.(*Records) }

// emailsOf returns a scenario's inputs as the emails they were read from.
func emailsOf(sc *mission.Scenario) []Email {
	out := make([]Email, len(sc.Inputs))
	for i, in := range sc.Inputs {
		out[i] = Email{ID: in.ID, From: in.From, Subject: in.Subject, Body: in.Body, HTML: in.HTML, Attachment: docOf(in)}
	}
	return out
}

// get reads a message's field, nil when it has none.
func get(msg *mission.Message, key string) any {
	v, _ := msg.Get(key)
	return v
}
