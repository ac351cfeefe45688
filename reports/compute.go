package reports

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Results computes every aggregate from what has been added so far. It
// does not change the aggregation and may be called again after more items;
// the suite runs it carries for suite_runs.csv are a snapshot taken now.
func (a *Aggregator) Results() *Results {
	r := &Results{
		Schema:      Schema,
		Protocol:    a.cfg.Protocol,
		Methods:     a.cfg.Methods,
		Thresholds:  a.cfg.Thresholds.Named(),
		CostWeights: a.cfg.CostWeights,
		Warnings:    a.warn.list(),
		Agreement:   []AgreementRow{},
	}
	designs := slices.Sorted(maps.Keys(a.designs))
	builds := a.mutantBuilds()
	classes := a.classes(builds)

	runs := a.view(builds)
	r.suites = runs
	r.Validity = a.validity(designs, builds, runs)
	r.DetectionByMutant = mutantDetectionRows(designs, builds, runs)
	r.Detection, r.Localisation = detectionRows(designs, classes, builds, r.DetectionByMutant)
	r.TrajectoryMatchers = a.matcherRows(designs)
	r.DetectionByScenario = a.scenarioRows(builds)
	r.FalseAlarms = falseAlarmRows(designs, runs)
	r.PassK, r.PassKByCategory = a.passKRows(builds)
	r.Cost = a.costRows(designs, runs)
	r.PairedByMutant = pairedMutantRows(designs, builds, runs, nil)
	r.Paired = pairedRows(designs, classes, r.PairedByMutant)
	r.DetectionByMutantHarmful = mutantHarmRows(designs, builds, runs)
	r.DetectionHarmful = harmRows(designs, classes, builds, r.DetectionByMutantHarmful)
	r.PairedByMutantHarmful = pairedMutantRows(designs, builds, runs, func(r *suiteRun) bool { return r.harmful })
	r.PairedHarmful = pairedRows(designs, classes, r.PairedByMutantHarmful)
	r.Blames = a.blameRows(designs)
	r.Mutants = a.mutantRows(designs, builds, runs)
	r.Provenance = provenance(a.cfg.Provenance, builds)
	r.Coordination, r.CoordinationByClass = a.coordinationRows(builds, classes)
	r.Examples = runs.examples()
	r.Hypotheses = evaluateHypotheses(r)
	r.Robustness = robustnessRows(r)
	return r
}

