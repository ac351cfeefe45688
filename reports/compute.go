package reports

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/baton-lab/baton/mission"
)

// Results computes every aggregate from what has been added so far. It
// does not change the aggregation and may be called again after more items.
func (a *Aggregator) Results() *Results {
	r := &Results{
		Schema:      Schema,
		Protocol:    a.cfg.Protocol,
		Thresholds:  a.cfg.Thresholds,
		CostWeights: a.cfg.CostWeights,
		Warnings:    a.warn.list(),
		Agreement:   []AgreementRow{},
	}
	designs := slices.Sorted(maps.Keys(a.designs))
	builds := a.mutantBuilds()
	classes := a.classes(builds)

	r.SuiteRuns = a.suiteRows(designs, builds)
	r.Validity = a.validity(designs, builds, r.SuiteRuns)
	r.Detection, r.Localisation = detectionRows(designs, classes, builds, r.SuiteRuns)
	r.DetectionByMutant = mutantDetectionRows(designs, builds, r.SuiteRuns)
	r.DetectionByScenario = a.scenarioRows(builds)
	r.FalseAlarms = falseAlarmRows(designs, r.SuiteRuns)
	r.PassK, r.PassKByCategory = a.passKRows(builds)
	r.Cost = a.costRows(designs)
	r.Paired = pairedRows(designs, classes, r.SuiteRuns)
	r.Mutants = a.mutantRows(builds, r.SuiteRuns)
	r.Hypotheses = evaluateHypotheses(r)
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

// suiteRows turns the suite accumulators into sorted rows.
func (a *Aggregator) suiteRows(designs []string, builds []BuildInfo) []SuiteRunRow {
	rank := buildRank(builds)
	out := make([]SuiteRunRow, 0, len(a.suites))
	for k, s := range a.suites {
		b := a.builds[k.build]
		row := SuiteRunRow{
			Design:    k.design,
			Build:     k.build,
			Class:     b.Class,
			Trial:     k.trial,
			Scenarios: s.scenarios,
			Flagged:   sortedCopy(s.flagged),
			NewFlags:  sortedCopy(s.newFlags),
			Raw:       len(s.flagged) > 0,
			Detected:  len(s.newFlags) > 0,
			Slipped:   s.slipped,
			Faulted:   s.faulted,
			Location:  b.Location,
			Reached:   s.reached,
		}
		if k.build == CleanBuild {
			row.Class, row.Location = "", ""
		}
		if row.Detected {
			row.TopBlame = s.topBlame()
			row.Exact = row.TopBlame != "" && row.TopBlame == row.Location
			row.Adjacent = adjacent(row.TopBlame, row.Location)
		}
		out = append(out, row)
	}
	slices.SortFunc(out, func(x, y SuiteRunRow) int {
		return cmp.Or(cmp.Compare(x.Design, y.Design), cmp.Compare(rank[x.Build], rank[y.Build]), cmp.Compare(x.Trial, y.Trial))
	})
	return out
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	if out == nil {
		out = []string{}
	}
	slices.Sort(out)
	return out
}

// validity applies the gate: every design must raise some flag on every
// (control mutant, trial) suite run. A missing suite run counts as missed.
func (a *Aggregator) validity(designs []string, builds []BuildInfo, runs []SuiteRunRow) Validity {
	type key struct {
		design, build string
		trial         int
	}
	raw := make(map[key]bool)
	for _, r := range runs {
		raw[key{r.Design, r.Build, r.Trial}] = r.Raw
	}
	var missed []string
	checked := 0
	for _, b := range builds {
		if !isControl(b.Class) {
			continue
		}
		trials := slices.Sorted(maps.Keys(a.trials[b.ID]))
		for _, d := range designs {
			for _, t := range trials {
				checked++
				if !raw[key{d, b.ID, t}] {
					missed = append(missed, fmt.Sprintf("design %s missed control mutant %s in trial %d", d, b.ID, t))
				}
			}
		}
	}
	switch {
	case len(missed) > 0:
		reason := missed[0]
		if len(missed) > 1 {
			reason += fmt.Sprintf(" (and %d more: %s)", len(missed)-1, strings.Join(missed[1:min(len(missed), 6)], "; "))
		}
		return Validity{Valid: false, Reason: reason, ControlSuiteRuns: checked}
	case checked == 0:
		return Validity{Valid: true, Reason: "no control suite run: the gate was not exercised", ControlSuiteRuns: 0}
	}
	return Validity{Valid: true, ControlSuiteRuns: checked}
}

// detectionRows computes detection and localisation per design × class.
func detectionRows(designs, classes []string, builds []BuildInfo, runs []SuiteRunRow) ([]DetectionRow, []LocalisationRow) {
	var det []DetectionRow
	var loc []LocalisationRow
	for _, d := range designs {
		for _, c := range classes {
			row := DetectionRow{Design: d, Class: c}
			for _, b := range builds {
				if b.Class == c {
					row.Mutants++
				}
			}
			l := LocalisationRow{Design: d, Class: c}
			for _, r := range runs {
				if r.Design != d || r.Build == CleanBuild || r.Class != c {
					continue
				}
				row.N++
				if r.Raw {
					row.RawDetected++
				}
				if r.Detected {
					row.Detected++
					l.Flagged++
					if r.Exact {
						l.Exact++
					}
					if r.Adjacent {
						l.Adjacent++
					}
				}
			}
			row.Rate, row.CI95 = rateOf(row.Detected, row.N), wilsonCI(row.Detected, row.N)
			row.RawRate, row.RawCI95 = rateOf(row.RawDetected, row.N), wilsonCI(row.RawDetected, row.N)
			l.ExactRate, l.ExactCI95 = rateOf(l.Exact, l.Flagged), wilsonCI(l.Exact, l.Flagged)
			l.AdjacentRate, l.AdjacentCI95 = rateOf(l.Adjacent, l.Flagged), wilsonCI(l.Adjacent, l.Flagged)
			det = append(det, row)
			loc = append(loc, l)
		}
	}
	return det, loc
}

// mutantDetectionRows computes detection per design × mutant.
func mutantDetectionRows(designs []string, builds []BuildInfo, runs []SuiteRunRow) []MutantDetection {
	type key struct{ design, build string }
	idx := make(map[key]int)
	var out []MutantDetection
	for _, d := range designs {
		for _, b := range builds {
			idx[key{d, b.ID}] = len(out)
			out = append(out, MutantDetection{Design: d, Build: b.ID, Class: b.Class})
		}
	}
	for _, r := range runs {
		i, ok := idx[key{r.Design, r.Build}]
		if !ok {
			continue
		}
		out[i].N++
		if r.Raw {
			out[i].RawDetected++
		}
		if r.Detected {
			out[i].Detected++
		}
	}
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
		out = append(out, ScenarioDetection{
			Design: k.design, Build: k.build, Class: a.builds[k.build].Class, Scenario: k.scenario,
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
func falseAlarmRows(designs []string, runs []SuiteRunRow) []FalseAlarmRow {
	var out []FalseAlarmRow
	for _, d := range designs {
		row := FalseAlarmRow{Design: d}
		for _, r := range runs {
			if r.Design != d || r.Build != CleanBuild {
				continue
			}
			row.N++
			if !r.Raw {
				continue
			}
			row.Flagged++
			switch {
			case r.Slipped:
				row.ExplainedBySlip++
			case r.Faulted:
				row.ExplainedByFault++
			default:
				row.Unexplained++
			}
		}
		row.Rate, row.CI95 = rateOf(row.Flagged, row.N), wilsonCI(row.Flagged, row.N)
		row.UnexplainedRate, row.UnexplainedCI95 = rateOf(row.Unexplained, row.N), wilsonCI(row.Unexplained, row.N)
		out = append(out, row)
	}
	return out
}

// passKRows computes pass^k per build × scenario and its mean per category.
func (a *Aggregator) passKRows(builds []BuildInfo) ([]PassKRow, []PassKCategoryRow) {
	rank := buildRank(builds)
	rows := make([]PassKRow, 0, len(a.passk))
	for k, p := range a.passk {
		rows = append(rows, PassKRow{
			Build: k.build, Scenario: k.scenario, Category: a.category[k.scenario],
			N: p.n, C: p.c, Rate: rateOf(p.c, p.n), CI95: wilsonCI(p.c, p.n),
			PassK: f4s(PassKCurve(p.n, p.c)),
		})
	}
	slices.SortFunc(rows, func(x, y PassKRow) int {
		return cmp.Or(cmp.Compare(rank[x.Build], rank[y.Build]), cmp.Compare(x.Scenario, y.Scenario))
	})

	type key struct{ build, category string }
	groups := make(map[key][]PassKRow)
	for _, r := range rows {
		k := key{r.Build, r.Category}
		groups[k] = append(groups[k], r)
	}
	cats := make([]PassKCategoryRow, 0, len(groups))
	for k, g := range groups {
		n := g[0].N
		for _, r := range g {
			n = min(n, r.N)
		}
		mean := make([]F4, n)
		for i := range n {
			sum := 0.0
			for _, r := range g {
				sum += PassK(r.N, r.C, i+1)
			}
			mean[i] = f4(sum / float64(len(g)))
		}
		cats = append(cats, PassKCategoryRow{Build: k.build, Category: k.category, Scenarios: len(g), N: n, PassK: mean})
	}
	slices.SortFunc(cats, func(x, y PassKCategoryRow) int {
		return cmp.Or(cmp.Compare(rank[x.Build], rank[y.Build]), cmp.Compare(x.Category, y.Category))
	})
	return rows, cats
}

func f4s(v []float64) []F4 {
	out := make([]F4, len(v))
	for i, x := range v {
		out[i] = f4(x)
	}
	return out
}

// costRows sums each design's cost over its suite runs.
func (a *Aggregator) costRows(designs []string) []CostRow {
	w := a.cfg.CostWeights
	var out []CostRow
	for _, d := range designs {
		row := CostRow{Design: d, Currency: w.Currency}
		var c mission.Cost
		var wall int64
		for k, s := range a.suites {
			if k.design != d {
				continue
			}
			row.SuiteRuns++
			c.Add(s.cost)
			wall += s.wallNS
		}
		row.ModelCalls, row.ToolCalls, row.Tokens, row.SandboxResets = c.ModelCalls, c.ToolCalls, c.Tokens, c.SandboxResets
		row.WallMS = wall / 1e6
		money := float64(c.ModelCalls)*w.PerModelCall + float64(c.Tokens)/1000*w.Per1kTokens +
			float64(c.ToolCalls)*w.PerToolCall + float64(c.SandboxResets)*w.PerSandboxReset
		row.Money = f4(money)
		if n := row.SuiteRuns; n > 0 {
			nf := float64(n)
			row.PerSuite = CostMeans{
				ModelCalls:    f4(float64(c.ModelCalls) / nf),
				ToolCalls:     f4(float64(c.ToolCalls) / nf),
				Tokens:        f4(float64(c.Tokens) / nf),
				SandboxResets: f4(float64(c.SandboxResets) / nf),
				WallMS:        f4(float64(wall) / 1e6 / nf),
			}
			row.MoneyPerSuite = f4(money / nf)
		}
		out = append(out, row)
	}
	return out
}

// pairedRows runs McNemar's exact test for every pair of designs and class
// over the (mutant, trial) suite runs both designs evaluated.
func pairedRows(designs, classes []string, runs []SuiteRunRow) []PairedRow {
	type key struct {
		design, build string
		trial         int
	}
	det := make(map[key]bool)
	type mt struct {
		build, class string
		trial        int
	}
	var units []mt
	seen := make(map[mt]bool)
	for _, r := range runs {
		if r.Build == CleanBuild {
			continue
		}
		det[key{r.Design, r.Build, r.Trial}] = r.Detected
		u := mt{r.Build, r.Class, r.Trial}
		if !seen[u] {
			seen[u] = true
			units = append(units, u)
		}
	}
	var out []PairedRow
	for _, c := range classes {
		for i, da := range designs {
			for _, db := range designs[i+1:] {
				row := PairedRow{A: da, B: db, Class: c}
				for _, u := range units {
					if u.class != c {
						continue
					}
					va, okA := det[key{da, u.build, u.trial}]
					vb, okB := det[key{db, u.build, u.trial}]
					if !okA || !okB {
						continue
					}
					row.N++
					switch {
					case va && vb:
						row.Both++
					case va:
						row.OnlyA++
					case vb:
						row.OnlyB++
					default:
						row.Neither++
					}
				}
				row.PValue = f4(McNemarExact(row.OnlyA, row.OnlyB))
				out = append(out, row)
			}
		}
	}
	return out
}

// mutantRows computes each mutant's status.
func (a *Aggregator) mutantRows(builds []BuildInfo, runs []SuiteRunRow) []MutantRow {
	detectedBy := make(map[string]map[string]bool)
	reached := make(map[string]int)
	for _, r := range runs {
		reached[r.Build] += r.Reached
		if r.Detected {
			if detectedBy[r.Build] == nil {
				detectedBy[r.Build] = make(map[string]bool)
			}
			detectedBy[r.Build][r.Design] = true
		}
	}
	out := make([]MutantRow, 0, len(builds))
	for _, b := range builds {
		o := a.obs[b.ID]
		if o == nil {
			o = &obsStats{}
		}
		row := MutantRow{
			ID: b.ID, Class: b.Class, Location: b.Location, Operator: b.Operator,
			Observations: o.n, TraceDiffs: o.diffs, Reached: reached[b.ID] + o.reached,
			DetectedBy: slices.Sorted(maps.Keys(detectedBy[b.ID])),
		}
		if row.DetectedBy == nil {
			row.DetectedBy = []string{}
		}
		compared := o.n - o.missingTwin
		switch {
		case len(row.DetectedBy) > 0:
			row.Status = StatusKilled
		case compared == 0:
			row.Status = StatusNotObserved
		case o.diffs > 0:
			row.Status = StatusSurvived
		case row.Reached > 0:
			row.Status = StatusEquivalent
		default:
			row.Status = StatusNoCoverage
		}
		out = append(out, row)
	}
	return out
}
