// Package coordination holds the coordination record of one trial of a
// multi-agent (or single-agent) system and scores it on eight separate
// dimensions: delegation correctness, coverage, duplicate work,
// information preservation, shared-state contention, merge correctness,
// effect safety and efficiency. Each dimension is a per-record verdict
// (pass, fail or not applicable) with the events that show each failure;
// nothing is collapsed into one agent score, and no rate is computed here
// (see `baton score --kind coordination` and the run reports).
//
// The record is mission-free: agents, subtasks, fields, state keys and
// effect keys are opaque strings. It is written by hand for systems baton
// does not run, and derived from baton's own traces for the ones it does.
// Every event in a record has an id unique in the record (the id of the
// event in the source trace where there is one), and every failure names
// the ids that show it.
package coordination

import (
	"fmt"
	"slices"
	"strings"
)

// Record is what one trial did, as evidence for the eight dimensions. Lists
// are in the order the events happened; State must be, since contention is
// judged from the order of reads and writes.
type Record struct {
	Trial  string `json:"trial"`            // unique in a file
	System string `json:"system,omitempty"` // the system or build, e.g. "four-agent" or "single-agent"
	// Success is the trial's authoritative outcome; null or absent when not
	// judged. It is not a dimension: it is what a matched-budget comparison
	// compares.
	Success *bool `json:"success"`

	Agents      []Agent      `json:"agents"`
	Subtasks    []Subtask    `json:"subtasks"`    // the required subtasks
	Delegations []Delegation `json:"delegations"` // delegation decisions: each subtask's assigned owner
	Handoffs    []Handoff    `json:"handoffs"`    // information included at each hand-off
	Completions []Completion `json:"completions"` // evidence of each completed subtask
	Work        []Work       `json:"work"`        // units of work done, to find duplicates
	State       []Access     `json:"state"`       // shared-state reads and writes, in order
	Merges      []Merge      `json:"merges"`      // merge inputs and conflicts
	Effects     []Effect     `json:"effects"`     // external side effects and their identities
	Usage       Usage        `json:"usage"`       // totals of the trial
	Budget      *Budget      `json:"budget"`      // the matched budget; null: efficiency not applicable
}

// Agent is one agent and the capabilities it holds (tools, data,
// permissions).
type Agent struct {
	ID           string   `json:"id"`
	Capabilities []string `json:"capabilities"`
}

// Subtask is one required subtask and the capabilities its owner needs.
type Subtask struct {
	ID       string   `json:"id"`
	Requires []string `json:"requires"`
}

// Delegation assigns a subtask to an owner.
type Delegation struct {
	ID      string `json:"id"`
	Subtask string `json:"subtask"`
	Owner   string `json:"owner"`
	By      string `json:"by,omitempty"` // the delegating agent, if any
	// Replaces is the id of an earlier delegation this one withdraws (a
	// reassignment); "" for none.
	Replaces string `json:"replaces,omitempty"`
}

// Handoff is one message between agents: the fields it carried against
// the fields its consumer required and read. A field is any named piece of
// information (a field path, a fact id). Required or Read null (absent)
// means not recorded; [] means recorded, none.
type Handoff struct {
	ID       string   `json:"id"`
	From     string   `json:"from"`
	To       string   `json:"to"`
	Sent     []string `json:"sent"`
	Required []string `json:"required"` // what the consumer's contract requires
	Read     []string `json:"read"`     // what the consumer actually read
}

// Completion is the evidence that an agent completed a subtask.
type Completion struct {
	ID      string `json:"id"`
	Subtask string `json:"subtask"`
	Agent   string `json:"agent"`
}

// Work is one unit of work, identified by Key (for instance a tool and its
// canonical arguments): the same key done by two agents is duplicate work.
type Work struct {
	ID    string `json:"id"`
	Agent string `json:"agent"`
	Key   string `json:"key"`
}

// Access is one read or write of a shared-state item.
type Access struct {
	ID    string `json:"id"`
	Agent string `json:"agent"`
	Op    Op     `json:"op"`
	Key   string `json:"key"` // the item, e.g. a record id
}

// Op is a kind of state access.
type Op string

// The ops.
const (
	OpRead  Op = "read"
	OpWrite Op = "write"
)

