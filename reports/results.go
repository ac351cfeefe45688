package reports

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/baton-lab/baton/mission"
)

// Schema is the results.json schema id. v3 (this one) added harm from the
// oracle: the harmful view of detection (detection_harmful,
// detection_by_mutant_harmful, paired_harmful, paired_by_mutant_harmful),
// which the hypotheses use, the statuses flagged_benign and benign (a v2
// "survived" mutant may be v3's "benign"), each mutant's origin, source,
// per-design statuses and covering scenarios, and the provenance of the
// mutants and contracts. v2 made the mutant the unit of every class rate
// and paired comparison (trial-level figures moved to trial_* keys), kept
// every float at full precision and added methods, paired_by_mutant and
// blames. An older file is refused, not misread. Keys added to v3 since,
// which a v3 reader may ignore: coordination and coordination_by_class.
const Schema = "baton.results/v3"

// Results is every aggregate of a run, in the shape of results.json.
type Results struct {
	Schema      string       `json:"schema"`
	Protocol    ProtocolInfo `json:"protocol"`
	Methods     Methods      `json:"methods"`
	Validity    Validity     `json:"validity"`
	Thresholds  Thresholds   `json:"thresholds"`
	CostWeights CostWeights  `json:"cost_weights"`
	Warnings    []string     `json:"warnings"`
	Provenance  Provenance   `json:"provenance"`

	Hypotheses          []Hypothesis        `json:"hypotheses"`
	Robustness          []RobustnessRow     `json:"robustness"`
	Detection           []DetectionRow      `json:"detection"`
	DetectionByMutant   []MutantDetection   `json:"detection_by_mutant"`
	DetectionByScenario []ScenarioDetection `json:"detection_by_scenario"`
	Localisation        []LocalisationRow   `json:"localisation"`
	TrajectoryMatchers  []MatcherRow        `json:"trajectory_matchers"`
	FalseAlarms         []FalseAlarmRow     `json:"false_alarms"`
	PassK               []PassKRow          `json:"pass_k"`
	PassKByCategory     []PassKCategoryRow  `json:"pass_k_by_category"`
	Agreement           []AgreementRow      `json:"agreement"`
	Cost                []CostRow           `json:"cost"`
	Paired              []PairedRow         `json:"paired"`
	PairedByMutant      []PairedMutant      `json:"paired_by_mutant"`

	// The harmful view (see [HarmRow]): detection over the (mutant, trial)
	// units whose end state differed from the clean twin's.
	DetectionHarmful         []HarmRow      `json:"detection_harmful"`
	DetectionByMutantHarmful []MutantHarm   `json:"detection_by_mutant_harmful"`
	PairedHarmful            []PairedRow    `json:"paired_harmful"`
	PairedByMutantHarmful    []PairedMutant `json:"paired_by_mutant_harmful"`

	Blames  []BlameRow  `json:"blames"`
	Mutants []MutantRow `json:"mutants"`
	// Coordination is each build's coordination dimensions over its
	// observation runs, CoordinationByClass each class's per mutant.
	Coordination        []CoordinationRow      `json:"coordination"`
	CoordinationByClass []CoordinationClassRow `json:"coordination_by_class"`
	Examples            []SuiteExample         `json:"examples"`
	// Mistakes are each agent's observed mistake rates on the clean build
	// ([Results.SetMistakes]).
	Mistakes []MistakeRow `json:"mistakes"`
	// Infrastructure lists the work units a distributed sweep gave up on
	// (see [InfraFailure]); absent when there are none.
	Infrastructure []InfraFailure `json:"infrastructure_failures,omitempty"`

	// TracePattern, when set, links each drill-down item of report.html to
	// its trace file, relative to the run folder: {build}, {design},
	// {scenario} and {trial} are replaced (for instance
	// "traces/{build}_{design}_{scenario}_{trial}.jsonl"). When it is empty,
	// report.html shows the command that regenerates each item's trace.
	TracePattern string `json:"trace_pattern,omitempty"`
	// TraceItems, when not empty, lists (sorted) the drill-down item ids
	// whose trace the pattern's file holds: only those link to it, the
	// others show the command that regenerates their trace.
	TraceItems []string `json:"trace_items,omitempty"`

	// suites is the Aggregator's snapshot of every suite run, streamed into
	// suite_runs.csv; results.json leaves it out (its size grows with the
	// trials), so a Results read back has none.
	suites *suiteView
	// findings are the findings of the items whose traces report.html
	// embeds ([Results.SetFindings]); results.json leaves them out.
	findings map[string][]Finding
	// sources are the catalogue files and scenarios the mutation reports
	// need ([Results.SetMutationSources]); nil writes none.
	sources *MutationSources
	// baton names the binary that ran the run (its version and commit,
	// from manifest.json): the reports show it, results.json leaves it
	// out so that it stays byte-identical across builds.
	baton string
	// modelUse is each design's model calls made and served, from
	// manifest.json ([Results.SetModelUse]).
	modelUse map[string]ModelUse
	// selection is what the sweep executed, from manifest.json
	// ([Results.SetSelection]).
	selection *Selection
}

