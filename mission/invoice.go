package mission

import (
	"fmt"
	"sync"

	"github.com/baton-lab/baton/sandbox"
)

// invoiceMission is the reference supplier-invoice mission. It caches the
// fixtures of core runs alone (see RunCore); it is safe for concurrent use.
type invoiceMission struct {
	fixtures sync.Map // fixtureKey -> *sandbox.State
	readings readingMemo
	decoded  decodeMemo
}

type fixtureKey struct {
	sc    *Scenario
	agent Agent
	item  string
}

var _ Mission = (*invoiceMission)(nil)

// Reference returns the reference invoice mission. Scenarios run through
// one Reference value must not change afterwards (it caches per-scenario
// fixtures); take a new value for changed scenarios.
func Reference() Mission { return &invoiceMission{} }

func (*invoiceMission) Name() string       { return "invoice" }
func (*invoiceMission) Version() string    { return "1.0.0" }
func (*invoiceMission) Agents() []Agent    { return append([]Agent(nil), AllAgents...) }
func (*invoiceMission) Edges() []Edge      { return append([]Edge(nil), AllEdges...) }
func (*invoiceMission) Kind(e Edge) string { return EdgeKind(e) }

// Run executes the whole mission for one scenario and seed in a fresh
// sandbox, and records what fired into the build's oracle.
func (m *invoiceMission) Run(b Build, sc *Scenario, seed uint64, env Env) *Run {
	r := newRunner(b.hooks(), sc, &sc.Initial, seed, env)
	r.decoded = &m.decoded
	r.runDay()
	r.finish(b.oracle)
	r.release()
	end := r.sb.Snapshot()
	r.sb.Recycle()
	r.sb = nil
	return &Run{Trace: &r.trace, End: end, Cost: r.cost}
}

// runDay processes the scenario's emails in order, each through every agent
// before the next, then has the monitor publish the day's report. It stops
// early at the runner's fixture point, if it has one.
func (r *runner) runDay() {
	for i := range r.sc.Emails {
		em := &r.sc.Emails[i]
		if r.stop.at(Intake, em.ID) {
			return
		}
		r.runCore(Intake, em.ID, nil, func() Result { return r.intake(em) })
		r.drain()
		if r.stop != nil && r.stop.stopped {
			return
		}
	}
	if r.stop != nil {
		// A fixture never holds the day's report.
		r.stop.stopped = true
		return
	}
	r.runCore(Monitor, r.day, nil, func() Result { return r.monitor(r.inbox) })
}

// RunCore runs one agent's core alone on in, with its neighbours mocked: the
// sandbox holds the scenario's initial state plus what the clean mission
// (zero slips and faults) wrote before the agent's turn on the item, so that
// the records the core refers to exist. Incoming wire messages are read with
// the clean parser (parser defects are the hand-off's, not the core's); the
// build's Decide, ToolArgs and RetryKey seams act. For the monitor, in holds
// every message it received that day and the result is the report.
func (m *invoiceMission) RunCore(b Build, agent Agent, sc *Scenario, in CoreInput, seed uint64, env Env) *CoreRun {
	fixture := m.fixture(sc, agent, in.Item)
	r := newRunnerCap(b.hooks(), sc, fixture, seed, env, 12+2*len(in.Messages))
	r.alone = true
	r.readings = &m.readings
	item := in.Item
	var res Result
	switch agent {
	case Intake:
		em := findEmail(sc, in.Item)
		if em == nil {
			res = Result{"error": "no email " + in.Item}
			break
		}
		res = r.runCore(Intake, em.ID, nil, func() Result { return r.intake(em) })
	case Action, Boundary:
		for _, raw := range in.Messages {
			h, ok := r.receive(agent, raw)
			if !ok {
				continue
			}
			if item == "" {
				item = h.Item
			}
			if agent == Action {
				res = r.runCore(Action, h.Item, raw, func() Result { return r.action(h) })
			} else {
				res = r.runCore(Boundary, h.Item, raw, func() Result { return r.boundary(h) })
			}
		}
	case Monitor:
		item = r.day
		size := 0
		for _, raw := range in.Messages {
			if h, ok := r.receive(Monitor, raw); ok {
				r.inbox = append(r.inbox, h)
				size += len(raw)
			}
		}
		res = r.runCore(Monitor, r.day, nil, func() Result {
			r.read = size
			return r.monitor(r.inbox)
		})
	}
	r.finish(b.oracle)
	r.release()
	r.sb.Recycle()
	r.sb = nil
	var calls []ToolCall
	if r.last != nil {
		calls = r.last.calls
	}
	return &CoreRun{Agent: agent, Item: item, Calls: calls, Result: res, Trace: &r.trace, Cost: r.cost}
}

