package reports

import "errors"

// Sentinel errors.
var (
	// ErrDiscarded is the sentinel a discarded run's error wraps: a design
	// missed the control class, or there was no control to miss, so the
	// harness is not validated and no figure stands. main maps it to its own
	// exit code with errors.Is, or takes the reason from a
	// [*DiscardedError] with errors.As.
	ErrDiscarded = errors.New("run discarded")

	// ExitDiscarded is the former name of [ErrDiscarded], the same value.
	//
	// Deprecated: use [ErrDiscarded].
	ExitDiscarded = ErrDiscarded

	// ErrReview marks a bad review export or label file.
	ErrReview = errors.New("review")
)

// DiscardedError is the error of a discarded run: [Results.Err] returns it,
// and experiment.Run returns it (with the run folder) after writing every
// output. The command line maps it to its own exit code.
type DiscardedError struct {
	RunDir string // the run folder, when known
	Reason string
}

func (e *DiscardedError) Error() string {
	if e.RunDir != "" {
		return "run " + e.RunDir + " discarded: " + e.Reason
	}
	return ErrDiscarded.Error() + ": " + e.Reason
}

// Unwrap returns [ErrDiscarded].
func (e *DiscardedError) Unwrap() error { return ErrDiscarded }