// SetBaton sets the version and commit of the baton that ran the run
// (manifest.json's baton), which the reports name.
func (r *Results) SetBaton(v string) { r.baton = v }

// Baton returns what SetBaton set.
func (r *Results) Baton() string { return r.baton }

// Validity is the run's validity gate.
type Validity struct {
	Valid  bool   `json:"valid"`
	Reason string `json:"reason"`
	// ControlSuiteRuns is how many (design, control mutant, trial) suite
	// runs the gate checked, and ControlMutants how many control mutants.
	ControlSuiteRuns int `json:"control_suite_runs"`
	ControlMutants   int `json:"control_mutants"`
}

// Err returns nil for a valid run and a [*DiscardedError] (wrapping
// [ErrDiscarded]) otherwise.
func (r *Results) Err() error {
	if r.Validity.Valid {
		return nil
	}
	return &DiscardedError{Reason: r.Validity.Reason}
}

// SetAgreement stores reviewer agreement rows (from [Agreement]) so the
// renderers show them.
func (r *Results) SetAgreement(rows []AgreementRow) { r.Agreement = rows }

// DetectionRow is detection[design][class] with the mutant as the unit:
// Rate is the mean over the class's mutants of each one's detection rate
// over its trials, CI95 its clustered interval ([ClusteredRate], n = Units);
// raw likewise. The trial-level figures over the (mutant × trial) suite
// runs stand beside them, conditional on these mutants: they say how often
// these very mutants were caught, not how often the class would be.
type DetectionRow struct {
	Design  string `json:"design"`
	Class   string `json:"class"`
	Mutants int    `json:"mutants"` // the class's mutants in the run
	Units   int    `json:"units"`   // those with suite runs of the design: the n of the clustered interval
	Rate    F4     `json:"rate"`
	CI95    CI     `json:"ci95"`
	RawRate F4     `json:"raw_rate"`
	RawCI95 CI     `json:"raw_ci95"`

	Detected     int `json:"detected"`
	RawDetected  int `json:"raw_detected"`
	N            int `json:"n"`
	TrialRate    F4  `json:"trial_rate"`
	TrialCI95    CI  `json:"trial_ci95"`
	RawTrialRate F4  `json:"raw_trial_rate"`
	RawTrialCI95 CI  `json:"raw_trial_ci95"`
}

// MutantDetection is detection per design × mutant over its trials (a
// trial-level rate: one mutant is one unit), and, among the detected suite
// runs, how many were exactly and adjacently localised: the per-mutant
// figures every clustered class rate is computed from.
type MutantDetection struct {
	Design      string `json:"design"`
	Build       string `json:"build"`
	Class       string `json:"class"`
	Detected    int    `json:"detected"`
	RawDetected int    `json:"raw_detected"`
	N           int    `json:"n"`
	Rate        F4     `json:"rate"`
	CI95        CI     `json:"ci95"`
	RawRate     F4     `json:"raw_rate"`
	RawCI95     CI     `json:"raw_ci95"`
	Exact       int    `json:"exact"`    // of Detected
	Adjacent    int    `json:"adjacent"` // of Detected
}

// ScenarioDetection is the scenario-level matrix: per design × mutant ×
// scenario, over trials, whether the design flagged the scenario where the
// clean twin was not flagged (detected) and whether it flagged it at all.
type ScenarioDetection struct {
	Design      string `json:"design"`
	Build       string `json:"build"`
	Class       string `json:"class"`
	Scenario    string `json:"scenario"`
	Detected    int    `json:"detected"`
	RawDetected int    `json:"raw_detected"`
	N           int    `json:"n"`
	Rate        F4     `json:"rate"`
	CI95        CI     `json:"ci95"`
	RawRate     F4     `json:"raw_rate"`
	RawCI95     CI     `json:"raw_ci95"`
}

