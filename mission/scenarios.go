package mission

import (
	"cmp"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/baton-lab/baton/sandbox"
)

//go:embed scenarios/*.yaml
var scenarioFS embed.FS

// scenarioReasons lists the reasons an expected outcome may give, by outcome.
var scenarioReasons = map[string][]string{
	sandbox.OutcomeEscalated: {ReasonSuspicious, ReasonUnknownSupplier, ReasonBankAccountChanged, ReasonPOSupplierMismatch, ReasonSystemUnavailable, ReasonVarianceUnexplained, ReasonNoPO, ReasonUnknownCurrency, ReasonAboveThreshold, ReasonReviewRequested, sandbox.ReasonToolRefused},
	sandbox.OutcomeRejected:  {ReasonDuplicateInvoice, sandbox.ReasonToolRefused},
	sandbox.OutcomeClosed:    {ReasonOutOfScope, ReasonStatement, ReasonCreditNote},
}

// scenarioReportKinds lists the kinds of exception report entry.
var scenarioReportKinds = []string{"escalation", "rejection", "refusal", "tool_failure"}

// ScenarioError is a problem in a scenario file, at a line and field.
type ScenarioError struct {
	File    string
	Line    int
	Field   string // dotted path, e.g. "S03.emails[1].attachment.gross"
	Problem string
}

func (e *ScenarioError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Problem)
}

var (
	scenariosOnce   sync.Once
	scenariosSet    []*Scenario
	scenariosErr    error
	scenariosDigest string
)

func loadDefaultScenarios() {
	names, err := fs.Glob(scenarioFS, "scenarios/*.yaml")
	if err != nil {
		scenariosErr = fmt.Errorf("load default scenarios: %w", err)
		return
	}
	slices.Sort(names)
	h := sha256.New()
	var files []scenarioFile
	for _, name := range names {
		data, err := scenarioFS.ReadFile(name)
		if err != nil {
			scenariosErr = fmt.Errorf("load default scenarios: %w", err)
			return
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
		files = append(files, scenarioFile{name: name, data: data})
	}
	scenariosSet, scenariosErr = parseScenarioFiles(files)
	if scenariosErr == nil {
		// The reviewed goldens (scenarios/golden/*.json) are part of the suite.
		scenariosErr = attachDefaultGoldens(scenariosSet, h)
	}
	scenariosDigest = hex.EncodeToString(h.Sum(nil))
	if scenariosErr != nil {
		scenariosErr = fmt.Errorf("load default scenarios: %w", scenariosErr)
	}
}

// DefaultScenarios returns the embedded scenario suite, sorted by id. The
// files are parsed once; every call returns fresh deep copies, so callers
// may change what they get.
//
// Each scenario carries its reviewed per-agent goldens (Scenario.Golden)
// from scenarios/golden/<id>.json, recorded from the clean build by
// `go test ./mission -run TestGoldenFiles -update` and checked against the
// authored end state; designs score against them instead of recording.
// A scenario without a golden file recorded for its current version, like
// every scenario of [LoadScenarios], has no goldens, and designs record
// them on the fly with [RecordGolden].
func DefaultScenarios() ([]*Scenario, error) {
	scenariosOnce.Do(loadDefaultScenarios)
	if scenariosErr != nil {
		return nil, scenariosErr
	}
	out := make([]*Scenario, len(scenariosSet))
	for i, sc := range scenariosSet {
		out[i] = sc.Clone()
	}
	return out, nil
}

// ScenariosHash returns the hex SHA-256 of the embedded scenario files,
// then golden files (names and contents, in name order): it identifies the
// default suite in results.
func ScenariosHash() string {
	scenariosOnce.Do(loadDefaultScenarios)
	return scenariosDigest
}

// LoadScenarios reads scenario files; a directory contributes its *.yaml and
// *.yml files in name order. Ids must be unique across all files. The result
// is sorted by id.
func LoadScenarios(paths ...string) ([]*Scenario, error) {
	if len(paths) == 0 {
		return nil, errors.New("load scenarios: no paths")
	}
	var files []scenarioFile
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("load scenarios: %w", err)
		}
		names := []string{p}
		if info.IsDir() {
			names = nil
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, fmt.Errorf("load scenarios: %w", err)
			}
			for _, e := range entries {
				if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
					names = append(names, filepath.Join(p, e.Name()))
				}
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("load scenarios: %s: no *.yaml files", p)
			}
		}
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				return nil, fmt.Errorf("load scenarios: %w", err)
			}
			files = append(files, scenarioFile{name: name, data: data})
		}
	}
	all, err := parseScenarioFiles(files)
	if err != nil {
		return nil, fmt.Errorf("load scenarios: %w", err)
	}
	return all, nil
}

