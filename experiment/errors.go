package experiment

import (
	"errors"
	"fmt"
	"strings"

	"github.com/baton-lab/baton/reports"
)

// Sentinel errors; callers test them with errors.Is.
var (
	// ErrLockMismatch: the protocol's lock file records another hash tree
	// than the protocol and its inputs have now.
	ErrLockMismatch = errors.New("protocol does not match its lock")
	// ErrLockedOverride: a run overrides a setting of a locked protocol
	// without Options.Deviate.
	ErrLockedOverride = errors.New("locked protocol overridden")
	// ErrProtocolChanged: the protocol file changed since the run started.
	ErrProtocolChanged = errors.New("protocol changed since the run started")
	// ErrForeignRun: the run folder holds another protocol's run.
	ErrForeignRun = errors.New("run folder holds a different run")
	// ErrRunExists: the run folder is not empty and resume was not asked.
	ErrRunExists = errors.New("run folder is not empty (use resume to continue it)")
	// ErrReplayMismatch: a replayed item differs from what the run stored.
	ErrReplayMismatch = errors.New("replay differs from the stored run")
	// ErrNoStack: no default stack is wired into this binary.
	ErrNoStack = errors.New("no default stack")
)

// InputError is a problem with an input file: the file, the line, the
// field (a dotted path such as "faults.lookup_supplier.latency") and what
// is wrong. Err, when set, is the underlying error.
type InputError struct {
	File    string
	Line    int
	Field   string
	Problem string
	Err     error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Problem)
	if e.Err != nil {
		if e.Problem != "" {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

// DiscardedError is returned by [Run] after every output is written when the
// results fail the validity gate (a design missed the control class). The
// command line maps it to its own exit code.
type DiscardedError struct {
	RunDir string
	Reason string
}

func (e *DiscardedError) Error() string {
	return fmt.Sprintf("run %s discarded: %s", e.RunDir, e.Reason)
}

// Unwrap returns [reports.ErrDiscarded], so errors.Is finds it too.
func (e *DiscardedError) Unwrap() error { return reports.ErrDiscarded }
