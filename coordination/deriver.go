package coordination

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/baton-lab/baton/mission"
)

// Deriver derives records as [Derive] does, remembering across
// derivations what depends only on a message's bytes or on the mission: the
// fields of each distinct hand-off (its wire bytes and its consumer's
// parsed view), what a collecting agent reads from each and the values of
// its results, and the mission's agents, capabilities and required edges
// (for the last mission's spec, which must not change once derived from).
// A sweep derives one record per observation run, and the same messages
// recur from trial to trial and build to build. What it remembers is keyed
// by the exact bytes, so it cannot change a record; each of its three
// memos holds at most 512 KiB of message bytes, forgetting everything when
// full (a sweep's units come build by build, scenario by scenario, so what
// recurs is recent: on a mission's default protocol 96% of look-ups find
// their message with a quarter of that, 98% with twice it).
//
// A Deriver is safe for concurrent use. The records it derives share their
// lists of capabilities, requirements and hand-off fields: a caller that
// changes one of those in place copies it first.
type Deriver struct {
	m     memos
	setup atomic.Pointer[setup]
}

// memos are what a Deriver remembers of messages' bytes; nil memos
// remember nothing.
type memos struct {
	fields    *memo[[]string]  // hand-off bytes -> their fields
	collected *memo[collected] // parsed hand-off -> what a collecting agent reads
	leaves    *memo[[]any]     // a collecting agent's result -> its scalar values
}

// memos returns dv's memos; none for a nil dv.
func (dv *Deriver) memos() memos {
	if dv == nil {
		return memos{}
	}
	return dv.m
}

// NewDeriver returns a Deriver that remembers nothing yet. A nil
// *Deriver derives as [Derive] does, remembering nothing.
func NewDeriver() *Deriver {
	return &Deriver{m: memos{fields: &memo[[]string]{}, collected: &memo[collected]{}, leaves: &memo[[]any]{}}}
}

// Derive derives the record of one integrated run, as [Derive] does.
func (dv *Deriver) Derive(src Source) (*Record, error) { return derive(src, dv) }

// setupOf returns the set-up of m's derivations: dv's last one if it was
// made for the same spec and irreversible tools, else a new one (which dv
// keeps). A nil dv keeps nothing.
func (dv *Deriver) setupOf(m mission.Mission) *setup {
	spec := m.Spec()
	var irrev []string
	ir, isIrrev := m.(Irreversible)
	if isIrrev {
		irrev = ir.IrreversibleTools()
	}
	if dv != nil {
		if s := dv.setup.Load(); s != nil && s.spec == spec && s.isIrrev == isIrrev && slices.Equal(s.irrevList, irrev) {
			return s
		}
	}
	s := newSetup(spec, irrev, isIrrev)
	if dv != nil {
		dv.setup.Store(s)
	}
	return s
}

// setup is what every derivation of one mission starts from. It is not
// changed once made.
type setup struct {
	spec      *mission.Spec
	irrevList []string
	isIrrev   bool
	irrev     map[string]bool // nil: every write tool
	agents    []Agent         // the mission's, in flow order, with their capabilities
	caps      map[string][]string
	collect   map[mission.Agent]bool // the collecting agents
	// edges are those reached from the entry by unconditional edges: each
	// input's required hand-offs.
	edges     []mission.Edge
	edgeNames []string                  // each of edges as "from->to"
	requires  map[mission.Edge][]string // per edge of the mission, what its subtasks require
}

func newSetup(spec *mission.Spec, irrev []string, isIrrev bool) *setup {
	s := &setup{spec: spec, irrevList: irrev, isIrrev: isIrrev, caps: map[string][]string{},
		collect: map[mission.Agent]bool{}, requires: map[mission.Edge][]string{}}
	if isIrrev {
		s.irrev = map[string]bool{}
		for _, t := range irrev {
			s.irrev[t] = true
		}
	}
	for _, a := range spec.AgentNames() {
		caps := slices.Clone(spec.AgentTools(a))
		if a == spec.Entry {
			caps = append(caps, "input")
		}
		for _, e := range spec.In(a) {
			if c := "reads:" + spec.Kind(e); !slices.Contains(caps, c) {
				caps = append(caps, c)
			}
		}
		if caps == nil {
			caps = []string{}
		}
		caps = slices.Clip(caps)
		s.caps[string(a)] = caps
		s.agents = append(s.agents, Agent{ID: string(a), Capabilities: caps})
	}
	for i := range spec.Agents {
		if _, seen := s.collect[spec.Agents[i].Name]; !seen { // the first of a name, as Spec.Agent finds
			s.collect[spec.Agents[i].Name] = spec.Agents[i].Collect
		}
	}
	for _, e := range spec.EdgeList() {
		s.requires[e] = requiredOf(spec, e)
	}
	reached := []mission.Agent{spec.Entry}
	for i := 0; i < len(reached); i++ {
		for _, e := range spec.Out(reached[i]) {
			if es, _ := spec.Edge(e); es.Source != "" || slices.Contains(s.edges, e) {
				continue
			}
			s.edges, s.edgeNames = append(s.edges, e), append(s.edgeNames, e.String())
			if !slices.Contains(reached, e.To) {
				reached = append(reached, e.To)
			}
		}
	}
	return s
}

// requiredOf returns the capabilities the subtask on edge e needs: those
// of its consumer the mission gives for it.
func requiredOf(spec *mission.Spec, e mission.Edge) []string {
	return slices.Clip(append(slices.Clip(spec.AgentTools(e.To)), "reads:"+spec.Kind(e)))
}

// memoBytes bounds the message bytes one memo holds. What a memo holds
// stays live for the whole sweep, whose collector lets the heap grow to
// nine times what is live (DefaultGCPercent in experiment): keep it small.
const memoBytes = 512 << 10

// memo remembers a pure function of a message's bytes for each distinct
// message, up to memoBytes of them; safe for concurrent use. Its zero
// value is empty and ready.
type memo[V any] struct {
	mu   sync.RWMutex
	m    map[string]V
	held int // bytes of the keys in m
}

// remember returns f(key): the value c keeps for key, else f's, which c
// then keeps. A nil c keeps nothing.
func remember[V any, K string | []byte](c *memo[V], key K, f func(K) V) V {
	if c == nil {
		return f(key)
	}
	c.mu.RLock()
	v, ok := c.m[string(key)]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = f(key)
	c.keep(string(key), v)
	return v
}

// keep remembers v for key, forgetting everything first when the memo is
// full.
func (c *memo[V]) keep(key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; ok {
		return
	}
	if c.m == nil || c.held+len(key) > memoBytes {
		c.m, c.held = map[string]V{}, 0
	}
	c.m[key] = v
	c.held += len(key)
}
