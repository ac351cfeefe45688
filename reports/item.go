package reports

import (
	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/mission"
)

// Item is one work item's outcome as the experiment streams it into
// aggregation: which build, design, scenario and trial, the verdict, and
// what the oracle says fired. The experiment writes one per (build, design,
// scenario, trial) and, for the integrated observation run of each (build,
// scenario, trial), one with Design "" carrying Success and TraceHash.
type Item struct {
	Build    string `json:"build"`    // "clean" or a mutant id
	Class    string `json:"class"`    // "" for clean, else the mutant's class
	Location string `json:"location"` // the mutant's ground truth, "" for clean
	Design   string `json:"design"`   // "A", "B", "C"; "" for the observation run
	Scenario string `json:"scenario"`
	Category string `json:"category"`
	Trial    int    `json:"trial"`
	Seed     uint64 `json:"seed"`

	Flagged  bool     `json:"flagged"`
	Blame    []string `json:"blame,omitempty"`
	Findings int      `json:"findings"`

	Cost   mission.Cost `json:"cost"`
	WallNS int64        `json:"wall_ns"`

	// Design A's (and C's) tool-call trajectory scores: of MatchN
	// agent-items scored, how many passed the exact matcher (the one that
	// decides) and, reported beside it, the name-only and order-ignored
	// ones. All zero for designs that score no trajectory.
	MatchN            int `json:"match_n"`
	MatchExact        int `json:"match_exact"`
	MatchNameOnly     int `json:"match_name_only"`
	MatchOrderIgnored int `json:"match_order_ignored"`

	// From the oracle of the runs behind this item.
	Slipped bool `json:"slipped"` // a slip fired
	Faulted bool `json:"faulted"` // a fault fired
	// Reached is how often the mutant's seam was hit on its target
	// (its edge, agent or tool), whether or not it changed anything.
	Reached int `json:"reached"`

	// Observation runs only.
	Success   bool   `json:"success"`    // the integrated run's end state was accepted
	TraceHash string `json:"trace_hash"` // hash of the trace and end state (experiment.TraceHashAlgorithm)
	// EndHash is the SHA-256 of the end state's records alone (without the
	// call log): a mutated run whose EndHash differs from its clean
	// twin's did harm.
	EndHash string `json:"end_hash"`
	// Coordination is the verdict on each coordination dimension, in
	// coordination.AllDimensions order, of the record derived from the
	// run's trace.
	Coordination []coordination.Verdict `json:"coordination,omitempty"`
}
