package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// FolderLock is the file in a run folder that the process writing the
// folder holds an exclusive lock on (flock(2)), with its pid inside. The
// file stays when the lock is released: the lock is the kernel's, and a
// process that dies releases it with everything else it held.
const FolderLock = ".baton.lock"

// ErrRunLocked: another process is writing the run folder.
var ErrRunLocked = errors.New("run folder is in use")

// LockedError is the refusal a process gets when another one holds a run
// folder's lock; PID is the holder's (0 when it could not be read).
type LockedError struct {
	RunDir string
	PID    int
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = "process " + strconv.Itoa(e.PID)
	}
	return fmt.Sprintf("%s: %s by %s (a run, resume, report or review); try again when it ends", e.RunDir, ErrRunLocked, who)
}

// Unwrap returns [ErrRunLocked].
func (e *LockedError) Unwrap() error { return ErrRunLocked }

// folderLock is a held run-folder lock.
type folderLock struct{ f *os.File }

// lockFolder takes runDir's lock without waiting and writes this
// process's pid into it; a folder another process holds is refused with a
// [*LockedError].
func lockFolder(runDir string) (*folderLock, error) {
	f, err := os.OpenFile(filepath.Join(runDir, FolderLock), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock run folder: %w", err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock run folder %s: %w", runDir, err)
	}
	if held {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		f.Close()
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
		return nil, &LockedError{RunDir: runDir, PID: pid}
	}
	// The pid a dead holder left is overwritten: the lock is ours.
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		unlock(f)
		f.Close()
		return nil, fmt.Errorf("lock run folder %s: %w", runDir, err)
	}
	return &folderLock{f: f}, nil
}

// release gives the lock up; a nil lock does nothing.
func (l *folderLock) release() {
	if l == nil {
		return
	}
	l.f.Truncate(0)
	unlock(l.f)
	l.f.Close()
}

// LockRun takes a run folder's lock for a command that writes into it
// (report, review) and removes what killed processes left there (see
// [RemoveLeftovers]). It returns the function that releases the lock.
func LockRun(runDir string) (release func(), err error) {
	l, err := lockFolder(runDir)
	if err != nil {
		return nil, err
	}
	if _, err := RemoveLeftovers(runDir); err != nil {
		l.release()
		return nil, err
	}
	return l.release, nil
}

// leftover matches the temporary files of the atomic writes into a run
// folder (".<name>.<digits>", ".<name>.tmp-<digits>") and the kept-trace
// spools (".<build>.spool.<digits>"): a process killed in the middle of
// one leaves it behind.
var leftover = regexp.MustCompile(`^\..+\.(tmp-)?[0-9]+$`)

// RemoveLeftovers removes the temporary files killed processes left in a
// run folder and its traces/, review/ and inputs/ folders, and returns
// their names. Call it only holding the folder's lock: then no process is
// writing them.
func RemoveLeftovers(runDir string) ([]string, error) {
	var removed []string
	for _, dir := range []string{runDir, filepath.Join(runDir, TracesDir), filepath.Join(runDir, "review"), filepath.Join(runDir, InputsDir)} {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return removed, fmt.Errorf("remove leftovers: %w", err)
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || !leftover.MatchString(e.Name()) {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if err := os.Remove(p); err != nil {
				return removed, fmt.Errorf("remove leftovers: %w", err)
			}
			removed = append(removed, p)
		}
	}
	return removed, nil
}

// claimRunDir makes a new run folder under out: out/name, or, when that
// exists, out/name-2, out/name-3, … (os.Mkdir claims it: two processes
// never get the same one).
func claimRunDir(out, name string) (string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	for i := 1; ; i++ {
		dir := runDirName(out, name, i)
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
}

func runDirName(out, name string, i int) string {
	if i == 1 {
		return filepath.Join(out, name)
	}
	return filepath.Join(out, name+"-"+strconv.Itoa(i))
}

// latestRunDir returns the newest run folder of name under out (the one
// with the highest number, see [claimRunDir]), "" when there is none.
func latestRunDir(out, name string) (string, error) {
	entries, err := os.ReadDir(out)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	best := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n := e.Name()
		switch {
		case n == name:
			best = max(best, 1)
		case strings.HasPrefix(n, name+"-"):
			if i, err := strconv.Atoi(n[len(name)+1:]); err == nil && i > 1 && strconv.Itoa(i) == n[len(name)+1:] {
				best = max(best, i)
			}
		}
	}
	if best == 0 {
		return "", nil
	}
	return runDirName(out, name, best), nil
}

// folderUsed reports whether dir holds anything but its lock file.
func folderUsed(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if e.Name() != FolderLock {
			return true, nil
		}
	}
	return false, nil
}

// InterruptedError is what [Run] returns when its context is cancelled
// during the sweep: every finished item is stored, and the same run with
// Options.Resume (and Options.RunDir set to RunDir) continues it. It
// unwraps to the context's error.
type InterruptedError struct {
	RunDir string
	Err    error
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("run %s interrupted (%v); every finished item is stored: resume it", e.RunDir, e.Err)
}

func (e *InterruptedError) Unwrap() error { return e.Err }
