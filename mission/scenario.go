package mission

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/sandbox"
)

// Category is a scenario's kind, from the protocol.
type Category string

// The scenario categories.
const (
	CategoryTypical     Category = "typical"
	CategoryVariation   Category = "variation"
	CategoryEdge        Category = "edge"
	CategoryOutOfScope  Category = "out-of-scope"
	CategoryEscalation  Category = "escalation"
	CategoryAdversarial Category = "adversarial"
)

func (c Category) String() string { return string(c) }

// AllCategories lists the categories in report order.
var AllCategories = []Category{CategoryTypical, CategoryVariation, CategoryEdge, CategoryOutOfScope, CategoryEscalation, CategoryAdversarial}

// Scenario is one business day: the initial system of record, the inputs
// that arrive (emails, tickets), the expected end state, and the per-agent
// golden expectations design A scores against. Its mission reads the
// mission-typed parts: the records in Initial, the inputs' attachments and
// Expect.
type Scenario struct {
	ID       string        `json:"id"`
	Title    string        `json:"title"`
	Category Category      `json:"category"`
	Tags     []string      `json:"tags"` // at least category:…, and what the mission asks for
	Day      string        `json:"day"`  // YYYY-MM-DD
	Initial  sandbox.State `json:"initial"`
	Inputs   []Input       `json:"inputs"`
	// Expect is the expected end state, authored as business truth in the
	// mission's terms.
	Expect Expectation `json:"expect"`
	Golden []Golden    `json:"golden,omitempty"`

	// Source is where the scenario was read from ("file:line"), for error
	// messages.
	Source string `json:"-"`
}

// Input is one message arriving from outside during the day, the entry
// agent's item: an email, a ticket. Reports show its sender, subject and
// body; its attachment is in the mission's terms.
type Input struct {
	ID         string     `json:"id" yaml:"id"`
	From       string     `json:"from" yaml:"from"`
	Subject    string     `json:"subject" yaml:"subject"`
	Body       string     `json:"body" yaml:"body"`
	HTML       bool       `json:"html,omitempty" yaml:"html"`
	Attachment Attachment `json:"attachment,omitempty" yaml:"attachment"`
}

// Attachment is what an input carries besides its text (a scanned
// document, a ticket's fields), in its mission's terms.
type Attachment interface {
	// CloneAttachment returns a deep copy.
	CloneAttachment() Attachment
}

// Expectation is a scenario's expected end state in its mission's terms:
// the mission's Check reads it.
type Expectation interface {
	// CloneExpectation returns a deep copy.
	CloneExpectation() Expectation
}

// Golden is one agent's expected behaviour on one item of a scenario: the
// input it receives (wire messages, or the input's id for the entry agent),
// the tool calls it should make in order, its structured result, and the
// messages it should emit. Golden expectations may be recorded from the
// clean build with zero slips and faults, then reviewed; a test checks
// they agree with the expected end state.
type Golden struct {
	Agent  Agent      `json:"agent" yaml:"agent"`
	Item   string     `json:"item" yaml:"item"`
	Input  CoreInput  `json:"input" yaml:"input"`
	Calls  []ToolCall `json:"calls" yaml:"calls"`
	Result Result     `json:"result" yaml:"result"`
	// Emitted holds the wire messages the agent's emitter sends for the
	// item, by edge.
	Emitted map[string][]byte `json:"emitted,omitempty" yaml:"emitted"`
}

// ScenarioError is a problem in a scenario file, at a line and field (a
// path such as "S03.emails[1].attachment.gross"): the one located error
// type of baton's input readers.
type ScenarioError = input.Error

// Clone returns a deep copy of the scenario.
func (sc *Scenario) Clone() *Scenario {
	c := *sc
	c.Tags = slices.Clone(sc.Tags)
	c.Initial = sc.Initial.Clone()
	c.Inputs = slices.Clone(sc.Inputs)
	for i := range c.Inputs {
		if a := c.Inputs[i].Attachment; a != nil {
			c.Inputs[i].Attachment = a.CloneAttachment()
		}
	}
	if sc.Expect != nil {
		c.Expect = sc.Expect.CloneExpectation()
	}
	c.Golden = slices.Clone(sc.Golden)
	for i := range c.Golden {
		g := &c.Golden[i]
		if g.Input.Messages != nil {
			msgs := make([][]byte, len(g.Input.Messages))
			for j, b := range g.Input.Messages {
				msgs[j] = slices.Clone(b)
			}
			g.Input.Messages = msgs
		}
		g.Calls = slices.Clone(g.Calls)
		for j := range g.Calls {
			g.Calls[j].Args = jsontext.CloneObject(g.Calls[j].Args)
		}
		g.Result = jsontext.CloneObject(g.Result)
		if g.Emitted != nil {
			m := make(map[string][]byte, len(g.Emitted))
			for k, b := range g.Emitted {
				m[k] = slices.Clone(b)
			}
			g.Emitted = m
		}
	}
	return &c
}

