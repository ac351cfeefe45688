package experiment

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// LockFile returns the lock file of a protocol: "<path>.sha256".
func LockFile(path string) string { return path + ".sha256" }

// LockOptions set up [Lock] and [CheckLock].
type LockOptions struct {
	// Stack is what the protocol is checked against and whose embedded
	// inputs (the mission's scenarios, catalogue and contracts, and the
	// mission) the lock covers: [NewStack] of the missions baton runs.
	// It is required.
	Stack *Stack
	// Context, when set, stops a lock that Ctrl-C interrupts before the
	// lock is written.
	Context context.Context
}

// Lock pre-registers a protocol. It validates the protocol as a run would,
// and what would otherwise discard a run after all its work ([Validate]:
// a control mutant selected, scenarios selected, every design known);
// then it writes the hash tree of everything a run of it reads — the
// protocol, every file it names (a folder file by file) and the stack's
// embedded inputs — to <path>.sha256, in sha256sum's format with the tree
// in comment lines, so that `sha256sum -c` in the protocol's folder checks
// every file too. Locking again after a change overwrites the lock:
// pre-registration means the lock and the files are committed together
// before the first run.
func Lock(path string, opt LockOptions) (InputTree, error) {
	p, pl, err := validate(path, opt.Stack)
	if err != nil {
		return InputTree{}, fmt.Errorf("lock protocol: %w", err)
	}
	t, err := inputTree(p, pl, p.Path)
	if err != nil {
		return t, fmt.Errorf("lock protocol: %w", err)
	}
	if opt.Context != nil && context.Cause(opt.Context) != nil {
		return t, fmt.Errorf("lock protocol: interrupted while loading: %w", context.Cause(opt.Context))
	}
	if err := writeAtomic(LockFile(path), formatLock(t)); err != nil {
		return t, fmt.Errorf("lock protocol: %w", err)
	}
	return t, nil
}

// readLock reads a protocol's lock, nil when there is none. A legacy lock
// (the protocol's hash alone) comes back with errLegacyLock.
func readLock(path string) (*InputTree, error) {
	data, err := os.ReadFile(LockFile(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read protocol lock: %w", err)
	}
	t, err := parseLock(LockFile(path), data)
	if err != nil && !errors.Is(err, errLegacyLock) {
		return nil, fmt.Errorf("read protocol lock: %w", err)
	}
	return &t, err
}

// checkTree compares what a run reads with its lock: [ErrLockMismatch]
// naming each input that changed, appeared or went, or a legacy lock.
func checkTree(path string, locked *InputTree, legacy error, now InputTree) error {
	diffs := diffTrees(*locked, now)
	if legacy != nil {
		diffs = append(diffs, legacy.Error())
		return fmt.Errorf("%w: %s: %s", ErrLockMismatch, LockFile(path), strings.Join(diffs, "; "))
	}
	if locked.Root == now.Root {
		return nil
	}
	if len(diffs) == 0 { // same entries, other order or format
		diffs = append(diffs, fmt.Sprintf("tree root %s, the lock records %s", short(now.Root), short(locked.Root)))
	}
	return fmt.Errorf("%w: %s: %s", ErrLockMismatch, LockFile(path), strings.Join(diffs, "; "))
}

// CheckLock reports whether a protocol is locked, and refuses
// ([ErrLockMismatch]) one whose lock records another hash tree than what a
// run of it would read now: the protocol, any file it names, or an
// embedded input of the stack changed since it was locked.
func CheckLock(path string, opt LockOptions) (locked bool, err error) {
	lock, legacy := readLock(path)
	if lock == nil {
		return false, legacy
	}
	p, pl, err := validate(path, opt.Stack)
	if err != nil {
		return true, fmt.Errorf("check protocol lock: %w", err)
	}
	now, err := inputTree(p, pl, p.Path)
	if err != nil {
		return true, fmt.Errorf("check protocol lock: %w", err)
	}
	return true, checkTree(path, lock, legacy, now)
}
