package model

import (
	"errors"
	"fmt"
	"strings"
)

// Endpoint failures; a [*Error] wraps one of them (or a context error).
var (
	ErrUnreachable   = errors.New("endpoint unreachable")
	ErrTimeout       = errors.New("request timed out")
	ErrRateLimited   = errors.New("rate limited")
	ErrServer        = errors.New("server error")
	ErrModelNotFound = errors.New("model not found")
	ErrAuth          = errors.New("not authorised")
	ErrRejected      = errors.New("request rejected")
	ErrBadResponse   = errors.New("bad response")
)

// Error is a failed chat-completions request. Its message never holds a
// secret: every field is built from redacted text.
type Error struct {
	Err      error  // one of the Err* sentinels, context.Canceled or context.DeadlineExceeded
	Status   int    // HTTP status of the last attempt; 0 if none
	Detail   string // what went wrong or what the endpoint said, redacted and shortened
	Attempts int    // attempts made
	Model    string // the model asked for
	Endpoint string // the base URL without credentials
}

// Error reads "chat completions: status 404: <body> (model not found,
// model m at http://host/v1)" or "chat completions: endpoint unreachable:
// connection refused (6 attempts, model m at http://host/v1)".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("chat completions: ")
	if e.Status != 0 {
		fmt.Fprintf(&b, "status %d", e.Status)
	} else {
		b.WriteString(e.Err.Error())
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	var notes []string
	if e.Status != 0 {
		notes = append(notes, e.Err.Error())
	}
	if e.Attempts > 1 {
		notes = append(notes, fmt.Sprintf("%d attempts", e.Attempts))
	}
	notes = append(notes, fmt.Sprintf("model %s at %s", e.Model, e.Endpoint))
	fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
	return b.String()
}

// Unwrap returns the sentinel or context error.
func (e *Error) Unwrap() error { return e.Err }
