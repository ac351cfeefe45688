package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"math/bits"
	"slices"
	"strings"
)

// The Aggregator's compact storage: what it keeps per suite run and per
// clean run, in as few bytes as the tables need.

// id is an interned string's index in its [interner].
type id = int32

// interner maps each distinct string to a small id and keeps one copy of
// it, so that no key retains the string of the item it came from. Names
// are only ever appended: a copy of the names slice stays valid.
type interner struct {
	ids   map[string]id
	names []string
}

func (in *interner) id(s string) id {
	if i, ok := in.ids[s]; ok {
		return i
	}
	if in.ids == nil {
		in.ids = make(map[string]id)
	}
	i := id(len(in.names))
	s = strings.Clone(s)
	in.names = append(in.names, s)
	in.ids[s] = i
	return i
}

func (in *interner) name(i id) string { return in.names[i] }

// lookup returns the id of s without interning it.
func (in *interner) lookup(s string) (id, bool) {
	i, ok := in.ids[s]
	return i, ok
}

// idSet is a set of small ids (the scenarios of a suite run), a bit each.
type idSet []uint64

func (b *idSet) set(i id) {
	w := int(i / 64)
	for len(*b) <= w {
		*b = append(*b, 0)
	}
	(*b)[w] |= 1 << (uint(i) % 64)
}

func (b idSet) has(i id) bool {
	w := int(i / 64)
	return i >= 0 && w < len(b) && b[w]&(1<<(uint(i)%64)) != 0
}

func (b idSet) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

