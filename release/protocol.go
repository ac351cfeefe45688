// Package release decides whether a candidate version of a mission may
// replace the baseline (seed 003's release decision): both run on the same
// scenarios with the same trial seeds (common random numbers), and a rule
// written in the release protocol before the run turns outcome, hard
// trajectory violations and model calls into ship, hold or inconclusive.
package release

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// Protocol is a release protocol as its YAML writes it.
type Protocol struct {
	Name      string     `yaml:"name" json:"name"`
	Mission   MissionRef `yaml:"mission" json:"mission"`
	Scenarios Selection  `yaml:"scenarios" json:"scenarios"`
	Trials    int        `yaml:"trials" json:"trials"`
	Seed      uint64     `yaml:"seed" json:"seed"`
	// Faults are the sandbox's fault rates, the same for both versions.
	Faults    map[string]map[string]float64 `yaml:"faults" json:"faults,omitempty"`
	Baseline  Version                       `yaml:"baseline" json:"baseline"`
	Candidate Version                       `yaml:"candidate" json:"candidate"`
	Rule      []Clause                      `yaml:"rule" json:"rule"`

	file string
	root *yaml.Node
}

// MissionRef names the mission and the version the protocol was written for.
type MissionRef struct {
	Name    string `yaml:"name" json:"name"`
	Version string `yaml:"version" json:"version,omitempty"`
}

// Selection narrows the mission's scenarios: by id, then by tags.
type Selection struct {
	IDs         []string `yaml:"ids" json:"ids,omitempty"`
	IncludeTags []string `yaml:"include_tags" json:"include_tags,omitempty"`
	ExcludeTags []string `yaml:"exclude_tags" json:"exclude_tags,omitempty"`
}

func (s Selection) equal(o Selection) bool {
	return slices.Equal(s.IDs, o.IDs) && slices.Equal(s.IncludeTags, o.IncludeTags) && slices.Equal(s.ExcludeTags, o.ExcludeTags)
}

// Version is one version of the mission under comparison. Today it is a
// model profile: per agent, the rate of each slip. A model configuration
// (per-agent model-backed cores) belongs here too once cores can be
// model-backed; until then every agent plays the mission's own policy.
type Version struct {
	Name        string                        `yaml:"name" json:"name"`
	Description string                        `yaml:"description" json:"description,omitempty"`
	Profile     map[string]map[string]float64 `yaml:"profile" json:"profile"`
	// Mission and Scenarios, when a version names them, must be the
	// protocol's: both versions run the same mission on the same cases.
	Mission   *MissionRef `yaml:"mission" json:"mission,omitempty"`
	Scenarios *Selection  `yaml:"scenarios" json:"scenarios,omitempty"`
}

// Clause is one condition of the release rule: a metric and its bound.
type Clause struct {
	Metric Metric   `yaml:"metric" json:"metric"`
	Min    *float64 `yaml:"min" json:"min,omitempty"`
	Max    *float64 `yaml:"max" json:"max,omitempty"`
}

// Metric is a figure the release rule can bound.
type Metric string

// The metrics of the release rule.
const (
	HardViolations    Metric = "hard_violations"    // the candidate's count of hard trajectory violations
	Outcome           Metric = "outcome"            // the candidate's rate of correct end states (Wilson interval)
	OutcomeDifference Metric = "outcome_difference" // candidate minus baseline, paired by scenario and trial (Newcombe)
	ModelCalls        Metric = "model_calls"        // the candidate's mean model calls per run
	ModelCallsRatio   Metric = "model_calls_ratio"  // the candidate's mean model calls over the baseline's
)

// AllMetrics lists the metrics in documentation order.
var AllMetrics = []Metric{HardViolations, Outcome, OutcomeDifference, ModelCalls, ModelCallsRatio}

func (m Metric) String() string { return string(m) }

