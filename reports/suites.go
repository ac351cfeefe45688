package reports

import (
	"iter"
	"slices"
	"strconv"
)

// suiteView is the suite runs as a [Results] sees them: the Aggregator's
// table, shared rather than copied (the Aggregator copies it before its
// next change), the names its ids stand for, the order of the report
// (design, build with clean first then the mutated builds' order, trial)
// and what each run's detection and top blame came to, a few bytes per run.
type suiteView struct {
	t         *suiteTable
	designs   []string    // by design id
	scenarios []string    // by scenario id
	locs      []string    // by location id
	builds    []BuildInfo // by build id; the clean build has no class or location
	order     []int32     // indices into t, in report order
	top       []id        // per run: top blame location, -1 when not detected
	marks     []uint8     // per run: markRaw | markDetected | markExact | markAdjacent | markHarmful
}

const (
	markRaw uint8 = 1 << iota
	markDetected
	markExact
	markAdjacent
	markHarmful // the build did harm in the run's trial (the oracle's, never a design's)
)

// suiteRun is one suite run of a [suiteView], resolved.
type suiteRun struct {
	design                                           string
	build                                            BuildInfo
	trial                                            int
	scenarios, reached                               int
	raw, detected, exact, adjacent, slipped, faulted bool
	harmful                                          bool
	topBlame                                         string
	s                                                *suite
}

// flagged and fresh return the run's scenario sets; fresh ones are flagged
// here and not on the clean twin.
func (r *suiteRun) flagged() idSet { return r.s.flaggedSet() }
func (r *suiteRun) fresh() idSet   { return r.s.freshSet() }

// each calls fn with every run in report order.
func (v *suiteView) each(fn func(r *suiteRun)) {
	for _, i := range v.order {
		r := v.at(i)
		fn(&r)
	}
}

// at resolves the run at index i of the table.
func (v *suiteView) at(i int32) suiteRun {
	k, s, m := v.t.keys[i], &v.t.suites[i], v.marks[i]
	r := suiteRun{
		design: v.designs[k.design], build: v.builds[k.build], trial: k.trial,
		scenarios: int(s.scenarios), reached: int(s.reached),
		raw: m&markRaw != 0, detected: m&markDetected != 0, exact: m&markExact != 0, adjacent: m&markAdjacent != 0,
		harmful: m&markHarmful != 0,
		slipped: s.slipped, faulted: s.faulted, s: s,
	}
	if t := v.top[i]; t >= 0 {
		r.topBlame = v.locs[t]
	}
	return r
}

// names returns the scenario ids in set, sorted.
func (v *suiteView) names(set idSet) []string {
	out := make([]string, 0, set.count())
	set.each(func(i id) { out = append(out, v.scenarios[i]) })
	slices.Sort(out)
	return out
}

// row writes one suite run as a [SuiteRunRow].
func (v *suiteView) row(r *suiteRun) SuiteRunRow {
	return SuiteRunRow{
		Design: r.design, Build: r.build.ID, Class: r.build.Class, Trial: r.trial,
		Scenarios: r.scenarios, Flagged: v.names(r.flagged()), NewFlags: v.names(r.fresh()),
		Raw: r.raw, Detected: r.detected, TopBlame: r.topBlame, Exact: r.exact, Adjacent: r.adjacent,
		Slipped: r.slipped, Faulted: r.faulted, Location: r.build.Location, Reached: r.reached,
	}
}

// SuiteRuns yields every suite run the [Aggregator] had when it computed r,
// in order (design, build, trial), built one at a time: what suite_runs.csv
// streams. A Results read back with [LoadResults] has none: results.json
// keeps the aggregates only, and runs.db every item.
func (r *Results) SuiteRuns() iter.Seq[SuiteRunRow] {
	return func(yield func(SuiteRunRow) bool) {
		if r.suites == nil {
			return
		}
		v := r.suites
		for _, i := range v.order {
			run := v.at(i)
			if !yield(v.row(&run)) {
				return
			}
		}
	}
}

// HasSuiteRuns reports whether r carries its suite runs (computed by an
// [Aggregator], not read back from results.json).
func (r *Results) HasSuiteRuns() bool { return r.suites != nil }

// Drill-down bounds: report.html shows, per design and mutant, the first
// trial the design detected the mutant in and the first it missed it in,
// each with at most maxExampleItems of its items.
const maxExampleItems = 5

// examples picks the drill-down's example suite runs: for each design and
// mutated build, the lowest trial detected, and the lowest trial missed
// although something was flagged (its flags all raised on the clean twin
// too), else the lowest trial missed. A detected run lists its freshly
// flagged scenarios, a missed one those it flagged.
func (v *suiteView) examples() []SuiteExample {
	type key struct{ design, build id }
	type pick struct{ detected, missed int } // positions in v.order, -1 for none
	picks := make(map[key]*pick)
	var keys []key
	for pos, i := range v.order {
		k := key{v.t.keys[i].design, v.t.keys[i].build}
		if v.builds[k.build].ID == CleanBuild {
			continue
		}
		p := picks[k]
		if p == nil {
			p = &pick{-1, -1}
			picks[k] = p
			keys = append(keys, k)
		}
		m := v.marks[i]
		switch {
		case m&markDetected != 0:
			if p.detected < 0 {
				p.detected = pos
			}
		case p.missed < 0 || (m&markRaw != 0 && v.marks[v.order[p.missed]]&markRaw == 0):
			p.missed = pos
		}
	}
	var chosen []int
	for _, k := range keys {
		for _, pos := range []int{picks[k].detected, picks[k].missed} {
			if pos >= 0 {
				chosen = append(chosen, pos)
			}
		}
	}
	slices.Sort(chosen)
	out := make([]SuiteExample, 0, len(chosen))
	for _, pos := range chosen {
		r := v.at(v.order[pos])
		b := r.build
		ex := SuiteExample{
			Design: r.design, Build: b.ID, Class: b.Class, Trial: r.trial, Detected: r.detected, Raw: r.raw,
			TopBlame: r.topBlame, Location: b.Location, Exact: r.exact, Adjacent: r.adjacent,
			Items: []ExampleItem{},
		}
		set := r.flagged
		if r.detected {
			set = r.fresh
		}
		names := v.names(set())
		for _, sc := range names[:min(len(names), maxExampleItems)] {
			ex.Items = append(ex.Items, ExampleItem{Scenario: sc, ID: itemID(b.ID, r.design, sc, r.trial), New: r.detected})
		}
		ex.MoreItems = len(names) - len(ex.Items)
		out = append(out, ex)
	}
	return out
}

// itemID returns a work item's id as the experiment writes it in runs.db and
// `baton replay` takes it: build/design/scenario/trial.
func itemID(build, design, scenario string, trial int) string {
	return build + "/" + design + "/" + scenario + "/" + strconv.Itoa(trial)
}
