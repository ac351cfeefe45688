package experiment

import (
	"errors"
	"fmt"
	"strings"
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
	// ErrNoStack: no missions were given to run (Options.Missions and
	// Options.Stack are both nil).
	ErrNoStack = errors.New("no missions to run")
)

// InputError is a problem with an input file: the file, the line, the
// field (a dotted path such as "faults.get_ticket.latency") and what
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
