package mission

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/sandbox"
)

// Definition is what a mission package hands [New]: its spec, the core that
// plays each agent by default, and the functions that check an end state
// and read its scenarios.
type Definition struct {
	Spec *Spec
	// Cores are the agents' default cores (policies); every agent that
	// takes turns needs one. [Env].Cores replaces them per run. A default
	// core reads the hand-offs of its turn and never changes them: the
	// clean parser's readings are shared by every run that reads the same
	// bytes (a core of Env.Cores gets a copy of its own).
	Cores map[Agent]Core
	// Check compares an end state with a scenario's expected one (see
	// [Mission.Check]).
	Check func(sc *Scenario, end *sandbox.State) []sandbox.Difference
	// Scenarios returns the default suite, fresh copies sorted by id, and
	// its hash.
	Scenarios func() ([]*Scenario, string, error)
	// ParseScenarios parses one scenario file's contents; name is used in
	// errors and Scenario.Source.
	ParseScenarios func(name string, data []byte) ([]*Scenario, error)
	// NewAttachment returns an empty attachment of the mission's inputs,
	// for reading an input back from JSON ([DecodeView]); nil when its
	// inputs carry none.
	NewAttachment func() Attachment
}

// New checks a definition and returns the mission it defines, run by the
// kernel's engine: the day's inputs through the entry agent, every hand-off
// through the emitter, the transport and the consumer's parser, every tool
// call through the tool box into a fresh sandbox. The mission caches the
// fixtures of core runs alone and what parsers read; it is safe for
// concurrent use. Scenarios run through one mission must not change
// afterwards; take a new mission for changed scenarios.
func New(d Definition) (Mission, error) {
	if err := check(d); err != nil {
		return nil, fmt.Errorf("mission %s: %w", d.Spec.Name, err)
	}
	return &engine{def: d, spec: d.Spec, t: compile(d)}, nil
}

// check reports what a definition lacks.
func check(d Definition) error {
	s := d.Spec
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if s == nil {
		return errors.New("no spec")
	}
	if s.Name == "" || s.Version == "" {
		bad("spec: want a name and a version")
	}
	if s.Tools == nil {
		bad("spec: no tools")
	}
	if s.MaxAttempts < 1 {
		bad("spec: max attempts %d: want at least 1", s.MaxAttempts)
	}
	if d.Check == nil || d.Scenarios == nil || d.ParseScenarios == nil {
		bad("definition: want Check, Scenarios and ParseScenarios")
	}
	seen := map[Agent]bool{}
	for _, a := range s.Agents {
		if a.Name == "" || seen[a.Name] {
			bad("agent %q: want a unique name", a.Name)
		}
		seen[a.Name] = true
	}
	if !seen[s.Entry] {
		bad("entry agent %q: not an agent of the mission", s.Entry)
	}
	for _, e := range s.Edges {
		switch {
		case !seen[e.From] || !seen[e.To]:
			bad("edge %s: both ends must be agents of the mission", e.Edge())
		case !hasMessage(s, e.Kind):
			bad("edge %s: no message kind %q", e.Edge(), e.Kind)
		}
	}
	for _, a := range s.Agents {
		if (a.Name == s.Entry || len(s.In(a.Name)) > 0) && d.Cores[a.Name] == nil {
			bad("agent %s takes turns but has no core", a.Name)
		}
	}
	return errors.Join(errs...)
}

func hasMessage(s *Spec, kind string) bool {
	_, ok := s.Message(kind)
	return ok
}

// engine is a mission run by the kernel.
type engine struct {
	def  Definition
	spec *Spec
	t    *tables
	// fixtures are the states core runs alone start from, by fixtureKey
	// (a map under a lock: a sync.Map boxes every key it is asked for).
	fixMu    sync.RWMutex
	fixtures map[fixtureKey]*sandbox.State
	readings readingMemo
	decoded  decodeMemo
	keys     keyMemo   // keys.go
	solo     soloTools // single.go
}

var _ Mission = (*engine)(nil)

