package coordination

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Dimension is one aspect of coordination, judged on its own.
type Dimension string

// The eight dimensions.
const (
	DimDelegation       Dimension = "delegation_correctness"   // each subtask has one owner able to do it
	DimCoverage         Dimension = "coverage"                 // each required subtask is assigned and completed
	DimDuplicateWork    Dimension = "duplicate_work"           // no two agents do the same work
	DimInformationKept  Dimension = "information_preservation" // hand-offs carry what their consumers need
	DimStateContention  Dimension = "shared_state_contention"  // no agent overwrites another's write unseen
	DimMergeCorrectness Dimension = "merge_correctness"        // conflicts are resolved, not concatenated
	DimEffectSafety     Dimension = "effect_safety"            // no irreversible effect happens twice
	DimEfficiency       Dimension = "efficiency"               // the trial stays within its matched budget
)

// AllDimensions lists the dimensions in report order.
var AllDimensions = []Dimension{DimDelegation, DimCoverage, DimDuplicateWork, DimInformationKept, DimStateContention, DimMergeCorrectness, DimEffectSafety, DimEfficiency}

// String returns the dimension's name.
func (d Dimension) String() string { return string(d) }

// Verdict is a dimension's verdict on one record.
type Verdict string

// The verdicts.
const (
	Pass          Verdict = "pass"
	Fail          Verdict = "fail"
	NotApplicable Verdict = "not_applicable" // the record holds nothing the dimension judges
)

// AllVerdicts lists every verdict.
var AllVerdicts = []Verdict{Pass, Fail, NotApplicable}

// String returns the verdict's name.
func (v Verdict) String() string { return string(v) }

// Failure is one thing that failed a dimension and the events that show
// it: event ids, subtask ids, or for efficiency the usage field.
type Failure struct {
	Reason string   `json:"reason"`
	Events []string `json:"events"`
}

// Result is one dimension's verdict on one record.
type Result struct {
	Dimension Dimension `json:"dimension"`
	Verdict   Verdict   `json:"verdict"`
	Failures  []Failure `json:"failures"` // empty unless Verdict is Fail
	Note      string    `json:"note"`     // why not applicable; "" otherwise
}

// Score is a record's verdicts, one per dimension in [AllDimensions]
// order.
type Score struct {
	Trial      string   `json:"trial"`
	System     string   `json:"system"`
	Dimensions []Result `json:"dimensions"`
}

// Result returns the verdict on dimension d.
func (s Score) Result(d Dimension) Result {
	return s.Dimensions[slices.Index(AllDimensions, d)]
}

// judge is one dimension's rule: the failures it finds, or a note saying
// why it does not apply.
type judge func(r *Record) (failures []Failure, notApplicable string)

// rule returns dimension d's rule.
func rule(d Dimension) judge {
	switch d {
	case DimDelegation:
		return judgeDelegation
	case DimCoverage:
		return judgeCoverage
	case DimDuplicateWork:
		return judgeDuplicateWork
	case DimInformationKept:
		return judgeInformation
	case DimStateContention:
		return judgeContention
	case DimMergeCorrectness:
		return judgeMerges
	case DimEffectSafety:
		return judgeEffects
	}
	return judgeEfficiency
}

// ScoreRecord judges r, which must have passed [Record.Validate], on every
// dimension.
func ScoreRecord(r *Record) Score {
	s := Score{Trial: r.Trial, System: r.System, Dimensions: make([]Result, 0, len(AllDimensions))}
	for _, d := range AllDimensions {
		failures, na := rule(d)(r)
		res := Result{Dimension: d, Verdict: Pass, Failures: []Failure{}}
		switch {
		case na != "":
			res.Verdict, res.Note = NotApplicable, na
		case len(failures) > 0:
			res.Verdict, res.Failures = Fail, failures
		}
		s.Dimensions = append(s.Dimensions, res)
	}
	return s
}

// groups is a list's indices grouped by a key, the groups in the order
// their keys first appear: for each group its first index (heads[g]);
// next[i] is the index after i in its group, -1 after the last.
type groups struct {
	heads []int
	next  []int
	of    map[string]int // a key's group
}