// receive reads one mocked incoming message with the clean parser and
// records it in the trace.
func (r *runner) receive(agent Agent, raw []byte) (*Handoff, bool) {
	var rd *reading
	if r.readings != nil {
		rd = r.readings.read(agent, r.day, raw, r.enc)
	} else {
		rd = readMessage(agent, r.day, raw, r.enc)
	}
	if rd.h == nil {
		r.event(Event{Kind: EventDropped, Agent: agent, Edge: rd.edge.String(), Raw: rd.raw, Reason: "unreadable"})
		return nil, false
	}
	h := rd.h.clone()
	r.event(Event{Kind: EventReceived, Agent: agent, Item: h.Item, Edge: rd.edge.String(), Raw: rd.raw, Parsed: rd.parsed})
	return h, true
}

// inbound returns the edge a message to agent came on: the envelope's edge
// if it names one into agent, else the agent's main incoming edge. msg and
// err are raw as decodeObject decoded it.
func inbound(agent Agent, raw []byte, msg map[string]any, err error) Edge {
	if e, ok := envelopeEdgeOf(raw, msg, err); ok && e.To == agent {
		return e
	}
	switch agent {
	case Action:
		return IntakeToAction
	case Boundary:
		return ActionToBoundary
	}
	return BoundaryToMonitor
}

func findEmail(sc *Scenario, id string) *Email {
	for i := range sc.Emails {
		if sc.Emails[i].ID == id {
			return &sc.Emails[i]
		}
	}
	return nil
}

// fixture returns the state a core alone starts from: the scenario's initial
// state plus what the clean mission wrote before agent's turn on item. It is
// computed once per scenario, agent and item; sandbox.New copies it.
func (m *invoiceMission) fixture(sc *Scenario, agent Agent, item string) *sandbox.State {
	k := fixtureKey{sc: sc, agent: agent, item: item}
	if st, ok := m.fixtures.Load(k); ok {
		return st.(*sandbox.State)
	}
	r := newRunner(NoSeams{}, sc, &sc.Initial, 0, Env{})
	r.stop = &stopPoint{agent: agent, item: item}
	r.runDay()
	st := r.sb.Snapshot()
	st.Log = nil
	actual, _ := m.fixtures.LoadOrStore(k, st)
	return actual.(*sandbox.State)
}

// Emit runs the producing agent's emitter alone on a core result for item.
func (*invoiceMission) Emit(b Build, e Edge, item string, result Result) ([]byte, error) {
	r := &runner{seams: b.hooks(), enc: getEncoder()}
	out, err := r.emit(e, item, result, 1)
	r.release()
	if err != nil {
		return nil, err
	}
	return out.raw, nil
}

// Parse runs the consuming agent's parser alone on wire bytes received on e.
// Missing dates default from sandbox.Epoch's day.
func (m *invoiceMission) Parse(b Build, e Edge, raw []byte) (*Handoff, error) {
	if EdgeKind(e) == "" {
		return nil, fmt.Errorf("parse %s: no such edge", e)
	}
	_, day := dayStart(nil)
	msg, err := m.decoded.decode(raw)
	return parseDecoded(e.To, e, msg, err, b.hooks(), day)
}
