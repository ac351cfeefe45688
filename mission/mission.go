package mission

import (
	"fmt"
	"strings"

	"github.com/baton-lab/baton/sandbox"
)

// Agent names one agent of a mission.
type Agent string

// The agents of the reference mission.
const (
	Intake   Agent = "intake"
	Action   Agent = "action"
	Boundary Agent = "boundary"
	Monitor  Agent = "monitor"
)

// AllAgents lists the reference mission's agents in flow order.
var AllAgents = []Agent{Intake, Action, Boundary, Monitor}

func (a Agent) String() string { return string(a) }

// Edge is a hand-off route from one agent to another.
type Edge struct {
	From, To Agent
}

// String writes the edge as "from->to".
func (e Edge) String() string {
	if s, ok := knownEdgeName(e); ok {
		return s
	}
	return string(e.From) + "->" + string(e.To)
}

// MarshalText writes the edge as "from->to".
func (e Edge) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText reads "from->to".
func (e *Edge) UnmarshalText(b []byte) error {
	p, err := ParseEdge(string(b))
	if err != nil {
		return err
	}
	*e = p
	return nil
}

// ParseEdge reads "from->to". It checks the form, not that the mission has
// the edge.
func ParseEdge(s string) (Edge, error) {
	from, to, ok := strings.Cut(s, "->")
	from, to = strings.TrimSpace(from), strings.TrimSpace(to)
	if !ok || from == "" || to == "" {
		return Edge{}, fmt.Errorf("edge %q: want from->to", s)
	}
	return Edge{From: Agent(from), To: Agent(to)}, nil
}

// The edges of the reference mission and the message kind each carries.
var (
	IntakeToAction    = Edge{Intake, Action}    // invoice.extracted
	ActionToBoundary  = Edge{Action, Boundary}  // match.prepared
	BoundaryToMonitor = Edge{Boundary, Monitor} // decision.made
	IntakeToMonitor   = Edge{Intake, Monitor}   // exception.raised
	ActionToMonitor   = Edge{Action, Monitor}   // exception.raised
)

// AllEdges lists the reference mission's edges.
var AllEdges = []Edge{IntakeToAction, ActionToBoundary, BoundaryToMonitor, IntakeToMonitor, ActionToMonitor}

// Message kinds carried on the edges.
const (
	KindInvoiceExtracted = "invoice.extracted"
	KindMatchPrepared    = "match.prepared"
	KindDecisionMade     = "decision.made"
	KindExceptionRaised  = "exception.raised"
)

// Location is a ground-truth or blamed place: an agent ("boundary") or an
// edge ("intake->action").
type Location string

// AgentLocation and EdgeLocation build locations.
func AgentLocation(a Agent) Location { return Location(a) }

// EdgeLocation writes an edge as a location.
func EdgeLocation(e Edge) Location { return Location(e.String()) }

// Edge returns the location's edge, if it is one.
func (l Location) Edge() (Edge, bool) {
	e, err := ParseEdge(string(l))
	return e, err == nil
}

// Adjacent reports whether l names edge e or one of its two agents.
func (l Location) Adjacent(e Edge) bool {
	return l == EdgeLocation(e) || l == Location(e.From) || l == Location(e.To)
}

// Mission is what designs and experiments run. The reference invoice mission
// implements it; a second mission can be added without changing them.
type Mission interface {
	Name() string
	Version() string
	Agents() []Agent
	Edges() []Edge
	// Kind returns the message kind an edge carries.
	Kind(e Edge) string

	// Run executes the whole mission for one scenario and trial seed in a
	// fresh sandbox.
	Run(b Build, sc *Scenario, seed uint64, env Env) *Run
	// RunCore runs one agent's core alone, neighbours mocked, on the given
	// inputs (the item's decoded incoming message(s), or the email for
	// intake), against a fresh sandbox holding the scenario's initial state
	// (for the reference mission: plus the records the clean mission wrote
	// before the agent's turn on the item, as a fixture would).
	RunCore(b Build, agent Agent, sc *Scenario, in CoreInput, seed uint64, env Env) *CoreRun
	// Emit runs an agent's emitter alone: it packages a core result for one
	// item into the wire bytes sent on edge.
	Emit(b Build, e Edge, item string, result Result) ([]byte, error)
	// Parse runs the consuming agent's parser alone on wire bytes received on
	// edge and returns its view of the message.
	Parse(b Build, e Edge, raw []byte) (*Handoff, error)
}

