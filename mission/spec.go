package mission

import (
	"io/fs"
	"slices"

	"github.com/baton-lab/baton/sandbox"
)

// Spec describes a mission as data: everything designs, mutant operators,
// the protocol decoder, contracts and reports may know about it. A mission
// package fills one in and hands it to [New] inside a [Definition];
// [Mission.Spec] returns it. Nothing outside the mission keeps a table of
// its facts: they are read from here.
type Spec struct {
	Name    string // "triage"
	Version string // the mission's version, recorded with every result
	Doc     string
	// Agents in flow order: the order reports, goldens and candidate lists
	// follow.
	Agents []AgentSpec
	// Entry is the agent that takes one turn per scenario input (an email,
	// a ticket), in order, each through the whole mission before the next.
	Entry Agent
	// Messages are the kinds of hand-off message and their payload fields.
	Messages []MessageSpec
	// Edges are the hand-off routes, each carrying one message kind. An
	// agent's results go out on its edges in this order.
	Edges []EdgeSpec
	// Tools is the mission's system of record: tools (with their argument
	// schemas, access, record kinds and permitted agents) and record kinds.
	Tools *sandbox.Registry
	// SchemaVersion is written on every hand-off envelope.
	SchemaVersion string
	// ItemField is the payload field that names the item when an envelope
	// does not ("email_id").
	ItemField string
	// MaxAttempts is how many times a tool call is tried (retryable errors
	// are retried after a back-off on the virtual clock) before the core
	// hears the error.
	MaxAttempts int

	// Contracts holds the default hand-off contracts: *.yaml at its root,
	// one per edge, in the contracts package's format.
	Contracts fs.FS
	// Catalogue is the default mutant catalogue (the mutants package's
	// YAML) and Protocol the default experiment protocol (the experiment
	// package's YAML), as named files.
	Catalogue File
	Protocol  File
	// Prompts holds the instructions of a model-backed core of each
	// agent: <agent>.md at its root (a protocol may name another file).
	Prompts fs.FS
}

// File is a named file's bytes.
type File struct {
	Name string
	Data []byte
}

// AgentSpec describes one agent.
type AgentSpec struct {
	Name Agent
	Doc  string
	// Collect marks an agent that gathers every message it receives during
	// the day and takes one turn at the end of it (a monitor publishing a
	// report), the day as its item. Any other agent with incoming edges
	// takes one turn per message it receives.
	Collect bool
	// Slips are the plausible mistakes its core may make, each drawn with
	// the probability a protocol's model profile gives (agent, slip).
	// [Misroute], made by the emitter, belongs to every agent that emits.
	Slips []Slip
	// Decisions are the choices its core makes that the Decide seam may
	// change.
	Decisions []Decision
	// Rules are the hard trajectory rules its scorecard holds whatever the
	// scenario, besides calling only permitted tools.
	Rules []Rule
	// Result is the JSON Schema of its structured result.
	Result *sandbox.Schema
}

// Decision is one kind of choice a core makes. A core that decides in its
// turn asks [Turn.Decide]; for any other core (a model's) the kernel
// applies the Decide seam to its result's Field after the turn, so a seeded
// defect acts on the decision whatever produced it.
type Decision struct {
	Kind string // "classify", "decision"; "route" is every emitter's next owner
	// Field is the result field holding the choice ("" when the choice is
	// not in the result, as the route is not).
	Field string
	// Choices are the possible choices (for "route", nil: any agent).
	Choices []string
	Doc     string
}

// RouteDecision is the decision kind every emitter makes: the next owner
// of the message it sends.
const RouteDecision = "route"

// MessageSpec is one kind of hand-off message: its payload fields, in the
// order the emitter writes them. The consumer's parser reads each with its
// type and silent default.
type MessageSpec struct {
	Kind   string // "ticket.routed"
	Doc    string
	Fields []Field
}

// EdgeSpec is one hand-off route.
type EdgeSpec struct {
	From, To Agent
	Kind     string // the message kind it carries
	// Escalation marks an edge whose envelope carries the producer's
	// escalation state (its result's "escalation" and "escalation_ref").
	Escalation bool
	// Source, when set, names the result field holding the payload (an
	// object): the edge is taken only when the result has it, as an
	// exception edge is. Otherwise the payload comes from the result
	// itself and the edge is taken on every result.
	Source string
}

// Edge returns the route as an [Edge].
func (e *EdgeSpec) Edge() Edge { return Edge{From: e.From, To: e.To} }