// group groups the indices below n by key, skipping those key says to.
func group(n int, key func(i int) (k string, ok bool)) groups {
	g := groups{next: make([]int, n), of: make(map[string]int, n)}
	var tails []int // per group, its last index so far
	for i := range n {
		g.next[i] = -1
		k, ok := key(i)
		if !ok {
			continue
		}
		if j, seen := g.of[k]; seen {
			g.next[tails[j]], tails[j] = i, i
			continue
		}
		g.of[k] = len(g.heads)
		g.heads, tails = append(g.heads, i), append(tails, i)
	}
	return g
}

// size returns the number of indices in the group that starts at h.
func (g groups) size(h int) int {
	n := 0
	for i := h; i >= 0; i = g.next[i] {
		n++
	}
	return n
}

// active groups the delegations no later delegation replaces by subtask,
// in the order subtasks are first delegated.
func active(r *Record) groups {
	var replaced map[string]bool
	for _, d := range r.Delegations {
		if d.Replaces != "" {
			if replaced == nil {
				replaced = map[string]bool{}
			}
			replaced[d.Replaces] = true
		}
	}
	return group(len(r.Delegations), func(i int) (string, bool) {
		return r.Delegations[i].Subtask, !replaced[r.Delegations[i].ID]
	})
}

// judgeDelegation fails a subtask assigned to more than one owner at once,
// and an owner that lacks a capability its subtask requires.
func judgeDelegation(r *Record) ([]Failure, string) {
	if len(r.Delegations) == 0 {
		return nil, "no delegation recorded"
	}
	caps := make(map[string][]string, len(r.Agents))
	for _, a := range r.Agents {
		caps[a.ID] = a.Capabilities
	}
	requires := make(map[string][]string, len(r.Subtasks))
	for _, s := range r.Subtasks {
		requires[s.ID] = s.Requires
	}
	var fs []Failure
	g := active(r)
	for _, h := range g.heads {
		st := r.Delegations[h].Subtask
		if n := g.size(h); n > 1 {
			var owners, ids []string
			for i := h; i >= 0; i = g.next[i] {
				owners, ids = append(owners, r.Delegations[i].Owner), append(ids, r.Delegations[i].ID)
			}
			fs = append(fs, Failure{Reason: fmt.Sprintf("subtask %s assigned %d times at once (to %s)", st, n, strings.Join(owners, ", ")), Events: ids})
		}
		for i := h; i >= 0; i = g.next[i] {
			d := &r.Delegations[i]
			var lacks []string
			for _, c := range requires[st] {
				if !slices.Contains(caps[d.Owner], c) {
					lacks = append(lacks, c)
				}
			}
			if len(lacks) > 0 {
				fs = append(fs, Failure{Reason: fmt.Sprintf("subtask %s assigned to %s, which lacks %s", st, d.Owner, strings.Join(lacks, ", ")), Events: []string{d.ID}})
			}
		}
	}
	return fs, ""
}

// judgeCoverage fails a required subtask that no delegation assigns, and
// one with no evidence of completion.
func judgeCoverage(r *Record) ([]Failure, string) {
	if len(r.Subtasks) == 0 {
		return nil, "no required subtask recorded"
	}
	g := active(r)
	done := make(map[string]bool, len(r.Completions))
	for _, c := range r.Completions {
		done[c.Subtask] = true
	}
	var fs []Failure
	for _, s := range r.Subtasks {
		switch at, assigned := g.of[s.ID]; {
		case !assigned:
			fs = append(fs, Failure{Reason: fmt.Sprintf("subtask %s never assigned", s.ID), Events: []string{s.ID}})
		case !done[s.ID]:
			ids := []string{s.ID}
			for i := g.heads[at]; i >= 0; i = g.next[i] {
				ids = append(ids, r.Delegations[i].ID)
			}
			fs = append(fs, Failure{Reason: fmt.Sprintf("subtask %s assigned but never completed (no completion evidence)", s.ID), Events: ids})
		}
	}
	return fs, ""
}