// Env is the run environment a protocol sets: the model profile (slip
// rates) and the sandbox's fault rates.
type Env struct {
	Profile Profile
	Faults  sandbox.FaultRates
}

// Slip is one kind of plausible model mistake a core can make.
type Slip string

// The slips of the model profile.
const (
	Misclassify Slip = "misclassify" // intake reads the email as the wrong document type
	Misread     Slip = "misread"     // a field is read wrongly (a digit, a currency)
	SkipLookup  Slip = "skip_lookup" // a lookup before a write is skipped
	Misroute    Slip = "misroute"    // the item is handed to the wrong next owner
)

func (s Slip) String() string { return string(s) }

// AllSlips lists every slip.
var AllSlips = []Slip{Misclassify, Misread, SkipLookup, Misroute}

// Profile gives, per agent, the probability of each slip at each decision
// where it can happen. The zero profile never slips.
type Profile map[Agent]map[Slip]float64

// Rate returns the probability of slip s for agent a.
func (p Profile) Rate(a Agent, s Slip) float64 { return p[a][s] }

// Result is a core's structured result for one item, as decoded JSON values.
type Result map[string]any

// CoreInput is what a core is given when run alone: for intake the email id,
// for the others the wire message(s) it would have received for the item.
type CoreInput struct {
	Item     string   `json:"item"`
	Messages [][]byte `json:"messages,omitempty"`
}

// ToolCall is one logical tool call of a core: retries of the same call are
// folded into it (Attempts counts them).
type ToolCall struct {
	Name     string       `json:"name"`
	Args     sandbox.Args `json:"args"`
	Attempts int          `json:"attempts,omitempty"`
	Error    string       `json:"error,omitempty"`
}

// Cost counts what a run executed.
type Cost struct {
	ModelCalls    int `json:"model_calls"`
	ToolCalls     int `json:"tool_calls"`
	Tokens        int `json:"tokens"`
	SandboxResets int `json:"sandbox_resets"`
}

// Add adds o to c.
func (c *Cost) Add(o Cost) {
	c.ModelCalls += o.ModelCalls
	c.ToolCalls += o.ToolCalls
	c.Tokens += o.Tokens
	c.SandboxResets += o.SandboxResets
}

// Run is the outcome of one integrated mission run: what an evaluator may
// read. What fired (slips, faults) goes to the build's oracle, not here.
type Run struct {
	Trace *Trace
	End   *sandbox.State
	Cost  Cost
}

// CoreRun is the outcome of one core run alone.
type CoreRun struct {
	Agent  Agent
	Item   string
	Calls  []ToolCall
	Result Result
	Trace  *Trace
	Cost   Cost
}

// Handoff is a parsed hand-off message: the envelope and the payload as the
// consumer reads it.
type Handoff struct {
	ID             string         `json:"id"`
	Edge           string         `json:"edge"`
	Kind           string         `json:"kind"`
	SchemaVersion  string         `json:"schema_version"`
	IdempotencyKey string         `json:"idempotency_key"`
	NextOwner      []string       `json:"next_owner"`
	Escalation     string         `json:"escalation"` // none, requested, escalated
	EscalationRef  string         `json:"escalation_ref,omitempty"`
	Item           string         `json:"item"`
	Payload        map[string]any `json:"payload"`
}

// Escalation states carried on every hand-off.
const (
	EscalationNone      = "none"      // nobody needs to escalate
	EscalationRequested = "requested" // the producer asks the consumer to escalate
	EscalationEscalated = "escalated" // already with a person; EscalationRef names the ticket
)
