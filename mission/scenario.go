package mission

import (
	"github.com/baton-lab/baton/sandbox"
)

// Category is a scenario's kind, from the protocol.
type Category string

// The scenario categories.
const (
	CategoryTypical     Category = "typical"
	CategoryVariation   Category = "variation"
	CategoryEdge        Category = "edge"
	CategoryOutOfScope  Category = "out-of-scope"
	CategoryEscalation  Category = "escalation"
	CategoryAdversarial Category = "adversarial"
)

func (c Category) String() string { return string(c) }

// AllCategories lists the categories in report order.
var AllCategories = []Category{CategoryTypical, CategoryVariation, CategoryEdge, CategoryOutOfScope, CategoryEscalation, CategoryAdversarial}

// Scenario is one business day: the initial system of record, the emails
// that arrive, the expected end state, and the per-agent golden
// expectations design A scores against.
type Scenario struct {
	ID       string           `json:"id" yaml:"id"`
	Title    string           `json:"title" yaml:"title"`
	Category Category         `json:"category" yaml:"category"`
	Tags     []string         `json:"tags" yaml:"tags"` // at least category:… and currency:…
	Day      string           `json:"day" yaml:"day"`   // YYYY-MM-DD
	Initial  sandbox.State    `json:"initial" yaml:"initial"`
	Emails   []Email          `json:"emails" yaml:"emails"`
	Expect   sandbox.Expected `json:"expect" yaml:"expect"`
	Golden   []Golden         `json:"golden,omitempty" yaml:"golden"`

	// Source is where the scenario was read from, for error messages.
	Source string `json:"-" yaml:"-"`
}

// Email is one inbound message. Attachment is the invoice document as the
// email carries it (what OCR of a PDF would give); newsletters and
// statements may have none.
type Email struct {
	ID         string    `json:"id" yaml:"id"`
	From       string    `json:"from" yaml:"from"`
	Subject    string    `json:"subject" yaml:"subject"`
	Body       string    `json:"body" yaml:"body"`
	HTML       bool      `json:"html,omitempty" yaml:"html"`
	Attachment *Document `json:"attachment,omitempty" yaml:"attachment"`
}

// Document is an invoice, credit note or statement as printed.
type Document struct {
	Type          string    `json:"type" yaml:"type"` // invoice, credit_note, statement
	SupplierName  string    `json:"supplier_name" yaml:"supplier_name"`
	InvoiceNumber string    `json:"invoice_number" yaml:"invoice_number"`
	PONumber      string    `json:"po_number" yaml:"po_number"`
	Currency      string    `json:"currency" yaml:"currency"`
	Net           float64   `json:"net" yaml:"net"`
	Tax           float64   `json:"tax" yaml:"tax"`
	Gross         float64   `json:"gross" yaml:"gross"`
	InvoiceDate   string    `json:"invoice_date" yaml:"invoice_date"`
	DueDate       string    `json:"due_date" yaml:"due_date"`
	BankAccount   string    `json:"bank_account" yaml:"bank_account"`
	Lines         []DocLine `json:"lines" yaml:"lines"`
}

// DocLine is one printed invoice line.
type DocLine struct {
	SKU         string  `json:"sku" yaml:"sku"`
	Description string  `json:"description" yaml:"description"`
	Qty         float64 `json:"qty" yaml:"qty"`
	UnitPrice   float64 `json:"unit_price" yaml:"unit_price"`
	Amount      float64 `json:"amount" yaml:"amount"`
}

// Golden is one agent's expected behaviour on one item of a scenario: the
// input it receives (wire messages, or the email for intake), the tool calls
// it should make in order, its structured result, and the messages it should
// emit. Golden expectations may be recorded from the clean build with zero
// slips and faults, then reviewed; a test checks they agree with Expect.
type Golden struct {
	Agent  Agent      `json:"agent" yaml:"agent"`
	Item   string     `json:"item" yaml:"item"`
	Input  CoreInput  `json:"input" yaml:"input"`
	Calls  []ToolCall `json:"calls" yaml:"calls"`
	Result Result     `json:"result" yaml:"result"`
	// Emitted holds the wire messages the agent's emitter sends for the
	// item, by edge.
	Emitted map[string][]byte `json:"emitted,omitempty" yaml:"emitted"`
}
