package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mutants"
)

// CleanBuild is the build id of the mission without a mutant.
const CleanBuild = "clean"

// Aggregator streams work items into the counts every table is computed
// from. It never holds items, nor any string of one: every id it keeps is
// interned once. What grows with the trials is compact: per suite run
// (design, build, trial) a small record (counts, two scenario bit sets, the
// top-blame tally), per clean (design, scenario) a bit per trial for its
// flag, and per clean (scenario, trial) a 16-byte trace digest; everything
// else is counted per (design, build, scenario), (build, scenario), build
// or design. About 200 bytes per suite run in all: a default protocol at
// 200 trials holds about 3 MB. The caller adds every clean-build item before
// any mutated item, so each mutated item meets its clean twin.
//
// An Aggregator is not safe for concurrent use.
type Aggregator struct {
	cfg      Config
	builds   map[string]BuildInfo
	category map[string]string
	designs  map[string]bool

	designIDs, buildIDs, scenarioIDs, locIDs interner

	twins   map[twinKey]*twinFlags // clean flags per (design, scenario)
	hashes  map[id]*twinHashes     // clean trace digests per scenario
	ends    map[id]*twinHashes     // clean end-state digests per scenario
	harm    map[id]*harmStats      // per mutated build: where it did harm
	covered map[passKey]bool       // (mutated build, scenario) its seam reached
	index   suiteIndex             // suite run -> its place in suites
	suites  *suiteTable            // every suite run
	shared  bool                   // suites is shared with a Results: copy before changing it
	cells   map[cellKey]*cell
	obs     map[id]*obsStats // per mutated build
	passk   map[passKey]*passCount
	trials  map[id]*trialSet // per build, trials seen
	spent   map[id]*spend    // per design
	warn    warnings

	mutated bool // a mutated item has been added
}

type twinKey struct{ design, scenario id }

type suiteKey struct {
	design, build id
	trial         int
}

type cellKey struct{ design, build, scenario id }

type passKey struct{ build, scenario id }

// spend is what a design's suite runs cost, and what its flagged items
// blamed.
type spend struct {
	cost   mission.Cost
	wallNS int64
	match  matcherTally
	blame  blameTally
}

// blameTally counts flagged items with a blame, and those naming an edge or
// an agent.
type blameTally struct{ flagged, edge, agent int }

func isEdge(loc string) bool {
	_, ok := mission.Location(loc).Edge()
	return ok
}

func (t *blameTally) add(blame []string) {
	if len(blame) == 0 {
		return
	}
	t.flagged++
	edge, agent := false, false
	for _, b := range blame {
		switch {
		case b == "":
		case strings.Contains(b, "->") && isEdge(b): // a cheap test first: parsing a non-edge allocates its error
			edge = true
		default:
			agent = true
		}
	}
	if edge {
		t.edge++
	}
	if agent {
		t.agent++
	}
}

type cell struct{ n, detected, raw int }

type obsStats struct{ n, diffs, missingTwin, reached int }

type passCount struct{ n, c int }

type warnings struct {
	missingTwin     int // mutated design items without a clean twin
	missingHashTwin int // mutated observation runs without a clean twin
	lateClean       int // clean items added after mutated ones
}

// NewAggregator returns an empty aggregation for a run described by cfg.
func NewAggregator(cfg Config) *Aggregator {
	a := &Aggregator{
		cfg:      cfg,
		builds:   make(map[string]BuildInfo),
		category: make(map[string]string),
		designs:  make(map[string]bool),
		twins:    make(map[twinKey]*twinFlags),
		hashes:   make(map[id]*twinHashes),
		ends:     make(map[id]*twinHashes),
		harm:     make(map[id]*harmStats),
		covered:  make(map[passKey]bool),
		suites:   &suiteTable{},
		cells:    make(map[cellKey]*cell),
		obs:      make(map[id]*obsStats),
		passk:    make(map[passKey]*passCount),
		trials:   make(map[id]*trialSet),
		spent:    make(map[id]*spend),
	}
	for _, b := range cfg.Builds {
		a.builds[b.ID] = b
		a.buildIDs.id(b.ID)
	}
	for _, s := range cfg.Scenarios {
		a.category[s.ID] = s.Category
		a.scenarioIDs.id(s.ID)
	}
	for _, d := range cfg.Designs {
		a.designs[d] = true
		a.designIDs.id(d)
	}
	return a
}

