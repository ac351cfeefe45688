package invoice

import "github.com/baton-lab/baton/sandbox"

// Tool names. Each is scoped to the agents [registry] lists for it.
const (
	LookupSupplier   = "lookup_supplier"          // read: {supplier_id?, email?, name?} -> supplier
	FindInvoice      = "find_invoice"             // read: {supplier_id, number} -> {invoice_id, status} or not_found
	RegisterInvoice  = "register_invoice"         // write: invoice fields -> {invoice_id}; BR-409 on a duplicate number
	GetPurchaseOrder = "get_purchase_order"       // read: {po_number} -> order with lines
	GetGoodsReceipts = "get_goods_receipts"       // read: {po_number} -> {receipts: [...]}
	RecordMatch      = "record_match"             // write: {invoice_id, po_number, status, variance, reason} -> {match_id}
	ApproveInvoice   = "approve_invoice"          // write: {invoice_id, amount_eur} -> {approval_id}
	PostLedger       = "post_ledger"              // write: {invoice_id, account, amount, currency} -> {posting_id}
	SchedulePayment  = "schedule_payment"         // write: {invoice_id, supplier_id, amount, currency, due_date, bank_account} -> {payment_id}; needs an approval
	Escalate         = "escalate"                 // write: {item, reason} -> {escalation_id}
	RejectInvoice    = "reject_invoice"           // write: {item, reason} -> {rejection_id}
	CloseItem        = "close_item"               // write: {item, reason} -> {closure_id}
	PublishReport    = "publish_exception_report" // write: {day, entries: [{item, kind, reason}]} -> {report_id}
)

// Business-rule codes of the finance system, beside the engine's.
const (
	CodeDuplicate  = "BR-409" // duplicate invoice number
	CodeNoApproval = "BR-412" // payment without an approval
)

// Indexes of the record kinds in recordKinds.
const (
	kInvoice = iota
	kMatch
	kLedger
	kApproval
	kPayment
	kEscalation
	kRejection
	kClosure
	kReport
)

// recordKinds are the kinds of record the tools write, with the prefix of
// their ids.
var recordKinds = []sandbox.RecordKind{
	kInvoice:    {Name: "invoice", Prefix: "INV", Doc: "an entry of the invoice register"},
	kMatch:      {Name: "match", Prefix: "MAT", Doc: "an invoice matched against its order and receipts"},
	kLedger:     {Name: "ledger", Prefix: "LED", Doc: "a ledger posting"},
	kApproval:   {Name: "approval", Prefix: "APR", Doc: "an invoice approved for payment"},
	kPayment:    {Name: "payment", Prefix: "PAY", Doc: "a scheduled payment"},
	kEscalation: {Name: "escalation", Prefix: "ESC", Doc: "an item put in front of a person"},
	kRejection:  {Name: "rejection", Prefix: "REJ", Doc: "an item refused without payment"},
	kClosure:    {Name: "closure", Prefix: "CLO", Doc: "an item closed without payment"},
	kReport:     {Name: "report", Prefix: "REP", Doc: "the day's exception report"},
}

var (
	text     = sandbox.Schema{Type: sandbox.TypeString}
	nonEmpty = sandbox.Schema{Type: sandbox.TypeString, NonEmpty: true}
	date     = sandbox.Schema{Type: sandbox.TypeString, Format: sandbox.FormatDate}
	number   = sandbox.Schema{Type: sandbox.TypeNumber}
	// The formats tell a reader what a string holds (a mutant generator
	// derives realistic wrong values from them): an identifier, a currency.
	id          = sandbox.Schema{Type: sandbox.TypeString, Format: sandbox.FormatID}
	idNonEmpty  = sandbox.Schema{Type: sandbox.TypeString, NonEmpty: true, Format: sandbox.FormatID}
	currency    = sandbox.Schema{Type: sandbox.TypeString, NonEmpty: true, Format: sandbox.FormatCurrency}
	dayNonEmpty = sandbox.Schema{Type: sandbox.TypeString, NonEmpty: true, Format: sandbox.FormatDate}
	req         = func(name string, s sandbox.Schema) sandbox.Property { return sandbox.Prop(name, true, s) }
	opt         = func(name string, s sandbox.Schema) sandbox.Property { return sandbox.Prop(name, false, s) }
	itemArgs    = sandbox.Object("", req("item", idNonEmpty), req("reason", nonEmpty))
)