type fixtureKey struct {
	sc    *Scenario
	agent Agent
	item  string
}

// tables are a spec compiled for the hot path: agents and edges by index,
// precomputed names, the parsers' views.
type tables struct {
	agents   []Agent
	entry    int
	collect  []bool
	consumes []bool  // has incoming edges
	out      [][]int // per agent, indexes of its out edges in declared order
	in       [][]int // per agent, indexes of its in edges
	edges    []EdgeSpec
	from, to []int // per edge, the agent indexes of its ends
	// names[i][j] is "agents[i]->agents[j]", redeliver[i][j] the dice kind
	// of its redeliveries.
	names, redeliver [][]string
	views            map[string][]Field // per message kind, the fields a consumer reads
	wire             [][]string         // per edge, its kind's view's field names sorted
	keyOrder         map[string][]int   // per message kind, its view's indexes in key order
	keys             *jsontext.Keys     // every field name, shared by the decoder
	edgeNames        *jsontext.Keys     // every edge name, shared by the edge reader
	slipKinds        map[Slip]string    // "slip:" + slip
	itemField        string
	box              []int // per agent, its slot among the collecting agents (-1: none)
	collectors       int
	// Envelope values boxed once, so that filling an envelope boxes only
	// what varies per message: per edge its name, kind and receiver, and
	// the schema version.
	nameAny, kindAny, toAny []any
	versionAny              any
}

func compile(d Definition) *tables {
	s := d.Spec
	t := &tables{agents: s.AgentNames(), views: map[string][]Field{}, slipKinds: map[Slip]string{Misroute: "slip:" + string(Misroute)}, itemField: s.ItemField}
	n := len(t.agents)
	t.entry = slices.Index(t.agents, s.Entry)
	t.collect, t.consumes = make([]bool, n), make([]bool, n)
	t.out, t.in = make([][]int, n), make([][]int, n)
	t.box = make([]int, n)
	for i, a := range s.Agents {
		t.collect[i] = a.Collect
		t.box[i] = -1
		if a.Collect {
			t.box[i] = t.collectors
			t.collectors++
		}
		for _, sl := range a.Slips {
			t.slipKinds[sl] = "slip:" + string(sl)
		}
	}
	t.names, t.redeliver = make([][]string, n), make([][]string, n)
	var edgeNames []string
	for i := range t.agents {
		t.names[i], t.redeliver[i] = make([]string, n), make([]string, n)
		for j := range t.agents {
			t.names[i][j] = string(t.agents[i]) + "->" + string(t.agents[j])
			t.redeliver[i][j] = "redeliver:" + t.names[i][j]
		}
	}
	t.edges = slices.Clone(s.Edges)
	for k, e := range t.edges {
		f, to := slices.Index(t.agents, e.From), slices.Index(t.agents, e.To)
		t.from, t.to = append(t.from, f), append(t.to, to)
		t.out[f] = append(t.out[f], k)
		t.in[to] = append(t.in[to], k)
		t.consumes[to] = true
		edgeNames = append(edgeNames, t.names[f][to])
		t.nameAny, t.kindAny = append(t.nameAny, t.names[f][to]), append(t.kindAny, e.Kind)
		t.toAny = append(t.toAny, string(e.To))
	}
	t.versionAny = s.SchemaVersion
	names := slices.Clone(EnvelopeFields)
	var add func(fs []Field)
	add = func(fs []Field) {
		for _, f := range fs {
			names = append(names, f.Name)
			add(f.Fields)
		}
	}
	for _, m := range s.Messages {
		t.views[m.Kind] = m.Fields
		add(m.Fields)
	}
	t.orderViews()
	t.keys = jsontext.NewKeys(names...)
	t.edgeNames = jsontext.NewKeys(edgeNames...)
	return t
}

// agent returns a's index, -1 for an agent the mission does not have.
func (t *tables) agent(a Agent) int {
	for i, x := range t.agents {
		if x == a {
			return i
		}
	}
	return -1
}