// HasTag reports whether the scenario carries tag.
func (sc *Scenario) HasTag(tag string) bool { return slices.Contains(sc.Tags, tag) }

// Input returns the input with id, if the scenario has one.
func (sc *Scenario) Input(id string) (*Input, bool) {
	for i := range sc.Inputs {
		if sc.Inputs[i].ID == id {
			return &sc.Inputs[i], true
		}
	}
	return nil, false
}

// ScenarioFingerprint returns the hex SHA-256 of what a run of sc depends
// on: its day, initial state, inputs and expected end state. A golden file
// records it, so goldens recorded for another version of the scenario are
// not used. (The inputs are hashed under the key "Emails", the name of the
// first mission's inputs, so that goldens recorded before the kernel knew
// other missions stay valid.)
func ScenarioFingerprint(sc *Scenario) string {
	b, err := json.Marshal(struct {
		Day     string
		Initial any
		Emails  []Input
		Expect  any
	}{sc.Day, sc.Initial, sc.Inputs, sc.Expect})
	if err != nil { // unreachable: the fields are plain data
		panic(fmt.Sprintf("scenario fingerprint %s: %v", sc.ID, err))
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
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
		in = in || slices.Contains(ids, sc.ID) || hasAnyTag(sc, include)
		if in && !hasAnyTag(sc, exclude) {
			out = append(out, sc)
		}
	}
	return out, nil
}

func hasAnyTag(sc *Scenario, tags []string) bool {
	for _, t := range tags {
		if sc.HasTag(t) {
			return true
		}
	}
	return false
}

// ScenarioFile is one scenario file's name and bytes.
type ScenarioFile struct {
	Name string
	Data []byte
}

// Bounds on what a scenario load reads, far above a real suite's (the
// reference mission's largest file is 21 KB; it has six).
const (
	// MaxScenarioFileBytes bounds one scenario file.
	MaxScenarioFileBytes = 2 << 20
	// MaxScenarioFiles bounds the files one load reads.
	MaxScenarioFiles = 1000
)

// ReadScenarioFiles reads scenario files; a directory contributes its
// *.yaml and *.yml files in name order. A file larger than
// MaxScenarioFileBytes, or more than MaxScenarioFiles files, is an error.
func ReadScenarioFiles(paths ...string) ([]ScenarioFile, error) {
	if len(paths) == 0 {
		return nil, errors.New("no paths")
	}
	var files []ScenarioFile
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		names := []string{p}
		if info.IsDir() {
			names = nil
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
					names = append(names, filepath.Join(p, e.Name()))
				}
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("%s: no *.yaml files", p)
			}
		}
		for _, name := range names {
			if len(files) == MaxScenarioFiles {
				return nil, fmt.Errorf("more than %d scenario files: merge some", MaxScenarioFiles)
			}
			data, err := input.ReadFile(name, MaxScenarioFileBytes, "a scenario file")
			if err != nil {
				return nil, err
			}
			files = append(files, ScenarioFile{Name: name, Data: data})
		}
	}
	return files, nil
}

// ParseScenarioFiles parses files in order with parse (a mission's parser of
// one file), rejects ids repeated across files and sorts the result by id,
// naturally ("S9" before "S10"). Every file's problems are reported.
func ParseScenarioFiles(files []ScenarioFile, parse func(name string, data []byte) ([]*Scenario, error)) ([]*Scenario, error) {
	var all []*Scenario
	seen := map[string]string{}
	var errs input.Collector
	for _, f := range files {
		scs, err := parse(f.Name, f.Data)
		if err != nil {
			errs.Add(err)
			continue
		}
		for _, sc := range scs {
			if prev, ok := seen[sc.ID]; ok {
				file, line := splitSource(sc.Source)
				errs.Add(&ScenarioError{File: file, Pos: input.Pos{Line: line}, Field: sc.ID + ".id", Problem: "duplicate id (first at " + prev + ")"})
				continue
			}
			seen[sc.ID] = sc.Source
			all = append(all, sc)
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(all, func(a, b *Scenario) int { return CompareScenarioIDs(a.ID, b.ID) })
	return all, nil
}

func splitSource(src string) (string, int) {
	i := strings.LastIndex(src, ":")
	if i < 0 {
		return src, 0
	}
	n, _ := strconv.Atoi(src[i+1:])
	return src[:i], n
}

// CompareScenarioIDs orders ids naturally: "S9" before "S10".
func CompareScenarioIDs(a, b string) int {
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
