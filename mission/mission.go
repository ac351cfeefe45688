package mission

import (
	"context"

	"github.com/baton-lab/baton/sandbox"
)

// Mission is what designs, experiments and reports run and read. [New]
// builds one from a mission package's [Definition]; a wrapper (a design's
// counting mission, an experiment's run sharing) embeds one and overrides
// what it needs.
type Mission interface {
	// Spec describes the mission as data.
	Spec() *Spec

	// Run executes the whole mission for one scenario and trial seed in a
	// fresh sandbox, and records what fired into the build's oracle.
	Run(ctx context.Context, b Build, sc *Scenario, seed uint64, env Env) (*Run, error)
	// RunCore runs one agent alone, neighbours mocked, on the given inputs
	// (the item's wire messages, or the input's id for the entry agent),
	// against a fresh sandbox holding the scenario's initial state plus the
	// records the clean mission wrote before the agent's turn on the item,
	// as a fixture would. It runs the whole agent as its team's unit test
	// would: the build's parser reads the incoming messages (its Parse
	// seam acts), the build's Decide, ToolArgs and RetryKey seams act on
	// the core, and the build's emitter (its Emit and route Decide seams)
	// packages each result into CoreRun.Emitted without sending it: no
	// transport runs, so the Route and Dedup seams do not.
	RunCore(ctx context.Context, b Build, agent Agent, sc *Scenario, in CoreInput, seed uint64, env Env) (*CoreRun, error)
	// Emit runs an agent's emitter alone: it packages a core result for one
	// item into the wire bytes sent on edge.
	Emit(b Build, e Edge, item string, result Result) ([]byte, error)
	// Parse runs the consuming agent's parser alone on wire bytes received
	// on edge and returns its view of the message.
	Parse(b Build, e Edge, raw []byte) (*Handoff, error)

	// RecordGolden runs the clean build on sc with zero slips and faults and
	// returns each agent's golden expectation per item, sorted by agent
	// (flow order), then item. It fails, naming each difference, when the
	// run's end state does not pass Check: a golden is never recorded
	// from a wrong run.
	RecordGolden(sc *Scenario) ([]Golden, error)
	// Check compares an end state with the scenario's expected one and
	// returns every difference, sorted by record, field, want and got.
	Check(sc *Scenario, end *sandbox.State) []sandbox.Difference

	// Scenarios returns the mission's default scenario suite (fresh deep
	// copies, sorted by id) and a hash identifying it.
	Scenarios() ([]*Scenario, string, error)
	// LoadScenarios reads scenario files in the mission's format; a
	// directory contributes its *.yaml and *.yml files in name order. Ids
	// must be unique across all files; the result is sorted by id.
	LoadScenarios(paths ...string) ([]*Scenario, error)
}

// Env is the run environment a protocol sets: the model profile (slip
// rates), the sandbox's fault rates and, per agent, the core that plays it
// in place of the mission's own (a model for one agent, the policy for the
// others). Single, when set, runs the mission's single-agent build instead
// of its agents (see [Single]). Draws, when set, records the keyed draws
// the run consults (see [sandbox.Draws]): one run's own record, to ask
// whether another trial's seed would make the same run.
type Env struct {
	Profile Profile
	Faults  sandbox.FaultRates
	Cores   map[Agent]Core
	Single  *Single
	Draws   *sandbox.Draws
}

// Slip is one kind of plausible model mistake a core can make.
type Slip string

func (s Slip) String() string { return string(s) }

// Misroute is the slip every emitter can make: the item is handed to the
// wrong next owner.
const Misroute Slip = "misroute"

// Profile gives, per agent, the probability of each slip at each decision
// where it can happen. The zero profile never slips.
type Profile map[Agent]map[Slip]float64

// Rate returns the probability of slip s for agent a.
func (p Profile) Rate(a Agent, s Slip) float64 { return p[a][s] }

// Result is a core's structured result for one item, as decoded JSON values.
type Result = map[string]any

// CoreInput is what a core is given when run alone: for the entry agent the
// input's id, for the others the wire message(s) it would have received for
// the item.
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

// Cost counts what a run, or a design's evaluation, executed. Resets are
// kept apart by what they set up: a whole system of record for an
// integrated run (environment) or one agent's fixture for a core run alone
// (fixture). Emits and parses count the messages emitters packaged and
// parsers read; contract checks and attribution steps are what a design
// adds on top of the runs it executed (a message checked against its
// edge's contract; a trace event its attribution examined).
type Cost struct {
	ModelCalls int `json:"model_calls"`
	ToolCalls  int `json:"tool_calls"`
	Tokens     int `json:"tokens"`
	// TokensIn and TokensOut split Tokens into what the models read
	// (prompt tokens) and wrote (completion tokens).
	TokensIn          int `json:"tokens_in"`
	TokensOut         int `json:"tokens_out"`
	EnvironmentResets int `json:"environment_resets"`
	FixtureResets     int `json:"fixture_resets"`
	Emits             int `json:"emits"`
	Parses            int `json:"parses"`
	ContractChecks    int `json:"contract_checks"`
	AttributionSteps  int `json:"attribution_steps"`
}

// Add adds o to c.
func (c *Cost) Add(o Cost) {
	c.ModelCalls += o.ModelCalls
	c.ToolCalls += o.ToolCalls
	c.Tokens += o.Tokens
	c.TokensIn += o.TokensIn
	c.TokensOut += o.TokensOut
	c.EnvironmentResets += o.EnvironmentResets
	c.FixtureResets += o.FixtureResets
	c.Emits += o.Emits
	c.Parses += o.Parses
	c.ContractChecks += o.ContractChecks
	c.AttributionSteps += o.AttributionSteps
}

// SandboxResets is every fresh sandbox the cost counts, environments and
// fixtures.
func (c Cost) SandboxResets() int { return c.EnvironmentResets + c.FixtureResets }

// Run is the outcome of one integrated mission run: what an evaluator may
// read. What fired (slips, faults) goes to the build's oracle, not here.
type Run struct {
	Trace *Trace
	End   *sandbox.State
	Cost  Cost
}

// CoreRun is the outcome of one core run alone: the whole agent, as its
// team's unit test runs it (the build's parser on the input messages, the
// core, the build's emitter on its result).
type CoreRun struct {
	Agent Agent
	Item  string
	// Calls are the logical tool calls of every turn the core took on the
	// item, in order (an entry agent's turn on its input, then one per
	// message), as a golden records them.
	Calls  []ToolCall
	Result Result
	// Emitted holds the wire bytes the build's emitter packaged from the
	// agent's result, by edge (for an agent that took several turns, the
	// last turn's); nil when it emitted nothing.
	Emitted map[string][]byte
	Trace   *Trace
	Cost    Cost
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

// EnvelopeFields are the top-level fields of every hand-off message.
var EnvelopeFields = []string{"id", "edge", "kind", "schema_version", "idempotency_key", "next_owner", "escalation", "escalation_ref", "item", "payload"}
