package triage

// Routes: the specialists a ticket needs, as the supervisor's triage and
// its route record write them.
const (
	RouteBilling = "billing"
	RouteTech    = "tech"
	RouteBoth    = "both"
	RouteNone    = "none" // out of scope: closed without a specialist
)

// Billing's statuses: what it did about a ticket.
const (
	StatusRefunded         = "refunded"           // the amount a double charge left due was refunded
	StatusNoRefundDue      = "no_refund_due"      // the invoice was not charged twice
	StatusAlreadyRefunded  = "already_refunded"   // the double charge was refunded before
	StatusNotFound         = "not_found"          // no invoice with that id
	StatusInvalidInvoiceID = "invalid_invoice_id" // the ticket's invoice id is malformed: the customer is asked for it
	StatusNoInvoiceID      = "no_invoice_id"      // the ticket names no invoice: the customer is asked for it
	StatusCustomerMismatch = "customer_mismatch"  // the invoice belongs to another customer
	StatusAboveLimit       = "refund_above_limit" // the refund due is above the desk's limit: a person decides
)

// Tech's statuses.
const (
	StatusSelfService = "self_service"      // a knowledge-base article answers the ticket
	StatusBugFiled    = "bug_filed"         // a bug was filed for engineering
	StatusSecurity    = "security_incident" // a possible account compromise: a person takes it
)

// Statuses either specialist may give.
const (
	StatusSystemUnavailable = "system_unavailable" // a tool call's retries ran out
	StatusToolRefused       = "tool_refused"       // a tool call was refused
	// StatusResolved is what the supervisor's parser reads a missing
	// status as.
	StatusResolved = "resolved"
	// StatusAnsweredBySupervisor is what the supervisor writes for the
	// billing part when it answers a billing question itself (the
	// self_answer slip).
	StatusAnsweredBySupervisor = "answered_by_supervisor"
)

// BillingStatuses and TechStatuses list what each specialist may answer.
var (
	BillingStatuses = []string{StatusRefunded, StatusNoRefundDue, StatusAlreadyRefunded, StatusNotFound, StatusInvalidInvoiceID,
		StatusNoInvoiceID, StatusCustomerMismatch, StatusAboveLimit, StatusSystemUnavailable, StatusToolRefused}
	TechStatuses = []string{StatusSelfService, StatusBugFiled, StatusSecurity, StatusSystemUnavailable, StatusToolRefused}
)

// Escalation and closure reasons.
const (
	ReasonAboveLimit        = "refund_above_limit"
	ReasonSecurity          = "security"
	ReasonDataLoss          = "data_loss"
	ReasonSystemUnavailable = "system_unavailable"
	ReasonToolRefused       = "tool_refused"
	ReasonOutOfScope        = "out_of_scope"
)

// EscalationReasons lists the reasons a ticket is escalated for.
var EscalationReasons = []string{ReasonAboveLimit, ReasonSecurity, ReasonDataLoss, ReasonSystemUnavailable, ReasonToolRefused}

// Languages the supervisor tells apart; a ticket in none of the others is
// answered in English.
const (
	LangEnglish = "en"
	LangGerman  = "de"
	LangFrench  = "fr"
	LangSpanish = "es"
)

// Languages lists them.
var Languages = []string{LangEnglish, LangGerman, LangFrench, LangSpanish}

// The billing desk's refund policy.
const (
	// RefundLimitEUR is the largest refund the desk issues itself,
	// compared in EUR; above it a person decides.
	RefundLimitEUR = 500.00
	// GuessAmount is what billing refunds, in EUR, when it skips the
	// look-up (the skip_lookup slip) on a ticket that states no amount:
	// the mock model's guess in seed 003.
	GuessAmount = 20.00
)

// ratesEUR is the fixed rate table to EUR the refund limit is compared in.
var ratesEUR = map[string]float64{"EUR": 1.0, "USD": 0.92, "GBP": 1.17, "CHF": 1.05}

// toEUR converts amount in currency to EUR; ok is false for a currency
// outside the rate table.
func toEUR(amount float64, currency string) (float64, bool) {
	r, ok := ratesEUR[currency]
	return amount * r, ok
}