func (b idSet) each(fn func(id)) {
	for wi, w := range b {
		for w != 0 {
			fn(id(wi*64 + bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
}

// maxBitTrial bounds the trials a [trialSet] keeps as bits; others (not
// the experiment's 1..n) go to a map.
const maxBitTrial = 1 << 16

// trialSet is a set of trials: a bit per trial in [0, maxBitTrial), a map
// entry for any other.
type trialSet struct {
	bits  idSet
	other map[int]struct{}
}

func (s *trialSet) add(t int) {
	if t >= 0 && t < maxBitTrial {
		s.bits.set(id(t))
		return
	}
	if s.other == nil {
		s.other = make(map[int]struct{})
	}
	s.other[t] = struct{}{}
}

func (s *trialSet) has(t int) bool {
	if t >= 0 && t < maxBitTrial {
		return s.bits.has(id(t))
	}
	_, ok := s.other[t]
	return ok
}

// sorted lists the trials in order.
func (s *trialSet) sorted() []int {
	out := make([]int, 0, s.bits.count()+len(s.other))
	s.bits.each(func(t id) { out = append(out, int(t)) })
	for t := range s.other {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// twinFlags is what the clean build did for one (design, scenario): the
// trials it ran and those it flagged.
type twinFlags struct{ seen, flagged trialSet }

// digest stands for a trace hash in 16 bytes: the first half of the hash
// when it is 64 lower-case hex digits (the SHA-256 the experiment writes),
// else of the SHA-256 of the string.
type digest [16]byte

func digestOf(s string) digest {
	var d digest
	if len(s) == 64 && strings.ToLower(s) == s {
		if _, err := hex.Decode(d[:], []byte(s[:32])); err == nil && isHex(s[32:]) {
			return d
		}
	}
	sum := sha256.Sum256([]byte(s))
	copy(d[:], sum[:])
	return d
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// twinHashes keeps the clean observation runs' trace digests of one
// scenario, by trial.
type twinHashes struct {
	seen   trialSet
	byBits []digest // index trial, for trials in [0, maxBitTrial)
	other  map[int]digest
}

func (h *twinHashes) set(t int, d digest) {
	h.seen.add(t)
	if t >= 0 && t < maxBitTrial {
		if t >= len(h.byBits) {
			h.byBits = append(h.byBits, make([]digest, t+1-len(h.byBits))...)
		}
		h.byBits[t] = d
		return
	}
	if h.other == nil {
		h.other = make(map[int]digest)
	}
	h.other[t] = d
}

func (h *twinHashes) get(t int) (digest, bool) {
	if !h.seen.has(t) {
		return digest{}, false
	}
	if t >= 0 && t < maxBitTrial {
		return h.byBits[t], true
	}
	return h.other[t], true
}

// inlineWords is how many words of scenario bits a [suite] keeps inline:
// scenario ids below 128, which covers every protocol so far; others go to
// its overflow.
const inlineWords = 2

// suite accumulates one suite run in 80 bytes: which scenarios it flagged,
// which of those its clean twin did not flag (fresh), and the top-blame
// tally of the fresh ones, one small vote per location blamed. Scenario
// ids from 128 go to hi, allocated only then.
type suite struct {
	flagged, fresh     [inlineWords]uint64
	votes              []vote
	scenarios, reached int32
	slipped, faulted   bool
	hi                 *hiBits
}

// hiBits holds a suite run's scenario bits from inlineWords on.
type hiBits struct{ flagged, fresh idSet }

func (s *suite) high() *hiBits {
	if s.hi == nil {
		s.hi = &hiBits{}
	}
	return s.hi
}

// mark sets scenario sc in the inline words or, beyond them, in hi.
func mark(lo *[inlineWords]uint64, hi func() *idSet, sc id) {
	if w := int(sc / 64); w < inlineWords {
		lo[w] |= 1 << (uint(sc) % 64)
		return
	}
	hi().set(sc - inlineWords*64)
}

func (s *suite) flag(sc id) {
	mark(&s.flagged, func() *idSet { return &s.high().flagged }, sc)
}

func (s *suite) flagFresh(sc id) {
	mark(&s.fresh, func() *idSet { return &s.high().fresh }, sc)
}

// joined returns the whole set from its inline words and its overflow.
func joined(lo [inlineWords]uint64, hi idSet) idSet {
	out := make(idSet, inlineWords+len(hi))
	copy(out, lo[:])
	copy(out[inlineWords:], hi)
	return out
}

// flaggedSet and freshSet return the scenario sets.
func (s *suite) flaggedSet() idSet {
	var hi idSet
	if s.hi != nil {
		hi = s.hi.flagged
	}
	return joined(s.flagged, hi)
}

func (s *suite) freshSet() idSet {
	var hi idSet
	if s.hi != nil {
		hi = s.hi.fresh
	}
	return joined(s.fresh, hi)
}

// anyFlagged and anyFresh report whether the sets are not empty.
func (s *suite) anyFlagged() bool {
	return s.flagged != [inlineWords]uint64{} || (s.hi != nil && s.hi.flagged.count() > 0)
}

func (s *suite) anyFresh() bool {
	return s.fresh != [inlineWords]uint64{} || (s.hi != nil && s.hi.fresh.count() > 0)
}

// vote counts how many freshly flagged scenarios put a location first;
// first is the scenario that sorts first among them, which breaks ties
// independently of the order items arrive in.
type vote struct {
	loc, first id
	count      int32
}

// vote counts scenario sc's top blame loc; names are the scenario ids.
func (s *suite) vote(loc, sc id, names []string) {
	for i := range s.votes {
		v := &s.votes[i]
		if v.loc == loc {
			v.count++
			if names[sc] < names[v.first] {
				v.first = sc
			}
			return
		}
	}
	s.votes = append(s.votes, vote{loc: loc, first: sc, count: 1})
}

// top picks the location named first by most freshly flagged scenarios;
// ties go to the one whose first such scenario sorts first, then by name.
// It returns -1 when nothing was freshly flagged.
func (s *suite) top(scenarios, locs []string) id {
	if len(s.votes) == 0 {
		return -1
	}
	best := s.votes[0]
	for _, v := range s.votes[1:] {
		vf, bf := scenarios[v.first], scenarios[best.first]
		if v.count > best.count || (v.count == best.count && (vf < bf || (vf == bf && locs[v.loc] < locs[best.loc]))) {
			best = v
		}
	}
	return best.loc
}

// suiteIndex finds a suite run's place in its [suiteTable]: per (design,
// build) a slice by trial (4 bytes a trial) for trials in [0, maxBitTrial),
// a map for any other.
type suiteIndex struct {
	byTrial map[[2]id][]int32 // place + 1; 0 for none
	other   map[suiteKey]int32
}

func (x *suiteIndex) get(k suiteKey) (int32, bool) {
	if k.trial >= 0 && k.trial < maxBitTrial {
		s := x.byTrial[[2]id{k.design, k.build}]
		if k.trial < len(s) && s[k.trial] > 0 {
			return s[k.trial] - 1, true
		}
		return 0, false
	}
	i, ok := x.other[k]
	return i, ok
}

func (x *suiteIndex) put(k suiteKey, i int32) {
	if k.trial >= 0 && k.trial < maxBitTrial {
		if x.byTrial == nil {
			x.byTrial = make(map[[2]id][]int32)
		}
		key := [2]id{k.design, k.build}
		s := x.byTrial[key]
		for len(s) <= k.trial {
			s = append(s, 0)
		}
		s[k.trial] = i + 1
		x.byTrial[key] = s
		return
	}
	if x.other == nil {
		x.other = make(map[suiteKey]int32)
	}
	x.other[k] = i
}

// suiteTable holds every suite run in the order they first arrived.
type suiteTable struct {
	keys   []suiteKey
	suites []suite
}

// clone copies t deeply, for an Aggregator that goes on after a Results
// took t.
func (t *suiteTable) clone() *suiteTable {
	c := &suiteTable{keys: slices.Clone(t.keys), suites: slices.Clone(t.suites)}
	for i := range c.suites {
		s := &c.suites[i]
		s.votes = slices.Clone(s.votes)
		if s.hi != nil {
			s.hi = &hiBits{flagged: slices.Clone(s.hi.flagged), fresh: slices.Clone(s.hi.fresh)}
		}
	}
	return c
}
