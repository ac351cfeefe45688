package sandbox

import (
	"slices"
	"sync"
	"sync/atomic"
)

// A sweep runs every build on the same few thousand trial seeds, and
// every run of a seed draws its tool calls' faults from the same key
// prefixes (the seed, the calling agent, the fault's kind): the registry
// keeps them per seed, for all its sandboxes, each computed at its first
// draw as the dice compute it.

// keptSeeds bounds the seeds whose prefixes a registry keeps; past it, it
// starts again.
const keptSeeds = 4096

// seedPrefixes are the fault draws' key prefixes of one seed, per tool,
// agent allowed to call it and fault kind; 0 is one not computed yet.
type seedPrefixes struct {
	h []atomic.Uint64
}

// prefixTables are a registry's seedPrefixes, by seed; safe for
// concurrent use.
type prefixTables struct {
	mu sync.RWMutex
	m  map[uint64]*seedPrefixes
}

// prefixesOf returns the registry's table of seed's prefixes.
func (reg *Registry) prefixesOf(seed uint64) *seedPrefixes {
	c := &reg.prefixes
	c.mu.RLock()
	p := c.m[seed]
	c.mu.RUnlock()
	if p != nil {
		return p
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p = c.m[seed]; p != nil {
		return p
	}
	if c.m == nil || len(c.m) >= keptSeeds {
		c.m = make(map[uint64]*seedPrefixes)
	}
	p = &seedPrefixes{h: make([]atomic.Uint64, reg.agentSlots*numDrawn)}
	c.m[seed] = p
	return p
}

// prefix returns d's key prefix of the fault of kind k of tool t drawn
// for agent, from p (which is of d's seed) when agent may call t.
func (reg *Registry) prefix(p *seedPrefixes, d Dice, t, k int, agent string) uint64 {
	i := slices.Index(reg.tools[t].Agents, agent)
	if i < 0 {
		return d.prefix(agent, reg.faultKeys[t][k])
	}
	x := &p.h[(reg.agentBase[t]+i)*numDrawn+k]
	if h := x.Load(); h != 0 {
		return h
	}
	h := d.prefix(agent, reg.faultKeys[t][k])
	x.Store(h) // another run may store the same
	return h
}
