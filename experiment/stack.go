package experiment

import (
	"fmt"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/reports"
	"github.com/baton-lab/baton/sandbox"
)

// Stack is what a sweep runs against: the mission, where scenarios,
// builds and contracts come from, the designs, the end-state check and the
// writers of results. [DefaultStack] wires baton's own packages; tests hand
// in fakes.
type Stack struct {
	Mission mission.Mission
	// Scenarios returns every scenario a protocol may select from (the
	// mission's own set plus the files), sorted by id, and a hash
	// identifying them.
	Scenarios func(files []string) ([]*mission.Scenario, string, error)
	// Builds returns the mutated builds of a catalogue ("default" or a
	// path) in mode replace or extend, in catalogue order, and the
	// catalogue's hash.
	Builds func(catalogue, mode string) ([]BuildSpec, string, error)
	// Contracts returns the contract checker (the mission's default
	// contracts when files is empty) and its hash.
	Contracts func(files []string) (designs.ContractChecker, string, error)
	// Design returns the design with an id.
	Design func(id string) (designs.Design, bool)
	// Golden prepares a scenario's per-agent golden expectations once, for
	// every evaluation of it; nil leaves it to the designs.
	Golden func(m mission.Mission, sc *mission.Scenario) ([]mission.Golden, error)
	// Check compares an end state with the expected one.
	Check func(want *sandbox.Expected, got *sandbox.State) []sandbox.Difference
	// Write writes results.json and the reports into a run folder.
	Write func(dir string, r *reports.Results) error
}

// check reports a stack missing a part.
func (st *Stack) check() error {
	switch {
	case st.Mission == nil:
		return fmt.Errorf("stack: no mission")
	case st.Scenarios == nil || st.Builds == nil || st.Contracts == nil || st.Design == nil:
		return fmt.Errorf("stack: scenarios, builds, contracts and designs are required")
	case st.Check == nil || st.Write == nil:
		return fmt.Errorf("stack: the end-state check and the results writer are required")
	}
	return nil
}

// BuildSpec is one build of a sweep: its description and how to switch it
// on with an oracle recording what fired.
type BuildSpec struct {
	Info   reports.BuildInfo
	Switch func(o *mission.Oracle) mission.Build
}

// CleanBuild is the clean build's spec.
func CleanBuild() BuildSpec {
	return BuildSpec{
		Info:   reports.BuildInfo{ID: reports.CleanBuild, Description: "the mission without a seeded defect"},
		Switch: func(o *mission.Oracle) mission.Build { return mission.Clean().WithOracle(o) },
	}
}
