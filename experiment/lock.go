package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/baton-lab/baton/mission"
)

// LockFile returns the lock file of a protocol: "<path>.sha256".
func LockFile(path string) string { return path + ".sha256" }

// Lock pre-registers a protocol: it checks that the protocol loads, then
// writes its SHA-256 beside it in <path>.sha256 (sha256sum's format, so
// `sha256sum -c` verifies it) and returns the hash. Locking again after a
// change overwrites the lock: pre-registration means the lock and the file
// are committed together before the first run.
func Lock(path string, missions *mission.Registry) (string, error) {
	p, err := LoadProtocol(path, missions)
	if err != nil {
		return "", fmt.Errorf("lock protocol: %w", err)
	}
	line := p.SHA256 + "  " + filepath.Base(path) + "\n"
	if err := writeAtomic(LockFile(path), []byte(line)); err != nil {
		return "", fmt.Errorf("lock protocol: %w", err)
	}
	return p.SHA256, nil
}

// CheckLock reports whether a protocol is locked, and refuses
// ([ErrLockMismatch]) one whose lock records another hash than its
// current content.
func CheckLock(path string) (locked bool, err error) {
	data, err := os.ReadFile(LockFile(path))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check protocol lock: %w", err)
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 || len(fields[0]) != 64 {
		return true, fmt.Errorf("check protocol lock: %s: want \"<sha256>  <file>\"", LockFile(path))
	}
	content, err := os.ReadFile(path)
	if err != nil {
		return true, fmt.Errorf("check protocol lock: %w", err)
	}
	if got := HashBytes(content); !strings.EqualFold(got, fields[0]) {
		return true, fmt.Errorf("%w: %s records %s, %s hashes to %s", ErrLockMismatch, LockFile(path), fields[0], path, got)
	}
	return true, nil
}