// Parse decodes a release protocol; name is used in errors, which name the
// file, line and field. It checks what needs no mission (see [Protocol.Resolve]).
func Parse(name string, data []byte) (*Protocol, error) {
	p := &Protocol{file: name}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(p); err != nil {
		return nil, yamlError(name, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", name, cleanYAML(err))
	}
	p.root = &root
	if err := p.check(); err != nil {
		return nil, err
	}
	return p, nil
}

// yamlError names the file and line of each decoding error ("file:line:
// problem").
func yamlError(name string, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("%s: %w", name, cleanYAML(err))
	}
	errs := make([]error, len(te.Errors))
	for i, e := range te.Errors {
		line, msg, ok := strings.Cut(strings.TrimPrefix(e, "line "), ": ")
		if !ok {
			line, msg = "1", e
		}
		errs[i] = fmt.Errorf("%s:%s: %s", name, line, strings.Replace(msg, " in type release.Protocol", "", 1))
	}
	return errors.Join(errs...)
}

func cleanYAML(err error) error {
	return errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
}

// errAt is an error naming the protocol's file, the line of field (a dotted
// path into the document) and the field.
func (p *Protocol) errAt(field, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s: %s", p.file, p.line(field), field, fmt.Sprintf(format, args...))
}

// line returns the line of the deepest node the dotted path reaches.
func (p *Protocol) line(path string) int {
	if p.root == nil || len(p.root.Content) == 0 {
		return 1
	}
	n := p.root.Content[0]
	for _, part := range strings.Split(path, ".") {
		next := child(n, part)
		if next == nil {
			break
		}
		n = next
	}
	return n.Line
}

func child(n *yaml.Node, key string) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				if n.Content[i+1].Kind == yaml.ScalarNode {
					return n.Content[i]
				}
				return n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(key); err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i]
		}
	}
	return nil
}

// check validates what needs no mission: names, counts, rates, the rule.
func (p *Protocol) check() error {
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	if p.Mission.Name == "" {
		add(p.errAt("mission.name", "required"))
	}
	if p.Trials < 1 {
		add(p.errAt("trials", "must be at least 1, got %d", p.Trials))
	}
	for _, v := range []struct {
		field string
		v     *Version
	}{{"baseline", &p.Baseline}, {"candidate", &p.Candidate}} {
		if v.v.Name == "" {
			add(p.errAt(v.field+".name", "required"))
		}
		if v.v.Mission != nil && *v.v.Mission != p.Mission {
			add(p.errAt(v.field+".mission", "%s %s, but the protocol compares versions of %s %s: both versions must run the same mission",
				v.v.Mission.Name, v.v.Mission.Version, p.Mission.Name, p.Mission.Version))
		}
		if v.v.Scenarios != nil && !v.v.Scenarios.equal(p.Scenarios) {
			add(p.errAt(v.field+".scenarios", "differs from the protocol's scenarios: both versions must run the same cases"))
		}
		for agent, slips := range v.v.Profile {
			for slip, rate := range slips {
				if math.IsNaN(rate) || rate < 0 || rate > 1 {
					add(p.errAt(v.field+".profile."+agent+"."+slip, "a rate in [0, 1], got %v", rate))
				}
			}
		}
	}
	if p.Baseline.Name != "" && p.Baseline.Name == p.Candidate.Name {
		add(p.errAt("candidate.name", "%q is also the baseline's name", p.Candidate.Name))
	}
	if len(p.Rule) == 0 {
		add(p.errAt("rule", "required: the release rule is written before the run"))
	}
	for i, c := range p.Rule {
		f := "rule." + strconv.Itoa(i)
		if !slices.Contains(AllMetrics, c.Metric) {
			add(p.errAt(f+".metric", "unknown metric %q (one of %s)", c.Metric, metricNames()))
		}
		if c.Min == nil && c.Max == nil {
			add(p.errAt(f, "needs min or max"))
		}
	}
	for tool, kinds := range p.Faults {
		for kind, rate := range kinds {
			if !slices.Contains(sandbox.AllFaultKinds, sandbox.FaultKind(kind)) {
				add(p.errAt("faults."+tool+"."+kind, "unknown fault kind"))
			} else if math.IsNaN(rate) || rate < 0 || rate > 1 {
				add(p.errAt("faults."+tool+"."+kind, "a rate in [0, 1], got %v", rate))
			}
		}
	}
	return sortedJoin(errs)
}

