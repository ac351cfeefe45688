package sandbox

import "time"

// Config sets a sandbox's fault rates and latency.
type Config struct {
	Faults FaultRates
	// Latency is the virtual time every call takes; a Latency fault adds a
	// multiple of it. Zero means 20ms.
	Latency time.Duration
}

// Sandbox is one run's system of record. It is not safe for concurrent use:
// each run owns its own.
type Sandbox struct {
	// TODO(sandbox): records, idempotency table, log, fired faults.
}

// New returns a sandbox holding a deep copy of initial, injecting faults by
// cfg with draws from dice, and advancing clock on every call.
func New(initial *State, cfg Config, dice Dice, clock *Clock) *Sandbox {
	panic("TODO(sandbox)")
}

// Call runs tool for agent on behalf of item (the email id the work is for).
// key is the idempotency key of a write ("" means none: the write is applied
// every time); attempt counts retries of the same logical call from 0, and
// keys the fault draws. A repeated key returns the first result and changes
// nothing. Errors are *Error.
func (s *Sandbox) Call(agent, tool, item string, args Args, key string, attempt int) (Result, error) {
	panic("TODO(sandbox)")
}

// Snapshot returns a deep copy of the state, every slice sorted by id.
func (s *Sandbox) Snapshot() *State { panic("TODO(sandbox)") }

// Fired returns the faults injected so far (the oracle).
func (s *Sandbox) Fired() []Fired { panic("TODO(sandbox)") }

// Expected is a scenario's expected end state, authored as business truth:
// what became of each email, and what the day's exception report says.
type Expected struct {
	Items  []ExpectedItem `json:"items" yaml:"items"`
	Report []ReportEntry  `json:"report" yaml:"report"`
}

// ExpectedItem is the fate of one email.
type ExpectedItem struct {
	Item         string         `json:"item" yaml:"item"`                   // email id
	Outcome      string         `json:"outcome" yaml:"outcome"`             // paid, escalated, rejected, closed
	Invoice      string         `json:"invoice,omitempty" yaml:"invoice"`   // invoice number, when one is registered
	Supplier     string         `json:"supplier,omitempty" yaml:"supplier"` // supplier id
	Amount       float64        `json:"amount,omitempty" yaml:"amount"`     // paid: amount in Currency
	Currency     string         `json:"currency,omitempty" yaml:"currency"`
	DueDate      string         `json:"due_date,omitempty" yaml:"due_date"`
	BankAccount  string         `json:"bank_account,omitempty" yaml:"bank_account"`
	Reason       string         `json:"reason,omitempty" yaml:"reason"` // escalated, rejected, closed
	Alternatives []ExpectedItem `json:"alternatives,omitempty" yaml:"alternatives"`
}

// Difference is one way the end state departs from the expected one: the
// record (kind and key, e.g. "payment:E1") and field that differ.
type Difference struct {
	Record string `json:"record"` // kind:key, kind one of the values of Writes
	Field  string `json:"field"`
	Want   string `json:"want"`
	Got    string `json:"got"`
}

// Check compares an end state with the expected one and returns every
// difference, sorted. An escalation with reason system_unavailable (or a
// rejection for a refused call) is accepted in place of an item's expected
// outcome when got's log shows that item's calls exhausted their retries or
// were refused. Report entries of kind tool_failure or refusal are accepted
// when the log shows the failure.
func Check(want *Expected, got *State) []Difference { panic("TODO(sandbox)") }
