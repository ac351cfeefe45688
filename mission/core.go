package mission

import (
	"context"
	"encoding/json"
	"math/rand/v2"

	"github.com/baton-lab/baton/sandbox"
)

// Core is an agent's decision maker: a policy with seeded slips, or a model
// behind an endpoint. The kernel hands it one [Turn] per item it works on;
// the core reads the turn's input, makes its tool calls through the turn
// (so that the build's ToolArgs and RetryKey seams and the sandbox's faults
// act on every call, whoever chose it), reports its decision steps, and
// returns its structured result. An error ends the run and is returned by
// [Mission.Run] or [Mission.RunCore]; a core that cannot decide (a model's
// malformed answer) should rather return a result saying so, which the
// scorecards score.
type Core interface {
	Play(ctx context.Context, t *Turn) (Result, error)
}

// DecidesInTurn marks a core that takes its decisions through
// [Turn.Decide] as it makes them, acting on what the Decide seam returns. For
// any other core the kernel applies the Decide seam to the decisions'
// result fields after the turn (see [Decision]).
type DecidesInTurn interface {
	Core
	DecidesInTurn()
}

// CoreFunc adapts a function to a [Core] whose decisions the kernel takes
// from its result.
type CoreFunc func(ctx context.Context, t *Turn) (Result, error)

// Play calls f.
func (f CoreFunc) Play(ctx context.Context, t *Turn) (Result, error) { return f(ctx, t) }

// Policy adapts a function to a [Core] that decides in its turn, as the
// deterministic policy cores of a mission do.
type Policy func(ctx context.Context, t *Turn) (Result, error)

// Play calls p.
func (p Policy) Play(ctx context.Context, t *Turn) (Result, error) { return p(ctx, t) }

// DecidesInTurn marks p as deciding through [Turn.Decide].
func (Policy) DecidesInTurn() {}

var (
	_ Core          = CoreFunc(nil)
	_ DecidesInTurn = Policy(nil)
)

// Turn is one invocation of a core on one item: its input, and the tool box
// and recorder the kernel gives it. A turn belongs to one goroutine and
// lives until the core returns.
type Turn struct {
	Agent Agent
	Item  string
	Day   string // the business day, YYYY-MM-DD
	// Input is the entry agent's input (an email, a ticket); nil for the
	// other agents.
	Input *Input
	// Messages are the hand-offs the turn is for, as the agent's parser
	// read them: one for an agent that takes a turn per message, the day's
	// for a collecting agent. Raw holds their wire bytes, in order.
	Messages []*Handoff
	Raw      [][]byte

	r     *runner
	calls []ToolCall
	// calls0 holds the first few calls, so that a turn's calls cost no
	// allocation of their own.
	calls0 [4]ToolCall
	// msg1 and raw1 hold the one message of a per-message turn, so that
	// the turn's slices cost no allocation of their own.
	msg1 [1]*Handoff
	raw1 [1][]byte
}

// Spec returns the agent's spec (its decisions, slips, rules and result
// schema).
func (t *Turn) Spec() *AgentSpec { return t.r.e.agentSpec(t.Agent) }

// Tools returns the tools the agent may call, with their descriptions and
// argument schemas.
func (t *Turn) Tools() []*sandbox.Tool { return t.r.e.spec.Tools.AgentTools(string(t.Agent)) }

// InputJSON returns the turn's input as JSON: the entry agent's input
// document, else the array of the wire messages.
func (t *Turn) InputJSON() ([]byte, error) {
	if t.Input != nil {
		return json.Marshal(t.Input)
	}
	raw := make([]json.RawMessage, len(t.Raw))
	for i, b := range t.Raw {
		raw[i] = b
	}
	return json.Marshal(raw)
}

// Call makes one logical tool call: the build's ToolArgs seam first (it may
// change args in place), then up to the mission's MaxAttempts attempts,
// retrying retryable errors after a back-off (or the rate limit's
// retry-after, if longer) on the virtual clock. A write's first attempt
// uses the idempotency key item:tool; retries use the key the RetryKey seam
// returns. Every attempt is a trace event; the logical call is one entry of
// the turn's calls. The error is nil or the last one seen.
func (t *Turn) Call(tool string, args sandbox.Args) (sandbox.Result, *sandbox.Error) {
	return t.r.call(t, tool, args)
}

// Decide returns the choice the agent acts on at a decision of kind: the
// build's Decide seam applied to what the core chose.
func (t *Turn) Decide(kind, choice string) string {
	return t.r.seams.Decide(t.Agent, kind, t.Item, choice)
}

// Slip reports whether the agent makes slip s on the turn's item at
// decision, drawn from the keyed dice with the profile's rate; a slip that
// happens goes to the oracle.
func (t *Turn) Slip(s Slip, decision string) bool { return t.r.slip(t.Agent, s, t.Item, decision) }

// Rand returns a generator keyed by the agent, kind and the turn's item, for
// a slip that needs more numbers (which field to misread).
func (t *Turn) Rand(kind string) *rand.Rand {
	return t.r.dice.Rand(string(t.Agent), kind, t.Item, 0)
}

// Step records one decision step of a policy core as a model call whose
// tokens are estimated from bytes: what the core read since its last step
// (its input, tool results and errors) plus extraRead, and written bytes
// (at least the choice's), four bytes a token.
func (t *Turn) Step(decision, choice string, extraRead, written int) {
	t.r.model(decision, choice, extraRead, written)
}

// ModelCall records one call a model-backed core made, with the token
// counts its endpoint reported. A run that made one is opaque (see
// [sandbox.Draws]): what a model answers is not drawn from the dice.
func (t *Turn) ModelCall(decision, choice string, promptTokens, completionTokens int) {
	r := t.r
	r.dice.Draws().MarkOpaque()
	r.read = 0
	r.cost.ModelCalls++
	r.cost.Tokens += promptTokens + completionTokens
	r.cost.TokensIn += promptTokens
	r.cost.TokensOut += completionTokens
	r.event(Event{
		Kind: EventModelCall, Agent: t.Agent, Item: t.Item,
		Decision: decision, Choice: choice, TokensIn: promptTokens, TokensOut: completionTokens,
	})
}

// Escalation records that the agent escalates the item, for reason.
func (t *Turn) Escalation(reason string) {
	t.r.event(Event{Kind: EventEscalation, Agent: t.Agent, Item: t.Item, Reason: reason})
}

// Exception records that a call of tool failed for good with code.
func (t *Turn) Exception(tool, code string) {
	t.r.event(Event{Kind: EventException, Agent: t.Agent, Item: t.Item, Tool: tool, Reason: code})
}

// Calls returns the turn's logical tool calls so far.
func (t *Turn) Calls() []ToolCall { return t.calls }
