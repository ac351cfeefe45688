package sandbox

import (
	"maps"
	"slices"
	"sync"
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
	st      State // records in insertion order, and the log
	dice    Dice
	clock   *Clock
	latency time.Duration
	rates   [numTools][numDrawn]float64
	idem    [numTools]map[string]Result // per write tool: key -> first result
	next    [numKinds]int               // last id number issued per record kind
	fired   []Fired
	free    bool // recycled: in the pool, not to be recycled again
}

// New returns a sandbox holding a deep copy of initial, injecting faults by
// cfg with draws from dice, and advancing clock on every call. A nil initial
// is an empty system of record; a nil clock starts at [Epoch].
func New(initial *State, cfg Config, dice Dice, clock *Clock) *Sandbox {
	if clock == nil {
		clock = NewClock(Epoch)
	}
	s, _ := recycled.Get().(*Sandbox)
	if s == nil {
		s = new(Sandbox)
	}
	s.dice, s.clock, s.latency, s.rates, s.free = dice, clock, cfg.Latency, compileRates(cfg.Faults), false
	if s.latency <= 0 {
		s.latency = DefaultLatency
	}
	if initial != nil {
		copyState(&s.st, initial)
	}
	s.initCounters()
	return s
}

// recycled holds sandboxes given back with Recycle for New to reuse: a
// sweep makes hundreds of thousands, and their records and logs were a
// sixth of everything it allocated.
var recycled sync.Pool // of *Sandbox, empty

// Recycle gives s to later calls of New. Call it only when s is no longer
// used: what s returned (results, snapshots, the faults it fired) stays
// valid. Recycling a nil sandbox, or one already recycled, does nothing.
func (s *Sandbox) Recycle() {
	if s == nil || s.free {
		return
	}
	s.free = true
	s.st.empty()
	for _, m := range s.idem {
		clear(m)
	}
	s.next = [numKinds]int{}
	s.fired = nil // the oracle may hold it
	s.dice, s.clock = Dice{}, nil
	recycled.Put(s)
}

// Call runs tool for agent on behalf of item (the email id the work is for).
// key is the idempotency key of a write ("" means none: the write is applied
// every time); attempt counts retries of the same logical call from 0, and
// keys the fault draws. A repeated key returns the first result and changes
// nothing. Errors are *Error.
//
// A call first advances the clock by the configured latency. A tool the
// agent may not call is refused with ErrForbidden (code AUTH-403) and logged
// as a violation before any fault is drawn. Then faults are drawn in the
// order timeout before commit, refusal, unavailable, rate limit, latency;
// then the call takes effect (or replays its key); then, for a write that
// took effect, timeout after commit. Idempotency keys are scoped per tool.
// Callers must not modify the Result.
func (s *Sandbox) Call(agent, tool, item string, args Args, key string, attempt int) (Result, error) {
	s.clock.Advance(s.latency)
	t, known := toolIndex(tool)
	if !known || !Permitted(agent, tool) {
		s.log(agent, tool, item, key, OutcomeForbidden, CodeForbidden, "")
		return nil, &Error{Kind: ErrForbidden, Code: CodeForbidden, Message: "agent " + agent + " may not call " + tool}
	}
	if e := s.inject(t, agent, item, attempt); e != nil {
		s.log(agent, tool, item, key, OutcomeError, e.Code, "")
		return nil, e
	}
	write := writeRecords[t] != ""
	if write && key != "" {
		if first, ok := s.idem[t][key]; ok {
			effect, _ := first[resultKeys[t]].(string)
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

func (s *Sandbox) log(agent, tool, item, key, outcome, code, effect string) {
	if s.st.Log == nil {
		s.st.Log = make([]LogEntry, 0, 16) // a core run alone makes a handful of calls; a day, a few dozen
	}
	s.st.Log = append(s.st.Log, LogEntry{
		Seq: len(s.st.Log) + 1, At: s.clock.Elapsed(), Agent: agent, Tool: tool, Item: item,
		Key: key, Outcome: outcome, Code: code, Effect: effect,
	})
}

// Snapshot returns a deep copy of the state, every slice sorted by id.
func (s *Sandbox) Snapshot() *State {
	out := new(State)
	copyState(out, &s.st)
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