// Field is one payload field: its type, and what the consumer's parser
// reads when it is missing or unreadable.
type Field struct {
	Name string
	Type FieldType
	Doc  string
	// Default is a string field's silent default.
	Default string
	// DefaultDays and DefaultFrom give an unreadable date a default: the
	// date in field DefaultFrom (if readable) plus DefaultDays, else the
	// business day plus DefaultDays. With DefaultDays 0 an unreadable date
	// reads as "".
	DefaultDays int
	DefaultFrom string
	// Fields are the fields of each object of a FieldObjects list; inside
	// it a field reads as its type or its zero value.
	Fields []Field
}

// FieldType is how a parser reads a payload field.
type FieldType uint8

// The field types.
const (
	FieldString  FieldType = iota // a string; a number reads as its text
	FieldNumber                   // a number; a string reads leniently (every non-digit a separator)
	FieldBool                     // true or false; "true" reads as true
	FieldDate                     // YYYY-MM-DD; DD/MM/YYYY reads as MM/DD when it can
	FieldStrings                  // a list of strings; other items are dropped
	FieldObjects                  // a list of objects with Fields
)

// AllFieldTypes lists the field types.
var AllFieldTypes = []FieldType{FieldString, FieldNumber, FieldBool, FieldDate, FieldStrings, FieldObjects}

func (t FieldType) String() string {
	switch t {
	case FieldString:
		return "string"
	case FieldNumber:
		return "number"
	case FieldBool:
		return "boolean"
	case FieldDate:
		return "date"
	case FieldStrings:
		return "strings"
	case FieldObjects:
		return "objects"
	}
	return "unknown"
}

// JSONType returns the field's JSON Schema type and format.
func (t FieldType) JSONType() (typ sandbox.Type, format string) {
	switch t {
	case FieldNumber:
		return sandbox.TypeNumber, ""
	case FieldBool:
		return sandbox.TypeBoolean, ""
	case FieldDate:
		return sandbox.TypeString, "date"
	case FieldStrings, FieldObjects:
		return sandbox.TypeArray, ""
	}
	return sandbox.TypeString, ""
}

// Rule is one hard trajectory rule of an agent, checked on the tool calls
// of each of its turns.
type Rule struct {
	ID      string   // "hard.lookup_before_write"
	Kind    RuleKind // what it forbids
	Tool    string   // the tool the rule is about
	After   string   // RuleAfter: the tool a successful call of which must come first
	Message string   // what a breach says
	Doc     string   // the rule in a few words, for a methods section ("look up before write")
}

// RuleKind is the shape of a hard rule.
type RuleKind uint8

// The rule kinds.
const (
	// RuleNever: the agent never calls Tool.
	RuleNever RuleKind = iota
	// RuleAfter: the agent calls Tool only after a successful call of After
	// in the same turn.
	RuleAfter
)

// AllRuleKinds lists the rule kinds.
var AllRuleKinds = []RuleKind{RuleNever, RuleAfter}

func (k RuleKind) String() string {
	if k == RuleAfter {
		return "after"
	}
	return "never"
}

// Agent returns the agent called name.
func (s *Spec) Agent(name Agent) (*AgentSpec, bool) {
	for i := range s.Agents {
		if s.Agents[i].Name == name {
			return &s.Agents[i], true
		}
	}
	return nil, false
}

// HasAgent reports whether the mission has agent a.
func (s *Spec) HasAgent(a Agent) bool {
	_, ok := s.Agent(a)
	return ok
}

// AgentNames lists the agents in flow order.
func (s *Spec) AgentNames() []Agent {
	out := make([]Agent, len(s.Agents))
	for i := range s.Agents {
		out[i] = s.Agents[i].Name
	}
	return out
}

// AgentIndex returns a's place in flow order, or len(Agents) for an agent
// the mission does not have.
func (s *Spec) AgentIndex(a Agent) int {
	for i := range s.Agents {
		if s.Agents[i].Name == a {
			return i
		}
	}
	return len(s.Agents)
}

// Edge returns the route e.
func (s *Spec) Edge(e Edge) (*EdgeSpec, bool) {
	for i := range s.Edges {
		if s.Edges[i].From == e.From && s.Edges[i].To == e.To {
			return &s.Edges[i], true
		}
	}
	return nil, false
}

// EdgeList lists the edges in declared order.
func (s *Spec) EdgeList() []Edge {
	out := make([]Edge, len(s.Edges))
	for i := range s.Edges {
		out[i] = s.Edges[i].Edge()
	}
	return out
}