// mutantBuilds lists the mutated builds, by class order then id.
func (a *Aggregator) mutantBuilds() []BuildInfo {
	var out []BuildInfo
	for _, b := range a.builds {
		if b.ID != CleanBuild {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(x, y BuildInfo) int {
		return cmp.Or(compareClass(x.Class, y.Class), cmp.Compare(x.ID, y.ID))
	})
	return out
}

// classes lists the classes of the mutated builds in report order.
func (a *Aggregator) classes(builds []BuildInfo) []string {
	var out []string
	for _, b := range builds {
		if !slices.Contains(out, b.Class) {
			out = append(out, b.Class)
		}
	}
	slices.SortFunc(out, compareClass)
	return out
}

// buildRank orders builds: clean first, then the mutated builds' order.
func buildRank(builds []BuildInfo) map[string]int {
	rank := map[string]int{CleanBuild: 0}
	for i, b := range builds {
		rank[b.ID] = i + 1
	}
	return rank
}

// view shares the suite table with a Results (the Aggregator copies it
// before its next change) and resolves each run's detection and top blame.
func (a *Aggregator) view(builds []BuildInfo) *suiteView {
	a.shared = true
	t := a.suites
	v := &suiteView{
		t:         t,
		designs:   slices.Clone(a.designIDs.names),
		scenarios: slices.Clone(a.scenarioIDs.names),
		locs:      slices.Clone(a.locIDs.names),
		builds:    make([]BuildInfo, len(a.buildIDs.names)),
		order:     make([]int32, len(t.suites)),
		top:       make([]id, len(t.suites)),
		marks:     make([]uint8, len(t.suites)),
	}
	for i, name := range a.buildIDs.names {
		b := a.builds[name]
		if name == CleanBuild {
			b.Class, b.Location = "", ""
		}
		v.builds[i] = b
	}
	for i := range t.suites {
		s := &t.suites[i]
		v.order[i], v.top[i] = int32(i), -1
		if s.anyFlagged() {
			v.marks[i] |= markRaw
		}
		if a.harmful(t.keys[i].build, t.keys[i].trial) {
			v.marks[i] |= markHarmful
		}
		if !s.anyFresh() {
			continue
		}
		v.marks[i] |= markDetected
		v.top[i] = s.top(v.scenarios, v.locs)
		loc := v.builds[t.keys[i].build].Location
		if top := v.locs[v.top[i]]; top != "" && top == loc {
			v.marks[i] |= markExact
		}
		if adjacent(v.locs[v.top[i]], loc) {
			v.marks[i] |= markAdjacent
		}
	}
	rank := buildRank(builds)
	slices.SortFunc(v.order, func(x, y int32) int {
		kx, ky := t.keys[x], t.keys[y]
		return cmp.Or(cmp.Compare(v.designs[kx.design], v.designs[ky.design]),
			cmp.Compare(rank[v.builds[kx.build].ID], rank[v.builds[ky.build].ID]), cmp.Compare(kx.trial, ky.trial))
	})
	return v
}

// validity applies the gate: every design must catch every hand-written
// control mutant (a generated one is measured, not a gate)
// in every trial, by the rule detection counts by: it flags some scenario
// that it does not flag on the clean twin (same design, scenario and
// trial). A missing suite run counts as missed, and a run without a
// control mutant, or whose control mutants never ran, is not validated at
// all.
func (a *Aggregator) validity(designs []string, builds []BuildInfo, runs *suiteView) Validity {
	type key struct {
		design, build string
		trial         int
	}
	detected := make(map[key]bool)
	runs.each(func(r *suiteRun) {
		if isControl(r.build.Class) && !r.build.generated() {
			detected[key{r.design, r.build.ID, r.trial}] = r.detected
		}
	})
	var missed []string
	controls, checked := 0, 0
	for _, b := range builds {
		// A generated control mutant is measured like any other; only
		// the hand-written ones, chosen to be caught, gate validity.
		if !isControl(b.Class) || b.generated() {
			continue
		}
		controls++
		var trials []int
		if id, ok := a.buildIDs.lookup(b.ID); ok && a.trials[id] != nil {
			trials = a.trials[id].sorted()
		}
		if len(trials) == 0 || len(designs) == 0 {
			missed = append(missed, fmt.Sprintf("control mutant %s has no suite runs", b.ID))
			continue
		}
		for _, d := range designs {
			for _, t := range trials {
				checked++
				if !detected[key{d, b.ID, t}] {
					missed = append(missed, fmt.Sprintf("design %s missed control mutant %s in trial %d", d, b.ID, t))
				}
			}
		}
	}
	if controls == 0 {
		return Validity{Valid: false, Reason: NoControlReason}
	}
	if len(missed) == 0 {
		return Validity{Valid: true, ControlSuiteRuns: checked, ControlMutants: controls}
	}
	reason := missed[0]
	if len(missed) > 1 {
		reason += fmt.Sprintf(" (and %d more: %s)", len(missed)-1, strings.Join(missed[1:min(len(missed), 6)], "; "))
	}
	if checked > 0 {
		reason += "; a design catches the control only by flagging a scenario it does not flag on the clean twin"
	} else {
		reason += ": the harness cannot be validated"
	}
	return Validity{Valid: false, Reason: reason, ControlSuiteRuns: checked, ControlMutants: controls}
}

// NoControlReason is the validity reason of a run without a control
// mutant: the control class is what shows the harness can catch a defect
// at all.
const NoControlReason = "no control mutant in the catalogue: the harness cannot be validated"

// detectionRows computes detection and localisation per design × class
// from the per-mutant rows: clustered on the mutants, with the trial-level
// figures beside them.
func detectionRows(designs, classes []string, builds []BuildInfo, byMutant []MutantDetection) ([]DetectionRow, []LocalisationRow) {
	var dets []DetectionRow
	var locs []LocalisationRow
	for _, d := range designs {
		for _, c := range classes {
			row := DetectionRow{Design: d, Class: c}
			l := LocalisationRow{Design: d, Class: c}
			for _, b := range builds {
				if b.Class == c {
					row.Mutants++
				}
			}
			var det, raw, exact, adj []Cluster
			for _, m := range byMutant {
				if m.Design != d || m.Class != c {
					continue
				}
				row.Detected += m.Detected
				row.RawDetected += m.RawDetected
				row.N += m.N
				l.Flagged += m.Detected
				l.Exact += m.Exact
				l.Adjacent += m.Adjacent
				det = append(det, Cluster{m.Detected, m.N})
				raw = append(raw, Cluster{m.RawDetected, m.N})
				exact = append(exact, Cluster{m.Exact, m.Detected})
				adj = append(adj, Cluster{m.Adjacent, m.Detected})
			}
			row.Rate, row.Units, row.CI95 = clustered(det)
			row.RawRate, _, row.RawCI95 = clustered(raw)
			row.TrialRate, row.TrialCI95 = rateOf(row.Detected, row.N), wilsonCI(row.Detected, row.N)
			row.RawTrialRate, row.RawTrialCI95 = rateOf(row.RawDetected, row.N), wilsonCI(row.RawDetected, row.N)
			l.ExactRate, l.Units, l.ExactCI95 = clustered(exact)
			l.AdjacentRate, _, l.AdjacentCI95 = clustered(adj)
			l.ExactTrialRate, l.ExactTrialCI95 = rateOf(l.Exact, l.Flagged), wilsonCI(l.Exact, l.Flagged)
			l.AdjacentTrialRate, l.AdjacentTrialCI95 = rateOf(l.Adjacent, l.Flagged), wilsonCI(l.Adjacent, l.Flagged)
			dets, locs = append(dets, row), append(locs, l)
		}
	}
	return dets, locs
}

// clustered is [ClusteredRate] as a rate, its number of mutants and its CI.
func clustered(cs []Cluster) (F4, int, CI) {
	rate, m, lo, hi := ClusteredRate(cs)
	return f4(rate), m, ciOf(lo, hi)
}

// designBuildRows makes one row per design × build, in that order, and
// returns the index of a suite run's row.
func designBuildRows[T any](designs []string, builds []BuildInfo, row func(string, BuildInfo) T) ([]T, func(*suiteRun) (int, bool)) {
	type key struct{ design, build string }
	idx := make(map[key]int, len(designs)*len(builds))
	var out []T
	for _, d := range designs {
		for _, b := range builds {
			idx[key{d, b.ID}] = len(out)
			out = append(out, row(d, b))
		}
	}
	return out, func(r *suiteRun) (int, bool) {
		j, ok := idx[key{r.design, r.build.ID}]
		return j, ok
	}
}

// mutantDetectionRows computes detection and localisation per design ×
// mutant.
func mutantDetectionRows(designs []string, builds []BuildInfo, runs *suiteView) []MutantDetection {
	out, row := designBuildRows(designs, builds, func(d string, b BuildInfo) MutantDetection {
		return MutantDetection{Design: d, Build: b.ID, Class: b.Class}
	})
	runs.each(func(r *suiteRun) {
		j, ok := row(r)
		if !ok {
			return
		}
		out[j].N++
		if r.raw {
			out[j].RawDetected++
		}
		if r.detected {
			out[j].Detected++
			if r.exact {
				out[j].Exact++
			}
			if r.adjacent {
				out[j].Adjacent++
			}
		}
	})
	for i := range out {
		m := &out[i]
		m.Rate, m.CI95 = rateOf(m.Detected, m.N), wilsonCI(m.Detected, m.N)
		m.RawRate, m.RawCI95 = rateOf(m.RawDetected, m.N), wilsonCI(m.RawDetected, m.N)
	}
	return out
}

// scenarioRows is the design × mutant × scenario matrix.
func (a *Aggregator) scenarioRows(builds []BuildInfo) []ScenarioDetection {
	rank := buildRank(builds)
	out := make([]ScenarioDetection, 0, len(a.cells))
	for k, c := range a.cells {
		build := a.buildIDs.name(k.build)
		out = append(out, ScenarioDetection{
			Design: a.designIDs.name(k.design), Build: build, Class: a.builds[build].Class, Scenario: a.scenarioIDs.name(k.scenario),
			Detected: c.detected, RawDetected: c.raw, N: c.n,
			Rate: rateOf(c.detected, c.n), CI95: wilsonCI(c.detected, c.n),
			RawRate: rateOf(c.raw, c.n), RawCI95: wilsonCI(c.raw, c.n),
		})
	}
	slices.SortFunc(out, func(x, y ScenarioDetection) int {
		return cmp.Or(cmp.Compare(x.Design, y.Design), cmp.Compare(rank[x.Build], rank[y.Build]), cmp.Compare(x.Scenario, y.Scenario))
	})
	return out
}

// falseAlarmRows counts flagged clean suite runs per design.
func falseAlarmRows(designs []string, runs *suiteView) []FalseAlarmRow {
	idx := make(map[string]int, len(designs))
	out := make([]FalseAlarmRow, len(designs))
	for i, d := range designs {
		idx[d] = i
		out[i].Design = d
	}
	runs.each(func(r *suiteRun) {
		j, ok := idx[r.design]
		if !ok || r.build.ID != CleanBuild {
			return
		}
		row := &out[j]
		row.N++
		if !r.raw {
			return
		}
		row.Flagged++
		switch {
		case r.slipped:
			row.ExplainedBySlip++
		case r.faulted:
			row.ExplainedByFault++
		default:
			row.Unexplained++
		}
	})
	for i := range out {
		row := &out[i]
		row.Rate, row.CI95 = rateOf(row.Flagged, row.N), wilsonCI(row.Flagged, row.N)
		row.UnexplainedRate, row.UnexplainedCI95 = rateOf(row.Unexplained, row.N), wilsonCI(row.Unexplained, row.N)
	}
	return out
}

// passKRows computes pass^k per build × scenario and its mean per category,
// each at the k that [passKPoints] keeps.
func (a *Aggregator) passKRows(builds []BuildInfo) ([]PassKRow, []PassKCategoryRow) {
	rank := buildRank(builds)
	rows := make([]PassKRow, 0, len(a.passk))
	for k, p := range a.passk {
		sc := a.scenarioIDs.name(k.scenario)
		ks := passKPoints(p.n)
		vals := make([]F4, len(ks))
		for i, kk := range ks {
			vals[i] = f4(PassK(p.n, p.c, kk))
		}
		rows = append(rows, PassKRow{
			Build: a.buildIDs.name(k.build), Scenario: sc, Category: a.category[sc],
			N: p.n, C: p.c, Rate: rateOf(p.c, p.n), CI95: wilsonCI(p.c, p.n),
			K: ks, PassK: vals,
		})
	}
	slices.SortFunc(rows, func(x, y PassKRow) int {
		return cmp.Or(cmp.Compare(rank[x.Build], rank[y.Build]), cmp.Compare(x.Scenario, y.Scenario))
	})
	groups := passKGroups(rows)
	cats := make([]PassKCategoryRow, 0, len(groups))
	for _, g := range groups {
		ks := passKPoints(g.n)
		vals := make([]F4, len(ks))
		for i, k := range ks {
			vals[i] = f4(g.mean(k))
		}
		cats = append(cats, PassKCategoryRow{Build: g.build, Category: g.category, Scenarios: len(g.rows), N: g.n, K: ks, PassK: vals})
	}
	return rows, cats
}

// passKGroup is a category's pass^k rows within one build.
type passKGroup struct {
	build, category string
	n               int // the fewest trials of any of its scenarios
	rows            []*PassKRow
}

// mean is the mean over the group's scenarios of pass^k, each computed
// from its n and c.
func (g passKGroup) mean(k int) float64 {
	sum := 0.0
	for _, r := range g.rows {
		sum += PassK(r.N, r.C, k)
	}
	return sum / float64(len(g.rows))
}

// passKGroups groups pass^k rows by build and category, in the rows'
// build order then by category.
func passKGroups(rows []PassKRow) []passKGroup {
	type key struct{ build, category string }
	idx := make(map[key]int)
	var out []passKGroup
	for i := range rows {
		r := &rows[i]
		k := key{r.Build, r.Category}
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, passKGroup{build: r.Build, category: r.Category, n: r.N})
		}
		out[j].rows = append(out[j].rows, r)
		out[j].n = min(out[j].n, r.N)
	}
	buildPos := make(map[string]int)
	for _, g := range out {
		if _, ok := buildPos[g.build]; !ok {
			buildPos[g.build] = len(buildPos)
		}
	}
	slices.SortStableFunc(out, func(x, y passKGroup) int {
		return cmp.Or(cmp.Compare(buildPos[x.build], buildPos[y.build]), cmp.Compare(x.category, y.category))
	})
	return out
}

