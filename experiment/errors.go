package experiment

import (
	"errors"

	"github.com/baton-lab/baton/input"
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
	// ErrTraceHash: the run store's traces were hashed another way than
	// this baton hashes them (made by an older baton), so what it would
	// regenerate cannot be checked against them.
	ErrTraceHash = errors.New("run store hashes traces another way")
	// ErrNoStack: no missions were given to run (Options.Missions and
	// Options.Stack are both nil).
	ErrNoStack = errors.New("no missions to run")
)

// InputError is a problem with an input file: the file, the line and
// column, the field (a dotted path such as "faults.get_ticket.latency"),
// what is wrong and, where the value had to be one of a set, the choices.
// It is the one located error type of baton's input readers
// ([input.Error]).
type InputError = input.Error
