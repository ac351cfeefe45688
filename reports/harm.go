package reports

import (
	"cmp"
	"maps"
	"slices"
)

// Harm comes from the oracle, never from a design: a (mutant, trial) is
// harmful when, in some scenario, the mutated build's integrated
// observation run left an end state (its records, without the call log)
// different from its clean twin's under the same seed. A design's
// detection is then reported over the harmful units as the headline
// ([HarmRow], [MutantHarm]), and its flags on the benign units apart: a
// flag on a trial in which the mutant did no damage caught a violation,
// not a failure, and is never counted as detecting one. The hypotheses use
// this view; the mutant stays the unit of analysis.

// MutantHarm is one design's detection of one mutant in the harmful view:
// of the trials in which the mutant did harm, how many the design detected
// (a scenario flagged that the clean twin does not flag), and among those
// how many it localised exactly and adjacently; of the benign trials, how
// many it flagged anyway.
type MutantHarm struct {
	Design         string `json:"design"`
	Build          string `json:"build"`
	Class          string `json:"class"`
	Harmful        int    `json:"harmful"`  // trials with harm, with a suite run of the design
	Detected       int    `json:"detected"` // of Harmful
	Rate           F4     `json:"rate"`
	CI95           CI     `json:"ci95"`
	Exact          int    `json:"exact"`    // of Detected
	Adjacent       int    `json:"adjacent"` // of Detected
	Benign         int    `json:"benign"`   // trials without harm
	BenignDetected int    `json:"benign_detected"`
}

// HarmRow is detection[design][class] in the harmful view, the mutant as
// the unit: Rate is the mean over the class's harmful mutants (harmful in
// some trial) of each one's share of its harmful trials detected, CI95 its
// clustered interval on n = Units; the trial-level figures over the
// harmful (mutant, trial) suite runs stand beside it. The benign side is
// apart: BenignMutants never did harm, FlaggedBenign of them the design
// detected anyway ("caught a violation that did no damage"), and
// BenignDetected of the BenignN benign (mutant, trial) suite runs of every
// mutant it flagged.
type HarmRow struct {
	Design    string `json:"design"`
	Class     string `json:"class"`
	Mutants   int    `json:"mutants"`
	Units     int    `json:"units"` // harmful mutants: the n of the clustered interval
	Rate      F4     `json:"rate"`
	CI95      CI     `json:"ci95"`
	Detected  int    `json:"detected"`
	N         int    `json:"n"` // harmful suite runs
	TrialRate F4     `json:"trial_rate"`
	TrialCI95 CI     `json:"trial_ci95"`

	BenignMutants  int `json:"benign_mutants"`
	FlaggedBenign  int `json:"flagged_benign"`
	BenignDetected int `json:"benign_detected"`
	BenignN        int `json:"benign_n"`
	BenignRate     F4  `json:"benign_rate"`
	BenignCI95     CI  `json:"benign_ci95"`
}

// Provenance is where a run's mutants and contracts came from, so that a
// reader knows what a detection rate is a rate of: a hand-written catalogue
// (written with the contracts that catch it: an upper bound) or the
// generated space, whole or sampled.
type Provenance struct {
	// Space is "catalogue" (the hand-written catalogue), "generated" (the
	// mission's generated space, with the catalogue's control mutants as
	// the validity gate) or "both".
	Space string `json:"space"`
	// PerClass is the generated space's sample size per class (0: all of
	// it) and SampleSeed the sample's seed.
	PerClass   int    `json:"per_class"`
	SampleSeed uint64 `json:"sample_seed"`
	// Catalogue names the hand-written catalogue ("default": the
	// mission's own), CatalogueSHA256 the hash of the run's mutant list
	// (the catalogue's for the catalogue space, else the exact list's)
	// and ContractsSHA256 the contracts design C checked.
	Catalogue       string `json:"catalogue"`
	CatalogueSHA256 string `json:"catalogue_sha256"`
	ContractsSHA256 string `json:"contracts_sha256"`
	// List is the run folder's file holding the exact list of generated
	// mutants ("" for the catalogue space).
	List string `json:"list,omitempty"`
	// HandWritten and Generated count the run's mutants of each origin.
	HandWritten int `json:"hand_written"`
	Generated   int `json:"generated"`
}

// harmStats is what a mutated build's observation runs showed against
// their clean twins' end states.
type harmStats struct {
	harmful trialSet // trials in which some scenario's end state differed
	runs    int      // observation runs whose end state differed
}

// addHarm compares an observation run's end state with its clean twin's.
func (a *Aggregator) addHarm(it Item, b, sc id, clean bool) {
	e := a.ends[sc]
	if clean {
		if e == nil {
			e = &twinHashes{}
			a.ends[sc] = e
		}
		e.set(it.Trial, digestOf(it.EndHash))
		return
	}
	if e == nil {
		return // counted as a missing twin by addObservation
	}
	twin, ok := e.get(it.Trial)
	if !ok || twin == digestOf(it.EndHash) {
		return
	}
	h := a.harm[b]
	if h == nil {
		h = &harmStats{}
		a.harm[b] = h
	}
	h.harmful.add(it.Trial)
	h.runs++
}