// edge returns e's index, -1 for an edge the mission does not have.
func (t *tables) edge(e Edge) int {
	for k := range t.edges {
		if t.edges[k].From == e.From && t.edges[k].To == e.To {
			return k
		}
	}
	return -1
}

// name returns "from->to" without allocating for the mission's agents.
func (t *tables) name(e Edge) string {
	i, j := t.agent(e.From), t.agent(e.To)
	if i < 0 || j < 0 {
		return e.String()
	}
	return t.names[i][j]
}

func (t *tables) redeliverKind(e Edge) string {
	i, j := t.agent(e.From), t.agent(e.To)
	if i < 0 || j < 0 {
		return "redeliver:" + e.String()
	}
	return t.redeliver[i][j]
}

func (t *tables) slipKind(s Slip) string {
	if k, ok := t.slipKinds[s]; ok {
		return k
	}
	return "slip:" + string(s)
}

func (e *engine) agentSpec(a Agent) *AgentSpec {
	as, _ := e.spec.Agent(a)
	return as
}

// Spec returns the mission's spec.
func (e *engine) Spec() *Spec { return e.spec }

// Check runs the definition's end-state check.
func (e *engine) Check(sc *Scenario, end *sandbox.State) []sandbox.Difference {
	return e.def.Check(sc, end)
}

// Scenarios returns the default suite.
func (e *engine) Scenarios() ([]*Scenario, string, error) { return e.def.Scenarios() }

// LoadScenarios reads scenario files with the definition's parser.
func (e *engine) LoadScenarios(paths ...string) ([]*Scenario, error) {
	files, err := ReadScenarioFiles(paths...)
	if err != nil {
		return nil, fmt.Errorf("load scenarios: %w", err)
	}
	all, err := ParseScenarioFiles(files, e.def.ParseScenarios)
	if err != nil {
		return nil, fmt.Errorf("load scenarios: %w", err)
	}
	return all, nil
}

// Run executes the whole mission for one scenario and seed in a fresh
// sandbox, and records what fired into the build's oracle.
func (e *engine) Run(ctx context.Context, b Build, sc *Scenario, seed uint64, env Env) (*Run, error) {
	if env.Single != nil {
		return e.runSingle(ctx, b, sc, seed, env) // single.go
	}
	r := e.newRunner(ctx, b.hooks(), sc, &sc.Initial, seed, env)
	r.decoded = &e.decoded
	r.runDay()
	if r.err != nil {
		r.discard()
		return nil, fmt.Errorf("run %s: %w", sc.ID, r.err)
	}
	r.finish(b.oracle)
	r.release()
	end := r.sb.Snapshot()
	r.sb.Recycle()
	r.sb = nil
	return &Run{Trace: &r.trace, End: end, Cost: r.cost}, nil
}

// RunCore runs one agent alone on in, with its neighbours mocked (see
// [Mission.RunCore]): the build's parser, the core, the build's emitter.
// The entry agent takes its turn on the input in.Item, then one per
// message; a collecting agent one turn over every message, the day as its
// item; any other agent one turn per message.
func (e *engine) RunCore(ctx context.Context, b Build, agent Agent, sc *Scenario, in CoreInput, seed uint64, env Env) (*CoreRun, error) {
	ai := e.t.agent(agent)
	if ai < 0 {
		return nil, fmt.Errorf("run core %s: the mission has no agent %q", sc.ID, agent)
	}
	fixture := e.fixture(sc, agent, in.Item)
	r := e.newRunnerCap(ctx, b.hooks(), sc, fixture, seed, env, 14+3*len(in.Messages))
	r.cost.EnvironmentResets, r.cost.FixtureResets = 0, 1
	r.alone = true
	r.readings = &e.readings
	r.decoded = &e.decoded
	item, res := r.runAlone(ai, in)
	if r.err != nil {
		r.discard()
		return nil, fmt.Errorf("run core %s %s: %w", sc.ID, agent, r.err)
	}
	r.finish(b.oracle)
	r.release()
	r.sb.Recycle()
	r.sb = nil
	return &CoreRun{Agent: agent, Item: item, Calls: r.aloneCalls, Result: res, Emitted: r.emitted, Trace: &r.trace, Cost: r.cost}, nil
}

