package sandbox

import (
	"math/rand/v2"
)

// Dice draws keyed random numbers: every draw is determined by the trial seed
// and the identity of the decision it serves (agent, decision kind, item,
// attempt), never by how many draws came before. A build whose control flow
// diverges from its clean twin therefore still sees the same faults and slips
// at every decision the two share.
type Dice struct {
	seed uint64
	rec  *Draws // nil: the draws are not recorded
}

// NewDice returns dice for one trial seed.
func NewDice(seed uint64) Dice { return Dice{seed: seed} }

// Seed returns the trial seed the dice were made from.
func (d Dice) Seed() uint64 { return d.seed }

// Recording returns the dice drawing as d does, recording into rec the
// draws they are asked for (nil: none). A record no dice were made to
// write (a run of a mission that does not record) stays opaque.
func (d Dice) Recording(rec *Draws) Dice {
	if rec != nil {
		rec.live = true
	}
	d.rec = rec
	return d
}

// Draws returns the record the dice write, or nil.
func (d Dice) Draws() *Draws { return d.rec }

// Rand returns a generator seeded by the decision's key. Use it when a
// decision needs several numbers (which digit to misread, which code to
// refuse with); use [Dice.Float] for a single probability check. It
// makes a recorded run opaque.
func (d Dice) Rand(agent, kind, item string, attempt int) *rand.Rand {
	d.rec.MarkOpaque()
	k := d.key(agent, kind, item, attempt)
	return rand.New(rand.NewPCG(k, k^0x9e3779b97f4a7c15))
}

// Float returns a number in [0, 1) determined by the decision's key. It
// makes a recorded run opaque: use [Dice.Chance] for a yes or no.
func (d Dice) Float(agent, kind, item string, attempt int) float64 {
	d.rec.MarkOpaque()
	return unit(d.key(agent, kind, item, attempt))
}

// unit maps a key to [0, 1).
func unit(k uint64) float64 { return float64(mix(k)>>11) / (1 << 53) }

// Chance reports whether an event of probability p happens at this decision.
// p <= 0 never happens and p >= 1 always does, without consulting the key.
// A draw that consults the key is recorded.
func (d Dice) Chance(p float64, agent, kind, item string, attempt int) bool {
	if p <= 0 {
		return false
	}
	if p >= 1 {
		return true
	}
	ok := unit(d.key(agent, kind, item, attempt)) < p
	if d.rec != nil {
		d.rec.add(agent, kind, item, attempt, p, ok)
	}
	return ok
}

func (d Dice) key(agent, kind, item string, attempt int) uint64 {
	return keyAfter(d.prefix(agent, kind), item, attempt)
}

// prefix is the state of a key after the seed, the agent and the kind:
// the draws of one decision kind of one agent go on from it with
// [keyAfter], without hashing the agent and kind again.
func (d Dice) prefix(agent, kind string) uint64 {
	h := fnvOffset ^ d.seed
	h = fnvString(h, agent)
	return fnvString(h, kind)
}

// keyAfter is the key of the draw of item and attempt after prefix.
func keyAfter(prefix uint64, item string, attempt int) uint64 {
	h := fnvString(prefix, item)
	h ^= uint64(attempt) + 1
	h *= fnvPrime
	return mix(h)
}

// chanceAfter is [Dice.Chance] of the draw of item and attempt after
// prefix.
func chanceAfter(p float64, prefix uint64, item string, attempt int) bool {
	if p <= 0 {
		return false
	}
	if p >= 1 {
		return true
	}
	return unit(keyAfter(prefix, item, attempt)) < p
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnvString folds s into h with FNV-1a, then a separator so that
// ("ab","c") and ("a","bc") differ.
func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	h ^= 0xff
	h *= fnvPrime
	return h
}

// mix is the SplitMix64 finaliser: it spreads nearby keys over the range.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// HashSeed derives a seed from a master seed and parts, the same way on every
// machine: experiment uses it for trial seeds (master, scenario, trial).
func HashSeed(master uint64, parts ...string) uint64 {
	h := fnvOffset ^ master
	for _, p := range parts {
		h = fnvString(h, p)
	}
	return mix(h)
}

// Draws is the record of the keyed draws one run consulted, in order:
// each yes or no (a [Dice.Chance] that consulted the key, a tool call's
// fault), with its key and outcome. A run that used the trial seed in any
// other way (a number from [Dice.Rand] or [Dice.Float], the seed itself
// handed to a model) is opaque.
//
// A run is a deterministic function of its build, scenario, inputs and
// environment and of the outcomes of the draws it consults, each of which
// depends on the seed and the draw's key alone; which draw comes next
// depends only on the outcomes so far. So a run of another seed under
// which every recorded draw comes out the same ([Draws.Holds]) consults
// the same draws and is the same run, event for event.
type Draws struct {
	list   []Draw
	live   bool // dice were made to write it
	opaque bool
}

// Draw is one recorded yes or no: its key, probability and outcome.
type Draw struct {
	Agent, Kind, Item string
	Attempt           int
	P                 float64
	Happened          bool
}

func (r *Draws) add(agent, kind, item string, attempt int, p float64, happened bool) {
	r.list = append(r.list, Draw{Agent: agent, Kind: kind, Item: item, Attempt: attempt, P: p, Happened: happened})
}

// MarkOpaque records that the run used the trial seed beyond a yes or
// no; a nil record ignores it.
func (r *Draws) MarkOpaque() {
	if r != nil {
		r.opaque = true
	}
}

// Reset empties the record for another run, keeping its room.
func (r *Draws) Reset() {
	clear(r.list)
	r.list, r.live, r.opaque = r.list[:0], false, false
}

// Opaque reports whether the run used the trial seed beyond its recorded
// draws. A nil record, or one no dice wrote, is opaque: nothing is known.
func (r *Draws) Opaque() bool { return r == nil || !r.live || r.opaque }

// List returns the recorded draws, in order; the slice is the record's.
func (r *Draws) List() []Draw {
	if r == nil {
		return nil
	}
	return r.list
}

// Holds reports whether the run is not opaque and every draw it recorded
// comes out the same under seed: then the run of that seed is the same
// run. It costs one keyed hash per draw.
func (r *Draws) Holds(seed uint64) bool {
	if r.Opaque() {
		return false
	}
	d := NewDice(seed)
	var seen prefixRing
	var agent, kind string
	var pre uint64
	for i := range r.list {
		x := &r.list[i]
		if i == 0 || x.Agent != agent || x.Kind != kind {
			agent, kind = x.Agent, x.Kind
			pre = seen.prefix(d, agent, kind)
		}
		if chanceAfter(x.P, pre, x.Item, x.Attempt) != x.Happened {
			return false
		}
	}
	return true
}

// prefixRing remembers the key prefixes of the last few agents and kinds
// one seed drew: a tool call draws its fault kinds in turn, and the next
// call of the tool draws them again.
type prefixRing struct {
	n, next int
	ring    [12]struct {
		agent, kind string
		pre         uint64
	}
}

// prefix is d.prefix(agent, kind), remembered.
func (p *prefixRing) prefix(d Dice, agent, kind string) uint64 {
	for i := range p.n {
		if e := &p.ring[i]; e.kind == kind && e.agent == agent {
			return e.pre
		}
	}
	e := &p.ring[p.next]
	e.agent, e.kind, e.pre = agent, kind, d.prefix(agent, kind)
	p.next = (p.next + 1) % len(p.ring)
	p.n = max(p.n, p.next)
	return e.pre
}