// harmful reports whether build b did harm in a trial.
func (a *Aggregator) harmful(b id, trial int) bool {
	h := a.harm[b]
	return h != nil && h.harmful.has(trial)
}

// cover records that a mutated build's seam reached its target in a
// scenario.
func (a *Aggregator) cover(b, sc id) { a.covered[passKey{b, sc}] = true }

// coveredBy lists the scenarios in which build b's seam reached its
// target, sorted.
func (a *Aggregator) coveredBy(b id) []string {
	out := []string{}
	for k := range a.covered {
		if k.build == b {
			out = append(out, a.scenarioIDs.name(k.scenario))
		}
	}
	slices.Sort(out)
	return out
}

// mutantHarmRows computes the harmful view per design × mutant.
func mutantHarmRows(designs []string, builds []BuildInfo, runs *suiteView) []MutantHarm {
	out, row := designBuildRows(designs, builds, func(d string, b BuildInfo) MutantHarm {
		return MutantHarm{Design: d, Build: b.ID, Class: b.Class}
	})
	runs.each(func(r *suiteRun) {
		j, ok := row(r)
		if !ok {
			return
		}
		m := &out[j]
		if !r.harmful {
			m.Benign++
			if r.detected {
				m.BenignDetected++
			}
			return
		}
		m.Harmful++
		if r.detected {
			m.Detected++
			if r.exact {
				m.Exact++
			}
			if r.adjacent {
				m.Adjacent++
			}
		}
	})
	for i := range out {
		m := &out[i]
		m.Rate, m.CI95 = rateOf(m.Detected, m.Harmful), wilsonCI(m.Detected, m.Harmful)
	}
	return out
}

// harmRows computes the harmful view per design × class from the
// per-mutant rows: clustered on the harmful mutants, trial level beside.
func harmRows(designs, classes []string, builds []BuildInfo, byMutant []MutantHarm) []HarmRow {
	var out []HarmRow
	for _, d := range designs {
		for _, c := range classes {
			row := HarmRow{Design: d, Class: c}
			for _, b := range builds {
				if b.Class == c {
					row.Mutants++
				}
			}
			var det []Cluster
			for _, m := range byMutant {
				if m.Design != d || m.Class != c {
					continue
				}
				row.Detected += m.Detected
				row.N += m.Harmful
				row.BenignDetected += m.BenignDetected
				row.BenignN += m.Benign
				det = append(det, Cluster{m.Detected, m.Harmful})
				if m.Harmful == 0 && m.Benign > 0 {
					row.BenignMutants++
					if m.BenignDetected > 0 {
						row.FlaggedBenign++
					}
				}
			}
			row.Rate, row.Units, row.CI95 = clustered(det)
			row.TrialRate, row.TrialCI95 = rateOf(row.Detected, row.N), wilsonCI(row.Detected, row.N)
			row.BenignRate, row.BenignCI95 = rateOf(row.BenignDetected, row.BenignN), wilsonCI(row.BenignDetected, row.BenignN)
			out = append(out, row)
		}
	}
	return out
}

// Mutant statuses beyond mutation testing's killed, survived, equivalent
// and no_coverage, from the oracle's harm: a mutant detected but never
// harmful is flagged_benign, one whose trace changed but whose end state
// never did, undetected, is benign.
const (
	StatusFlaggedBenign = "flagged_benign"
	StatusBenign        = "benign"
)

// AllStatuses lists the mutant statuses in report order.
var AllStatuses = []string{StatusKilled, StatusFlaggedBenign, StatusSurvived, StatusBenign, StatusEquivalent, StatusNoCoverage, StatusNotObserved}

// mutantEvidence is what a mutant's status is decided from.
type mutantEvidence struct {
	compared     bool // some observation run met its clean twin
	harmful      bool // some trial did harm
	traceChanged bool // some observation run's trace differed
	reached      bool // its seam reached its target somewhere
}

// status decides a mutant's status from a detection (by one design, or by
// any): killed (detected in a trial in which it did harm), flagged_benign
// (detected, never harmful), survived (harmful, its harmful trials never
// detected, whatever was flagged in its benign ones), benign (trace
// changed, end state never), equivalent (reached, no trace changed),
// no_coverage (never reached), not_observed (no observation run to
// compare).
func (e mutantEvidence) status(d detection) string {
	switch {
	case d.harmful:
		return StatusKilled
	case d.any && !e.harmful:
		return StatusFlaggedBenign
	case !e.compared:
		return StatusNotObserved
	case e.harmful:
		return StatusSurvived
	case e.traceChanged:
		return StatusBenign
	case e.reached:
		return StatusEquivalent
	}
	return StatusNoCoverage
}

