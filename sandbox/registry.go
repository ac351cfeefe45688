package sandbox

import (
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Access says whether a tool reads records or writes them.
type Access uint8

// The accesses.
const (
	Read  Access = iota // reads records; no idempotency key
	Write               // writes one record of its kind; takes an idempotency key
)

// AllAccesses lists the accesses.
var AllAccesses = []Access{Read, Write}

func (a Access) String() string {
	if a == Write {
		return "write"
	}
	return "read"
}

// Tool is one tool of a mission's system of record.
type Tool struct {
	Name        string
	Description string
	// Args is the JSON Schema of the arguments, checked before Handler
	// runs; nil takes any arguments.
	Args   *Schema
	Access Access
	// Record is the kind of record a write writes, and ResultID the field
	// of its result that holds the new record's id (the call's effect).
	Record   string
	ResultID string
	// Agents are the agents that may call the tool. A call by any other is
	// refused with ErrForbidden and logged as a violation.
	Agents  []string
	Handler Handler
}

// Handler runs a tool's effect once, on arguments that passed the tool's
// schema: it reads or writes tx.Records and returns the result and the id
// of the record written ("" for reads). Its errors are what the caller
// sees (use [Invalid], [NotFound], [Refuse]).
type Handler func(tx *Tx, args Args) (Result, string, *Error)

// Tx is what a handler works with: the records, the item the call is for,
// the ids of its tool's record kind and the tool's memo.
type Tx struct {
	Records Records
	Item    string
	s       *Sandbox
	kind    int
	tool    int
}

// NewID issues the next id of the tool's record kind: its prefix, a dash
// and a counter of four digits at least ("REF-0001").
func (tx *Tx) NewID() string { return tx.s.newID(tx.kind) }

// Memo returns the tool's memo: a value its handler may keep from one call
// to the next (nil at first), for instance the results it built from
// records that do not change. It lasts as long as the sandbox and through
// [Sandbox.Recycle], into the runs of other scenarios, so a handler must
// check that what it kept still matches the records before it reuses it.
// A result reused this way is shared by every call that returns it, which
// callers must not modify anyway (see [Sandbox.Call]).
func (tx *Tx) Memo() *any {
	if tx.s.memo == nil {
		tx.s.memo = make([]any, len(tx.s.reg.tools))
	}
	return &tx.s.memo[tx.tool]
}

// RecordKind is one kind of record whose ids the engine issues.
type RecordKind struct {
	Name   string // "order", "ticket"
	Prefix string // of issued ids: "REF" gives "REF-0001"
	Doc    string
}

// Setup is what a mission registers: its record store, record kinds and
// tools.
type Setup struct {
	// Records returns an empty record store of the mission's type.
	Records func() Records
	Kinds   []RecordKind
	Tools   []Tool
}

// Registry is a mission's tools and record kinds, checked and compiled
// once. It is immutable and safe for concurrent use.
type Registry struct {
	newRecords func() Records
	kinds      []RecordKind
	tools      []Tool
	byName     map[string]int
	kindOf     []int // per tool, the index of its record kind (-1 for reads)
	faultKeys  [][numDrawn]string
	refusalKey []string   // which refusal code
	retryKey   []string   // how long a rate limit asks to wait
	ids        [][]string // per record kind, its first ids (see [Sandbox.newID])
	// agentBase is, per tool, the first of its agents' slots in a
	// seedPrefixes table; prefixes holds the tables.
	agentBase  []int
	agentSlots int
	prefixes   prefixTables
	pool       sync.Pool
}

// NewRegistry checks and compiles a mission's setup: every tool named once,
// with a handler and at least one agent, every write of a registered record
// kind with the field of its result that holds the new id.
func NewRegistry(s Setup) (*Registry, error) {
	if s.Records == nil {
		return nil, errors.New("registry: no record store")
	}
	r := &Registry{newRecords: s.Records, kinds: slices.Clone(s.Kinds), tools: slices.Clone(s.Tools), byName: map[string]int{}}
	kindIdx := map[string]int{}
	var errs []error
	for i, k := range r.kinds {
		if _, dup := kindIdx[k.Name]; dup || k.Name == "" || k.Prefix == "" {
			errs = append(errs, fmt.Errorf("registry: record kind %d %q: want a unique name and a prefix", i, k.Name))
		}
		kindIdx[k.Name] = i
		r.ids = append(r.ids, firstIDs(k.Prefix))
	}
	for i := range r.tools {
		t := &r.tools[i]
		t.Agents = slices.Clone(t.Agents)
		if _, dup := r.byName[t.Name]; dup || t.Name == "" {
			errs = append(errs, fmt.Errorf("registry: tool %d %q: want a unique name", i, t.Name))
		}
		r.byName[t.Name] = i
		if t.Handler == nil || len(t.Agents) == 0 {
			errs = append(errs, fmt.Errorf("registry: tool %s: want a handler and at least one agent", t.Name))
		}
		k := -1
		if t.Access == Write {
			var ok bool
			if k, ok = kindIdx[t.Record]; !ok || t.ResultID == "" {
				errs = append(errs, fmt.Errorf("registry: write tool %s: record kind %q is not registered, or no result id field", t.Name, t.Record))
			}
		}
		r.kindOf = append(r.kindOf, k)
		r.agentBase = append(r.agentBase, r.agentSlots)
		r.agentSlots += len(t.Agents)
		var keys [numDrawn]string
		for f, kind := range drawnKinds {
			keys[f] = FaultKey(t.Name, kind)
		}
		r.faultKeys = append(r.faultKeys, keys)
		r.refusalKey = append(r.refusalKey, FaultKey(t.Name, Refusal)+":code")
		r.retryKey = append(r.retryKey, FaultKey(t.Name, RateLimit)+":retry_after")
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return r, nil
}

// Tools returns the tools in registration order.
func (r *Registry) Tools() []Tool { return slices.Clone(r.tools) }

// Kinds returns the record kinds in registration order.
func (r *Registry) Kinds() []RecordKind { return slices.Clone(r.kinds) }

// Tool returns the tool called name.
func (r *Registry) Tool(name string) (*Tool, bool) {
	i, ok := r.byName[name]
	if !ok {
		return nil, false
	}
	return &r.tools[i], true
}

// Index returns the tool called name and its index, for [Sandbox.CallTool]:
// a caller that looks a tool up once calls it without a second lookup.
func (r *Registry) Index(name string) (*Tool, int, bool) {
	i, ok := r.byName[name]
	if !ok {
		return nil, -1, false
	}
	return &r.tools[i], i, true
}

// Permitted reports whether agent may call tool.
func (r *Registry) Permitted(agent, tool string) bool {
	t, ok := r.Tool(tool)
	return ok && slices.Contains(t.Agents, agent)
}

// AgentTools returns the tools agent may call, in registration order.
func (r *Registry) AgentTools(agent string) []*Tool {
	var out []*Tool
	for i := range r.tools {
		if slices.Contains(r.tools[i].Agents, agent) {
			out = append(out, &r.tools[i])
		}
	}
	return out
}

// Writer returns the agent that writes records of a kind (the first agent
// of the first write tool of that kind), or "" when no tool writes it.
func (r *Registry) Writer(record string) string {
	for i := range r.tools {
		if t := &r.tools[i]; t.Access == Write && t.Record == record {
			return t.Agents[0]
		}
	}
	return ""
}

// RecordOf returns the record kind a tool writes, "" for a read or an
// unknown tool.
func (r *Registry) RecordOf(tool string) string {
	if t, ok := r.Tool(tool); ok && t.Access == Write {
		return t.Record
	}
	return ""
}

// NewRecords returns an empty record store of the mission's type.
func (r *Registry) NewRecords() Records { return r.newRecords() }