// AllOps lists every op.
var AllOps = []Op{OpRead, OpWrite}

// String returns the op's name.
func (o Op) String() string { return string(o) }

// Merge combines the results of several events (hand-offs, completions)
// into one, with the conflicts it found among them.
type Merge struct {
	ID        string     `json:"id"`
	Agent     string     `json:"agent"`
	Inputs    []string   `json:"inputs"` // ids of the events merged
	Conflicts []Conflict `json:"conflicts"`
}

// Conflict is a disagreement among a merge's inputs and what the merge did
// with it.
type Conflict struct {
	Field      string     `json:"field"`
	Inputs     []string   `json:"inputs"` // the inputs that disagree, among the merge's
	Resolution Resolution `json:"resolution"`
}

// Resolution is what a merge did with a conflict.
type Resolution string

// The resolutions; unresolved and concatenated fail merge correctness.
const (
	ResolutionResolved     Resolution = "resolved"     // one value chosen, on evidence
	ResolutionEscalated    Resolution = "escalated"    // handed to a person
	ResolutionUnresolved   Resolution = "unresolved"   // reported, not resolved
	ResolutionConcatenated Resolution = "concatenated" // both kept as if they agreed
)

// AllResolutions lists every resolution.
var AllResolutions = []Resolution{ResolutionResolved, ResolutionEscalated, ResolutionUnresolved, ResolutionConcatenated}

// String returns the resolution's name.
func (r Resolution) String() string { return string(r) }

// Effect is one external side effect attempted (a write to a system
// outside the agents: a transfer, a booking, a message sent).
type Effect struct {
	ID    string `json:"id"`
	Agent string `json:"agent"`
	Tool  string `json:"tool,omitempty"`
	Key   string `json:"key"` // the idempotency key sent with it; "" for none
	// Identity names the business effect, which must happen at most once
	// (e.g. "transfer:order-817"); "" means the key is the identity.
	Identity     string `json:"identity,omitempty"`
	Irreversible bool   `json:"irreversible"`
	// Applied says whether the system of record applied it (false: refused
	// or deduplicated); null when unknown.
	Applied *bool `json:"applied"`
}

// identity is what the effect must not repeat.
func (e Effect) identity() string {
	if e.Identity != "" {
		return e.Identity
	}
	return e.Key
}

// Usage is what a trial consumed; null fields were not recorded.
type Usage struct {
	Tokens     *int64   `json:"tokens"`
	ModelCalls *int64   `json:"model_calls"`
	LatencyMS  *float64 `json:"latency_ms"`
	CostUSD    *float64 `json:"cost_usd"`
}

// Budget is the matched total budget of a trial: the same total a
// compared system gets, not a per-agent share. Null fields are not
// budgeted; a budgeted resource must be recorded in the usage. Tokens and
// model calls are counted in whole units but budgeted as numbers: a
// comparison's per-task budget is the mean of its tasks' budgets.
type Budget struct {
	Tokens     *float64 `json:"tokens"`
	ModelCalls *float64 `json:"model_calls"`
	LatencyMS  *float64 `json:"latency_ms"`
	CostUSD    *float64 `json:"cost_usd"`
	MatchedTo  string   `json:"matched_to,omitempty"` // what it is matched to, e.g. "single agent, same tasks"
}

// resource is one budgeted quantity: its name, budget and usage.
type resource struct {
	name          string
	limit, used   float64
	limited, seen bool
}

// resources pairs each resource of b with its usage in u.
func (b Budget) resources(u Usage) []resource {
	return []resource{
		pair("tokens", b.Tokens, u.Tokens),
		pair("model_calls", b.ModelCalls, u.ModelCalls),
		pair("latency_ms", b.LatencyMS, u.LatencyMS),
		pair("cost_usd", b.CostUSD, u.CostUSD),
	}
}

func pair[L, U int64 | float64](name string, limit *L, used *U) resource {
	r := resource{name: name, limited: limit != nil, seen: used != nil}
	if limit != nil {
		r.limit = float64(*limit)
	}
	if used != nil {
		r.used = float64(*used)
	}
	return r
}

// FieldError is a bad value in a record: Field is its JSON path.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

func fieldErr(field, format string, a ...any) *FieldError {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)}
}

