package mission

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/sandbox"
)

// SingleAgent is the name the single-agent build's agent has in its trace
// when [Single].Name is empty.
const SingleAgent Agent = "single"

// Single asks [Mission.Run] for the mission's single-agent build ([Env].Single):
// one agent holding every tool and doing every role, with the same decision
// logic. It plays each role's core (the run's, as for the multi-agent
// build: a policy or a model) in the order the hand-offs would, but keeps
// its working memory inside itself: nothing is emitted, sent, routed or
// parsed. What one role produced is handed to the next role as the whole
// result (or the whole object the edge's Source names), every field kept,
// read with the next role's field types and defaults; the envelope's edge,
// kind, item and escalation state are kept as the role would have read
// them. So the Emit, Parse, Route and Dedup seams, misroute slips and
// transport redeliveries have nowhere to act; the Decide, ToolArgs and
// RetryKey seams, the roles' other slips and the sandbox's faults act as in
// the multi-agent build, drawn from the same keyed dice (slips and faults
// are keyed by the role, so a trial of both builds draws the same numbers
// for the same calls, and the sandbox's log names the role that made each
// call). Each role's core is offered its role's tools
// ([Turn.Tools]), as its decision logic expects; the sandbox lets the agent
// call any tool. Every trace event is the one agent's; RunCore ignores
// Single.
type Single struct {
	// Name is the agent's name in the trace; "" is [SingleAgent]. It must
	// not be one of the mission's agents.
	Name Agent
	// Budget caps the run's total: a run whose usage goes over it stops
	// taking turns (an exception event with reason [ReasonBudget]) and
	// fails on efficiency. The zero budget caps nothing.
	Budget Budget
	// Votes is how many times the agent asks a role's core for each
	// turn's decisions, acting on the majority; 0 and 1 ask once. Each
	// extra vote plays the role's core on a scratch copy of the system of
	// record, with dice keyed by the vote (independent, deterministic
	// slips and faults, and a distinct [Turn.Seed] a model core sends as
	// its sample), before the turn itself: at each decision the turn then
	// acts on the choice most votes made, its own included (ties go to
	// its own). Only decisions are voted on ([Turn.Decide], or the result
	// fields the kernel reads a core's decisions from); whatever else a
	// core does follows its own turn. An extra vote is taken only while it
	// fits in the budget (see Need). Its model calls, tokens and tool calls count in the run's cost and
	// its model calls are in the trace; its tool calls, against the
	// scratch copy, are not.
	Votes int
	// Need is what the agent expects its turns of the day to cost in the
	// budget's unit, voting once (a comparison passes its mean need at
	// its own needs). Under a budget an extra vote is taken only while
	// it, estimated by the turn's costliest vote so far, else the run's
	// average turn, else (on the run's first turn) the whole Need, plus
	// what the day's own turns still need (Need less what they spent)
	// fits in the budget. Without a Need a budgeted agent does not vote:
	// it cannot tell what its own turns still need.
	Need int
}

// ReasonBudget is the reason of the exception a single-agent run records
// when it stops at its budget.
const ReasonBudget = "budget_exceeded"

// BudgetUnit is what a budget is counted in.
type BudgetUnit int

// The budget units.
const (
	UnitModelCalls BudgetUnit = iota // model calls
	UnitTokens                       // tokens, prompt and completion
)

// AllBudgetUnits lists every budget unit.
var AllBudgetUnits = []BudgetUnit{UnitModelCalls, UnitTokens}

func (u BudgetUnit) String() string {
	switch u {
	case UnitModelCalls:
		return "model_calls"
	case UnitTokens:
		return "tokens"
	}
	return "unit(" + strconv.Itoa(int(u)) + ")"
}

// Budget is a run's total budget in one unit; a Limit of 0 caps nothing.
type Budget struct {
	Unit  BudgetUnit
	Limit int
}

// Used returns what c spent in the budget's unit.
func (b Budget) Used(c Cost) int {
	if b.Unit == UnitTokens {
		return c.Tokens
	}
	return c.ModelCalls
}

// Exceeded reports whether c spent more than the budget allows.
func (b Budget) Exceeded(c Cost) bool { return b.Limit > 0 && b.Used(c) > b.Limit }