// passKFull is how many trials results.json keeps every pass^k for.
const passKFull = 20

// passKPoints lists the k at which results.json keeps pass^k for n trials:
// every k = 1..n when n <= 20; else k = 1..10, 20, 50, 100 and n, those up
// to n. pass_k.csv has every k = 1..n; a consumer can compute any other k
// from n and c.
func passKPoints(n int) []int {
	ks := make([]int, 0, min(max(n, 0), passKFull))
	if n <= passKFull {
		for k := 1; k <= n; k++ {
			ks = append(ks, k)
		}
		return ks
	}
	for _, k := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 50, 100, n} {
		if k <= n && (len(ks) == 0 || ks[len(ks)-1] < k) {
			ks = append(ks, k)
		}
	}
	return ks
}

// costRows sums each design's cost over its suite runs.
func (a *Aggregator) costRows(designs []string, runs *suiteView) []CostRow {
	suites := make(map[string]int)
	runs.each(func(r *suiteRun) { suites[r.design]++ })
	w := a.cfg.CostWeights
	var out []CostRow
	for _, d := range designs {
		row := CostRow{Design: d, Currency: w.Currency, SuiteRuns: suites[d]}
		var sp spend
		if id, ok := a.designIDs.lookup(d); ok && a.spent[id] != nil {
			sp = *a.spent[id]
		}
		c, wall := sp.cost, sp.wallNS
		row.Cost = c
		row.WallMS = wall / 1e6
		money := w.Money(c)
		row.Money = f4(money)
		if n := row.SuiteRuns; n > 0 {
			row.PerSuite = meansOf(c, n)
			row.PerSuite.WallMS = f4(float64(wall) / 1e6 / float64(n))
			row.MoneyPerSuite = f4(money / float64(n))
		}
		out = append(out, row)
	}
	return out
}

