package mission

import (
	"context"
	"time"

	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/sandbox"
)

// runner holds the state of one run: its sandbox, clock, dice, transport
// and trace. It is used by one goroutine.
type runner struct {
	e       *engine
	t       *tables
	ctx     context.Context
	seams   Seams
	sc      *Scenario
	day     string
	clock   *sandbox.Clock
	clock0  sandbox.Clock // what clock points to, but for a run played outside
	dice    sandbox.Dice
	seed    uint64 // the trial seed the dice are keyed by
	sb      *sandbox.Sandbox
	profile Profile
	cores   map[Agent]Core // the run's own cores, over the mission's
	// redeliver is the transport's redelivery rate.
	redeliver float64
	// err is the first error a core returned; the run stops there.
	err error

	trace Trace
	cost  Cost
	slips []SlipEvent
	// redelivered lists edge:item of every redelivered message.
	redelivered []string

	// read counts the bytes a core has read since its last model call.
	read int
	// cur is the turn tool calls are folded into.
	cur *Turn

	transport transport
	// boxes hold, per collecting agent (its slot in tables.box), the
	// messages it received that day, in order; the first few live in the
	// runner itself.
	boxes  []inbox
	boxes0 [2]inbox

	rec  *recorder  // golden recording, or nil
	stop *stopPoint // fixture set-up: stop before this agent's turn, or nil
	// alone runs cores without sending their results on (RunCore): the
	// emitter packages each result into emitted instead.
	alone   bool
	emitted map[string][]byte
	// readings remembers the clean parser's readings of input messages
	// (RunCore on the clean build); nil reads every message afresh.
	readings *readingMemo
	// decoded remembers decoded wire messages; nil decodes afresh.
	decoded *decodeMemo
	// parsers and emitters say where the build's Parse and Emit seams
	// may act (see cleanParse, cleanEmit).
	parsers, emitters seamPlaces
	// aloneCalls are the logical tool calls of every turn a core run alone
	// took, in order: what a golden records for the agent and item.
	aloneCalls []ToolCall
	// enc encodes wire messages and trace payloads; release hands it back.
	enc *jsontext.Encoder
	// keyRow holds keyItem's keys and message ids (keys.go).
	keyItem string
	keyRow  *itemKeys
	// answer, when set, answers the tool calls of a core played outside
	// any run ([PlayOutside]) in place of the tool box and sandbox.
	answer Answer
}

// inbox is what a collecting agent received during the day.
type inbox struct {
	msgs []*Handoff
	raws [][]byte
}

// box returns collecting agent ai's inbox.
func (r *runner) box(ai int) *inbox {
	if r.boxes == nil {
		if n := r.t.collectors; n <= len(r.boxes0) {
			r.boxes = r.boxes0[:n]
		} else {
			r.boxes = make([]inbox, n)
		}
	}
	return &r.boxes[r.t.box[ai]]
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
		if t, ok := parseDate(sc.Day); ok {
			return t.Add(9 * time.Hour), sc.Day
		}
	}
	return sandbox.Epoch, epochDay
}

var epochDay = sandbox.Epoch.Format(time.DateOnly)

// parseDate reads a date as time.Parse(time.DateOnly, s) does, without
// its layout interpreter for the usual YYYY-MM-DD (every run reads its
// scenario's day).
func parseDate(s string) (time.Time, bool) {
	if len(s) == len(time.DateOnly) && s[4] == '-' && s[7] == '-' {
		y, ok1 := atoi(s[0:4])
		m, ok2 := atoi(s[5:7])
		d, ok3 := atoi(s[8:10])
		if ok1 && ok2 && ok3 {
			t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
			if t.Year() == y && int(t.Month()) == m && t.Day() == d {
				return t, true
			}
		}
	}
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}

// newRunner returns a runner over a fresh sandbox holding initial, sized for
// a whole day of sc.
func (e *engine) newRunner(ctx context.Context, seams Seams, sc *Scenario, initial *sandbox.State, seed uint64, env Env) *runner {
	n := 8
	if sc != nil {
		n += 30 * len(sc.Inputs)
	}
	return e.newRunnerCap(ctx, seams, sc, initial, seed, env, n)
}

// newRunnerCap returns a runner whose trace has room for events events.
func (e *engine) newRunnerCap(ctx context.Context, seams Seams, sc *Scenario, initial *sandbox.State, seed uint64, env Env, events int) *runner {
	start, day := dayStart(sc)
	r := &runner{
		e:         e,
		t:         e.t,
		ctx:       ctx,
		seams:     seams,
		sc:        sc,
		day:       day,
		dice:      sandbox.NewDice(seed).Recording(env.Draws),
		seed:      seed,
		profile:   env.Profile,
		cores:     env.Cores,
		redeliver: env.Faults.Rate("transport", sandbox.Redelivery),
	}
	r.clock0 = *sandbox.NewClock(start)
	r.clock = &r.clock0
	r.sb = sandbox.New(e.spec.Tools, initial, sandbox.Config{Faults: env.Faults}, r.dice, r.clock)
	r.enc = jsontext.GetEncoder()
	r.trace.Events = newEvents(events)
	r.trace.compactRaw = true    // every raw JSON field is r.enc's
	r.cost.EnvironmentResets = 1 // a core run alone counts a fixture instead
	return r
}

// release hands the runner's scratch to later runs. The runner must not
// encode anything afterwards; what it returned stays valid.
func (r *runner) release() {
	jsontext.PutEncoder(r.enc)
	r.enc = nil
}