// sortedJoin joins errors in a stable order (maps were walked).
func sortedJoin(errs []error) error {
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

func metricNames() string {
	s := make([]string, len(AllMetrics))
	for i, m := range AllMetrics {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}

// Plan is a protocol resolved against a mission: what runs.
type Plan struct {
	Protocol  *Protocol
	Mission   mission.Mission
	Scenarios []*mission.Scenario
	Faults    sandbox.FaultRates
	Baseline  mission.Profile
	Candidate mission.Profile
}

// Resolve checks the protocol against the registry's missions (the
// mission and its version, every agent and slip a version names, the
// scenario selection) and returns what runs, before any work starts.
func (p *Protocol) Resolve(reg *mission.Registry) (*Plan, error) {
	m, ok := reg.Lookup(p.Mission.Name)
	if !ok {
		return nil, p.errAt("mission.name", "unknown mission %q (this baton runs %s)", p.Mission.Name, reg.Names())
	}
	spec := m.Spec()
	if p.Mission.Version != "" && p.Mission.Version != spec.Version {
		return nil, p.errAt("mission.version", "written for %s %s, but this baton runs version %s", spec.Name, p.Mission.Version, spec.Version)
	}
	var errs []error
	base, err := p.profile(spec, "baseline", p.Baseline.Profile)
	errs = append(errs, err)
	cand, err := p.profile(spec, "candidate", p.Candidate.Profile)
	errs = append(errs, err)
	for tool := range p.Faults {
		if _, ok := spec.Tools.Tool(tool); !ok && tool != "*" && tool != "transport" {
			errs = append(errs, p.errAt("faults."+tool, "mission %s has no tool %q (\"*\" is every tool, \"transport\" the hand-offs)", spec.Name, tool))
		}
	}
	all, _, err := m.Scenarios()
	if err != nil {
		return nil, fmt.Errorf("%s: scenarios: %w", p.file, err)
	}
	s := p.Scenarios
	scs, err := mission.SelectScenarios(all, s.IDs, s.IncludeTags, s.ExcludeTags)
	if err != nil {
		errs = append(errs, p.errAt("scenarios", "%v", err))
	} else if len(scs) == 0 {
		errs = append(errs, p.errAt("scenarios", "selects no scenario"))
	}
	if err := sortedJoin(slices.DeleteFunc(errs, func(e error) bool { return e == nil })); err != nil {
		return nil, err
	}
	faults := sandbox.FaultRates{}
	for tool, kinds := range p.Faults {
		faults[tool] = map[sandbox.FaultKind]float64{}
		for k, r := range kinds {
			faults[tool][sandbox.FaultKind(k)] = r
		}
	}
	return &Plan{Protocol: p, Mission: m, Scenarios: scs, Faults: faults, Baseline: base, Candidate: cand}, nil
}

// profile checks a version's profile against the mission's agents and
// their slips.
func (p *Protocol) profile(spec *mission.Spec, field string, in map[string]map[string]float64) (mission.Profile, error) {
	out := mission.Profile{}
	var errs []error
	for agent, slips := range in {
		as, ok := spec.Agent(mission.Agent(agent))
		if !ok {
			errs = append(errs, p.errAt(field+".profile."+agent, "unknown agent %q of mission %s (agents: %v)", agent, spec.Name, spec.AgentNames()))
			continue
		}
		out[as.Name] = map[mission.Slip]float64{}
		for slip, rate := range slips {
			if !slices.Contains(as.Slips, mission.Slip(slip)) {
				errs = append(errs, p.errAt(field+".profile."+agent+"."+slip, "agent %s has no slip %q (slips: %v)", agent, slip, as.Slips))
				continue
			}
			out[as.Name][mission.Slip(slip)] = rate
		}
	}
	return out, sortedJoin(errs)
}