// errSingleName is the error of a single agent named like a role.
var errSingleName = errors.New("the single agent's name is one of the mission's agents")

// runSingle runs the single-agent build of sc (see [Single]).
func (e *engine) runSingle(ctx context.Context, b Build, sc *Scenario, seed uint64, env Env) (*Run, error) {
	s := *env.Single
	if s.Name == "" {
		s.Name = SingleAgent
	}
	if e.t.agent(s.Name) >= 0 {
		return nil, fmt.Errorf("run %s: single agent %q: %w", sc.ID, s.Name, errSingleName)
	}
	reg, err := e.soloRegistry()
	if err != nil {
		return nil, fmt.Errorf("run %s: single agent: %w", sc.ID, err)
	}
	r := e.newRunner(ctx, b.hooks(), sc, &sc.Initial, seed, env)
	r.sb.Recycle()
	r.sb = sandbox.New(reg, &sc.Initial, sandbox.Config{Faults: env.Faults}, r.dice, r.clock)
	so := &solo{r: r, s: s, reg: reg, env: env}
	so.day()
	if r.err != nil {
		r.discard()
		return nil, fmt.Errorf("run %s: %w", sc.ID, r.err)
	}
	for i := range r.trace.Events {
		r.trace.Events[i].Agent = s.Name
	}
	r.finish(b.oracle)
	r.release()
	end := r.sb.Snapshot()
	r.sb.Recycle()
	r.sb = nil
	return &Run{Trace: &r.trace, End: end, Cost: r.cost}, nil
}

// soloTools is the single agent's tool registry, built once per mission.
type soloTools struct {
	once sync.Once
	reg  *sandbox.Registry
	err  error
}

// soloRegistry returns the mission's tools with every tool open to every
// role: the single agent holds them all.
func (e *engine) soloRegistry() (*sandbox.Registry, error) {
	e.solo.once.Do(func() {
		reg := e.spec.Tools
		tools := reg.Tools()
		for i := range tools {
			tools[i].Agents = slices.Clone(e.t.agentNames())
		}
		e.solo.reg, e.solo.err = sandbox.NewRegistry(sandbox.Setup{Records: reg.NewRecords, Kinds: reg.Kinds(), Tools: tools})
	})
	return e.solo.reg, e.solo.err
}

// agentNames returns the mission's agents as strings.
func (t *tables) agentNames() []string {
	out := make([]string, len(t.agents))
	for i, a := range t.agents {
		out[i] = string(a)
	}
	return out
}

// solo is the state of one single-agent run over a runner (its sandbox,
// clock, dice, trace and cost).
type solo struct {
	r   *runner
	s   Single
	reg *sandbox.Registry
	env Env
	// queue holds the hand-overs between roles not yet taken, in order.
	queue []handover
	head  int
	// boxes hold, per collecting role, what it was handed today.
	boxes map[int]*inbox
	// turns counts the turns taken, for the average a vote is estimated
	// by, and real what they spent (their votes apart) in the budget's
	// unit.
	turns   int
	real    int
	stopped bool
}

// handover is one role's result handed to the next role, inside the agent.
type handover struct {
	to  int
	msg *Handoff
	raw []byte // the hand-over as the next role reads it (its JSON)
}

// day takes the scenario's inputs in order, each through every role before
// the next, then the collecting roles' end-of-day turns.
func (so *solo) day() {
	r := so.r
	for i := range r.sc.Inputs {
		in := &r.sc.Inputs[i]
		so.take(r.t.entry, in.ID, turnInput{input: in})
		for so.head < len(so.queue) && !so.done() {
			h := so.queue[so.head]
			so.head++
			if r.t.collect[h.to] {
				b := so.box(h.to)
				b.msgs, b.raws = append(b.msgs, h.msg), append(b.raws, h.raw)
				continue
			}
			so.take(h.to, h.msg.Item, turnInput{raw: h.raw, msg: h.msg, read: len(h.raw)})
		}
		so.queue, so.head = so.queue[:0], 0
		if so.done() {
			return
		}
	}
	for ai, c := range r.t.collect {
		if c && !so.done() {
			b := so.box(ai)
			so.take(ai, r.day, turnInput{msgs: b.msgs, raws: b.raws})
		}
	}
}

