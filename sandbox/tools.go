package sandbox

// Tool names. Each is scoped to the agents listed in [Permissions].
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

// Permissions lists, per agent, the tools it may call. A call outside this
// table is refused with ErrForbidden and recorded as a violation in the log.
var Permissions = map[string][]string{
	"intake":   {LookupSupplier, FindInvoice, RegisterInvoice},
	"action":   {GetPurchaseOrder, GetGoodsReceipts, RecordMatch},
	"boundary": {LookupSupplier, ApproveInvoice, PostLedger, SchedulePayment, Escalate, RejectInvoice, CloseItem},
	"monitor":  {PublishReport},
}

// Writes maps each write tool to the record kind it writes; a tool absent
// from it is a read.
var Writes = map[string]string{
	RegisterInvoice: "invoice",
	RecordMatch:     "match",
	ApproveInvoice:  "approval",
	PostLedger:      "ledger",
	SchedulePayment: "payment",
	Escalate:        "escalation",
	RejectInvoice:   "rejection",
	CloseItem:       "closure",
	PublishReport:   "report",
}

// Permitted reports whether agent may call tool.
func Permitted(agent, tool string) bool {
	for _, t := range Permissions[agent] {
		if t == tool {
			return true
		}
	}
	return false
}

// Writer returns the agent that owns writes to a record kind ("payment" ->
// "boundary"), or "" when no agent writes it. Design B blames through it.
func Writer(record string) string {
	for tool, rec := range Writes {
		if rec != record {
			continue
		}
		for agent := range Permissions {
			if Permitted(agent, tool) {
				return agent
			}
		}
	}
	return ""
}
