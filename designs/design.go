// Package designs holds the evaluation designs of the protocol behind one
// shape: a [Design] is a value with an id, a name, a doc and an Evaluate
// function, like go/analysis's Analyzer. Each design decides what it
// executes, so its cost is measured, not assumed. Designs never import
// mutants: they are handed an opaque [mission.Build] and cannot see which
// defect, if any, is in it.
package designs

import (
	"context"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/mission"
)

// Design is one evaluation procedure. Evaluate's error is the harness's
// (a run that could not execute: a cancelled context, an unreachable
// model), never a verdict: what a design finds goes into the Verdict.
type Design struct {
	ID   string // "A", "B", "C"
	Name string // "per-agent", "end-to-end", "per-agent plus contracts"
	Doc  string
	// Describe, when set, writes Doc for one mission (naming its rules,
	// say); [Design.DocFor] uses it.
	Describe func(spec *mission.Spec) string
	Evaluate func(in Input) (Verdict, error)
}

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
	Level     contracts.Level
	// Inputs selects where design A's per-agent inputs come from: "golden"
	// (the default) or "recorded" (an integrated run of the same build).
	Inputs string
	// Golden holds the scenario's per-agent golden expectations, prepared
	// once by the caller with PrepareGolden; nil means prepare on demand.
	Golden []mission.Golden
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
	Run   string `json:"run"`           // "integrated", or "core:<agent>:<item>", "emit:<edge>:<item>", "parse:<edge>:<item>"
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