// Add streams one item into the aggregation.
func (a *Aggregator) Add(it Item) {
	if _, ok := a.builds[it.Build]; !ok {
		b := a.buildIDs.name(a.buildIDs.id(it.Build))
		a.builds[b] = BuildInfo{ID: b, Class: strings.Clone(it.Class), Location: strings.Clone(it.Location)}
	}
	sc := a.scenarioIDs.id(it.Scenario)
	if _, ok := a.category[it.Scenario]; !ok {
		a.category[a.scenarioIDs.name(sc)] = strings.Clone(it.Category)
	}
	b := a.buildIDs.id(it.Build)
	tr := a.trials[b]
	if tr == nil {
		tr = &trialSet{}
		a.trials[b] = tr
	}
	tr.add(it.Trial)
	clean := it.Build == CleanBuild
	if clean && a.mutated {
		a.warn.lateClean++
	}
	if !clean {
		a.mutated = true
		if it.Reached > 0 {
			a.cover(b, sc)
		}
	}
	if it.Design == "" {
		a.addObservation(it, b, sc, clean)
		return
	}
	d := a.designIDs.id(it.Design)
	if !a.designs[it.Design] {
		a.designs[a.designIDs.name(d)] = true
	}
	sp := a.spent[d]
	if sp == nil {
		sp = &spend{}
		a.spent[d] = sp
	}
	sp.cost.Add(it.Cost)
	sp.wallNS += it.WallNS
	sp.match.add(it)
	if it.Flagged {
		sp.blame.add(it.Blame)
	}

	s := a.suite(suiteKey{d, b, it.Trial})
	s.scenarios++
	s.reached += int32(it.Reached)
	if it.Flagged {
		s.flag(sc)
		s.slipped = s.slipped || it.Slipped
		s.faulted = s.faulted || it.Faulted
	}

	tk := twinKey{d, sc}
	tw := a.twins[tk]
	if clean {
		if tw == nil {
			tw = &twinFlags{}
			a.twins[tk] = tw
		}
		tw.seen.add(it.Trial)
		if it.Flagged {
			tw.flagged.add(it.Trial)
		}
		return
	}
	if tw == nil || !tw.seen.has(it.Trial) {
		a.warn.missingTwin++
	}
	isNew := it.Flagged && (tw == nil || !tw.flagged.has(it.Trial))

	c := a.cells[cellKey{d, b, sc}]
	if c == nil {
		c = &cell{}
		a.cells[cellKey{d, b, sc}] = c
	}
	c.n++
	if it.Flagged {
		c.raw++
	}
	if !isNew {
		return
	}
	c.detected++
	s.flagFresh(sc)
	top := ""
	if len(it.Blame) > 0 {
		top = it.Blame[0]
	}
	s.vote(a.locIDs.id(top), sc, a.scenarioIDs.names)
}

// suite returns the record of a suite run, adding it when new. The pointer
// is good until the next call.
func (a *Aggregator) suite(k suiteKey) *suite {
	if a.shared {
		a.suites = a.suites.clone()
		a.shared = false
	}
	i, ok := a.index.get(k)
	if !ok {
		i = int32(len(a.suites.suites))
		a.index.put(k, i)
		a.suites.keys = append(a.suites.keys, k)
		a.suites.suites = append(a.suites.suites, suite{})
	}
	return &a.suites.suites[i]
}

// addObservation counts an integrated observation run: mission success for
// pass^k and, for a mutated build, whether its trace differs from the clean
// twin's.
func (a *Aggregator) addObservation(it Item, b, sc id, clean bool) {
	pk := a.passk[passKey{b, sc}]
	if pk == nil {
		pk = &passCount{}
		a.passk[passKey{b, sc}] = pk
	}
	pk.n++
	if it.Success {
		pk.c++
	}
	h := a.hashes[sc]
	a.addHarm(it, b, sc, clean)
	if clean {
		if h == nil {
			h = &twinHashes{}
			a.hashes[sc] = h
		}
		h.set(it.Trial, digestOf(it.TraceHash))
		return
	}
	o := a.obs[b]
	if o == nil {
		o = &obsStats{}
		a.obs[b] = o
	}
	o.n++
	o.reached += it.Reached
	var twin digest
	found := false
	if h != nil {
		twin, found = h.get(it.Trial)
	}
	switch {
	case !found:
		o.missingTwin++
		a.warn.missingHashTwin++
	case twin != digestOf(it.TraceHash):
		o.diffs++
	}
}

// adjacent reports whether blame names the ground truth or sits next to
// it: for an edge, the edge or one of its two agents; for an agent, the
// agent or an edge that starts or ends at it.
func adjacent(blame, truth string) bool {
	if blame == "" || truth == "" {
		return false
	}
	if blame == truth {
		return true
	}
	if e, ok := mission.Location(truth).Edge(); ok {
		return mission.Location(blame).Adjacent(e)
	}
	if e, ok := mission.Location(blame).Edge(); ok {
		return mission.Location(truth).Adjacent(e)
	}
	return false
}

// classRank orders classes: the protocol's classes in report order, then
// any other class by name.
func classRank(c string) int {
	if i := slices.Index(mutants.AllClasses, mutants.Class(c)); i >= 0 {
		return i
	}
	return len(mutants.AllClasses)
}

func compareClass(a, b string) int {
	return cmp.Or(cmp.Compare(classRank(a), classRank(b)), cmp.Compare(a, b))
}

// handOff reports whether a mutant class lives between agents.
func handOff(class string) bool {
	return class != "" && mutants.Class(class).HandOff()
}

// isControl reports whether a mutant class is the single-agent control.
func isControl(class string) bool { return class == string(mutants.Control) }

func (w warnings) list() []string {
	var out []string
	if w.lateClean > 0 {
		out = append(out, fmt.Sprintf("%d clean item(s) arrived after mutated items; their mutated twins may have been compared without them", w.lateClean))
	}
	if w.missingTwin > 0 {
		out = append(out, fmt.Sprintf("%d mutated design item(s) had no clean twin; their flags counted as new", w.missingTwin))
	}
	if w.missingHashTwin > 0 {
		out = append(out, fmt.Sprintf("%d mutated observation run(s) had no clean twin to compare traces with", w.missingHashTwin))
	}
	return out
}