// LocalisationRow is localisation[design][class] among detected suite runs,
// with the mutant as the unit: ExactRate is the mean over the mutants the
// design detected at least once of each one's share of its detected runs
// exactly localised, with its clustered interval (n = Units); adjacent
// likewise. The trial-level shares over every detected suite run stand
// beside them, conditional on these mutants.
type LocalisationRow struct {
	Design       string `json:"design"`
	Class        string `json:"class"`
	Units        int    `json:"units"` // mutants detected at least once
	ExactRate    F4     `json:"exact_rate"`
	ExactCI95    CI     `json:"exact_ci95"`
	AdjacentRate F4     `json:"adjacent_rate"`
	AdjacentCI95 CI     `json:"adjacent_ci95"`

	Flagged           int `json:"flagged"`
	Exact             int `json:"exact"`
	Adjacent          int `json:"adjacent"`
	ExactTrialRate    F4  `json:"exact_trial_rate"`
	ExactTrialCI95    CI  `json:"exact_trial_ci95"`
	AdjacentTrialRate F4  `json:"adjacent_trial_rate"`
	AdjacentTrialCI95 CI  `json:"adjacent_trial_ci95"`
}

// FalseAlarmRow is false alarms[design] over clean-build suite runs. A
// flagged run is explained by a slip when some flagged item had a slip fire,
// else by a fault when some flagged item had a fault fire, else unexplained.
type FalseAlarmRow struct {
	Design           string `json:"design"`
	Flagged          int    `json:"flagged"`
	N                int    `json:"n"`
	Rate             F4     `json:"rate"`
	CI95             CI     `json:"ci95"`
	ExplainedBySlip  int    `json:"explained_by_slip"`
	ExplainedByFault int    `json:"explained_by_fault"`
	Unexplained      int    `json:"unexplained"`
	UnexplainedRate  F4     `json:"unexplained_rate"`
	UnexplainedCI95  CI     `json:"unexplained_ci95"`
}

// PassKRow is pass^k[build][scenario] from the integrated runs: C passed of
// N trials; PassK[i] is pass^k for k = K[i]. K is every k = 1..N when N is
// at most 20, else 1..10, 20, 50, 100 and N (those up to N), so that
// results.json does not grow with the trials; pass_k.csv has every k, and
// any other follows from N and C ([PassK]). Rate and CI95 are pass^1 with
// its Wilson interval.
type PassKRow struct {
	Build    string `json:"build"`
	Scenario string `json:"scenario"`
	Category string `json:"category"`
	N        int    `json:"n"`
	C        int    `json:"c"`
	Rate     F4     `json:"rate"`
	CI95     CI     `json:"ci95"`
	K        []int  `json:"k"`
	PassK    []F4   `json:"pass_k"`
}

// PassKCategoryRow is the mean of pass^k over a category's scenarios, where
// N is the fewest trials of any of them; PassK[i] is the mean for k = K[i],
// K chosen as in [PassKRow]. pass_k_by_category.csv has every k = 1..N.
type PassKCategoryRow struct {
	Build     string `json:"build"`
	Category  string `json:"category"`
	Scenarios int    `json:"scenarios"`
	N         int    `json:"n"`
	K         []int  `json:"k"`
	PassK     []F4   `json:"pass_k"`
}

// At returns pass^k for k, and false when the row does not keep that k.
func (p PassKRow) At(k int) (F4, bool) { return passKAt(p.K, p.PassK, k) }

// At returns the mean pass^k for k, and false when the row does not keep
// that k.
func (p PassKCategoryRow) At(k int) (F4, bool) { return passKAt(p.K, p.PassK, k) }

func passKAt(ks []int, vals []F4, k int) (F4, bool) {
	i, ok := slices.BinarySearch(ks, k)
	if !ok || i >= len(vals) {
		return 0, false
	}
	return vals[i], true
}

// CostRow is what a design's suites cost: totals over all its suite runs
// (every counter of [mission.Cost]), the mean per suite run (one full
// suite), and both in money.
type CostRow struct {
	Design    string `json:"design"`
	SuiteRuns int    `json:"suite_runs"`
	mission.Cost
	WallMS int64 `json:"-"` // wall-clock: in manifest.json and the reports, never in results.json
	// WallNull keeps the schema's wall_ms key, always null in results.json:
	// a wall-clock figure would break byte-identical results; manifest.json
	// has it per design.
	WallNull      *int64    `json:"wall_ms"`
	PerSuite      CostMeans `json:"per_suite"`
	Money         F4        `json:"money"`
	MoneyPerSuite F4        `json:"money_per_suite"`
	Currency      string    `json:"currency"`
}

