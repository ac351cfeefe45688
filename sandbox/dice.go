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
}

// NewDice returns dice for one trial seed.
func NewDice(seed uint64) Dice { return Dice{seed: seed} }

// Seed returns the trial seed the dice were made from.
func (d Dice) Seed() uint64 { return d.seed }

// Rand returns a generator seeded by the decision's key. Use it when a
// decision needs several numbers (which digit to misread, which code to
// refuse with); use [Dice.Float] for a single probability check.
func (d Dice) Rand(agent, kind, item string, attempt int) *rand.Rand {
	k := d.key(agent, kind, item, attempt)
	return rand.New(rand.NewPCG(k, k^0x9e3779b97f4a7c15))
}

// Float returns a number in [0, 1) determined by the decision's key.
func (d Dice) Float(agent, kind, item string, attempt int) float64 {
	k := mix(d.key(agent, kind, item, attempt))
	return float64(k>>11) / (1 << 53)
}

// Chance reports whether an event of probability p happens at this decision.
// p <= 0 never happens and p >= 1 always does, without consulting the key.
func (d Dice) Chance(p float64, agent, kind, item string, attempt int) bool {
	if p <= 0 {
		return false
	}
	if p >= 1 {
		return true
	}
	return d.Float(agent, kind, item, attempt) < p
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
	return float64(mix(keyAfter(prefix, item, attempt))>>11)/(1<<53) < p
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
