// Package designs holds the evaluation designs of the protocol behind one
// shape: a [Design] is a value with an id, a name, a doc and an Evaluate
// function, like go/analysis's Analyzer. Each design decides what it
// executes, so its cost is measured, not assumed. Designs never import
// mutants: they are handed an opaque [mission.Build] and cannot see which
// defect, if any, is in it.
package designs

import (
	"context"
	"slices"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/mission"
)

// Design is one evaluation procedure. Evaluate's error is the harness's
// (a run that could not execute: a cancelled context, an unreachable
// model), never a verdict: what a design finds goes into the Verdict.
//
// A design's modelling choices are its Params, recorded with every result:
// a variant is the same base design with other parameters and its own id
// ("A.wire", "C.schema"; see [Lookup]). Blames declares the kinds of place
// the design can name, so that a report can say which hypothesis clauses
// its definition settles.
type Design struct {
	ID     string // "A", "A.wire", "C.schema", "D"
	Base   string // the base design: "A", "B", "C" or "D"
	Name   string // "per-agent", "end-to-end", ...
	Doc    string
	Params Params
	// Blames lists the kinds of location the design can name, in
	// [AllLocationKinds] order.
	Blames []LocationKind
	// Describe, when set, writes Doc for one mission (naming its rules,
	// say); [Design.DocFor] uses it.
	Describe func(spec *mission.Spec) string
	Evaluate func(in Input) (Verdict, error)
}

// CanBlame reports whether the design can name a location of kind k.
func (d Design) CanBlame(k LocationKind) bool { return slices.Contains(d.Blames, k) }

// LocationKind is a kind of place a design can blame.
type LocationKind string

// The location kinds.
const (
	BlameAgent LocationKind = "agent"
	BlameEdge  LocationKind = "edge"
)

// AllLocationKinds lists the location kinds.
var AllLocationKinds = []LocationKind{BlameAgent, BlameEdge}

func (k LocationKind) String() string { return string(k) }

// DocFor returns the design's description for a mission: Describe's, or
// Doc.
func (d Design) DocFor(spec *mission.Spec) string {
	if d.Describe == nil || spec == nil {
		return d.Doc
	}
	return d.Describe(spec)
}

// Input is everything a design is handed for one (build, scenario, trial).
// Everything a design knows about the mission comes through Mission (its
// Spec for agents, edges, tools and rules).
type Input struct {
	// Ctx is the evaluation's context; nil means context.Background().
	Ctx       context.Context
	Mission   mission.Mission
	Build     mission.Build
	Scenario  *mission.Scenario
	Seed      uint64
	Env       mission.Env
	Contracts ContractChecker
	// Level is the contract level of a design C variant that names none.
	Level contracts.Level
	// Inputs is where the per-agent inputs of a design A or C variant that
	// names none come from: "golden" (the default) or "recorded" (an
	// integrated run of the same build).
	Inputs string
	// Golden holds the build's per-agent golden expectations for the
	// scenario, prepared once by the caller (the clean build's, with
	// PrepareGolden, or those a build's own team re-recorded); nil means
	// the clean build's, prepared on demand. A design never learns why a
	// golden is what it is.
	Golden []mission.Golden
	// Scorecards, when set, remembers the scorecard of each core run the
	// designs score, and design C's contract checks of it: a caller that
	// serves designs A and C, or the items of several trials, the same
	// core run (the same *mission.CoreRun) has it scored and checked once.
	// A verdict is the same with and without it.
	Scorecards *Scorecards
}

// ContractChecker checks hand-off wire bytes against the contracts of an
// edge at a level. *contracts.Set implements it.
type ContractChecker interface {
	Check(edge string, raw []byte, level contracts.Level) []contracts.Violation
	CheckSequence(edge string, msgs [][]byte, level contracts.Level) []contracts.Violation
}

// Verdict is a design's judgement of one (build, scenario, trial).
type Verdict struct {
	Flagged  bool               `json:"flagged"`
	Findings []Finding          `json:"findings,omitempty"`
	Blame    []mission.Location `json:"blame,omitempty"` // ranked, most likely first
	Cost     mission.Cost       `json:"cost"`
	WallNS   int64              `json:"wall_ns"` // wall-clock time; excluded from byte-stable outputs
	// Matchers records design A's trajectory scores beside the exact one
	// that decides: how many agent-items passed under each matcher, of N.
	Matchers *MatcherCounts `json:"matchers,omitempty"`
}

// Finding is one reason a design flagged: the rule broken, a message, where
// it blames, and evidence pointing into the trace.
type Finding struct {
	Rule     string           `json:"rule"`
	Message  string           `json:"message"`
	Location mission.Location `json:"location"`
	Evidence Evidence         `json:"evidence"`
}

// Evidence points into a run's trace.
type Evidence struct {
	Run   string `json:"run"`           // "integrated", or "core:<agent>:<item>" (a core run alone: the agent's parses and emits are in it)
	Seq   int    `json:"seq,omitempty"` // trace event sequence number
	Item  string `json:"item,omitempty"`
	Field string `json:"field,omitempty"`
}

// MatcherCounts counts agent-items whose tool-call trajectory passed under
// each matcher.
type MatcherCounts struct {
	N            int `json:"n"`
	Exact        int `json:"exact"`
	NameOnly     int `json:"name_only"`
	OrderIgnored int `json:"order_ignored"`
}

// ctx returns the input's context.
func (in *Input) ctx() context.Context {
	if in.Ctx == nil {
		return context.Background()
	}
	return in.Ctx
}
