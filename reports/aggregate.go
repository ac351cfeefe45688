package reports

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mutants"
)

// CleanBuild is the build id of the mission without a mutant.
const CleanBuild = "clean"

// Aggregator streams work items into the counts every table is computed
// from. Its memory holds one small record per (design, build, trial) suite
// run, one flag per (design, scenario, trial) clean run, one trace hash per
// clean (scenario, trial) and counters per (design, build, scenario) and
// (build, scenario); it never holds items. The caller adds every clean-build
// item before any mutated item, so each mutated item meets its clean twin.
//
// An Aggregator is not safe for concurrent use.
type Aggregator struct {
	cfg       Config
	builds    map[string]BuildInfo
	category  map[string]string
	designs   map[string]bool
	clean     map[cleanKey]bool // clean twin flagged
	cleanHash map[obsKey]string
	suites    map[suiteKey]*suite
	cells     map[cellKey]*cell
	obs       map[string]*obsStats // per mutated build
	passk     map[passKey]*passCount
	trials    map[string]map[int]bool // per build, trials seen
	warn      warnings
	mutated   bool // a mutated item has been added
}

type cleanKey struct {
	design, scenario string
	trial            int
}

type obsKey struct {
	scenario string
	trial    int
}

type suiteKey struct {
	design, build string
	trial         int
}

type cellKey struct{ design, build, scenario string }

type passKey struct{ build, scenario string }

// suite accumulates one suite run.
type suite struct {
	scenarios        int
	flagged          []string
	newFlags         []string
	slipped, faulted bool
	votes            map[string]*vote // top blame of newly flagged scenarios
	cost             mission.Cost
	wallNS           int64
	reached          int
}

// vote counts how many newly flagged scenarios put a location first; first
// is the smallest such scenario id, which breaks ties independently of the
// order items arrive in.
type vote struct {
	count int
	first string
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
		cfg:       cfg,
		builds:    make(map[string]BuildInfo),
		category:  make(map[string]string),
		designs:   make(map[string]bool),
		clean:     make(map[cleanKey]bool),
		cleanHash: make(map[obsKey]string),
		suites:    make(map[suiteKey]*suite),
		cells:     make(map[cellKey]*cell),
		obs:       make(map[string]*obsStats),
		passk:     make(map[passKey]*passCount),
		trials:    make(map[string]map[int]bool),
	}
	for _, b := range cfg.Builds {
		a.builds[b.ID] = b
	}
	for _, s := range cfg.Scenarios {
		a.category[s.ID] = s.Category
	}
	for _, d := range cfg.Designs {
		a.designs[d] = true
	}
	return a
}

// Add streams one item into the aggregation.
func (a *Aggregator) Add(it Item) {
	if _, ok := a.builds[it.Build]; !ok {
		a.builds[it.Build] = BuildInfo{ID: it.Build, Class: it.Class, Location: it.Location}
	}
	if _, ok := a.category[it.Scenario]; !ok {
		a.category[it.Scenario] = it.Category
	}
	tr := a.trials[it.Build]
	if tr == nil {
		tr = make(map[int]bool)
		a.trials[it.Build] = tr
	}
	tr[it.Trial] = true
	clean := it.Build == CleanBuild
	if clean && a.mutated {
		a.warn.lateClean++
	}
	if !clean {
		a.mutated = true
	}
	if it.Design == "" {
		a.addObservation(it, clean)
		return
	}
	a.designs[it.Design] = true

	sk := suiteKey{it.Design, it.Build, it.Trial}
	s := a.suites[sk]
	if s == nil {
		s = &suite{}
		a.suites[sk] = s
	}
	s.scenarios++
	s.cost.Add(it.Cost)
	s.wallNS += it.WallNS
	s.reached += it.Reached
	if it.Flagged {
		s.flagged = append(s.flagged, it.Scenario)
		s.slipped = s.slipped || it.Slipped
		s.faulted = s.faulted || it.Faulted
	}

	ck := cleanKey{it.Design, it.Scenario, it.Trial}
	if clean {
		a.clean[ck] = it.Flagged
		return
	}
	twin, ok := a.clean[ck]
	if !ok {
		a.warn.missingTwin++
	}
	isNew := it.Flagged && !twin

	c := a.cells[cellKey{it.Design, it.Build, it.Scenario}]
	if c == nil {
		c = &cell{}
		a.cells[cellKey{it.Design, it.Build, it.Scenario}] = c
	}
	c.n++
	if it.Flagged {
		c.raw++
	}
	if !isNew {
		return
	}
	c.detected++
	s.newFlags = append(s.newFlags, it.Scenario)
	top := ""
	if len(it.Blame) > 0 {
		top = it.Blame[0]
	}
	if s.votes == nil {
		s.votes = make(map[string]*vote)
	}
	v := s.votes[top]
	if v == nil {
		v = &vote{first: it.Scenario}
		s.votes[top] = v
	}
	v.count++
	if it.Scenario < v.first {
		v.first = it.Scenario
	}
}

// addObservation counts an integrated observation run: mission success for
// pass^k and, for a mutated build, whether its trace differs from the clean
// twin's.
func (a *Aggregator) addObservation(it Item, clean bool) {
	pk := a.passk[passKey{it.Build, it.Scenario}]
	if pk == nil {
		pk = &passCount{}
		a.passk[passKey{it.Build, it.Scenario}] = pk
	}
	pk.n++
	if it.Success {
		pk.c++
	}
	ok := obsKey{it.Scenario, it.Trial}
	if clean {
		a.cleanHash[ok] = it.TraceHash
		return
	}
	o := a.obs[it.Build]
	if o == nil {
		o = &obsStats{}
		a.obs[it.Build] = o
	}
	o.n++
	o.reached += it.Reached
	twin, found := a.cleanHash[ok]
	switch {
	case !found:
		o.missingTwin++
		a.warn.missingHashTwin++
	case twin != it.TraceHash:
		o.diffs++
	}
}

// topBlame picks the location named first by most newly flagged scenarios;
// ties go to the one whose first such scenario sorts first, then by name.
func (s *suite) topBlame() string {
	best, bestV := "", (*vote)(nil)
	for loc, v := range s.votes {
		if bestV == nil || v.count > bestV.count ||
			(v.count == bestV.count && (v.first < bestV.first || (v.first == bestV.first && loc < best))) {
			best, bestV = loc, v
		}
	}
	return best
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
