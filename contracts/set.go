package contracts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"sync"

	"github.com/baton-lab/baton/input"
)

// Set is the contracts of a mission, one per edge, compiled once. A Set is
// immutable and safe for concurrent use.
type Set struct {
	byEdge map[string]*Contract
	edges  []string // sorted
	hash   string
	memo   *checkMemo // Check's answers by full input; see memo.go
}

// NewSet builds a set from compiled contracts. Two contracts for one edge
// are an error naming both sources.
func NewSet(cs ...*Contract) (*Set, error) {
	s := &Set{byEdge: make(map[string]*Contract, len(cs)), memo: newCheckMemo()}
	for _, c := range cs {
		if prev, dup := s.byEdge[c.Edge]; dup {
			return nil, fmt.Errorf("%s: edge %s: already has a contract in %s", c.Source, c.Edge, prev.Source)
		}
		s.byEdge[c.Edge] = c
		s.edges = append(s.edges, c.Edge)
	}
	s.seal()
	return s, nil
}

// seal sorts the edges and computes the hash.
func (s *Set) seal() {
	slices.Sort(s.edges)
	h := sha256.New()
	for _, e := range s.edges {
		src := s.byEdge[e].src
		fmt.Fprintf(h, "%s\n%d\n", e, len(src))
		h.Write(src)
	}
	s.hash = hex.EncodeToString(h.Sum(nil))
}

// Load reads contracts from files and directories (every *.yaml and *.yml
// directly inside, in name order). It returns only what it read; use
// [Set.Merge] to put a user's contracts over a mission's ([LoadFS]).
func Load(paths ...string) (*Set, error) {
	return LoadContext(context.Background(), paths...)
}

// LoadContext is [Load], stopping between files once ctx is done: a
// folder of many large contracts takes seconds to compile, and Ctrl-C
// must not wait for all of them.
func LoadContext(ctx context.Context, paths ...string) (*Set, error) {
	if len(paths) == 0 {
		return nil, errors.New("load contracts: no paths")
	}
	var cs []*Contract
	n := 0
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("load contracts: %w", err)
		}
		files := []string{p}
		if info.IsDir() {
			files = nil
			for _, pat := range []string{"*.yaml", "*.yml"} {
				m, err := filepath.Glob(filepath.Join(p, pat))
				if err != nil {
					return nil, fmt.Errorf("load contracts: %w", err)
				}
				files = append(files, m...)
			}
			slices.Sort(files)
			if len(files) == 0 {
				return nil, fmt.Errorf("load contracts: %s: no *.yaml files", p)
			}
		}
		if n += len(files); n > MaxContractFiles {
			return nil, fmt.Errorf("load contracts: %s: more than %d contract files", p, MaxContractFiles)
		}
		for _, f := range files {
			if err := context.Cause(ctx); err != nil {
				return nil, fmt.Errorf("load contracts: %w", err)
			}
			src, err := input.ReadFile(f, MaxContractBytes, "a contract")
			if err != nil {
				return nil, fmt.Errorf("load contracts: %w", err)
			}
			c, err := Parse(f, src)
			if err != nil {
				return nil, fmt.Errorf("load contracts: %w", err)
			}
			cs = append(cs, c)
		}
	}
	s, err := NewSet(cs...)
	if err != nil {
		return nil, fmt.Errorf("load contracts: %w", err)
	}
	return s, nil
}

// LoadFS reads the contracts *.yaml directly inside fsys's root (a
// mission's default contracts), in name order; name prefixes their file
// names in errors ("mission/triage/contracts"). A set read from one fsys
// pointer (what fs.Sub returns) is compiled once per process: later calls
// with the same pointer return the same immutable set.
func LoadFS(fsys fs.FS, name string) (*Set, error) {
	key := fsKey{fsys, name}
	if cacheable(fsys) {
		if s, ok := fsSets.Load(key); ok {
			return s.(*Set), nil
		}
	}
	s, err := loadFS(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("load contracts: %w", err)
	}
	if cacheable(fsys) {
		actual, _ := fsSets.LoadOrStore(key, s)
		s = actual.(*Set)
	}
	return s, nil
}

// fsSets caches the compiled sets of LoadFS by file system and name: a
// mission's contracts are compiled once, not once per design evaluation.
var fsSets sync.Map // fsKey -> *Set

type fsKey struct {
	fsys fs.FS
	name string
}

// cacheable reports whether LoadFS caches fsys's set: a pointer (what
// fs.Sub returns, and what a mission's spec holds) identifies its files.
func cacheable(fsys fs.FS) bool {
	return fsys != nil && reflect.TypeOf(fsys).Kind() == reflect.Pointer
}

func loadFS(fsys fs.FS, name string) (*Set, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no *.yaml files", name)
	}
	var cs []*Contract
	for _, n := range names {
		src, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		c, err := Parse(path.Join(name, n), src)
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	return NewSet(cs...)
}

// Sources returns the contract files *.yaml of fsys's root by name, for a
// user to copy and edit.
func Sources(fsys fs.FS) map[string][]byte {
	out := map[string][]byte{}
	names, _ := fs.Glob(fsys, "*.yaml")
	for _, n := range names {
		b, _ := fs.ReadFile(fsys, n)
		out[path.Base(n)] = b
	}
	return out
}

// Merge returns a new set with s's contracts, each replaced by o's contract
// for the same edge, plus o's other edges.
func (s *Set) Merge(o *Set) *Set {
	m := &Set{byEdge: make(map[string]*Contract, len(s.byEdge)+len(o.byEdge)), memo: newCheckMemo()}
	for _, src := range []*Set{s, o} {
		for e, c := range src.byEdge {
			if _, ok := m.byEdge[e]; !ok {
				m.edges = append(m.edges, e)
			}
			m.byEdge[e] = c
		}
	}
	m.seal()
	return m
}

// Hash is the hex SHA-256 of the set's contract sources, by edge: the same
// contracts give the same hash wherever they were read from.
func (s *Set) Hash() string { return s.hash }

// Edges lists the edges with a contract, sorted.
func (s *Set) Edges() []string { return slices.Clone(s.edges) }

// Contract returns the contract of an edge.
func (s *Set) Contract(edge string) (*Contract, bool) {
	c, ok := s.byEdge[edge]
	return c, ok
}

// String names the set's edges and short hash, for logs.
func (s *Set) String() string {
	return "contracts(" + strconv.Itoa(len(s.edges)) + " edges, " + s.hash[:12] + ")"
}