// pairedMutantRows tabulates, for every pair of designs and mutated build,
// the (mutant, trial) suite runs both designs evaluated (those keep
// accepts, all when it is nil): detection, and exact localisation among the
// trials both detected.
func pairedMutantRows(designs []string, builds []BuildInfo, runs *suiteView, keep func(r *suiteRun) bool) []PairedMutant {
	type key struct {
		design, build string
		trial         int
	}
	type mark struct{ detected, exact bool }
	marks := make(map[key]mark)
	trials := make(map[string][]int) // per build, in order, each once
	seen := make(map[key]bool)
	runs.each(func(r *suiteRun) {
		b := r.build.ID
		if b == CleanBuild || (keep != nil && !keep(r)) {
			return
		}
		marks[key{r.design, b, r.trial}] = mark{r.detected, r.exact}
		if t := (key{"", b, r.trial}); !seen[t] {
			seen[t] = true
			trials[b] = append(trials[b], r.trial)
		}
	})
	var out []PairedMutant
	for i, da := range designs {
		for _, db := range designs[i+1:] {
			for _, b := range builds {
				row := PairedMutant{A: da, B: db, Build: b.ID, Class: b.Class}
				for _, t := range trials[b.ID] {
					ma, okA := marks[key{da, b.ID, t}]
					mb, okB := marks[key{db, b.ID, t}]
					if !okA || !okB {
						continue
					}
					cell4(&row.Both, &row.OnlyA, &row.OnlyB, &row.Neither, ma.detected, mb.detected)
					if ma.detected && mb.detected {
						cell4(&row.ExactBoth, &row.ExactOnlyA, &row.ExactOnlyB, &row.ExactNeither, ma.exact, mb.exact)
					}
				}
				out = append(out, row)
			}
		}
	}
	return out
}