// Validate checks that r is a record the dimensions can be judged on:
// a trial id; unique agent, subtask and event ids; every reference to an
// agent, a subtask or an event resolves; enums are known; numbers are not
// negative; a budgeted resource has a recorded usage.
func (r *Record) Validate() *FieldError {
	if r.Trial == "" {
		return fieldErr("trial", "missing trial id")
	}
	v := &validator{r: r, agents: map[string]bool{}, subtasks: map[string]bool{}, events: map[string]string{}}
	for _, step := range []func() *FieldError{v.agentsAndSubtasks, v.delegations, v.handoffs, v.evidence, v.merges, v.effects, v.usage} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// validator checks one record's references.
type validator struct {
	r        *Record
	agents   map[string]bool
	subtasks map[string]bool
	events   map[string]string // event id -> field of its first use
}

func (v *validator) agentsAndSubtasks() *FieldError {
	for i, a := range v.r.Agents {
		f := fmt.Sprintf("agents[%d]", i)
		if err := unique(v.agents, a.ID, f+".id", "agent"); err != nil {
			return err
		}
		if err := names(a.Capabilities, f+".capabilities"); err != nil {
			return err
		}
	}
	for i, s := range v.r.Subtasks {
		f := fmt.Sprintf("subtasks[%d]", i)
		if err := unique(v.subtasks, s.ID, f+".id", "subtask"); err != nil {
			return err
		}
		if err := names(s.Requires, f+".requires"); err != nil {
			return err
		}
	}
	return nil
}

func (v *validator) delegations() *FieldError {
	for i, d := range v.r.Delegations {
		f := fmt.Sprintf("delegations[%d]", i)
		if d.Replaces != "" && !strings.HasPrefix(v.events[d.Replaces], "delegations[") {
			return fieldErr(f+".replaces", "no earlier delegation %q", d.Replaces)
		}
		if err := v.event(d.ID, f); err != nil {
			return err
		}
		if err := v.subtask(d.Subtask, f+".subtask"); err != nil {
			return err
		}
		if err := v.agent(d.Owner, f+".owner"); err != nil {
			return err
		}
		if d.By != "" {
			if err := v.agent(d.By, f+".by"); err != nil {
				return err
			}
		}
	}
	return nil
}

func (v *validator) handoffs() *FieldError {
	for i, h := range v.r.Handoffs {
		f := fmt.Sprintf("handoffs[%d]", i)
		if err := v.event(h.ID, f); err != nil {
			return err
		}
		if err := v.agent(h.From, f+".from"); err != nil {
			return err
		}
		if err := v.agent(h.To, f+".to"); err != nil {
			return err
		}
		for _, l := range []struct {
			name string
			list []string
		}{{"sent", h.Sent}, {"required", h.Required}, {"read", h.Read}} {
			if err := names(l.list, f+"."+l.name); err != nil {
				return err
			}
		}
	}
	return nil
}

// evidence checks completions, work and state accesses.
func (v *validator) evidence() *FieldError {
	for i, c := range v.r.Completions {
		f := fmt.Sprintf("completions[%d]", i)
		if err := firstOf(v.event(c.ID, f), v.subtask(c.Subtask, f+".subtask"), v.agent(c.Agent, f+".agent")); err != nil {
			return err
		}
	}
	for i, w := range v.r.Work {
		f := fmt.Sprintf("work[%d]", i)
		if err := firstOf(v.event(w.ID, f), v.agent(w.Agent, f+".agent")); err != nil {
			return err
		}
		if w.Key == "" {
			return fieldErr(f+".key", "missing key: name the unit of work")
		}
	}
	for i, a := range v.r.State {
		f := fmt.Sprintf("state[%d]", i)
		if err := firstOf(v.event(a.ID, f), v.agent(a.Agent, f+".agent")); err != nil {
			return err
		}
		if !slices.Contains(AllOps, a.Op) {
			return fieldErr(f+".op", "%q: want read or write", a.Op)
		}
		if a.Key == "" {
			return fieldErr(f+".key", "missing key: name the state item")
		}
	}
	return nil
}

func (v *validator) merges() *FieldError {
	for i, m := range v.r.Merges {
		f := fmt.Sprintf("merges[%d]", i)
		if err := firstOf(v.event(m.ID, f), v.agent(m.Agent, f+".agent")); err != nil {
			return err
		}
		for j, in := range m.Inputs {
			if v.events[in] == "" || in == m.ID {
				return fieldErr(fmt.Sprintf("%s.inputs[%d]", f, j), "unknown event %q: want the id of a hand-off, completion, work item or earlier merge", in)
			}
		}
		for j, c := range m.Conflicts {
			cf := fmt.Sprintf("%s.conflicts[%d]", f, j)
			if c.Field == "" {
				return fieldErr(cf+".field", "missing field: name what the inputs disagree on")
			}
			for k, in := range c.Inputs {
				if !slices.Contains(m.Inputs, in) {
					return fieldErr(fmt.Sprintf("%s.inputs[%d]", cf, k), "%q is not an input of merge %q", in, m.ID)
				}
			}
			if !slices.Contains(AllResolutions, c.Resolution) {
				return fieldErr(cf+".resolution", "%q: want one of resolved, escalated, unresolved, concatenated", c.Resolution)
			}
		}
	}
	return nil
}

func (v *validator) effects() *FieldError {
	for i, e := range v.r.Effects {
		f := fmt.Sprintf("effects[%d]", i)
		if err := firstOf(v.event(e.ID, f), v.agent(e.Agent, f+".agent")); err != nil {
			return err
		}
		if e.identity() == "" {
			return fieldErr(f+".key", "missing key and identity: name the effect by at least one")
		}
	}
	return nil
}

func (v *validator) usage() *FieldError {
	u := v.r.Usage
	for _, q := range []struct {
		field string
		neg   bool
	}{
		{"usage.tokens", u.Tokens != nil && *u.Tokens < 0},
		{"usage.model_calls", u.ModelCalls != nil && *u.ModelCalls < 0},
		{"usage.latency_ms", u.LatencyMS != nil && *u.LatencyMS < 0},
		{"usage.cost_usd", u.CostUSD != nil && *u.CostUSD < 0},
	} {
		if q.neg {
			return fieldErr(q.field, "negative")
		}
	}
	if v.r.Budget == nil {
		return nil
	}
	any := false
	for _, res := range v.r.Budget.resources(u) {
		switch {
		case res.limited && res.limit < 0:
			return fieldErr("budget."+res.name, "negative")
		case res.limited && !res.seen:
			return fieldErr("usage."+res.name, "not recorded, but budgeted: record it or drop it from the budget")
		}
		any = any || res.limited
	}
	if !any {
		return fieldErr("budget", "no resource budgeted: give tokens, model_calls, latency_ms or cost_usd, or null for no budget")
	}
	return nil
}

// event records an event id at field.
func (v *validator) event(id, field string) *FieldError {
	if id == "" {
		return fieldErr(field+".id", "missing event id")
	}
	if first, dup := v.events[id]; dup {
		return fieldErr(field+".id", "duplicate event id %q (first at %s)", id, first)
	}
	v.events[id] = field
	return nil
}

func (v *validator) agent(id, field string) *FieldError {
	if !v.agents[id] {
		return fieldErr(field, "unknown agent %q", id)
	}
	return nil
}

func (v *validator) subtask(id, field string) *FieldError {
	if !v.subtasks[id] {
		return fieldErr(field, "unknown subtask %q", id)
	}
	return nil
}

// unique adds id to seen, refusing an empty or repeated one.
func unique(seen map[string]bool, id, field, what string) *FieldError {
	if id == "" {
		return fieldErr(field, "missing %s id", what)
	}
	if seen[id] {
		return fieldErr(field, "duplicate %s id %q", what, id)
	}
	seen[id] = true
	return nil
}

// names checks a list of names: none empty, none twice.
func names(list []string, field string) *FieldError {
	for i, s := range list {
		if s == "" {
			return fieldErr(fmt.Sprintf("%s[%d]", field, i), "empty name")
		}
		if slices.Index(list, s) < i {
			return fieldErr(fmt.Sprintf("%s[%d]", field, i), "%q listed twice", s)
		}
	}
	return nil
}

// firstOf returns the first non-nil error.
func firstOf(errs ...*FieldError) *FieldError {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