// detection is whether a design detected a mutant in some trial (any) and
// in some trial in which the mutant did harm (harmful).
type detection struct{ any, harmful bool }

// mutantRows computes each mutant's status, overall (detected by any
// design) and per design, and the scenarios that reached it.
func (a *Aggregator) mutantRows(designs []string, builds []BuildInfo, runs *suiteView) []MutantRow {
	detectedBy := make(map[string]map[string]detection)
	reached := make(map[string]int)
	runs.each(func(r *suiteRun) {
		b := r.build.ID
		reached[b] += r.reached
		if r.detected {
			if detectedBy[b] == nil {
				detectedBy[b] = make(map[string]detection)
			}
			d := detectedBy[b][r.design]
			d.any, d.harmful = true, d.harmful || r.harmful
			detectedBy[b][r.design] = d
		}
	})
	out := make([]MutantRow, 0, len(builds))
	for _, b := range builds {
		o, h := &obsStats{}, &harmStats{}
		bid, known := a.buildIDs.lookup(b.ID)
		if known && a.obs[bid] != nil {
			o = a.obs[bid]
		}
		if known && a.harm[bid] != nil {
			h = a.harm[bid]
		}
		row := MutantRow{
			ID: b.ID, Class: b.Class, Location: b.Location, Operator: b.Operator, Description: b.Description,
			Origin: cmp.Or(b.Origin, OriginCatalogue), Source: b.Source,
			Observations: o.n, TraceDiffs: o.diffs, HarmfulRuns: h.runs, HarmfulTrials: len(h.harmful.sorted()),
			Reached:    reached[b.ID] + o.reached,
			DetectedBy: slices.Sorted(maps.Keys(detectedBy[b.ID])),
			CoveredBy:  []string{},
			Statuses:   make(map[string]string, len(designs)),
		}
		if known {
			row.CoveredBy = a.coveredBy(bid)
		}
		if row.DetectedBy == nil {
			row.DetectedBy = []string{}
		}
		ev := mutantEvidence{compared: o.n > o.missingTwin, harmful: row.HarmfulRuns > 0, traceChanged: o.diffs > 0, reached: row.Reached > 0}
		var anyDesign detection
		for _, d := range detectedBy[b.ID] {
			anyDesign.any, anyDesign.harmful = true, anyDesign.harmful || d.harmful
		}
		row.Status = ev.status(anyDesign)
		for _, d := range designs {
			row.Statuses[d] = ev.status(detectedBy[b.ID][d])
		}
		out = append(out, row)
	}
	return out
}

// provenance completes the run's provenance with the count of mutants of
// each origin.
func provenance(p Provenance, builds []BuildInfo) Provenance {
	p.HandWritten, p.Generated = 0, 0
	for _, b := range builds {
		if b.generated() {
			p.Generated++
		} else {
			p.HandWritten++
		}
	}
	if p.Space == "" {
		p.Space = "catalogue"
	}
	return p
}

// harmTables are detection_harmful and detection_by_mutant_harmful.
func harmTables(r *Results) []Table {
	return []Table{
		{Name: "detection_harmful", Header: []string{"design", "class", "mutants", "units", "rate", "ci_low", "ci_high",
			"detected", "n", "trial_rate", "trial_ci_low", "trial_ci_high",
			"benign_mutants", "flagged_benign", "benign_detected", "benign_n", "benign_rate", "benign_ci_low", "benign_ci_high"},
			Rows: rowsOf(r.DetectionHarmful, func(x *HarmRow) []string {
				row := []string{x.Design, x.Class, itoa(x.Mutants), itoa(x.Units), x.Rate.String()}
				row = append(row, ci(x.CI95)...)
				row = append(row, itoa(x.Detected), itoa(x.N), x.TrialRate.String())
				row = append(row, ci(x.TrialCI95)...)
				row = append(row, itoa(x.BenignMutants), itoa(x.FlaggedBenign), itoa(x.BenignDetected), itoa(x.BenignN), x.BenignRate.String())
				return append(row, ci(x.BenignCI95)...)
			})},
		{Name: "detection_by_mutant_harmful", Header: []string{"design", "build", "class", "harmful", "detected", "rate", "ci_low", "ci_high",
			"exact", "adjacent", "benign", "benign_detected"},
			Rows: rowsOf(r.DetectionByMutantHarmful, func(x *MutantHarm) []string {
				row := []string{x.Design, x.Build, x.Class, itoa(x.Harmful), itoa(x.Detected), x.Rate.String()}
				row = append(row, ci(x.CI95)...)
				return append(row, itoa(x.Exact), itoa(x.Adjacent), itoa(x.Benign), itoa(x.BenignDetected))
			})},
	}
}
