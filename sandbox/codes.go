package sandbox

import "strings"

// Error codes the engine answers with. The prefix names the family
// (authorisation, validation, not found, business rule, system, rate
// limit); [CodeKind] maps a code back to the [ErrorKind] a caller sees. A
// mission's handlers add their own business-rule codes ("BR-" and a
// number) with [Refuse].
const (
	CodeForbidden    = "AUTH-403" // the agent may not call the tool
	CodeTokenExpired = "AUTH-401" // injected authorisation refusal
	CodeBadRequest   = "VAL-400"  // injected validation refusal
	CodeInvalid      = "VAL-422"  // missing or ill-typed argument
	CodeNotFound     = "NF-404"   // no such record
	CodeDailyLimit   = "BR-429"   // injected business-rule refusal
	CodeUnavailable  = "SYS-503"  // transient unavailability
	CodeTimeout      = "SYS-504"  // the caller heard nothing back
	CodeRateLimited  = "RL-429"   // retry after Error.RetryAfter
)

// Outcomes of a call as the log records them.
const (
	OutcomeOK        = "ok"
	OutcomeReplayed  = "replayed"  // a repeated idempotency key: first result returned
	OutcomeError     = "error"     // the caller got an error (Code says which)
	OutcomeForbidden = "forbidden" // a permission violation
)

// CodeKind returns the error kind a code is answered with, or "" for a code
// the sandbox does not use. It lets a reader of the log classify entries the
// way the caller saw them.
func CodeKind(code string) ErrorKind {
	switch {
	case code == CodeForbidden:
		return ErrForbidden
	case code == CodeInvalid:
		return ErrInvalid
	case code == CodeTimeout:
		return ErrTimeout
	case strings.HasPrefix(code, "AUTH-"), strings.HasPrefix(code, "VAL-"), strings.HasPrefix(code, "BR-"):
		return ErrRefused
	case strings.HasPrefix(code, "NF-"):
		return ErrNotFound
	case strings.HasPrefix(code, "SYS-"):
		return ErrUnavailable
	case strings.HasPrefix(code, "RL-"):
		return ErrRateLimited
	}
	return ""
}

// RetryableCode reports whether a call answered with code may succeed if
// repeated (timeouts, unavailability, rate limits).
func RetryableCode(code string) bool {
	switch CodeKind(code) {
	case ErrTimeout, ErrUnavailable, ErrRateLimited:
		return true
	}
	return false
}

// Invalid returns the error of a call whose arguments are missing or
// ill-typed (VAL-422).
func Invalid(msg string) *Error {
	return &Error{Kind: ErrInvalid, Code: CodeInvalid, Message: msg}
}

// NotFound returns the error of a call about a record that does not exist
// (NF-404): a business answer, not a failure.
func NotFound(msg string) *Error {
	return &Error{Kind: ErrNotFound, Code: CodeNotFound, Message: msg}
}

// Refuse returns the error of a call a business rule refuses, under the
// mission's own code (for instance "BR-409").
func Refuse(code, msg string) *Error {
	return &Error{Kind: ErrRefused, Code: code, Message: msg}
}