// discard ends a run that failed: its scratch and sandbox go back, its
// trace is dropped.
func (r *runner) discard() {
	r.release()
	r.sb.Recycle()
	r.sb = nil
	r.trace.Recycle()
}

// event appends e to the trace, stamped with sequence and virtual time.
func (r *runner) event(e Event) {
	e.Seq = len(r.trace.Events) + 1
	e.At = r.clock.Elapsed()
	r.trace.Events = append(r.trace.Events, e)
}

// runDay processes the scenario's inputs in order, each through every agent
// before the next, then has the collecting agents take their end-of-day
// turns. It stops early at the runner's fixture point, if it has one, or
// at a core's error.
func (r *runner) runDay() {
	entry := r.t.agents[r.t.entry]
	for i := range r.sc.Inputs {
		in := &r.sc.Inputs[i]
		if r.stop.at(entry, in.ID) {
			return
		}
		r.turn(r.t.entry, in.ID, turnInput{input: in})
		if r.err != nil {
			return
		}
		r.drain()
		if r.err != nil || r.stop != nil && r.stop.stopped {
			return
		}
	}
	if r.stop != nil {
		// A fixture never holds the end of the day.
		r.stop.stopped = true
		return
	}
	for ai, c := range r.t.collect {
		if !c || r.err != nil {
			continue
		}
		b := r.box(ai)
		r.turn(ai, r.day, turnInput{msgs: b.msgs, raws: b.raws})
	}
}

// core returns the core that plays agent ai in this run.
func (r *runner) core(ai int) Core {
	a := r.t.agents[ai]
	if c, ok := r.cores[a]; ok && c != nil {
		return c
	}
	return r.e.def.Cores[a]
}

// turnInput is what a turn is on: the entry agent's input, or parsed
// messages with their wire bytes (raw for one message, raws for a
// collector's), and the bytes the core is charged as read before its
// first step.
type turnInput struct {
	input *Input
	raw   []byte
	msg   *Handoff // the one message of raw
	raws  [][]byte
	msgs  []*Handoff
	read  int
}

// begin makes agent ai's turn on item from in and makes it the runner's
// current turn.
func (r *runner) begin(ai int, item string, in turnInput) *Turn {
	t := &Turn{Agent: r.t.agents[ai], Item: item, Day: r.day, Input: in.input, Messages: in.msgs, Raw: in.raws, r: r}
	if in.raw != nil {
		t.raw1[0] = in.raw
		t.Raw = t.raw1[:]
	}
	if in.msg != nil {
		t.msg1[0] = in.msg
		t.Messages = t.msg1[:]
	}
	r.cur = t
	r.read = in.read
	return t
}

// turn has agent ai's core take one turn on item, records the result and
// sends it on.
func (r *runner) turn(ai int, item string, in turnInput) Result {
	agent := r.t.agents[ai]
	t := r.begin(ai, item, in)
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return nil
	}
	core := r.core(ai)
	res, err := core.Play(r.ctx, t)
	if err != nil {
		r.err = err
		return nil
	}
	if _, ok := core.(DecidesInTurn); !ok {
		r.applyDecisions(agent, item, res)
	}
	r.event(Event{Kind: EventResult, Agent: agent, Item: item, Output: r.marshal(res)})
	if r.alone {
		r.aloneCalls = append(r.aloneCalls, t.calls...)
	}
	if r.rec != nil {
		r.rec.core(agent, item, in.raw, t.calls, res)
	}
	switch {
	case res == nil: // a core that produced nothing hands nothing on
	case r.alone:
		r.emitAlone(ai, item, res)
	default:
		r.send(ai, item, res)
	}
	return res
}

// applyDecisions applies the Decide seam to a result's decision fields,
// for a core that does not decide in its turn.
func (r *runner) applyDecisions(agent Agent, item string, res Result) {
	as := r.e.agentSpec(agent)
	if as == nil || res == nil {
		return
	}
	for _, d := range as.Decisions {
		if d.Field == "" {
			continue
		}
		if s, ok := res[d.Field].(string); ok {
			res[d.Field] = r.seams.Decide(agent, d.Kind, item, s)
		}
	}
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
	r.cost.TokensIn += in / 4
	r.cost.TokensOut += (in+written)/4 - in/4 // so that Tokens = TokensIn + TokensOut
	r.event(Event{
		Kind: EventModelCall, Agent: r.cur.Agent, Item: r.cur.Item,
		Decision: decision, Choice: choice, TokensIn: in / 4, TokensOut: written / 4,
	})
}

// slip reports whether agent makes slip s on item, recording it if so.
func (r *runner) slip(agent Agent, s Slip, item, decision string) bool {
	p := r.profile.Rate(agent, s)
	if p <= 0 {
		return false
	}
	if !r.dice.Chance(p, string(agent), r.t.slipKind(s), item, 0) {
		return false
	}
	r.slips = append(r.slips, SlipEvent{Agent: agent, Slip: s, Item: item, Kind: decision})
	return true
}

// finish records what fired into oracle.
func (r *runner) finish(oracle *Oracle) {
	if oracle == nil {
		return
	}
	oracle.record(r.slips, r.sb.Fired(), r.redelivered)
}

// marshal encodes a decoded JSON value (or a Handoff) for the trace and
// the wire.
func (r *runner) marshal(v any) []byte { return r.enc.Encode(v) }
