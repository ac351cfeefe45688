package experiment

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/reports"
)

// ItemFilter selects the items (or suite runs) of a run for an auditor:
// an empty field selects all. Designs name the observation run "obs".
type ItemFilter struct {
	Builds, Designs, Scenarios, Classes []string
	Trial                               int  // 0: every trial
	Flagged                             bool // flagged items only (suite runs: any scenario flagged)
}

// StoredItem is one item as runs.db holds it, checked against its
// checksums.
type StoredItem struct {
	ID string
	reports.Item
	Findings []designs.Finding
	// TraceSHA is the hash of the item's kept trace ([TraceHashAlgorithm]; "" when none is
	// kept); TraceStored reports whether its bytes are stored too.
	TraceSHA    string
	TraceStored bool
}

// Items calls fn with every stored item of a run that f selects, in plan
// order, each checked against its checksums; runs.db is opened read-only.
func Items(runDir string, f ItemFilter, fn func(*StoredItem) error) error {
	s, err := openStoreIn(runDir)
	if err != nil {
		return fmt.Errorf("items: %w", err)
	}
	defer s.close()
	nm, err := s.checked()
	if err != nil {
		return fmt.Errorf("items: %w", err)
	}
	if err := s.scanFiltered(nm, f, func(it *storedItem) error {
		return fn(&StoredItem{ID: it.id(), Item: it.item, Findings: slices.Clone(it.findings),
			TraceSHA: it.traceSHA, TraceStored: it.traceStored})
	}); err != nil {
		return fmt.Errorf("items: %w", err)
	}
	return nil
}

// scanFiltered scans (see [store.scan]) the items f selects.
func (s *store) scanFiltered(nm *names, f ItemFilter, fn func(*storedItem) error) error {
	per, t := strconv.Itoa(len(nm.scenarios)*nm.trials), strconv.Itoa(nm.trials)
	where, args, err := nm.where(f, "{i}.unit / "+per, "{i}.design", "{i}.unit / "+t+" % "+strconv.Itoa(len(nm.scenarios)),
		"{i}.unit % "+t+" + 1", "{v}.flagged = 1")
	if err != nil {
		return err
	}
	return s.scan(nm, where, args, fn)
}

// SuiteRun is one row of runs.db's suite_runs view: one design over every
// scenario of one build in one trial.
type SuiteRun struct {
	Design    string `json:"design"`
	Build     string `json:"build"`
	Class     string `json:"class"`
	Location  string `json:"location"` // the ground truth, "" for the clean build
	Trial     int    `json:"trial"`
	Scenarios int    `json:"scenarios"`
	Flagged   int    `json:"flagged"`   // scenarios flagged
	NewFlags  int    `json:"new_flags"` // flagged here and not on the clean twin
	Raw       bool   `json:"raw"`       // some scenario flagged
	Detected  bool   `json:"detected"`  // some scenario newly flagged
	Reached   int    `json:"reached"`
	Slipped   bool   `json:"slipped"` // a flagged item had a slip fire
	Faulted   bool   `json:"faulted"` // a flagged item had a fault fire
	TopBlame  string `json:"top_blame"`
	Exact     bool   `json:"exact"`
	Adjacent  bool   `json:"adjacent"`
}