// done reports whether the run stops: a core failed, or the budget is
// spent.
func (so *solo) done() bool { return so.r.err != nil || so.stopped }

func (so *solo) box(ai int) *inbox {
	if so.boxes == nil {
		so.boxes = map[int]*inbox{}
	}
	b, ok := so.boxes[ai]
	if !ok {
		b = &inbox{}
		so.boxes[ai] = b
	}
	return b
}

// take has role ai's core take one turn on item (with votes, when the
// agent votes and the budget allows), records the result and hands it to
// the next roles.
func (so *solo) take(ai int, item string, in turnInput) {
	r := so.r
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return
	}
	var ballots []ballot
	if so.s.Votes > 1 {
		ballots = so.vote(ai, item, in)
		if r.err != nil {
			return
		}
	}
	before := so.s.Budget.Used(r.cost)
	seams := r.seams
	if ballots != nil {
		r.seams = &tally{Seams: seams, ballots: ballots}
	}
	res := so.play(ai, item, in)
	r.seams = seams
	if r.err != nil {
		return
	}
	so.turns++
	so.real += so.s.Budget.Used(r.cost) - before
	r.event(Event{Kind: EventResult, Agent: r.t.agents[ai], Item: item, Output: r.marshal(res)})
	if so.s.Budget.Exceeded(r.cost) {
		so.stop(ai, item)
		return
	}
	if res != nil {
		so.handOn(ai, item, res)
	}
}

// stop records that the run stops at its budget.
func (so *solo) stop(ai int, item string) {
	so.stopped = true
	so.r.event(Event{Kind: EventException, Agent: so.r.t.agents[ai], Item: item, Reason: ReasonBudget})
}

// play has role ai's core play one turn on the runner and returns its
// result, the Decide seam applied for a core that does not decide in its
// turn.
func (so *solo) play(ai int, item string, in turnInput) Result {
	r := so.r
	agent := r.t.agents[ai]
	t := r.begin(ai, item, in)
	core := r.core(ai)
	res, err := core.Play(r.ctx, t)
	if err != nil {
		r.err = err
		return nil
	}
	if _, ok := core.(DecidesInTurn); !ok {
		r.applyDecisions(agent, item, res)
	}
	return res
}

// handOn hands role ai's result for item to the role at the end of each of
// its out edges, as the edge's emitter would take it (an edge with a
// Source only when the result has it), every field kept.
func (so *solo) handOn(ai int, item string, res Result) {
	r := so.r
	for _, k := range r.t.out[ai] {
		es := &r.t.edges[k]
		src := res
		if es.Source != "" {
			if src = jsontext.Object(res[es.Source]); src == nil {
				continue
			}
		}
		h := &Handoff{
			ID:             messageID(item, r.t.names[ai][r.t.to[k]], r.transport.nextSeq(es.Edge(), item)),
			Edge:           r.t.names[ai][r.t.to[k]],
			Kind:           es.Kind,
			SchemaVersion:  r.e.spec.SchemaVersion,
			IdempotencyKey: envelopeKey(item, es.Kind),
			NextOwner:      []string{string(es.To)},
			Escalation:     EscalationNone,
			Item:           item,
			Payload:        readWhole(r.t.views[es.Kind], jsontext.CloneObject(src), r.day),
		}
		if es.Escalation {
			h.Escalation = readEscalation(res["escalation"])
			h.EscalationRef = jsontext.Str(res["escalation_ref"])
		}
		so.queue = append(so.queue, handover{to: r.t.to[k], msg: h, raw: r.marshal(h)})
	}
}

// readWhole reads a role's whole result as the next role reads its view's
// fields (types and defaults), keeping every other field.
func readWhole(specs []Field, payload map[string]any, day string) map[string]any {
	if payload == nil {
		payload = make(map[string]any, len(specs))
	}
	for i := range specs {
		f := &specs[i]
		v, present := payload[f.Name]
		var from any
		if f.Type == FieldDate && f.DefaultFrom != "" {
			from = payload[f.DefaultFrom]
		}
		if read, keep := readField(f, v, present, from, day); !keep {
			payload[f.Name] = read
		}
	}
	return payload
}