// Kind returns the message kind edge e carries, "" when the mission has no
// such edge.
func (s *Spec) Kind(e Edge) string {
	if es, ok := s.Edge(e); ok {
		return es.Kind
	}
	return ""
}

// Message returns the message kind called kind.
func (s *Spec) Message(kind string) (*MessageSpec, bool) {
	for i := range s.Messages {
		if s.Messages[i].Kind == kind {
			return &s.Messages[i], true
		}
	}
	return nil, false
}

// Fields returns the payload fields edge e carries (nil when it has no such
// edge).
func (s *Spec) Fields(e Edge) []Field {
	if m, ok := s.Message(s.Kind(e)); ok {
		return m.Fields
	}
	return nil
}

// PayloadFields returns the names of the payload fields edge e carries.
func (s *Spec) PayloadFields(e Edge) []string {
	fs := s.Fields(e)
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// In returns the edges into agent a, in declared order.
func (s *Spec) In(a Agent) []Edge {
	var out []Edge
	for i := range s.Edges {
		if s.Edges[i].To == a {
			out = append(out, s.Edges[i].Edge())
		}
	}
	return out
}

// Out returns the edges out of agent a, in declared order.
func (s *Spec) Out(a Agent) []Edge {
	var out []Edge
	for i := range s.Edges {
		if s.Edges[i].From == a {
			out = append(out, s.Edges[i].Edge())
		}
	}
	return out
}

// Writer returns the agent that writes records of a kind (derived from the
// tools), "" when none does.
func (s *Spec) Writer(record string) Agent {
	if s.Tools == nil {
		return ""
	}
	return Agent(s.Tools.Writer(record))
}

// Permitted reports whether agent a may call tool.
func (s *Spec) Permitted(a Agent, tool string) bool {
	return s.Tools != nil && s.Tools.Permitted(string(a), tool)
}

// AgentTools returns the names of the tools agent a may call.
func (s *Spec) AgentTools(a Agent) []string {
	if s.Tools == nil {
		return nil
	}
	var out []string
	for _, t := range s.Tools.AgentTools(string(a)) {
		out = append(out, t.Name)
	}
	return out
}

// Decision returns agent a's decision of kind: its own, or the route
// decision every agent with an out edge makes.
func (s *Spec) Decision(a Agent, kind string) (*Decision, bool) {
	as, ok := s.Agent(a)
	if !ok {
		return nil, false
	}
	for i := range as.Decisions {
		if as.Decisions[i].Kind == kind {
			return &as.Decisions[i], true
		}
	}
	if kind == RouteDecision && len(s.Out(a)) > 0 {
		return &Decision{Kind: RouteDecision, Doc: "the next owner of a message the agent sends"}, true
	}
	return nil, false
}

// DecisionKinds lists the decision kinds of every agent, without
// repetition, in flow order, "route" last when any agent emits.
func (s *Spec) DecisionKinds() []string {
	var out []string
	for i := range s.Agents {
		for _, d := range s.Agents[i].Decisions {
			if !slices.Contains(out, d.Kind) {
				out = append(out, d.Kind)
			}
		}
	}
	if len(s.Edges) > 0 && !slices.Contains(out, RouteDecision) {
		out = append(out, RouteDecision)
	}
	return out
}

// HasSlip reports whether agent a can make slip sl.
func (s *Spec) HasSlip(a Agent, sl Slip) bool {
	as, ok := s.Agent(a)
	return ok && slices.Contains(as.Slips, sl)
}

// SlipNames lists every slip of every agent, without repetition, in flow
// order.
func (s *Spec) SlipNames() []Slip {
	var out []Slip
	for i := range s.Agents {
		for _, sl := range s.Agents[i].Slips {
			if !slices.Contains(out, sl) {
				out = append(out, sl)
			}
		}
	}
	return out
}

// FieldSchema returns the JSON Schema of an object with the fields, each
// required, in order.
func FieldSchema(fields []Field) *sandbox.Schema {
	s := &sandbox.Schema{Type: sandbox.TypeObject}
	for _, f := range fields {
		typ, format := f.Type.JSONType()
		fs := sandbox.Schema{Type: typ, Format: format, Description: f.Doc}
		switch f.Type {
		case FieldStrings:
			fs.Items = &sandbox.Schema{Type: sandbox.TypeString}
		case FieldObjects:
			fs.Items = FieldSchema(f.Fields)
		}
		s.Properties = append(s.Properties, sandbox.Prop(f.Name, true, fs))
	}
	return s
}
