package experiment

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/reports"
	"github.com/baton-lab/baton/sandbox"
)

// Protocol is a pre-registered experiment: what runs (mission, scenarios,
// mutants, contracts, designs, trials, seed), under which conditions (model
// profile, fault rates) and the numbers that decide the hypotheses. It is
// read strictly from YAML by [LoadProtocol] or [ParseProtocol]: its
// mission key selects the mission (the registry's first when it names
// none), a field a file leaves out takes that mission's default protocol's
// value (its Spec.Protocol), and a map section (profile, faults) that is
// present replaces the default as a whole.
type Protocol struct {
	Name          string              `json:"name"`
	Mission       MissionRef          `json:"mission"`
	Scenarios     ScenarioSelection   `json:"scenarios"`
	Mutants       MutantSelection     `json:"mutants"`
	Contracts     ContractSelection   `json:"contracts"`
	Designs       []string            `json:"designs"`
	DesignAInputs string              `json:"design_a_inputs"` // golden | recorded
	Trials        int                 `json:"trials"`
	Seed          uint64              `json:"seed"`
	Profile       mission.Profile     `json:"profile"`
	Faults        sandbox.FaultRates  `json:"faults"`
	ReviewSample  int                 `json:"review_sample"`
	CostWeights   reports.CostWeights `json:"cost_weights"`
	Thresholds    reports.Thresholds  `json:"thresholds"`
	// Cores gives agents (or "*", every agent without its own entry) a
	// core other than the mission's policy: a model (see [CoreSpec]).
	Cores map[string]CoreSpec `json:"cores,omitempty"`
	// ModelCache is a directory of model answers shared between runs,
	// searched after the run folder's own model-cache/.
	ModelCache string `json:"model_cache,omitempty"`
	// Matched is how baton matched compares the multi-agent build with the
	// single-agent build (matched.go).
	Matched Matched `json:"matched,omitempty"`

	// Source is the file the protocol was read from (the mission's
	// Spec.Protocol.Name for its default); Dir is the folder relative paths
	// resolve against.
	Source string `json:"-"`
	Dir    string `json:"-"`
	// SHA256 is the hex SHA-256 of the protocol file's bytes.
	SHA256 string `json:"-"`
	// Raw holds the protocol file's bytes.
	Raw []byte `json:"-"`

	// pos maps a field path ("scenarios.ids[2]") to where it was written,
	// for errors found after loading (unknown scenario id or tag, catalogue
	// failing to load).
	pos map[string]input.Pos
}

// MissionRef names the mission and version a protocol was written for.
type MissionRef struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ScenarioSelection picks scenarios: by default all of them; when IDs or
// IncludeTags are given, the union of the listed ids and of the scenarios
// carrying at least one included tag; then every scenario carrying an
// excluded tag is dropped. Files adds scenario YAML files to the mission's
// own set before selecting.
type ScenarioSelection struct {
	IDs         []string `json:"ids,omitempty"`
	IncludeTags []string `json:"include_tags,omitempty"`
	ExcludeTags []string `json:"exclude_tags,omitempty"`
	Files       []string `json:"files,omitempty"`
}

// MutantSelection names the defect catalogue: "default" (the embedded one)
// or a file path. With Mode "extend" the file's mutants are added to the
// default catalogue; with "replace" they stand alone. Space picks what
// runs: the catalogue ("catalogue", the default), the mission's generated
// space ("generated": every operator at every site, sampled PerClass per
// class with SampleSeed when PerClass > 0, with the catalogue's control
// mutants as the validity gate) or both. IDs and Classes, when given, keep
// only those mutants.
type MutantSelection struct {
	Catalogue  string   `json:"catalogue"`
	Mode       string   `json:"mode"`
	Space      string   `json:"space,omitempty"`
	PerClass   int      `json:"per_class,omitempty"`
	SampleSeed uint64   `json:"seed,omitempty"`
	IDs        []string `json:"ids,omitempty"`
	Classes    []string `json:"classes,omitempty"`
}

// ContractSelection sets the contract strength level and, optionally, the
// contract files replacing the mission's default contracts.
type ContractSelection struct {
	Level string   `json:"level"` // schema | ownership | semantic
	Files []string `json:"files,omitempty"`
}

// Design A input sources.
const (
	InputsGolden   = "golden"
	InputsRecorded = "recorded"
)

// Catalogue modes and the default catalogue name.
const (
	CatalogueDefault = "default"
	ModeReplace      = "replace"
	ModeExtend       = "extend"
)

// KnownDesigns lists the base design ids a protocol may name; a variant
// adds its parameters' values ("A.wire", "C.schema", see designs.Lookup).
var KnownDesigns = []string{"A", "B", "C", "D"}

// Level returns the protocol's contract level.
func (p *Protocol) Level() contracts.Level {
	l, _ := parseLevel(p.Contracts.Level)
	return l
}

func parseLevel(s string) (contracts.Level, bool) {
	for _, l := range contracts.AllLevels {
		if l.String() == s {
			return l, true
		}
	}
	return 0, false
}

// Env returns the run environment (model profile and fault rates) the
// protocol sets.
func (p *Protocol) Env() mission.Env {
	return mission.Env{Profile: p.Profile, Faults: p.Faults}
}

