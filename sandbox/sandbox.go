package sandbox

import (
	"maps"
	"slices"
	"time"
)

// DefaultLatency is the virtual time a call takes when Config.Latency is zero.
const DefaultLatency = 20 * time.Millisecond

// Config sets a sandbox's fault rates and latency.
type Config struct {
	Faults FaultRates
	// Latency is the virtual time every call takes; a Latency fault adds a
	// multiple of it. Zero means 20ms.
	Latency time.Duration
}

// Sandbox is one run's system of record. It is not safe for concurrent use:
// each run owns its own.
type Sandbox struct {
	reg     *Registry
	st      State // records in insertion order, and the log
	dice    Dice
	clock   *Clock
	latency time.Duration
	rates   [][numDrawn]float64 // per tool
	pre     []drawPrefixes      // per tool: its fault draws' key prefixes (made at the first draw)
	preSeed uint64              // the seed of the dice pre was drawn with
	idem    []map[string]Result // per write tool: key -> first result
	next    []int               // last id number issued per record kind
	fired   []Fired
	memo    []any // per tool: its handler's memo, kept through recycling (see Tx.Memo); made at the first
	tx      Tx
	seenFn  func(kind int, id string) // s.seen, bound once
	free    bool                      // recycled: in the pool, not to be recycled again
	// seedPre is the registry's table of the prefixes of the dice's seed
	// (see [Registry.prefixesOf]), taken at the first draw.
	seedPre *seedPrefixes
}

// New returns a sandbox over reg holding a deep copy of initial, injecting
// faults by cfg with draws from dice, and advancing clock on every call. A
// nil initial (or one without records) is an empty system of record; a
// nil clock starts at [Epoch].
func New(reg *Registry, initial *State, cfg Config, dice Dice, clock *Clock) *Sandbox {
	s, _ := reg.pool.Get().(*Sandbox)
	if s == nil {
		s = newSandbox(reg)
	}
	s.reset(initial, cfg, dice, clock)
	return s
}

// newSandbox returns an empty sandbox over reg, for reset.
func newSandbox(reg *Registry) *Sandbox {
	s := &Sandbox{reg: reg, st: State{Records: reg.newRecords()}}
	s.rates = make([][numDrawn]float64, len(reg.tools))
	s.idem = make([]map[string]Result, len(reg.tools))
	s.next = make([]int, len(reg.kinds))
	s.seenFn = s.seen
	return s
}

// reset makes s, new or emptied by empty, what New returns.
func (s *Sandbox) reset(initial *State, cfg Config, dice Dice, clock *Clock) {
	if clock == nil {
		clock = NewClock(Epoch)
	}
	s.dice, s.clock, s.latency, s.free = dice, clock, cfg.Latency, false
	s.reg.compileRates(s.rates, cfg.Faults)
	if seed := dice.Seed(); seed != s.preSeed {
		clear(s.pre) // the prefixes start from the seed: a run of the same trial keeps them
		s.preSeed, s.seedPre = seed, nil
	}
	if s.latency <= 0 {
		s.latency = DefaultLatency
	}
	if initial != nil {
		if initial.Records != nil {
			s.st.Records.CopyFrom(initial.Records)
		}
		s.st.Log = cloneInto(s.st.Log, initial.Log)
	}
	s.tx = Tx{Records: s.st.Records, s: s}
	s.initCounters()
}

// Recycle gives s to later calls of New over the same registry. Call it
// only when s is no longer used: what s returned (results, snapshots, the
// faults it fired) stays valid. Recycling a nil sandbox, or one already
// recycled, does nothing.
func (s *Sandbox) Recycle() {
	if s == nil || s.free {
		return
	}
	s.free = true
	s.empty()
	s.reg.pool.Put(s)
}

// empty drops everything a run left in s: its records, log, idempotency
// keys, id counters, faults, dice and clock. The handlers' memos stay: a
// handler checks its memo against the records (see [Tx.Memo]).
func (s *Sandbox) empty() {
	s.st.Records.Reset()
	s.st.Log = Emptied(s.st.Log)
	for _, m := range s.idem {
		clear(m)
	}
	clear(s.next)
	s.fired = nil // the oracle may hold it
	s.dice, s.clock = Dice{}, nil
}

