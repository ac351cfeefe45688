package mission

import (
	"reflect"

	"github.com/baton-lab/baton/sandbox"
)

// Hook names one method of [Seams].
type Hook int

// The hooks of [Seams], in its order.
const (
	HookDecide Hook = iota
	HookToolArgs
	HookRetryKey
	HookEmit
	HookParse
	HookRoute
	HookDedup
)

// AllHooks lists every hook.
var AllHooks = []Hook{HookDecide, HookToolArgs, HookRetryKey, HookEmit, HookParse, HookRoute, HookDedup}

var hookNames = [...]string{"Decide", "ToolArgs", "RetryKey", "Emit", "Parse", "Route", "Dedup"}

func (h Hook) String() string {
	if h < 0 || int(h) >= len(hookNames) {
		return "Hook(?)"
	}
	return hookNames[h]
}

// Place is where a seam may act: a hook called for an agent (Decide,
// ToolArgs, RetryKey) or on an edge (Emit, Parse, Route, Dedup).
type Place struct {
	Hook  Hook
	Agent Agent // the agent hooks' agent; "" for the edge hooks
	Edge  Edge  // the edge hooks' edge; zero for the agent hooks
}

// Placed is implemented by seams that act only at the places they list:
// at any other call they return the clean output, leave their arguments
// alone and do not call [Oracle.Reach]. A [Probe] asks a placed seam only
// at its places, any other seam at every call.
type Placed interface {
	Places() []Place
}

// Probe learns which of a set of candidate builds could make a clean run
// differ. [Probe.Build] is the clean build with every seam call observed:
// before the clean hook answers, each candidate not yet covering is asked
// the same call on a copy of the arguments, and it covers from then on if
// its answer differs from the clean one or it calls Reach on its oracle.
//
// Why this is exact: a run is a deterministic function of its scenario,
// seed, environment and inputs, and of what its seam calls return (the
// engine reads a build through its seams alone, see [Build]). If, at every
// call a clean run made, a candidate's seams would have given the clean
// output and reached nothing, the candidate's run makes the same calls
// with the same arguments, in the same order, and so is the clean run, call
// for call, with nothing recorded in its oracle. A probe sees every call
// only if it observes every run of the unit: the runs the experiment
// serves from a shared run are observed when that run executes.
//
// A probe is used by one goroutine at a time; its candidates' seams must
// follow the rules of [Seams] (no per-run state), and each candidate build
// must carry its own oracle, which the probe alone uses.
type Probe struct {
	cands    []probeCand
	covered  []bool
	left     int
	at       map[Place][]int
	anywhere []int
}

type probeCand struct {
	seams  Seams
	oracle *Oracle
	always bool // covers from the start: it has no oracle to show a reach
}

// NewProbe returns a probe of the candidate builds, each switched on with
// an oracle of its own. A candidate without an oracle cannot show that it
// reached its target: it covers from the start.
func NewProbe(candidates []Build) *Probe {
	p := &Probe{at: map[Place][]int{}, covered: make([]bool, len(candidates))}
	for i, b := range candidates {
		p.cands = append(p.cands, probeCand{seams: b.hooks(), oracle: b.oracle})
		if b.seams == nil {
			continue // the clean mission: nothing can differ
		}
		if b.oracle == nil {
			p.cands[i].always = true
			continue
		}
		if pl, ok := b.seams.(Placed); ok {
			for _, at := range pl.Places() {
				p.at[at] = append(p.at[at], i)
			}
			continue
		}
		p.anywhere = append(p.anywhere, i)
	}
	p.Reset()
	return p
}

// Reset forgets what the probe learnt, for the next unit.
func (p *Probe) Reset() {
	p.left = 0
	for i, c := range p.cands {
		p.covered[i] = c.always
		if !c.always {
			p.left++
		}
	}
}

// Covers reports whether candidate i could have changed a run observed
// since the last Reset.
func (p *Probe) Covers(i int) bool { return p.covered[i] }

// Build returns the clean build, recording into oracle, with the probe
// observing its seam calls.
func (p *Probe) Build(oracle *Oracle) Build {
	return Build{seams: probeSeams{p}, oracle: oracle}
}

// ask asks every candidate placed at at, and every unplaced one, whether
// it acts there: differs reports whether the candidate's answer differs
// from the clean one.
func (p *Probe) ask(at Place, differs func(Seams) bool) {
	if p.left == 0 {
		return
	}
	for _, list := range [2][]int{p.at[at], p.anywhere} {
		for _, i := range list {
			if p.covered[i] {
				continue
			}
			c := &p.cands[i]
			before := c.oracle.reached()
			if askOne(c.seams, differs) || c.oracle.reached() != before {
				p.covered[i] = true
				p.left--
			}
		}
	}
}

// askOne asks one candidate; a candidate that panics on a call would make
// its run fail where the clean one does not: it differs.
func askOne(c Seams, differs func(Seams) bool) (d bool) {
	defer func() {
		if recover() != nil {
			d = true
		}
	}()
	return differs(c)
}

func (o *Oracle) reached() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.Reached
}

// probeSeams are the clean seams, observed by a probe.
type probeSeams struct{ p *Probe }