// judgeDuplicateWork fails a subtask completed by two agents and a unit of
// work done by two agents.
func judgeDuplicateWork(r *Record) ([]Failure, string) {
	if len(r.Agents) < 2 {
		return nil, "fewer than two agents"
	}
	if len(r.Completions) == 0 && len(r.Work) == 0 {
		return nil, "no completion or work recorded"
	}
	var fs []Failure
	// check fails each group of g done by more than one agent; at gives
	// an index's key, agent and event id.
	check := func(what string, g groups, at func(i int) (key, agent, id string)) {
		for _, h := range g.heads {
			key, first, _ := at(h)
			alone := true
			for i := g.next[h]; i >= 0 && alone; i = g.next[i] {
				_, a, _ := at(i)
				alone = a == first
			}
			if alone {
				continue
			}
			var agents, ids []string
			for i := h; i >= 0; i = g.next[i] {
				_, a, id := at(i)
				if !slices.Contains(agents, a) {
					agents = append(agents, a)
				}
				ids = append(ids, id)
			}
			fs = append(fs, Failure{Reason: fmt.Sprintf("%s %s done by %d agents (%s)", what, key, len(agents), strings.Join(agents, ", ")), Events: ids})
		}
	}
	check("subtask", group(len(r.Completions), func(i int) (string, bool) { return r.Completions[i].Subtask, true }),
		func(i int) (string, string, string) {
			c := &r.Completions[i]
			return c.Subtask, c.Agent, c.ID
		})
	check("work", group(len(r.Work), func(i int) (string, bool) { return r.Work[i].Key, true }),
		func(i int) (string, string, string) {
			w := &r.Work[i]
			return w.Key, w.Agent, w.ID
		})
	return fs, ""
}

// judgeInformation fails a hand-off whose consumer required or read a field
// the hand-off did not carry.
func judgeInformation(r *Record) ([]Failure, string) {
	var fs []Failure
	assessed := 0
	for _, h := range r.Handoffs {
		if h.Required == nil && h.Read == nil {
			continue
		}
		assessed++
		var lost []string
		sorted := false
		if h.Required == nil {
			lost, sorted = lostSorted(h.Sent, h.Read)
		}
		if !sorted {
			for _, fields := range [2][]string{h.Required, h.Read} {
				for _, f := range fields {
					if !slices.Contains(h.Sent, f) && !slices.Contains(lost, f) {
						lost = append(lost, f)
					}
				}
			}
		}
		if len(lost) > 0 {
			fs = append(fs, Failure{Reason: fmt.Sprintf("hand-off %s→%s lost %s: required or read, not sent", h.From, h.To, strings.Join(lost, ", ")), Events: []string{h.ID}})
		}
	}
	if assessed == 0 {
		return nil, "no hand-off records what its consumer required or read"
	}
	return fs, ""
}

// lostSorted returns the fields of read that sent lacks, in read's order,
// by one walk of both; ok is false unless read is strictly increasing and
// sent sorted, as derived hand-offs list them.
func lostSorted(sent, read []string) (lost []string, ok bool) {
	if !slices.IsSorted(sent) {
		return nil, false
	}
	i := 0
	for j, f := range read {
		if j > 0 && read[j-1] >= f {
			return nil, false
		}
		for i < len(sent) && sent[i] < f {
			i++
		}
		if i == len(sent) || sent[i] != f {
			lost = append(lost, f)
		}
	}
	return lost, true
}

// judgeContention fails a write to an item whose last write was another
// agent's, when the writer has not read the item since that write: it
// overwrote (or invalidated) work it had not seen.
func judgeContention(r *Record) ([]Failure, string) {
	firstAgent := make(map[string]string, len(r.State)) // per key, the first agent to access it
	shared := false
	for _, a := range r.State {
		if first, seen := firstAgent[a.Key]; !seen {
			firstAgent[a.Key] = a.Agent
		} else if first != a.Agent {
			shared = true
			break
		}
	}
	if !shared {
		return nil, "no state item accessed by two agents"
	}
	var fs []Failure
	lastWrite := map[string]int{}   // key -> index of its last write
	lastRead := map[[2]string]int{} // (key, agent) -> index of the agent's last read
	for i, a := range r.State {
		if a.Op == OpRead {
			lastRead[[2]string{a.Key, a.Agent}] = i + 1
			continue
		}
		if w, ok := lastWrite[a.Key]; ok && r.State[w].Agent != a.Agent && lastRead[[2]string{a.Key, a.Agent}] <= w {
			prev := r.State[w]
			events := []string{prev.ID, a.ID}
			how := "without reading it"
			if rd := lastRead[[2]string{a.Key, a.Agent}]; rd > 0 {
				events = []string{r.State[rd-1].ID, prev.ID, a.ID}
				how = "from a read made before it"
			}
			fs = append(fs, Failure{Reason: fmt.Sprintf("%s wrote %s over %s's write, %s", a.Agent, a.Key, prev.Agent, how), Events: events})
		}
		lastWrite[a.Key] = i
	}
	return fs, ""
}

