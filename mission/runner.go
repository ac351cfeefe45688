package mission

import (
	"time"

	"github.com/baton-lab/baton/sandbox"
)

// runner holds the state of one run of the reference mission: its sandbox,
// clock, dice, transport and trace. It is used by one goroutine.
type runner struct {
	seams   Seams
	sc      *Scenario
	day     string
	clock   *sandbox.Clock
	dice    sandbox.Dice
	sb      *sandbox.Sandbox
	profile Profile
	// redeliver is the transport's redelivery rate.
	redeliver float64

	trace Trace
	cost  Cost
	slips []SlipEvent
	// redelivered lists edge:item of every redelivered message.
	redelivered []string

	// read counts the bytes a core has read since its last model call.
	read int
	// cur is the core invocation tool calls are folded into.
	cur *coreCall

	transport transport
	inbox     []*Handoff // the monitor's received messages, in order
	inboxRaw  [][]byte

	rec  *recorder  // golden recording, or nil
	stop *stopPoint // fixture set-up: stop before this agent's turn, or nil
	// alone runs cores without sending their results on (RunCore).
	alone bool
	// readings remembers the clean parser's readings of input messages
	// (RunCore); nil reads every message afresh.
	readings *readingMemo
	// decoded remembers decoded wire messages; nil decodes afresh.
	decoded *decodeMemo
	// last is the most recent core invocation.
	last *coreCall
	// enc encodes wire messages and trace payloads; release hands it back.
	enc *jsonEncoder
}

// coreCall is one invocation of a core on one item.
type coreCall struct {
	agent Agent
	item  string
	calls []ToolCall
}

// stopPoint names the turn a fixture run stops before.
type stopPoint struct {
	agent   Agent
	item    string
	stopped bool
}

func (s *stopPoint) at(agent Agent, item string) bool {
	if s == nil {
		return false
	}
	if agent == s.agent && item == s.item {
		s.stopped = true
	}
	return s.stopped
}

// dayStart returns the scenario's day at 09:00 UTC, or sandbox.Epoch.
func dayStart(sc *Scenario) (time.Time, string) {
	if sc != nil && sc.Day != "" {
		if t, err := time.Parse(time.DateOnly, sc.Day); err == nil {
			return t.Add(9 * time.Hour), sc.Day
		}
	}
	return sandbox.Epoch, sandbox.Epoch.Format(time.DateOnly)
}

// newRunner returns a runner over a fresh sandbox holding initial, sized for
// a whole day of sc.
func newRunner(seams Seams, sc *Scenario, initial *sandbox.State, seed uint64, env Env) *runner {
	n := 8
	if sc != nil {
		n += 30 * len(sc.Emails)
	}
	return newRunnerCap(seams, sc, initial, seed, env, n)
}

// newRunnerCap returns a runner whose trace has room for events events.
func newRunnerCap(seams Seams, sc *Scenario, initial *sandbox.State, seed uint64, env Env, events int) *runner {
	start, day := dayStart(sc)
	r := &runner{
		seams:     seams,
		sc:        sc,
		day:       day,
		clock:     sandbox.NewClock(start),
		dice:      sandbox.NewDice(seed),
		profile:   env.Profile,
		redeliver: env.Faults.Rate("transport", sandbox.Redelivery),
	}
	r.sb = sandbox.New(initial, sandbox.Config{Faults: env.Faults}, r.dice, r.clock)
	r.enc = getEncoder()
	r.trace.Events = newEvents(events)
	r.cost.SandboxResets = 1
	return r
}

// release hands the runner's scratch to later runs. The runner must not
// encode anything afterwards; what it returned stays valid.
func (r *runner) release() {
	putEncoder(r.enc)
	r.enc = nil
}

// event appends e to the trace, stamped with sequence and virtual time.
func (r *runner) event(e Event) {
	e.Seq = len(r.trace.Events) + 1
	e.At = r.clock.Elapsed()
	r.trace.Events = append(r.trace.Events, e)
}

// begin starts a core invocation for agent on item.
func (r *runner) begin(agent Agent, item string) *coreCall {
	r.cur = &coreCall{agent: agent, item: item}
	r.read = 0
	return r.cur
}

// model records one decision step of the current core: one model call that
// read what the core read since its last call (plus extra bytes) and wrote
// written bytes.
func (r *runner) model(decision, choice string, extraRead, written int) {
	in := r.read + extraRead
	r.read = 0
	if written < len(choice) {
		written = len(choice)
	}
	r.cost.ModelCalls++
	r.cost.Tokens += (in + written) / 4
	r.event(Event{
		Kind: EventModelCall, Agent: r.cur.agent, Item: r.cur.item,
		Decision: decision, Choice: choice, TokensIn: in / 4, TokensOut: written / 4,
	})
}

// slip reports whether agent makes slip s on item, recording it if so.
func (r *runner) slip(agent Agent, s Slip, item, decision string) bool {
	p := r.profile.Rate(agent, s)
	if p <= 0 {
		return false
	}
	if !r.dice.Chance(p, string(agent), slipKinds[s], item, 0) {
		return false
	}
	r.slips = append(r.slips, SlipEvent{Agent: agent, Slip: s, Item: item, Kind: decision})
	return true
}

// slipKinds are the dice decision kinds of the slips: "slip:" + slip.
var slipKinds = map[Slip]string{
	Misclassify: "slip:" + string(Misclassify),
	Misread:     "slip:" + string(Misread),
	SkipLookup:  "slip:" + string(SkipLookup),
	Misroute:    "slip:" + string(Misroute),
}

// finish records what fired into oracle.
func (r *runner) finish(oracle *Oracle) {
	if oracle == nil {
		return
	}
	oracle.record(r.slips, r.sb.Fired(), r.redelivered)
}

// runCore runs one core invocation for agent on item, whose input was raw
// (nil for intake), records its result and sends it on.
func (r *runner) runCore(agent Agent, item string, raw []byte, core func() Result) Result {
	c := r.begin(agent, item)
	r.read = len(raw)
	res := core()
	r.event(Event{Kind: EventResult, Agent: agent, Item: item, Output: r.marshal(res)})
	r.last = c
	if r.rec != nil {
		r.rec.core(agent, item, raw, c.calls, res)
	}
	if !r.alone {
		r.send(agent, item, res)
	}
	return res
}