// ParseScenarios parses one scenario file's contents; name is used in error
// messages and Scenario.Source. Scenarios come back in file order, families
// expanded in place.
//
// A scenario file is one YAML document, a mapping with two keys:
//
//	defs:       # optional, free-form: a place for YAML anchors (&suppliers)
//	scenarios:  # a list of entries
//	  - id: S01 …            # a scenario
//	  - family: …            # a family, expanded into several scenarios
//
// A family is a template scenario and a list of members. Every member is a
// flat mapping of variables; the template's scalar values may refer to them
// as ${name}. Each member yields one scenario, in the order listed, with the
// member's variables substituted (a member must set "id", and every variable
// it sets must be used). Expansion is plain text substitution, so the same
// file always gives the same scenarios with the same ids. A value that is
// exactly one reference takes the type of what it is replaced by, quoted or
// not ("${qty}" in a flow mapping becomes the number 40).
//
//	scenarios:
//	  - family:
//	      name: typical-po
//	      template:
//	        id: ${id}
//	        title: PO-backed ${currency} invoice from ${supplier}
//	        …
//	      members:
//	        - {id: S06, currency: EUR, supplier: SUP-001, …}
//
// Decoding is strict: unknown keys, wrong types, missing required fields,
// unknown categories, duplicate ids, expected items naming an unknown email,
// tags without category: and currency:, invalid dates and amounts that do
// not add up are errors of the form "file:line: field: problem".
func ParseScenarios(name string, data []byte) ([]*Scenario, error) {
	p := &scenarioParser{file: name}
	out := p.parse(data)
	if err := p.err(); err != nil {
		return nil, fmt.Errorf("parse scenarios: %w", err)
	}
	return out, nil
}

// SelectScenarios returns the scenarios of all, in their order, whose id is
// in ids or which carry one of the include tags (every scenario when both
// are empty), minus those carrying an exclude tag. An id or tag that no
// scenario of all has is an error.
func SelectScenarios(all []*Scenario, ids, include, exclude []string) ([]*Scenario, error) {
	byID := map[string]bool{}
	tags := map[string]bool{}
	for _, sc := range all {
		byID[sc.ID] = true
		for _, t := range sc.Tags {
			tags[t] = true
		}
	}
	for _, id := range ids {
		if !byID[id] {
			return nil, fmt.Errorf("select scenarios: unknown id %q", id)
		}
	}
	for _, t := range slices.Concat(include, exclude) {
		if !tags[t] {
			return nil, fmt.Errorf("select scenarios: no scenario has tag %q", t)
		}
	}
	var out []*Scenario
	for _, sc := range all {
		in := len(ids) == 0 && len(include) == 0
		in = in || slices.Contains(ids, sc.ID) || scenarioHasAnyTag(sc, include)
		if in && !scenarioHasAnyTag(sc, exclude) {
			out = append(out, sc)
		}
	}
	return out, nil
}

// HasTag reports whether the scenario carries tag.
func (sc *Scenario) HasTag(tag string) bool { return slices.Contains(sc.Tags, tag) }

func scenarioHasAnyTag(sc *Scenario, tags []string) bool {
	for _, t := range tags {
		if sc.HasTag(t) {
			return true
		}
	}
	return false
}

type scenarioFile struct {
	name string
	data []byte
}

// parseScenarioFiles parses files in order, rejects ids repeated across files and
// sorts the result by id.
func parseScenarioFiles(files []scenarioFile) ([]*Scenario, error) {
	var all []*Scenario
	seen := map[string]string{}
	var errs []error
	for _, f := range files {
		p := &scenarioParser{file: f.name}
		scs := p.parse(f.data)
		if err := p.err(); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, sc := range scs {
			if prev, ok := seen[sc.ID]; ok {
				file, line := splitScenarioSource(sc.Source)
				errs = append(errs, &ScenarioError{File: file, Line: line, Field: sc.ID + ".id", Problem: "duplicate id (first at " + prev + ")"})
				continue
			}
			seen[sc.ID] = sc.Source
			all = append(all, sc)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.SortStableFunc(all, func(a, b *Scenario) int { return compareScenarioIDs(a.ID, b.ID) })
	return all, nil
}

func splitScenarioSource(src string) (string, int) {
	i := strings.LastIndex(src, ":")
	if i < 0 {
		return src, 0
	}
	n, _ := strconv.Atoi(src[i+1:])
	return src[:i], n
}

// compareScenarioIDs orders ids naturally: "S9" before "S10".
func compareScenarioIDs(a, b string) int {
	pa, na := splitIDNumber(a)
	pb, nb := splitIDNumber(b)
	if c := strings.Compare(pa, pb); c != 0 {
		return c
	}
	if c := cmp.Compare(na, nb); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func splitIDNumber(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) || len(s)-i > 9 {
		return s, -1
	}
	n, _ := strconv.Atoi(s[i:])
	return s[:i], n
}
