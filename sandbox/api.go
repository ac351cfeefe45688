// Package sandbox is the engine every mission's system of record runs on.
// It knows tools and records, never what a mission's records mean.
//
// A mission registers its tools in a [Registry]: each [Tool] has a name, a
// description, a JSON Schema of its arguments ([Schema], checked before the
// handler runs), whether it reads or writes, the record kind a write writes,
// the agents allowed to call it and a [Handler] that reads and writes the
// mission's [Records]. A [Sandbox] is one run's system of record over a
// registry: [Sandbox.Call] refuses a tool the agent may not call, injects
// faults, validates the arguments, runs the handler, and keeps the call log.
// A handler may keep what it built from records that rarely change in its
// tool's memo ([Tx.Memo]), checking it against the records on every call.
//
// Every write carries an idempotency key: a repeated key returns the first
// result and changes nothing. Faults (timeouts before and after commit,
// refusals, unavailability, rate limits, latency) are injected per tool and
// kind with probabilities drawn from [Dice], which is keyed by the decision a
// draw serves rather than a sequential stream. Time is a virtual [Clock].
// Record ids are issued per kind ("PFX-0001"), after the highest id of the
// kind the initial state holds. [State] is the records plus the log, as a
// snapshot or a scenario's initial state; [ReadLog] reads the log the way
// an end-state check needs it (what was written, which items ran out of
// retries or were refused).
package sandbox

import (
	"errors"
	"time"
)

// Args are a tool call's arguments, as decoded JSON values (string, float64,
// bool, nil, []any, map[string]any).
type Args = map[string]any

// Result is a tool call's answer, as decoded JSON values.
type Result = map[string]any

// FaultKind is one kind of injected fault.
type FaultKind string

// The fault kinds, in the order they are drawn for a call.
const (
	TimeoutBeforeCommit FaultKind = "timeout_before_commit"
	TimeoutAfterCommit  FaultKind = "timeout_after_commit" // the write happened, the caller saw a timeout
	Refusal             FaultKind = "refusal"              // authorisation, validation or business rule
	Unavailable         FaultKind = "unavailable"          // transient, retryable
	RateLimit           FaultKind = "rate_limit"           // retryable after RetryAfter
	Latency             FaultKind = "latency"              // slow but successful
	Redelivery          FaultKind = "redelivery"           // transport: an ack is lost and the message is delivered again
)

func (k FaultKind) String() string { return string(k) }

// AllFaultKinds lists every fault kind.
var AllFaultKinds = []FaultKind{TimeoutBeforeCommit, TimeoutAfterCommit, Refusal, Unavailable, RateLimit, Latency, Redelivery}

// FaultRates gives, per tool name, the probability of each fault kind on one
// call. The tool name "*" applies to every tool without an entry of its own;
// the pseudo-tool "transport" holds the redelivery rate of hand-offs.
type FaultRates map[string]map[FaultKind]float64

// Rate returns the probability of kind on tool.
func (r FaultRates) Rate(tool string, kind FaultKind) float64 {
	if m, ok := r[tool]; ok {
		if p, ok := m[kind]; ok {
			return p
		}
	}
	return r["*"][kind]
}

// ErrorKind classifies a tool error as the caller sees it.
type ErrorKind string

// Error kinds a caller sees.
const (
	ErrTimeout     ErrorKind = "timeout"
	ErrRefused     ErrorKind = "refused"
	ErrUnavailable ErrorKind = "unavailable"
	ErrRateLimited ErrorKind = "rate_limited"
	ErrForbidden   ErrorKind = "forbidden" // the agent may not call this tool
	ErrNotFound    ErrorKind = "not_found"
	ErrInvalid     ErrorKind = "invalid" // bad arguments
)

func (k ErrorKind) String() string { return string(k) }

// AllErrorKinds lists every error kind a caller can see.
var AllErrorKinds = []ErrorKind{ErrTimeout, ErrRefused, ErrUnavailable, ErrRateLimited, ErrForbidden, ErrNotFound, ErrInvalid}

// Error is what a failed tool call returns. Code and Message are realistic
// (for instance "AUTH-403", "VAL-422 missing field amount", a mission's
// "BR-409 duplicate number"); RetryAfter is set on rate limits.
type Error struct {
	Kind       ErrorKind     `json:"kind"`
	Code       string        `json:"code"`
	Message    string        `json:"message"`
	RetryAfter time.Duration `json:"retry_after,omitempty"`
}

// Error reads "kind code: message". A tool call that fails puts it in
// the trace, so it is built without fmt.
func (e *Error) Error() string { return string(e.Kind) + " " + e.Code + ": " + e.Message }

// Retryable reports whether the same call may succeed later.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case ErrTimeout, ErrUnavailable, ErrRateLimited:
		return true
	}
	return false
}

// AsError returns err as an *Error, if it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Fired is one fault the sandbox injected: part of the run's oracle, never
// of what an evaluator reads.
type Fired struct {
	At      int64     `json:"at_ms"`
	Agent   string    `json:"agent"`
	Tool    string    `json:"tool"`
	Item    string    `json:"item"`
	Attempt int       `json:"attempt"`
	Kind    FaultKind `json:"kind"`
	Code    string    `json:"code,omitempty"`
}