// cell4 counts one paired outcome into its cell.
func cell4(both, onlyA, onlyB, neither *int, a, b bool) {
	switch {
	case a && b:
		*both++
	case a:
		*onlyA++
	case b:
		*onlyB++
	default:
		*neither++
	}
}

// pairedRows compares every pair of designs on every class, from the
// per-mutant tables: the clustered paired difference and McNemar's exact
// test on the mutants, the trial-level table and its exact test beside
// them, and both p-values Holm-adjusted over the family of rows.
func pairedRows(designs, classes []string, byMutant []PairedMutant) []PairedRow {
	var out []PairedRow
	for _, c := range classes {
		for i, da := range designs {
			for _, db := range designs[i+1:] {
				row := PairedRow{A: da, B: db, Class: c}
				var ps []Pair
				var sum Pair
				for _, m := range byMutant {
					if m.A == da && m.B == db && m.Class == c {
						ps = append(ps, m.detection())
						sum = sum.add(m.detection())
					}
				}
				d, units, lo, hi := ClusteredPaired(ps)
				row.Diff, row.Units, row.DiffCI95 = f4(d), units, ciOf(lo, hi)
				var p float64
				row.MoreA, row.MoreB, p = MutantMcNemar(ps)
				row.PValue = f4(p)
				row.N, row.Both, row.OnlyA, row.OnlyB, row.Neither = sum.N(), sum.Both, sum.OnlyA, sum.OnlyB, sum.Neither
				row.TrialPValue = f4(McNemarExact(sum.OnlyA, sum.OnlyB))
				out = append(out, row)
			}
		}
	}
	mutantP, trialP := make([]float64, len(out)), make([]float64, len(out))
	for i, r := range out {
		mutantP[i], trialP[i] = float64(r.PValue), float64(r.TrialPValue)
	}
	mutantP, trialP = Holm(mutantP), Holm(trialP)
	for i := range out {
		out[i].PHolm, out[i].TrialPHolm = f4(mutantP[i]), f4(trialP[i])
	}
	return out
}

// blameRows lists, per design, what its flagged items blamed.
func (a *Aggregator) blameRows(designs []string) []BlameRow {
	out := make([]BlameRow, 0, len(designs))
	for _, d := range designs {
		row := BlameRow{Design: d}
		if id, ok := a.designIDs.lookup(d); ok && a.spent[id] != nil {
			b := a.spent[id].blame
			row.Flagged, row.Edge, row.Agent = b.flagged, b.edge, b.agent
		}
		out = append(out, row)
	}
	return out
}