// Call runs tool for agent on behalf of item (the input the work is for).
// key is the idempotency key of a write ("" means none: the write is
// applied every time); attempt counts retries of the same logical call
// from 0, and keys the fault draws. A repeated key returns the first
// result and changes nothing. Errors are *Error.
//
// A call first advances the clock by the configured latency. A tool the
// agent may not call is refused with ErrForbidden (code AUTH-403) and
// logged as a violation before any fault is drawn. Then faults are drawn
// in the order timeout before commit, refusal, unavailable, rate limit,
// latency; then a write whose key was seen replays its first result; then
// the arguments are checked against the tool's schema (VAL-422) and the
// handler runs; then, for a write that took effect, timeout after commit.
// Idempotency keys are scoped per tool. Callers must not modify the Result.
func (s *Sandbox) Call(agent, tool, item string, args Args, key string, attempt int) (Result, error) {
	t, known := s.reg.byName[tool]
	if !known {
		t = -1
	}
	return s.CallTool(t, agent, tool, item, args, key, attempt)
}

// CallTool is [Sandbox.Call] of the tool at index t of the registry (from
// [Registry.Index]; -1, or any index of another tool than the one named,
// for a tool the registry does not have).
func (s *Sandbox) CallTool(t int, agent, tool, item string, args Args, key string, attempt int) (Result, error) {
	s.clock.Advance(s.latency)
	if t < 0 || t >= len(s.reg.tools) || s.reg.tools[t].Name != tool || !slices.Contains(s.reg.tools[t].Agents, agent) {
		s.log(agent, tool, item, key, OutcomeForbidden, CodeForbidden, "")
		return nil, &Error{Kind: ErrForbidden, Code: CodeForbidden, Message: "agent " + agent + " may not call " + tool}
	}
	if e := s.inject(t, agent, item, attempt); e != nil {
		s.log(agent, tool, item, key, OutcomeError, e.Code, "")
		return nil, e
	}
	tl := &s.reg.tools[t]
	write := tl.Access == Write
	if write && key != "" {
		if first, ok := s.idem[t][key]; ok {
			effect, _ := first[tl.ResultID].(string)
			if e := s.timeoutAfter(t, agent, item, attempt); e != nil {
				s.log(agent, tool, item, key, OutcomeError, e.Code, effect)
				return nil, e
			}
			s.log(agent, tool, item, key, OutcomeReplayed, "", effect)
			return maps.Clone(first), nil
		}
	}
	res, effect, e := s.apply(t, item, args)
	if e != nil {
		s.log(agent, tool, item, key, OutcomeError, e.Code, "")
		return nil, e
	}
	if write {
		if key != "" {
			if s.idem[t] == nil {
				s.idem[t] = make(map[string]Result, 8)
			}
			s.idem[t][key] = res
		}
		if e := s.timeoutAfter(t, agent, item, attempt); e != nil {
			s.log(agent, tool, item, key, OutcomeError, e.Code, effect)
			return nil, e
		}
	}
	s.log(agent, tool, item, key, OutcomeOK, "", effect)
	return res, nil
}

// apply checks the arguments and runs the tool's handler once.
func (s *Sandbox) apply(t int, item string, args Args) (Result, string, *Error) {
	tl := &s.reg.tools[t]
	if e := tl.Args.Check(args); e != nil {
		return nil, "", e
	}
	s.tx.Item, s.tx.kind, s.tx.tool = item, s.reg.kindOf[t], t
	return tl.Handler(&s.tx, args)
}

func (s *Sandbox) log(agent, tool, item, key, outcome, code, effect string) {
	if s.st.Log == nil {
		s.st.Log = make([]LogEntry, 0, 16) // a core run alone makes a handful of calls; a day, a few dozen
	}
	s.st.Log = append(s.st.Log, LogEntry{
		Seq: len(s.st.Log) + 1, At: s.clock.Elapsed(), Agent: agent, Tool: tool, Item: item,
		Key: key, Outcome: outcome, Code: code, Effect: effect,
	})
}

// Snapshot returns a deep copy of the state, records sorted by id and the
// log by sequence.
func (s *Sandbox) Snapshot() *State {
	out := &State{Records: s.reg.newRecords()}
	out.Records.CopyFrom(s.st.Records)
	out.Log = cloneInto(out.Log, s.st.Log)
	out.Sort()
	return out
}

// Fired returns the faults injected so far (the oracle), in the order they
// fired. The slice is shared with the sandbox: read it, do not modify it.
func (s *Sandbox) Fired() []Fired { return slices.Clip(s.fired) }

// Clock returns the virtual clock the sandbox advances.
func (s *Sandbox) Clock() *Clock { return s.clock }

// Calls returns how many tool calls the sandbox has answered.
func (s *Sandbox) Calls() int { return len(s.st.Log) }

// Records returns the sandbox's live records, for a test or a fixture to
// read; a caller must not keep them past the sandbox's next call.
func (s *Sandbox) Records() Records { return s.st.Records }