// SuiteRuns calls fn with every suite run of a run that f selects (its
// Scenarios must be empty), in the order of suite_runs.csv: design, build
// (the clean build first), trial. The items they count, and their clean
// twins, are checked first.
func SuiteRuns(runDir string, f ItemFilter, fn func(*SuiteRun) error) error {
	if len(f.Scenarios) > 0 {
		return fmt.Errorf("suite runs: a suite run covers every scenario: select by build, design, class or trial")
	}
	s, err := openStoreIn(runDir)
	if err != nil {
		return fmt.Errorf("suite runs: %w", err)
	}
	defer s.close()
	nm, err := s.checked()
	if err != nil {
		return fmt.Errorf("suite runs: %w", err)
	}
	items := f
	items.Flagged = false
	if len(items.Builds) > 0 || len(items.Classes) > 0 {
		items.Builds = append(slices.Clone(items.Builds), reports.CleanBuild)
		if len(items.Classes) > 0 { // the class's builds, by name, and the clean one
			for _, b := range nm.builds {
				if slices.Contains(items.Classes, b.Class) && !slices.Contains(items.Builds, b.ID) {
					items.Builds = append(items.Builds, b.ID)
				}
			}
			items.Classes = nil
		}
	}
	if err := s.scanFiltered(nm, items, func(*storedItem) error { return nil }); err != nil {
		return fmt.Errorf("suite runs: %w", err)
	}
	where, args, err := nm.where(f, "b.ord", "d.ord", "", "r.trial", "r.raw = 1")
	if err != nil {
		return fmt.Errorf("suite runs: %w", err)
	}
	q := `SELECT r.design, r.build, r.class, r.location, r.trial, r.scenarios, r.flagged, r.new_flags, r.raw, r.detected,
		r.reached, r.slipped, r.faulted, r.top_blame, r.exact, r.adjacent
		FROM suite_runs r JOIN builds b ON b.id = r.build JOIN designs d ON d.id = r.design`
	if where != "" {
		q += " WHERE " + where
	}
	q += " ORDER BY d.ord, b.ord, r.trial"
	err = eachRow(s.db, q, func(scan func(...any) error) error {
		var r SuiteRun
		if err := scan(&r.Design, &r.Build, &r.Class, &r.Location, &r.Trial, &r.Scenarios, &r.Flagged, &r.NewFlags, &r.Raw, &r.Detected,
			&r.Reached, &r.Slipped, &r.Faulted, &r.TopBlame, &r.Exact, &r.Adjacent); err != nil {
			return err
		}
		return fn(&r)
	}, args...)
	if err != nil {
		return fmt.Errorf("suite runs: %w", err)
	}
	return nil
}

// where turns a filter into an SQL condition on the given columns (build,
// design and scenario ords, trial, and the flagged test; "" for a column
// the query has not), naming the run's choices for a name it does not
// know.
func (nm *names) where(f ItemFilter, build, design, scenario, trial, flagged string) (string, []any, error) {
	var conds []string
	var args []any
	in := func(col string, ords []int) {
		conds = append(conds, col+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(ords)), ", ")+")")
		for _, o := range ords {
			args = append(args, int64(o))
		}
	}
	if len(f.Builds) > 0 || len(f.Classes) > 0 {
		ords, err := nm.buildOrds(f.Builds, f.Classes)
		if err != nil {
			return "", nil, err
		}
		in(build, ords)
	}
	var designIDs, scenarios []string
	for _, d := range nm.designs {
		designIDs = append(designIDs, cmp.Or(d, ObservationDesign))
	}
	for _, sc := range nm.scenarios {
		scenarios = append(scenarios, sc.id)
	}
	for _, sel := range []struct {
		what, col  string
		want, from []string
	}{{"design", design, f.Designs, designIDs}, {"scenario", scenario, f.Scenarios, scenarios}} {
		if len(sel.want) == 0 {
			continue
		}
		ords, err := pick(sel.what, sel.want, sel.from)
		if err != nil {
			return "", nil, err
		}
		in(sel.col, ords)
	}
	if f.Trial != 0 {
		if f.Trial < 1 || f.Trial > nm.trials {
			return "", nil, fmt.Errorf("trial %d: the run has trials 1 to %d", f.Trial, nm.trials)
		}
		conds = append(conds, trial+" = "+strconv.Itoa(f.Trial))
	}
	if f.Flagged {
		conds = append(conds, flagged)
	}
	return strings.Join(conds, " AND "), args, nil
}

// buildOrds returns the ords of the builds named, narrowed to (or, with no
// names, all of) the builds of the classes named.
func (nm *names) buildOrds(builds, classes []string) ([]int, error) {
	var ids, known []string
	for _, b := range nm.builds {
		ids = append(ids, b.ID)
		if b.Class != "" && !slices.Contains(known, b.Class) {
			known = append(known, b.Class)
		}
	}
	ords, err := pick("build", builds, ids)
	if err != nil || len(classes) == 0 {
		return ords, err
	}
	if _, err := pick("class", classes, known); err != nil {
		return nil, err
	}
	var inClass []int
	for i, b := range nm.builds {
		if slices.Contains(classes, b.Class) && (len(builds) == 0 || slices.Contains(ords, i)) {
			inClass = append(inClass, i)
		}
	}
	return inClass, nil
}

// pick returns the places in all of the names in want, naming the choices
// for one it does not know.
func pick(what string, want, all []string) ([]int, error) {
	var ords []int
	for _, w := range want {
		i := slices.Index(all, w)
		if i < 0 {
			choices := all
			if len(choices) > 8 {
				choices = append(slices.Clone(all[:8]), fmt.Sprintf("… (%d in all)", len(all)))
			}
			return nil, fmt.Errorf("%s %q: the run has %s", what, w, strings.Join(choices, ", "))
		}
		ords = append(ords, i)
	}
	return ords, nil
}