// Path resolves a path the protocol names against the protocol's folder.
func (p *Protocol) Path(name string) string {
	if name == "" || filepath.IsAbs(name) || p.Dir == "" {
		return name
	}
	return filepath.Join(p.Dir, name)
}

// where returns where a field path was written, or the closest enclosing
// field's place.
func (p *Protocol) where(field string) input.Pos {
	for f := field; f != ""; f = parentField(f) {
		if at, ok := p.pos[f]; ok {
			return at
		}
	}
	return input.Pos{}
}

// errorf returns an input error naming the protocol file, the place of
// field and field.
func (p *Protocol) errorf(field, format string, args ...any) error {
	return &InputError{File: p.Source, Pos: p.where(field), Field: field, Problem: fmt.Sprintf(format, args...)}
}

// wrapf returns an input error naming the protocol field that led to err.
func (p *Protocol) wrapf(field string, err error, format string, args ...any) error {
	return &InputError{File: p.Source, Pos: p.where(field), Field: field, Problem: fmt.Sprintf(format, args...), Err: err}
}

// DefaultProtocol returns the default protocol of the registry's default
// mission.
func DefaultProtocol(missions *mission.Registry) (*Protocol, error) {
	return MissionProtocol(missions.Default())
}

// MissionProtocol returns a mission's default protocol (Spec.Protocol),
// which must be complete: it is the base of every protocol naming the
// mission.
func MissionProtocol(m mission.Mission) (*Protocol, error) {
	f := m.Spec().Protocol
	p := &Protocol{}
	pos, err := decodeProtocol(f.Name, f.Data, p, m.Spec())
	if err != nil {
		return nil, fmt.Errorf("default protocol of mission %s: %w", m.Spec().Name, err)
	}
	if p.Mission.Name != m.Spec().Name {
		return nil, fmt.Errorf("default protocol of mission %s: %s: mission.name: %q", m.Spec().Name, f.Name, p.Mission.Name)
	}
	p.Source, p.Raw, p.pos = f.Name, bytes.Clone(f.Data), pos
	p.SHA256 = HashBytes(f.Data)
	return p, nil
}

// LoadProtocol reads a protocol file of one of missions. Relative paths in
// it resolve against the file's folder.
func LoadProtocol(path string, missions *mission.Registry) (*Protocol, error) {
	data, err := input.ReadFile(path, MaxProtocolBytes, "a protocol")
	if err != nil {
		return nil, fmt.Errorf("load protocol: %w", err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("load protocol: %w", err)
	}
	return ParseProtocol(data, path, dir, missions)
}

// ParseProtocol reads a protocol of one of missions from data; source names
// it in errors and dir is the folder relative paths resolve against. Every
// problem found is reported (a few dozen at most, then their count), each
// as an [*InputError] "file:line:column: field: problem"; agents, slips
// and fault tools are checked against the mission the protocol names.
func ParseProtocol(data []byte, source, dir string, missions *mission.Registry) (*Protocol, error) {
	m := missions.Default()
	if name, at := peekMission(source, data); name != "" {
		var ok bool
		if m, ok = missions.Lookup(name); !ok {
			var names []string
			for _, m := range missions.All() {
				names = append(names, m.Spec().Name)
			}
			e := &InputError{File: source, Pos: at, Field: "mission.name", Problem: "unknown mission " + input.Quote(name) + " (this baton runs " + missions.Names() + ")"}
			e.Suggest = input.Suggest(name, names)
			return nil, e
		}
	}
	base, err := MissionProtocol(m)
	if err != nil {
		return nil, err
	}
	p := base.clone()
	if source == base.Source && bytes.Equal(data, base.Raw) {
		p = &Protocol{}
	}
	pos, err := decodeProtocol(source, data, p, m.Spec())
	if err != nil {
		return nil, err
	}
	p.Source, p.Dir, p.Raw, p.pos = source, dir, bytes.Clone(data), pos
	p.SHA256 = HashBytes(data)
	return p, nil
}

// clone returns a deep copy of the protocol's settings.
func (p *Protocol) clone() *Protocol {
	c := *p
	c.Designs = append([]string(nil), p.Designs...)
	c.Scenarios.IDs = append([]string(nil), p.Scenarios.IDs...)
	c.Scenarios.IncludeTags = append([]string(nil), p.Scenarios.IncludeTags...)
	c.Scenarios.ExcludeTags = append([]string(nil), p.Scenarios.ExcludeTags...)
	c.Scenarios.Files = append([]string(nil), p.Scenarios.Files...)
	c.Mutants.IDs = append([]string(nil), p.Mutants.IDs...)
	c.Mutants.Classes = append([]string(nil), p.Mutants.Classes...)
	c.Contracts.Files = append([]string(nil), p.Contracts.Files...)
	c.Profile = mission.Profile{}
	for a, m := range p.Profile {
		c.Profile[a] = map[mission.Slip]float64{}
		for s, v := range m {
			c.Profile[a][s] = v
		}
	}
	c.Faults = sandbox.FaultRates{}
	for t, m := range p.Faults {
		c.Faults[t] = map[sandbox.FaultKind]float64{}
		for k, v := range m {
			c.Faults[t][k] = v
		}
	}
	c.Cores = cloneCores(p.Cores)
	c.Raw = bytes.Clone(p.Raw)
	c.pos = p.pos
	return &c
}

// HashBytes returns the hex SHA-256 of data.
func HashBytes(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}
