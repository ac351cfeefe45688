package experiment

import (
	"fmt"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/reports"
)

// Stack is what a sweep runs against: the missions a protocol may name,
// where a mission's scenarios, builds and contracts come from, the
// designs and the writers of results. [NewStack] wires baton's own
// packages; tests hand in fakes. Everything a stack reads about a mission
// comes through the mission.
type Stack struct {
	// Missions are the missions a protocol may name; the first is the
	// default.
	Missions *mission.Registry
	// Scenarios returns every scenario a protocol may select from (the
	// mission's own set plus the files), sorted by id, and a hash
	// identifying them.
	Scenarios func(m mission.Mission, files []string) ([]*mission.Scenario, string, error)
	// Builds returns the mutated builds of a catalogue ("default", the
	// mission's own, or a path) in mode replace or extend, in catalogue
	// order, and the catalogue's hash.
	Builds func(m mission.Mission, catalogue, mode string) ([]BuildSpec, string, error)
	// Space returns the mutated builds of the mission's generated space,
	// perClass per class drawn with seed (all of it when perClass is 0),
	// and the catalogue file listing exactly them; nil refuses a protocol
	// that asks for the generated space.
	Space func(m mission.Mission, perClass int, seed uint64) ([]BuildSpec, []byte, error)
	// Contracts returns the contract checker (the mission's default
	// contracts, with files' edges replacing theirs) and its hash.
	Contracts func(m mission.Mission, files []string) (designs.ContractChecker, string, error)
	// Design returns the design with an id.
	Design func(id string) (designs.Design, bool)
	// Golden prepares a scenario's per-agent golden expectations once, for
	// every evaluation of it; nil leaves it to the designs.
	Golden func(m mission.Mission, sc *mission.Scenario) ([]mission.Golden, error)
	// Write writes results.json and the reports into a run folder.
	Write func(dir string, r *reports.Results) error
}

// check reports a stack missing a part.
func (st *Stack) check() error {
	switch {
	case st.Missions == nil:
		return fmt.Errorf("stack: %w", ErrNoStack)
	case st.Scenarios == nil || st.Builds == nil || st.Contracts == nil || st.Design == nil:
		return fmt.Errorf("stack: scenarios, builds, contracts and designs are required")
	case st.Write == nil:
		return fmt.Errorf("stack: the results writer is required")
	}
	return nil
}

// BuildSpec is one build of a sweep: its description and how to switch it
// on with an oracle recording what fired.
type BuildSpec struct {
	Info   reports.BuildInfo
	Switch func(o *mission.Oracle) mission.Build
	// Rebaseline names the agent whose team ships this build as a
	// deliberate new version and re-recorded its own goldens from it ("" for
	// a regression: every agent keeps the clean goldens).
	Rebaseline mission.Agent
}

// CleanBuild is the clean build's spec.
func CleanBuild() BuildSpec {
	return BuildSpec{
		Info:   reports.BuildInfo{ID: reports.CleanBuild, Description: "the mission without a seeded defect"},
		Switch: func(o *mission.Oracle) mission.Build { return mission.Clean().WithOracle(o) },
	}
}