// judgeMerges fails a conflict a merge left unresolved or concatenated.
func judgeMerges(r *Record) ([]Failure, string) {
	if len(r.Merges) == 0 {
		return nil, "no merge recorded"
	}
	var fs []Failure
	for _, m := range r.Merges {
		for _, c := range m.Conflicts {
			if c.Resolution == ResolutionResolved || c.Resolution == ResolutionEscalated {
				continue
			}
			fs = append(fs, Failure{Reason: fmt.Sprintf("merge %s left the conflict on %s %s", m.ID, c.Field, c.Resolution),
				Events: append([]string{m.ID}, c.Inputs...)})
		}
	}
	return fs, ""
}

// judgeEffects fails an irreversible effect identity that more than one
// attempt may have applied (applied or not known to be refused or
// deduplicated), a key reused for different identities, and an
// irreversible effect sent without an idempotency key.
func judgeEffects(r *Record) ([]Failure, string) {
	byID := group(len(r.Effects), func(i int) (string, bool) { return r.Effects[i].identity(), r.Effects[i].Irreversible })
	if len(byID.heads) == 0 {
		return nil, "no irreversible effect recorded"
	}
	var fs []Failure
	for _, h := range byID.heads {
		id := r.Effects[h].identity()
		maybe := 0
		for i := h; i >= 0; i = byID.next[i] {
			if e := &r.Effects[i]; e.Applied == nil || *e.Applied {
				maybe++
			}
			if r.Effects[i].Key == "" {
				fs = append(fs, Failure{Reason: fmt.Sprintf("irreversible effect %s sent without an idempotency key", id), Events: []string{r.Effects[i].ID}})
			}
		}
		if maybe > 1 {
			evs := make([]string, 0, maybe)
			for i := h; i >= 0; i = byID.next[i] {
				if e := &r.Effects[i]; e.Applied == nil || *e.Applied {
					evs = append(evs, e.ID)
				}
			}
			fs = append(fs, Failure{Reason: fmt.Sprintf("irreversible effect %s applied (or not shown deduplicated) %d times", id, maybe), Events: evs})
		}
	}
	byKey := group(len(r.Effects), func(i int) (string, bool) {
		return r.Effects[i].Key, r.Effects[i].Irreversible && r.Effects[i].Key != ""
	})
	for _, h := range byKey.heads {
		alone := true
		for i := byKey.next[h]; i >= 0 && alone; i = byKey.next[i] {
			alone = r.Effects[i].identity() == r.Effects[h].identity()
		}
		if alone {
			continue
		}
		var idents, evs []string
		for i := h; i >= 0; i = byKey.next[i] {
			if e := &r.Effects[i]; !slices.Contains(idents, e.identity()) {
				idents = append(idents, e.identity())
			}
			evs = append(evs, r.Effects[i].ID)
		}
		if len(idents) > 1 {
			fs = append(fs, Failure{Reason: fmt.Sprintf("idempotency key %s reused for different effects (%s)", r.Effects[h].Key, strings.Join(idents, ", ")), Events: evs})
		}
	}
	return fs, ""
}

// judgeEfficiency fails a trial whose usage exceeds its matched budget on
// any budgeted resource.
func judgeEfficiency(r *Record) ([]Failure, string) {
	if r.Budget == nil {
		return nil, "no matched budget"
	}
	var fs []Failure
	for _, res := range r.Budget.resources(r.Usage) {
		if res.limited && res.used > res.limit {
			reason := fmt.Sprintf("%s %s exceeds the matched budget %s", res.name, num(res.used), num(res.limit))
			if r.Budget.MatchedTo != "" {
				reason += " (matched to " + r.Budget.MatchedTo + ")"
			}
			fs = append(fs, Failure{Reason: reason, Events: []string{"usage." + res.name}})
		}
	}
	return fs, ""
}

// num formats a quantity without trailing zeros.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
