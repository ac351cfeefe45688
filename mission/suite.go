package mission

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
)

// Suite is a mission's embedded scenario suite, parsed once: immutable
// data that [Suite.Scenarios] copies out.
type Suite struct {
	scs  []*Scenario
	hash string
}

// SuiteFiles says where a mission's embedded suite is: the scenario files
// matching Pattern in FS (in name order, each named Prefix+name in
// errors), parsed by Parse, and the reviewed goldens in GoldenDir of
// GoldenFS, checked against Spec.
type SuiteFiles struct {
	FS        fs.FS
	Pattern   string // "scenarios/*.yaml"
	Prefix    string // prepended to a file's name in errors ("mission/triage/"); may be ""
	Parse     func(name string, data []byte) ([]*Scenario, error)
	GoldenFS  fs.FS
	GoldenDir string
	Spec      *Spec
}

// LoadSuite reads and parses the suite f describes. Its hash is the hex
// SHA-256 of the scenario files (each its name, a NUL, its length, a NUL,
// its bytes, in name order), then of the golden files ([AttachGoldens]).
func LoadSuite(f SuiteFiles) (*Suite, error) {
	names, err := fs.Glob(f.FS, f.Pattern)
	if err != nil {
		return nil, fmt.Errorf("load default scenarios: %w", err)
	}
	slices.Sort(names)
	h := sha256.New()
	var files []ScenarioFile
	for _, name := range names {
		data, err := fs.ReadFile(f.FS, name)
		if err != nil {
			return nil, fmt.Errorf("load default scenarios: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
		files = append(files, ScenarioFile{Name: f.Prefix + name, Data: data})
	}
	scs, err := ParseScenarioFiles(files, f.Parse)
	if err == nil {
		err = AttachGoldens(f.GoldenFS, f.GoldenDir, f.Spec, scs, h)
	}
	if err != nil {
		return nil, fmt.Errorf("load default scenarios: %w", err)
	}
	return &Suite{scs: scs, hash: hex.EncodeToString(h.Sum(nil))}, nil
}

// Scenarios returns fresh deep copies of the suite's scenarios, sorted by
// id, and the suite's hash: callers may change what they get.
func (s *Suite) Scenarios() ([]*Scenario, string) {
	out := make([]*Scenario, len(s.scs))
	for i, sc := range s.scs {
		out[i] = sc.Clone()
	}
	return out, s.hash
}
