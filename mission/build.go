package mission

import (
	"sync"

	"github.com/baton-lab/baton/sandbox"
)

// Seams are the places where a build may differ from the clean mission. The
// mission calls each hook at its seam, on every run; [NoSeams] changes
// nothing. Implementations must be safe for concurrent use and must not keep
// per-run state: everything a hook needs is in its arguments.
type Seams interface {
	// Decide may change a core's decision. kind names the decision
	// ("classify", "proposal", "decision", "escalate", "route"), choice is
	// what the clean core chose; the returned value is acted on.
	Decide(agent Agent, kind, item, choice string) string
	// ToolArgs may change the arguments a core passes to a tool, in place.
	ToolArgs(agent Agent, tool, item string, args sandbox.Args)
	// RetryKey returns the idempotency key for retry attempt (>= 1) of a
	// write whose first attempt used key. The clean mission returns key.
	RetryKey(agent Agent, tool, item, key string, attempt int) string
	// Emit may change an outgoing message (envelope fields at top level,
	// "payload" inside) just before the emitter encodes it: the wire
	// bytes are what msg holds after. msg is copy-on-write (see
	// [Message]): change it through its methods, never a value in place.
	Emit(e Edge, msg *Message)
	// Parse may change how the consumer reads a message, decoded from the
	// wire bytes, just before the parser reads the envelope and the
	// payload's fields with their defaults. msg is copy-on-write: the
	// decoded message is shared, a change copies what it changes.
	Parse(e Edge, msg *Message)
	// Route may change who the transport delivers a message to; owners is
	// the envelope's next_owner.
	Route(e Edge, owners []Agent) []Agent
	// Dedup reports whether the transport drops a message whose idempotency
	// key it has already delivered on e.
	Dedup(e Edge) bool
}

// NoSeams is the clean mission's seams: every hook changes nothing.
type NoSeams struct{}

var _ Seams = NoSeams{}

// Decide keeps the core's choice.
func (NoSeams) Decide(_ Agent, _, _, choice string) string { return choice }

// ToolArgs leaves the arguments as the core chose them.
func (NoSeams) ToolArgs(Agent, string, string, sandbox.Args) {}

// RetryKey reuses the first attempt's key: a retry is the same write.
func (NoSeams) RetryKey(_ Agent, _, _, key string, _ int) string { return key }

// Emit sends the message as the emitter built it.
func (NoSeams) Emit(Edge, *Message) {}

// Parse reads the message as it arrived.
func (NoSeams) Parse(Edge, *Message) {}

// Route delivers to the owners the envelope names.
func (NoSeams) Route(_ Edge, owners []Agent) []Agent { return owners }

// Dedup drops copies of a message already delivered.
func (NoSeams) Dedup(Edge) bool { return true }

// Build is an opaque handle on the mission with at most one defect switched
// on. Evaluators receive builds and run them; they cannot see what is in one.
// The zero Build is the clean mission.
type Build struct {
	seams  Seams
	oracle *Oracle
}

// Clean returns the clean build.
func Clean() Build { return Build{} }

// NewBuild returns a build acting through seams. If oracle is not nil, every
// run of the build records there what fired.
func NewBuild(seams Seams, oracle *Oracle) Build { return Build{seams: seams, oracle: oracle} }

// WithOracle returns the same build recording into oracle.
func (b Build) WithOracle(oracle *Oracle) Build { b.oracle = oracle; return b }

// hooks returns the seams a run calls.
func (b Build) hooks() Seams {
	if b.seams == nil {
		return NoSeams{}
	}
	return b.seams
}

// SlipEvent is a seeded model mistake that fired.
type SlipEvent struct {
	Agent Agent  `json:"agent"`
	Slip  Slip   `json:"slip"`
	Item  string `json:"item"`
	Kind  string `json:"kind"` // the decision it changed
}

// Oracle records what fired in a build's runs: slips, injected faults and
// transport redeliveries. Experiments and reports read it; designs never see
// it. It is safe for concurrent use.
type Oracle struct {
	mu           sync.Mutex
	Slips        []SlipEvent
	Faults       []sandbox.Fired
	Redeliveries []string // edge:item of every redelivered message
	// Reached counts how often a build's seam acted on its target; a
	// mutant that never reaches its target in a suite has no coverage.
	Reached int
}

// Reach records that a build's seam acted on its target. Seams call it
// through the oracle their build was switched on with.
func (o *Oracle) Reach() {
	if o == nil {
		return
	}
	o.mu.Lock()
	o.Reached++
	o.mu.Unlock()
}

func (o *Oracle) record(slips []SlipEvent, faults []sandbox.Fired, redeliveries []string) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.Slips = append(o.Slips, slips...)
	o.Faults = append(o.Faults, faults...)
	o.Redeliveries = append(o.Redeliveries, redeliveries...)
}