// newRegistry registers the finance system's record kinds and tools: each
// tool's arguments in the order a call checks them.
func newRegistry() (*sandbox.Registry, error) {
	lookup := sandbox.Object("", opt("supplier_id", id), opt("email", text), opt("name", text))
	lookup.AnyOf = [][]string{{"supplier_id", "email", "name"}}
	register := sandbox.Object("", req("supplier_id", id), opt("number", id), opt("invoice_number", id),
		req("currency", currency), req("gross", number), opt("net", number), opt("tax", number), opt("email_id", id),
		opt("po_number", id), opt("doc_type", text), opt("invoice_date", date), opt("due_date", date), opt("bank_account", id))
	register.AnyOf = [][]string{{"number", "invoice_number"}} // the number, under either name
	matchStatus := nonEmpty
	matchStatus.Enum = []string{MatchMatched, MatchVarianceExplained, MatchVarianceUnexplained, MatchNoPO, MatchNotApplicable}
	w := func(t sandbox.Tool, record, id string) sandbox.Tool {
		t.Access, t.Record, t.ResultID = sandbox.Write, record, id
		return t
	}
	return sandbox.NewRegistry(sandbox.Setup{
		Records: func() sandbox.Records { return new(Records) },
		Kinds:   recordKinds,
		Tools: []sandbox.Tool{
			{Name: LookupSupplier, Agents: []string{string(Intake), string(Boundary)}, Handler: lookupSupplier, Args: lookup,
				Description: "Find a supplier on file by id, else by e-mail address, else by name (e-mail and name ignore case); returns its name, e-mail, bank account and currency."},
			{Name: FindInvoice, Agents: []string{string(Intake)}, Handler: findInvoice,
				Args:        sandbox.Object("", req("supplier_id", id), req("number", idNonEmpty)),
				Description: "Look an invoice up in the register by supplier and invoice number; returns its id and status, or not found."},
			w(sandbox.Tool{Name: RegisterInvoice, Agents: []string{string(Intake)}, Handler: registerInvoice,
				Args:        register,
				Description: "Enter an invoice in the register; refused (BR-409) when the supplier already has an invoice with that number."}, "invoice", "invoice_id"),
			{Name: GetPurchaseOrder, Agents: []string{string(Action)}, Handler: getPurchaseOrder,
				Args:        sandbox.Object("", req("po_number", idNonEmpty)),
				Description: "Read a purchase order: its supplier, currency and lines (SKU, quantity, unit price)."},
			{Name: GetGoodsReceipts, Agents: []string{string(Action)}, Handler: getGoodsReceipts,
				Args:        sandbox.Object("", req("po_number", idNonEmpty)),
				Description: "List the goods receipts of a purchase order (SKU and quantity received)."},
			w(sandbox.Tool{Name: RecordMatch, Agents: []string{string(Action)}, Handler: recordMatch,
				Args: sandbox.Object("", req("invoice_id", idNonEmpty), req("status", matchStatus), opt("po_number", id),
					opt("variance", number), opt("reason", text)),
				Description: "Record the match of a registered invoice against its order and receipts, with its status and variance."}, "match", "match_id"),
			w(sandbox.Tool{Name: ApproveInvoice, Agents: []string{string(Boundary)}, Handler: approveInvoice,
				Args:        sandbox.Object("", req("invoice_id", idNonEmpty), req("amount_eur", number)),
				Description: "Approve a registered invoice for payment, stating its gross amount in EUR."}, "approval", "approval_id"),
			w(sandbox.Tool{Name: PostLedger, Agents: []string{string(Boundary)}, Handler: postLedger,
				Args:        sandbox.Object("", req("invoice_id", idNonEmpty), req("account", nonEmpty), req("amount", number), req("currency", currency)),
				Description: "Post an invoice's amount to a ledger account."}, "ledger", "posting_id"),
			w(sandbox.Tool{Name: SchedulePayment, Agents: []string{string(Boundary)}, Handler: schedulePayment,
				Args: sandbox.Object("", req("invoice_id", idNonEmpty), req("supplier_id", idNonEmpty), req("amount", number),
					req("currency", currency), req("due_date", dayNonEmpty), req("bank_account", idNonEmpty)),
				Description: "Schedule the payment of an approved invoice to a bank account on a due date; refused (BR-412) without an approval."}, "payment", "payment_id"),
			w(sandbox.Tool{Name: Escalate, Agents: []string{string(Boundary)}, Handler: itemDecision(kEscalation), Args: itemArgs,
				Description: "Put an item in front of a person, with the reason."}, "escalation", "escalation_id"),
			w(sandbox.Tool{Name: RejectInvoice, Agents: []string{string(Boundary)}, Handler: itemDecision(kRejection), Args: itemArgs,
				Description: "Refuse an item without payment, with the reason."}, "rejection", "rejection_id"),
			w(sandbox.Tool{Name: CloseItem, Agents: []string{string(Boundary)}, Handler: itemDecision(kClosure), Args: itemArgs,
				Description: "Close an item without payment (out of scope, statements, credit notes), with the reason."}, "closure", "closure_id"),
			w(sandbox.Tool{Name: PublishReport, Agents: []string{string(Monitor)}, Handler: publishReport,
				Args: sandbox.Object("", req("day", dayNonEmpty), req("entries", sandbox.Schema{Type: sandbox.TypeArray,
					Items: sandbox.Object("", req("item", id), req("kind", text), req("reason", text))})),
				Description: "Publish the day's exception report: one entry (item, kind, reason) per escalation, rejection and failed call."}, "report", "report_id"),
		},
	})
}
