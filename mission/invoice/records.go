package invoice

// Records are the finance system of record of one run, the mission's
// [sandbox.Records]. Scenarios author the initial part (suppliers, purchase
// orders, goods receipts, and any invoices and payments already on file);
// the tools write the rest. Every slice is kept in insertion order, and a
// snapshot sorts a deep copy by key so that two equal states marshal to
// equal bytes.
type Records struct {
	Suppliers      []Supplier      `json:"suppliers" yaml:"suppliers"`
	PurchaseOrders []PurchaseOrder `json:"purchase_orders" yaml:"purchase_orders"`
	GoodsReceipts  []GoodsReceipt  `json:"goods_receipts" yaml:"goods_receipts"`
	Invoices       []Invoice       `json:"invoices" yaml:"invoices"`
	Matches        []Match         `json:"matches" yaml:"matches"`
	Ledger         []Posting       `json:"ledger" yaml:"ledger"`
	Approvals      []Approval      `json:"approvals" yaml:"approvals"`
	Payments       []Payment       `json:"payments" yaml:"payments"`
	Escalations    []Escalation    `json:"escalations" yaml:"escalations"`
	Rejections     []Rejection     `json:"rejections" yaml:"rejections"`
	Closures       []Closure       `json:"closures" yaml:"closures"`
	Reports        []Report        `json:"reports" yaml:"reports"`
}

// Supplier is a vendor on file with the bank account payments go to.
type Supplier struct {
	ID          string `json:"id" yaml:"id"`
	Name        string `json:"name" yaml:"name"`
	Email       string `json:"email" yaml:"email"`
	BankAccount string `json:"bank_account" yaml:"bank_account"`
	Currency    string `json:"currency" yaml:"currency"`
}

// PurchaseOrder is what the company agreed to buy from a supplier.
type PurchaseOrder struct {
	Number     string   `json:"number" yaml:"number"`
	SupplierID string   `json:"supplier_id" yaml:"supplier_id"`
	Currency   string   `json:"currency" yaml:"currency"`
	Lines      []POLine `json:"lines" yaml:"lines"`
}

// POLine is one ordered article at an agreed unit price.
type POLine struct {
	SKU       string  `json:"sku" yaml:"sku"`
	Qty       float64 `json:"qty" yaml:"qty"`
	UnitPrice float64 `json:"unit_price" yaml:"unit_price"`
}

// GoodsReceipt records what actually arrived against a purchase order.
type GoodsReceipt struct {
	ID       string  `json:"id" yaml:"id"`
	PONumber string  `json:"po_number" yaml:"po_number"`
	SKU      string  `json:"sku" yaml:"sku"`
	Qty      float64 `json:"qty" yaml:"qty"`
}

// Invoice is an entry of the invoice register. Status moves from
// "registered" to "matched", then "approved", "escalated", "rejected",
// "closed" or "paid" (for invoices already settled before the day starts).
type Invoice struct {
	ID          string  `json:"id" yaml:"id"`
	EmailID     string  `json:"email_id" yaml:"email_id"`
	SupplierID  string  `json:"supplier_id" yaml:"supplier_id"`
	Number      string  `json:"number" yaml:"number"`
	PONumber    string  `json:"po_number" yaml:"po_number"`
	DocType     string  `json:"doc_type" yaml:"doc_type"`
	Currency    string  `json:"currency" yaml:"currency"`
	Net         float64 `json:"net" yaml:"net"`
	Tax         float64 `json:"tax" yaml:"tax"`
	Gross       float64 `json:"gross" yaml:"gross"`
	InvoiceDate string  `json:"invoice_date" yaml:"invoice_date"`
	DueDate     string  `json:"due_date" yaml:"due_date"`
	BankAccount string  `json:"bank_account" yaml:"bank_account"`
	Status      string  `json:"status" yaml:"status"`
}

// Match is the action agent's comparison of an invoice with its order and
// receipts.
type Match struct {
	ID        string  `json:"id" yaml:"id"`
	InvoiceID string  `json:"invoice_id" yaml:"invoice_id"`
	PONumber  string  `json:"po_number" yaml:"po_number"`
	Status    string  `json:"status" yaml:"status"` // matched, variance_explained, variance_unexplained, no_po
	Variance  float64 `json:"variance" yaml:"variance"`
	Reason    string  `json:"reason" yaml:"reason"`
}

// Posting is one ledger entry.
type Posting struct {
	ID        string  `json:"id" yaml:"id"`
	InvoiceID string  `json:"invoice_id" yaml:"invoice_id"`
	Account   string  `json:"account" yaml:"account"`
	Amount    float64 `json:"amount" yaml:"amount"`
	Currency  string  `json:"currency" yaml:"currency"`
}

// Approval records that the boundary agent approved an invoice for payment.
type Approval struct {
	ID        string  `json:"id" yaml:"id"`
	InvoiceID string  `json:"invoice_id" yaml:"invoice_id"`
	AmountEUR float64 `json:"amount_eur" yaml:"amount_eur"`
}

// Payment is a scheduled (or, for initial state, already made) payment.
type Payment struct {
	ID          string  `json:"id" yaml:"id"`
	InvoiceID   string  `json:"invoice_id" yaml:"invoice_id"`
	SupplierID  string  `json:"supplier_id" yaml:"supplier_id"`
	Amount      float64 `json:"amount" yaml:"amount"`
	Currency    string  `json:"currency" yaml:"currency"`
	DueDate     string  `json:"due_date" yaml:"due_date"`
	BankAccount string  `json:"bank_account" yaml:"bank_account"`
}

// Escalation is an item put in front of a person.
type Escalation struct {
	ID     string `json:"id" yaml:"id"`
	Item   string `json:"item" yaml:"item"`
	Reason string `json:"reason" yaml:"reason"`
}

// Rejection is an item refused without payment.
type Rejection struct {
	ID     string `json:"id" yaml:"id"`
	Item   string `json:"item" yaml:"item"`
	Reason string `json:"reason" yaml:"reason"`
}

// Closure is an item closed without payment (out of scope, statements).
type Closure struct {
	ID     string `json:"id" yaml:"id"`
	Item   string `json:"item" yaml:"item"`
	Reason string `json:"reason" yaml:"reason"`
}

// Report is the monitor's daily exception report.
type Report struct {
	ID      string        `json:"id" yaml:"id"`
	Day     string        `json:"day" yaml:"day"`
	Entries []ReportEntry `json:"entries" yaml:"entries"`
}

// ReportEntry is one exception of the day.
type ReportEntry struct {
	Item   string `json:"item" yaml:"item"`
	Kind   string `json:"kind" yaml:"kind"` // escalation, rejection, refusal, tool_failure
	Reason string `json:"reason" yaml:"reason"`
}