// CostMeans is the mean cost of one suite run, counter by counter.
type CostMeans struct {
	ModelCalls        F4 `json:"model_calls"`
	ToolCalls         F4 `json:"tool_calls"`
	Tokens            F4 `json:"tokens"`
	TokensIn          F4 `json:"tokens_in"`
	TokensOut         F4 `json:"tokens_out"`
	EnvironmentResets F4 `json:"environment_resets"`
	FixtureResets     F4 `json:"fixture_resets"`
	Emits             F4 `json:"emits"`
	Parses            F4 `json:"parses"`
	ContractChecks    F4 `json:"contract_checks"`
	AttributionSteps  F4 `json:"attribution_steps"`
	WallMS            F4 `json:"-"` // wall-clock, like CostRow.WallMS
}

// SetWall sets each design's summed wall-clock time of its suites (ms),
// which results.json leaves out so that it stays byte-stable: the
// experiment keeps it in manifest.json and hands it back when rendering.
func (r *Results) SetWall(ms map[string]int64) {
	for i := range r.Cost {
		row := &r.Cost[i]
		w, ok := ms[row.Design]
		if !ok {
			continue
		}
		row.WallMS = w
		if row.SuiteRuns > 0 {
			row.PerSuite.WallMS = f4(float64(w) / float64(row.SuiteRuns))
		}
	}
}

// PairedRow compares the detection of designs A and B on one class, on the
// same mutants and trials (common random numbers), with the mutant as the
// unit: Diff is A's clustered detection rate minus B's, DiffCI95 its paired
// clustered interval ([ClusteredPaired], n = Units), and PValue McNemar's
// exact test on the mutants ([MutantMcNemar]: MoreA mutants A detected in
// more trials than B, MoreB the reverse), PHolm that p adjusted by Holm's
// method over every row of the run's paired table. The trial-level table
// over the (mutant, trial) suite runs and its exact McNemar p (with its own
// Holm adjustment) stand beside them, conditional on these mutants.
type PairedRow struct {
	A        string `json:"a"`
	B        string `json:"b"`
	Class    string `json:"class"`
	Units    int    `json:"units"`
	Diff     F4     `json:"diff"`
	DiffCI95 CI     `json:"diff_ci95"`
	MoreA    int    `json:"mutants_more_a"`
	MoreB    int    `json:"mutants_more_b"`
	PValue   F4     `json:"p_value"`
	PHolm    F4     `json:"p_holm"`

	N           int `json:"n"`
	Both        int `json:"both"`
	OnlyA       int `json:"only_a"`
	OnlyB       int `json:"only_b"`
	Neither     int `json:"neither"`
	TrialPValue F4  `json:"trial_p_value"`
	TrialPHolm  F4  `json:"trial_p_holm"`
}

// PairedMutant is one mutant's paired table for designs A and B over the
// trials both evaluated: detection (both, only A, only B, neither), and,
// among the trials both detected, exact localisation likewise. The
// hypotheses' paired figures are computed from these rows.
type PairedMutant struct {
	A            string `json:"a"`
	B            string `json:"b"`
	Build        string `json:"build"`
	Class        string `json:"class"`
	Both         int    `json:"both"`
	OnlyA        int    `json:"only_a"`
	OnlyB        int    `json:"only_b"`
	Neither      int    `json:"neither"`
	ExactBoth    int    `json:"exact_both"`
	ExactOnlyA   int    `json:"exact_only_a"`
	ExactOnlyB   int    `json:"exact_only_b"`
	ExactNeither int    `json:"exact_neither"`
}

// detection returns the row's detection cells.
func (p PairedMutant) detection() Pair { return Pair{p.Both, p.OnlyA, p.OnlyB, p.Neither} }

// exact returns the row's exact-localisation cells among the trials both
// designs detected.
func (p PairedMutant) exact() Pair {
	return Pair{p.ExactBoth, p.ExactOnlyA, p.ExactOnlyB, p.ExactNeither}
}

// BlameRow is what a design's flagged items blamed, over every build: how
// many flagged items named a location at all, how many named an edge and
// how many an agent. A design whose definition never names an edge shows
// Edge 0 here, measured rather than assumed.
type BlameRow struct {
	Design  string `json:"design"`
	Flagged int    `json:"flagged"` // flagged items with a blame
	Edge    int    `json:"edge"`    // of those, naming an edge
	Agent   int    `json:"agent"`   // of those, naming an agent
}

// Hypothesis is the verdict on one pre-registered hypothesis.
type Hypothesis struct {
	ID        string `json:"id"`
	Statement string `json:"statement"`
	Verdict   string `json:"verdict"` // confirmed, refuted, inconclusive
	Why       string `json:"why"`
}

