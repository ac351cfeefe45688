package triage

import (
	"embed"
	"fmt"
	"slices"
	"sync"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

//go:embed scenarios/*.yaml
var scenarioFS embed.FS

// goldenFS holds the reviewed golden files of the default scenarios
// (scenarios/golden/<scenario-id>.json).
//
//go:embed scenarios/golden
var goldenFS embed.FS

// goldenDir is the directory of the default scenarios' golden files,
// relative to the package.
const goldenDir = "scenarios/golden"

// goldenRecorded tells a reader of a golden file where it comes from.
const goldenRecorded = "recorded from the clean build (zero slips and faults) by `go test ./mission/triage -run TestGoldenFiles -update`; review the diff before committing"

// Ticket is one inbound support ticket as a scenario writes it: the
// customer's e-mail address, a subject and a body.
type Ticket struct {
	ID      string `yaml:"id"`
	From    string `yaml:"from"`
	Subject string `yaml:"subject"`
	Body    string `yaml:"body"`
}

// Input returns the ticket as the kernel's input (no attachment: a ticket
// is its text).
func (tk Ticket) Input() mission.Input {
	return mission.Input{ID: tk.ID, From: tk.From, Subject: tk.Subject, Body: tk.Body}
}

// scenarioDoc is one scenario as its YAML writes it: the kernel's scenario
// frame with the desk's records, tickets and expectation.
type scenarioDoc struct {
	ID       string           `yaml:"id"`
	Title    string           `yaml:"title"`
	Category mission.Category `yaml:"category"`
	Tags     []string         `yaml:"tags"` // at least category:…, and currency:… where money is involved
	Day      string           `yaml:"day"`  // YYYY-MM-DD
	Initial  Records          `yaml:"initial"`
	Tickets  []Ticket         `yaml:"tickets"`
	Expect   Expected         `yaml:"expect"`
}

func (d *scenarioDoc) scenario(source string) *mission.Scenario {
	sc := &mission.Scenario{ID: d.ID, Title: d.Title, Category: d.Category, Tags: slices.Clone(d.Tags), Day: d.Day,
		Initial: sandbox.State{Records: d.Initial.Clone()}, Expect: d.Expect.CloneExpectation(), Source: source}
	for _, tk := range d.Tickets {
		sc.Inputs = append(sc.Inputs, tk.Input())
	}
	return sc
}

// ParseScenarios parses one scenario file of the triage mission; name is
// used in errors (file:line: field: problem) and Scenario.Source.
func ParseScenarios(name string, data []byte) ([]*mission.Scenario, error) {
	scs, err := parseFile(name, data)
	if err != nil {
		return nil, fmt.Errorf("parse scenarios: %w", err)
	}
	return scs, nil
}

// LoadScenarios reads scenario files (a directory contributes its *.yaml
// and *.yml files); ids must be unique across them. The result is sorted
// by id.
func LoadScenarios(paths ...string) ([]*mission.Scenario, error) {
	return New().LoadScenarios(paths...)
}

// defaults is the embedded suite, parsed once: immutable data, copied out
// by DefaultScenarios.
var defaults = sync.OnceValues(func() (*mission.Suite, error) {
	return mission.LoadSuite(mission.SuiteFiles{
		FS: scenarioFS, Pattern: "scenarios/*.yaml",
		Prefix: "mission/triage/",
		Parse:  parseFile,
		// The reviewed goldens (scenarios/golden/*.json) are part of the suite.
		GoldenFS: goldenFS, GoldenDir: goldenDir, Spec: spec(),
	})
})

// DefaultScenarios returns the embedded scenario suite, sorted by id, and
// the hex SHA-256 of its files (the scenario files, then the golden
// files), which identifies it in results. Every call returns fresh deep
// copies. Each scenario carries its reviewed per-agent goldens from
// scenarios/golden/<id>.json, recorded from the clean build by
// `go test ./mission/triage -run TestGoldenFiles -update`; a scenario
// without a file recorded for its current version has none, and designs
// record them on the fly.
func DefaultScenarios() ([]*mission.Scenario, string, error) {
	s, err := defaults()
	if err != nil {
		return nil, "", err
	}
	scs, hash := s.Scenarios()
	return scs, hash, nil
}
