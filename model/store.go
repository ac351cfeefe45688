package model

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// DirStore keeps cache entries as files in a directory: the entry of key
// K is DIR/K[:2]/K.json. An entry is written to a temporary file in the
// same directory and then hard-linked to its name, which fails if the name
// exists: the first writer wins, whatever the number of goroutines or
// processes, and a reader never sees a partial entry.
type DirStore struct {
	dir string
}

var (
	_ Store = (*DirStore)(nil)
	_ Store = (*MemStore)(nil)
)

// OpenDir returns the store in dir, creating dir if needed.
func OpenDir(dir string) (*DirStore, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open model cache: %w", err)
	}
	return &DirStore{dir: dir}, nil
}

// Dir returns the store's directory.
func (s *DirStore) Dir() string { return s.dir }

func (s *DirStore) path(key Key) (string, error) {
	if !validKey(key) {
		return "", fmt.Errorf("model cache: key %q is not a hex SHA-256", key)
	}
	return filepath.Join(s.dir, string(key[:2]), string(key)+".json"), nil
}

func validKey(k Key) bool {
	if len(k) != 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Get reads the entry of key.
func (s *DirStore) Get(_ context.Context, key Key) ([]byte, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", p, ErrNotStored)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return raw, nil
}

// Add writes the entry of key unless one exists, and returns the stored one.
func (s *DirStore) Add(_ context.Context, key Key, entry []byte) ([]byte, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, err
	}
	if raw, err := os.ReadFile(p); err == nil {
		return raw, nil
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("add %s: %w", p, err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("add %s: %w", p, err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(entry)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, fmt.Errorf("add %s: %w", p, werr)
	}
	if err := os.Link(tmp.Name(), p); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			// No hard links here (some file systems): rename, which is
			// atomic but lets the last writer win.
			if err := os.Rename(tmp.Name(), p); err != nil {
				return nil, fmt.Errorf("add %s: %w", p, err)
			}
			return entry, nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("add %s: %w", p, err)
		}
		return raw, nil
	}
	return entry, nil
}

// MemStore keeps cache entries in memory: for tests, and as the
// smallest example of a [Store].
type MemStore struct {
	mu sync.Mutex
	m  map[Key][]byte
}

// NewMemStore returns an empty store.
func NewMemStore() *MemStore { return &MemStore{m: map[Key][]byte{}} }

// Get returns the entry of key.
func (s *MemStore) Get(_ context.Context, key Key) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if raw, ok := s.m[key]; ok {
		return raw, nil
	}
	return nil, fmt.Errorf("%s: %w", key, ErrNotStored)
}

// Add stores entry unless key has one, and returns the stored one.
func (s *MemStore) Add(_ context.Context, key Key, entry []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if raw, ok := s.m[key]; ok {
		return raw, nil
	}
	s.m[key] = entry
	return entry, nil
}

// Len returns the number of entries.
func (s *MemStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