// Hypothesis verdicts.
const (
	Confirmed    = "confirmed"
	Refuted      = "refuted"
	Inconclusive = "inconclusive"
)

// MutantRow is one mutant's status, from what the designs detected and
// what the oracle saw: killed (some design detected it in a trial in which
// it did harm: an end state differed from the clean twin's), flagged_benign
// (detected, never harmful), survived (harmful, its harmful trials never
// detected), benign
// (its trace changed somewhere, its end state never, undetected),
// equivalent (no trace changed although its seam was reached),
// no_coverage (its seam never reached), or not_observed (no integrated
// runs to compare). Statuses is the same per design; CoveredBy lists the
// scenarios in which its seam reached its target (what coverage-based
// selection needs).
type MutantRow struct {
	ID            string            `json:"id"`
	Class         string            `json:"class"`
	Location      string            `json:"location"`
	Operator      string            `json:"operator"`
	Description   string            `json:"description"`
	Origin        string            `json:"origin"`
	Source        string            `json:"source,omitempty"`
	Status        string            `json:"status"`
	Statuses      map[string]string `json:"statuses"`
	Observations  int               `json:"observations"`
	TraceDiffs    int               `json:"trace_diffs"`
	HarmfulRuns   int               `json:"harmful_runs"`   // observation runs whose end state differed
	HarmfulTrials int               `json:"harmful_trials"` // trials with such a run
	Reached       int               `json:"reached"`
	DetectedBy    []string          `json:"detected_by"`
	CoveredBy     []string          `json:"covered_by"`
}

// Mutant statuses.
const (
	StatusKilled      = "killed"
	StatusSurvived    = "survived"
	StatusEquivalent  = "equivalent"
	StatusNoCoverage  = "no_coverage"
	StatusNotObserved = "not_observed"
)

// SuiteRunRow is one suite run (design, build, trial): what every table is
// counted from, so an auditor can trace a figure to its runs. suite_runs.csv
// has one per line; results.json none (see [Results.SuiteRuns]).
type SuiteRunRow struct {
	Design    string   `json:"design"`
	Build     string   `json:"build"`
	Class     string   `json:"class"`
	Trial     int      `json:"trial"`
	Scenarios int      `json:"scenarios"`
	Flagged   []string `json:"flagged"`   // scenarios flagged
	NewFlags  []string `json:"new_flags"` // flagged here, not on the clean twin
	Raw       bool     `json:"raw"`       // any scenario flagged
	Detected  bool     `json:"detected"`  // some scenario newly flagged
	TopBlame  string   `json:"top_blame"` // from the newly flagged scenarios
	Exact     bool     `json:"exact"`     // TopBlame is the ground truth
	Adjacent  bool     `json:"adjacent"`  // TopBlame is it or next to it
	Slipped   bool     `json:"slipped"`   // a flagged item had a slip fire
	Faulted   bool     `json:"faulted"`   // a flagged item had a fault fire
	Location  string   `json:"location"`  // ground truth, "" for clean
	Reached   int      `json:"reached"`   // mutant seam activity summed
}

// SuiteExample is one suite run report.html's drill-down shows: per design
// and mutant, the lowest trial the design detected the mutant in and the
// lowest it missed it in. Items are the run's freshly flagged scenarios
// when detected, else those it flagged that the clean twin flags too, at
// most five; MoreItems counts the rest.
type SuiteExample struct {
	Design    string        `json:"design"`
	Build     string        `json:"build"`
	Class     string        `json:"class"`
	Trial     int           `json:"trial"`
	Detected  bool          `json:"detected"`
	Raw       bool          `json:"raw"`
	TopBlame  string        `json:"top_blame"`
	Location  string        `json:"location"`
	Exact     bool          `json:"exact"`
	Adjacent  bool          `json:"adjacent"`
	Items     []ExampleItem `json:"items"`
	MoreItems int           `json:"more_items"`
}

// ExampleItem is one work item of a [SuiteExample]: its scenario and its id
// (build/design/scenario/trial, as runs.db and `baton replay` know it).
type ExampleItem struct {
	Scenario string `json:"scenario"`
	ID       string `json:"id"`
	New      bool   `json:"new"` // flagged here, not on the clean twin
}

// LoadResults reads a results.json written by [WriteAll], for re-rendering
// (after a review import, for instance).
func LoadResults(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load results: %w", err)
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("load results: %s: %w", filepath.Clean(path), err)
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("load results: %s: schema %q, want %q", path, r.Schema, Schema)
	}
	return &r, nil
}