var _ Seams = probeSeams{}

func (s probeSeams) Decide(agent Agent, kind, item, choice string) string {
	s.p.ask(Place{Hook: HookDecide, Agent: agent}, func(c Seams) bool {
		return c.Decide(agent, kind, item, choice) != choice
	})
	return choice
}

func (s probeSeams) ToolArgs(agent Agent, tool, item string, args sandbox.Args) {
	o := objectCopy{obj: args}
	s.p.ask(Place{Hook: HookToolArgs, Agent: agent}, func(c Seams) bool {
		return o.changedBy(func(cp map[string]any) { c.ToolArgs(agent, tool, item, cp) })
	})
}

func (s probeSeams) RetryKey(agent Agent, tool, item, key string, attempt int) string {
	s.p.ask(Place{Hook: HookRetryKey, Agent: agent}, func(c Seams) bool {
		return c.RetryKey(agent, tool, item, key, attempt) != key
	})
	return key
}

func (s probeSeams) Emit(e Edge, msg *Message) {
	s.p.ask(Place{Hook: HookEmit, Edge: e}, func(c Seams) bool {
		return changesMessage(msg, func(cp *Message) { c.Emit(e, cp) })
	})
}

func (s probeSeams) Parse(e Edge, msg *Message) {
	s.p.ask(Place{Hook: HookParse, Edge: e}, func(c Seams) bool {
		return changesMessage(msg, func(cp *Message) { c.Parse(e, cp) })
	})
}

// changesMessage reports whether hook changes msg: it acts on a
// copy-on-write copy, which shares msg's fields until the hook changes
// one, and is compared with msg after.
func changesMessage(msg *Message, hook func(*Message)) bool {
	cp := msg.Clone()
	hook(cp)
	return !cp.Equal(msg)
}

func (s probeSeams) Route(e Edge, owners []Agent) []Agent {
	s.p.ask(Place{Hook: HookRoute, Edge: e}, func(c Seams) bool {
		got := c.Route(e, append([]Agent(nil), owners...))
		return !equalAgents(got, owners)
	})
	return owners
}

func (s probeSeams) Dedup(e Edge) bool {
	s.p.ask(Place{Hook: HookDedup, Edge: e}, func(c Seams) bool { return !c.Dedup(e) })
	return true
}

func equalAgents(a, b []Agent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// objectCopy is how a probe asks seams about one tool call's arguments:
// each seam acts on a deep copy, compared with the original after. A copy
// a seam left equal serves the next seam; a nil object is handed on as
// nil. (A message needs no deep copy: see changesMessage.)
type objectCopy struct {
	obj, cp map[string]any
}

// changedBy reports whether hook changes the object.
func (o *objectCopy) changedBy(hook func(map[string]any)) bool {
	if o.obj == nil {
		hook(nil)
		return false
	}
	cp := o.cp
	o.cp = nil // a hook that panics leaves no copy behind
	if cp == nil {
		cp = cloneObject(o.obj)
	}
	hook(cp)
	if !equalObject(cp, o.obj) {
		return true
	}
	o.cp = cp
	return false
}

func equalObject(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb, ok := b[k]
		if !ok || !equalValue(va, vb) {
			return false
		}
	}
	return true
}

// equalValue is reflect.DeepEqual, quicker on what messages hold.
func equalValue(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	case *Message:
		y, ok := b.(*Message)
		return ok && x.Equal(y)
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && (x == nil) == (y == nil) && equalObject(x, y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !equalValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func cloneObject(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

// cloneValue copies what a seam could change in place: objects, arrays
// and slices of any other type.
func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return cloneObject(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	case nil, string, bool, float64, int, int64:
		return v
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice:
		if rv.IsNil() {
			return v
		}
		cp := reflect.MakeSlice(rv.Type(), rv.Len(), rv.Len())
		for i := range rv.Len() {
			e := reflect.ValueOf(cloneValue(rv.Index(i).Interface()))
			if !e.IsValid() {
				continue
			}
			cp.Index(i).Set(e)
		}
		return cp.Interface()
	case reflect.Map:
		if rv.IsNil() {
			return v
		}
		cp := reflect.MakeMapWithSize(rv.Type(), rv.Len())
		it := rv.MapRange()
		for it.Next() {
			e := reflect.ValueOf(cloneValue(it.Value().Interface()))
			if !e.IsValid() {
				e = reflect.Zero(rv.Type().Elem())
			}
			cp.SetMapIndex(it.Key(), e)
		}
		return cp.Interface()
	}
	return v
}

// SeamsOnly reports whether m reads a build through its seams alone: a
// mission made by [New] does, and so does a wrapper of one that says so
// with an Unwrap method (it adds methods, it runs builds through the
// mission it wraps). Another implementation of [Mission] could tell builds
// apart some other way (by identity, say), which no probe of seam calls
// sees.
func SeamsOnly(m Mission) bool {
	for m != nil {
		switch x := m.(type) {
		case *engine:
			return true
		case interface{ Unwrap() Mission }:
			m = x.Unwrap()
		default:
			return false
		}
	}
	return false
}