// runAlone plays agent ai's turns on in and returns the item and the
// turns' results merged ([mergeResults]), as a golden records them.
func (r *runner) runAlone(ai int, in CoreInput) (string, Result) {
	item := in.Item
	var res Result
	agent := r.t.agents[ai]
	if r.t.collect[ai] {
		item = r.day
		// The turn's wire bytes are the input's, unless a message is
		// unreadable: then those of the readable ones.
		ti := turnInput{msgs: make([]*Handoff, 0, len(in.Messages)), raws: in.Messages}
		dropped := false
		for i, raw := range in.Messages {
			h, ok := r.receive(agent, raw)
			if !ok {
				if !dropped {
					ti.raws, dropped = slices.Clone(in.Messages[:i]), true
				}
				continue
			}
			ti.msgs = append(ti.msgs, h)
			if dropped {
				ti.raws = append(ti.raws, raw)
			}
			ti.read += len(raw)
		}
		return item, r.turn(ai, r.day, ti)
	}
	if ai == r.t.entry {
		input, ok := r.sc.Input(in.Item)
		if !ok {
			return item, Result{"error": "no input " + in.Item}
		}
		res = r.turn(ai, input.ID, turnInput{input: input})
	}
	for _, raw := range in.Messages {
		if r.err != nil {
			break
		}
		h, ok := r.receive(agent, raw)
		if !ok {
			continue
		}
		if item == "" {
			item = h.Item
		}
		res = mergeResults(res, r.turn(ai, h.Item, turnInput{raw: raw, msg: h, read: len(raw)}))
	}
	return item, res
}

// fixture returns the state a core alone starts from: the scenario's initial
// state plus what the clean mission (the mission's own cores, zero slips
// and faults) wrote before agent's turn on item. It is computed once per
// scenario, agent and item; sandbox.New copies it.
func (e *engine) fixture(sc *Scenario, agent Agent, item string) *sandbox.State {
	k := fixtureKey{sc: sc, agent: agent, item: item}
	e.fixMu.RLock()
	st, ok := e.fixtures[k]
	e.fixMu.RUnlock()
	if ok {
		return st
	}
	r := e.newRunner(context.Background(), NoSeams{}, sc, &sc.Initial, 0, Env{})
	r.stop = &stopPoint{agent: agent, item: item}
	r.runDay()
	st = r.sb.Snapshot()
	st.Log = nil
	e.fixMu.Lock()
	defer e.fixMu.Unlock()
	if first, ok := e.fixtures[k]; ok {
		return first // another goroutine's, computed alike
	}
	if e.fixtures == nil {
		e.fixtures = make(map[fixtureKey]*sandbox.State)
	}
	e.fixtures[k] = st
	return st
}

// Emit runs the producing agent's emitter alone on a core result for item.
func (e *engine) Emit(b Build, edge Edge, item string, result Result) ([]byte, error) {
	k := e.t.edge(edge)
	if k < 0 {
		return nil, fmt.Errorf("emit %s: no such edge", edge)
	}
	r := &runner{e: e, t: e.t, seams: b.hooks(), enc: jsontext.GetEncoder()}
	out, err := r.emit(k, item, result, 1)
	r.release()
	if err != nil {
		return nil, err
	}
	return out.raw, nil
}

// Parse runs the consuming agent's parser alone on wire bytes received on
// edge. Missing dates default from sandbox.Epoch's day.
func (e *engine) Parse(b Build, edge Edge, raw []byte) (*Handoff, error) {
	if e.t.edge(edge) < 0 {
		return nil, fmt.Errorf("parse %s: no such edge", edge)
	}
	_, day := dayStart(nil)
	d := e.decoded.decode(raw, e.t)
	return e.t.parseDecoded(edge.To, edge, d.msg, d.err, b.hooks(), day)
}
