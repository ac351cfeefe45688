package invoice

// Reasons the reference mission writes on escalations, rejections and
// closures. See the package overview for when each applies.
const (
	ReasonSuspicious          = "suspicious"
	ReasonUnknownSupplier     = "unknown_supplier"
	ReasonBankAccountChanged  = "bank_account_changed"
	ReasonPOSupplierMismatch  = "po_supplier_mismatch"
	ReasonSystemUnavailable   = "system_unavailable"
	ReasonToolRefused         = "tool_refused"
	ReasonVarianceUnexplained = "variance_unexplained"
	ReasonNoPO                = "no_po"
	ReasonUnknownCurrency     = "unknown_currency"
	ReasonAboveThreshold      = "above_threshold"
	ReasonReviewRequested     = "review_requested"
	ReasonDuplicateInvoice    = "duplicate_invoice"
	ReasonCreditNote          = "credit_note_recorded"
	ReasonStatement           = "statement"
	ReasonOutOfScope          = "out_of_scope"
	ReasonApproved            = "approved"
)

// Flags intake and action put on an item.
const (
	FlagPromptInjection    = "prompt_injection"
	FlagHTMLScript         = "html_script"
	FlagUnknownSupplier    = "unknown_supplier"
	FlagBankAccountChanged = "bank_account_changed"
	FlagPOSupplierMismatch = "po_supplier_mismatch"
	FlagSystemUnavailable  = "system_unavailable"
	FlagToolRefused        = "tool_refused"
)

// Document types intake classifies an email as.
const (
	DocInvoice    = "invoice"
	DocCreditNote = "credit_note"
	DocStatement  = "statement"
	DocOutOfScope = "out_of_scope"
	DocSuspicious = "suspicious"
)

// Match statuses and proposals of the action agent, decisions of boundary.
const (
	MatchMatched             = "matched"
	MatchVarianceExplained   = "variance_explained"
	MatchVarianceUnexplained = "variance_unexplained"
	MatchNoPO                = "no_po"
	MatchNotApplicable       = "not_applicable"

	ProposalPost   = "post"
	ProposalHold   = "hold"
	ProposalClose  = "close"
	ProposalReject = "reject"

	DecisionApproved  = "approved"
	DecisionEscalated = "escalated"
	DecisionRejected  = "rejected"
	DecisionClosed    = "closed"
)

// Exception kinds on exception.raised.
const (
	ExceptionToolFailure = "tool_failure" // a retryable failure that exhausted its retries
	ExceptionRefusal     = "refusal"      // refused, forbidden or invalid: retrying will not help
)

// Policy constants of the reference mission.
const (
	// ApprovalThresholdEUR: gross in EUR strictly above it goes to a person.
	ApprovalThresholdEUR = 10000.00
	// MaxAttempts is how many times a tool call is tried before giving up.
	MaxAttempts = 4
	// SchemaVersion is written on every hand-off.
	SchemaVersion = "1.0"
	// LedgerAccount is the account boundary posts approved invoices to.
	LedgerAccount = "accounts_payable"
)

// RateToEUR returns the fixed rate of a currency to EUR.
func RateToEUR(currency string) (float64, bool) {
	switch currency {
	case "EUR":
		return 1, true
	case "USD":
		return 0.92, true
	case "GBP":
		return 1.17, true
	case "CHF":
		return 1.05, true
	}
	return 0, false
}
