package contracts

import (
	"slices"
	"sync"
)

// Check is a pure function of the set's compiled contracts and its
// arguments, and a sweep checks the same bytes again and again: the golden
// wire messages of a scenario as each build parses them, and what an
// emitter produces from the same core result on every trial. A set
// therefore remembers its answers, keyed by the full input (edge, level and
// every byte of raw), in a bounded memo safe for concurrent use. A hit
// returns a copy, so callers may change what they get; a full memo is
// emptied and refilled, so memory stays flat however long a sweep runs.

// Bounds of a set's check memo.
const (
	memoMaxEntries = 1 << 14
	memoMaxBytes   = 32 << 20 // raw bytes held as keys
)

type memoKey struct {
	edge  string
	level Level
}

type checkMemo struct {
	mu      sync.RWMutex
	byKey   map[memoKey]map[string][]Violation
	entries int
	bytes   int
}

func newCheckMemo() *checkMemo {
	return &checkMemo{byKey: map[memoKey]map[string][]Violation{}}
}

// get returns the remembered violations of (edge, level, raw), copied.
func (m *checkMemo) get(edge string, level Level, raw []byte) ([]Violation, bool) {
	if m == nil {
		return nil, false
	}
	m.mu.RLock()
	vs, ok := m.byKey[memoKey{edge, level}][string(raw)]
	m.mu.RUnlock()
	if !ok {
		return nil, false
	}
	return slices.Clone(vs), true
}

// put remembers the violations of (edge, level, raw); vs is copied.
func (m *checkMemo) put(edge string, level Level, raw []byte, vs []Violation) {
	if m == nil || len(raw) > memoMaxBytes/64 {
		return
	}
	vs = slices.Clip(slices.Clone(vs))
	k := memoKey{edge, level}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries >= memoMaxEntries || m.bytes+len(raw) > memoMaxBytes {
		clear(m.byKey)
		m.entries, m.bytes = 0, 0
	}
	inner := m.byKey[k]
	if inner == nil {
		inner = map[string][]Violation{}
		m.byKey[k] = inner
	}
	if _, dup := inner[string(raw)]; dup {
		return
	}
	inner[string(raw)] = vs
	m.entries++
	m.bytes += len(raw)
}
