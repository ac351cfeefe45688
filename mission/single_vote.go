package mission

import (
	"strconv"

	"github.com/baton-lab/baton/sandbox"
)

// ballot is one vote's decisions on a turn, in the order it made them.
type ballot []choice

// choice is one decision of a vote: its kind, and the core's choice before
// the build's Decide seam.
type choice struct {
	kind, choice string
}

// vote plays role ai's extra votes on the turn and returns their ballots;
// it stops early when the next vote would not fit (see [Single].Need).
func (so *solo) vote(ai int, item string, in turnInput) []ballot {
	r := so.r
	if b := so.s.Budget; b.Limit > 0 && so.s.Need <= 0 {
		return nil
	}
	var out []ballot
	est := so.s.Need
	if so.turns > 0 {
		est = (so.real + so.turns - 1) / so.turns
	}
	for k := 1; k < so.s.Votes; k++ {
		if !so.fits(est) {
			break
		}
		bl, spent := so.ballot(ai, item, in, k)
		if r.err != nil {
			return nil
		}
		out = append(out, bl)
		est = max(est, spent)
	}
	return out
}

// fits reports whether a vote estimated at est fits in the budget with
// what the day's own turns still need (see [Single].Need).
func (so *solo) fits(est int) bool {
	b := so.s.Budget
	return b.Limit <= 0 || b.Used(so.r.cost)+est+max(0, so.s.Need-so.real) <= b.Limit
}

// ballot plays vote k of role ai's turn on a scratch copy of the system
// of record and returns its decisions and what it spent in the budget's
// unit; its cost and model calls are added to the run's.
func (so *solo) ballot(ai int, item string, in turnInput, k int) (ballot, int) {
	r := so.r
	r.dice.Draws().MarkOpaque() // the vote's dice are keyed by a seed of its own
	seed := sandbox.HashSeed(r.seed, "vote", strconv.Itoa(k))
	rec := &voteRecorder{Seams: r.seams}
	v := r.e.newRunnerCap(r.ctx, rec, r.sc, &r.sc.Initial, seed, so.env, 16)
	v.sb.Recycle()
	v.sb = sandbox.New(so.reg, r.sb.Snapshot(), sandbox.Config{Faults: so.env.Faults}, v.dice, v.clock)
	v.cost = Cost{}
	vs := &solo{r: v, s: so.s, reg: so.reg, env: so.env}
	vs.play(ai, item, in)
	if v.err != nil {
		r.err = v.err
		v.discard()
		return nil, 0
	}
	for _, e := range v.trace.Events {
		if e.Kind == EventModelCall {
			r.event(e)
		}
	}
	r.slips = append(r.slips, v.slips...)
	r.cost.Add(v.cost)
	spent := so.s.Budget.Used(v.cost)
	v.discard()
	return rec.made, spent
}

// voteRecorder is the seams of a vote: it records each decision the core
// makes, then lets the build's seam act.
type voteRecorder struct {
	Seams
	made ballot
}

func (s *voteRecorder) Decide(agent Agent, kind, item, c string) string {
	s.made = append(s.made, choice{kind: kind, choice: c})
	return s.Seams.Decide(agent, kind, item, c)
}

// tally is the seams of a turn taken after votes: at each decision it
// acts on the choice most votes made at the same decision (the n-th of its
// kind), the turn's own counted first, then lets the build's seam act.
type tally struct {
	Seams
	ballots []ballot
	seen    map[string]int // per kind, the decisions of it made so far
}

func (s *tally) Decide(agent Agent, kind, item, c string) string {
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	n := s.seen[kind]
	s.seen[kind] = n + 1
	votes := []string{c}
	for _, b := range s.ballots {
		if x, ok := b.nth(kind, n); ok {
			votes = append(votes, x)
		}
	}
	return s.Seams.Decide(agent, kind, item, majority(votes))
}

// nth returns the ballot's n-th choice of kind.
func (b ballot) nth(kind string, n int) (string, bool) {
	for _, c := range b {
		if c.kind != kind {
			continue
		}
		if n == 0 {
			return c.choice, true
		}
		n--
	}
	return "", false
}

// majority returns the most frequent of votes, the earliest of those tied.
func majority(votes []string) string {
	best, bestN := "", 0
	for i, v := range votes {
		n := 0
		for _, w := range votes[i:] {
			if w == v {
				n++
			}
		}
		if n > bestN {
			best, bestN = v, n
		}
	}
	return best
}

var (
	_ Seams = (*voteRecorder)(nil)
	_ Seams = (*tally)(nil)
)
