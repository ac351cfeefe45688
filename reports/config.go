package reports

// Config tells an aggregation what the run held, so that empty cells are
// reported as empty rather than missing.
type Config struct {
	Protocol    ProtocolInfo
	Designs     []string // design ids, e.g. A, B, C
	Builds      []BuildInfo
	Scenarios   []ScenarioInfo
	CostWeights CostWeights
	Thresholds  Thresholds
	// Methods describes what ran (mission, cores, designs, limits) for the
	// reports' methods and limitations section.
	Methods Methods
	// Provenance is where the mutants and contracts came from (the counts
	// of each origin are computed from Builds).
	Provenance Provenance
}

// ProtocolInfo is the protocol summary results.json carries.
type ProtocolInfo struct {
	Name          string `json:"name"`
	SHA256        string `json:"sha256"`
	Seed          uint64 `json:"seed"`
	Trials        int    `json:"trials"`
	ContractLevel string `json:"contract_level"`
	// Locked says the protocol was pre-registered with `baton protocol
	// lock`; InputsSHA256 is the root of the hash tree of everything the
	// run read (the protocol and every file it names).
	Locked       bool   `json:"locked"`
	InputsSHA256 string `json:"inputs_sha256,omitempty"`
	// Deviations are the settings a run changed from its locked protocol,
	// each with its reason: every report shows them first.
	Deviations []Deviation `json:"deviations"`
}

// Deviation is one setting a run changed from its locked protocol (with
// `baton run --deviate REASON`): the setting, the locked value, the value
// the run used, and why.
type Deviation struct {
	Setting string `json:"setting"`
	Locked  string `json:"locked"`
	Ran     string `json:"ran"`
	Reason  string `json:"reason"`
}

// BuildInfo describes one build: "clean" (Class "") or a mutant.
type BuildInfo struct {
	ID          string `json:"id"`
	Class       string `json:"class"`
	Location    string `json:"location"`
	Operator    string `json:"operator"`
	Description string `json:"description"`
	// Origin is where the mutant came from: [OriginCatalogue] (a
	// hand-written catalogue; "" reads as it) or [OriginGenerated] (the
	// mission's generated space). Only hand-written control mutants gate
	// the run's validity.
	Origin string `json:"origin,omitempty"`
	// Source is "file:line" of the catalogue entry that defines the mutant.
	Source string `json:"source,omitempty"`
	// Intent is "version_change" for a deliberate new version, whose
	// changed agent's goldens were re-recorded from it; "" or "regression"
	// otherwise.
	Intent string `json:"intent,omitempty"`
}

// Mutant origins.
const (
	OriginCatalogue = "catalogue"
	OriginGenerated = "generated"
)

// generated reports whether a build came from a generated space.
func (b BuildInfo) generated() bool { return b.Origin == OriginGenerated }

// ScenarioInfo describes one scenario of the run.
type ScenarioInfo struct {
	ID       string `json:"id"`
	Category string `json:"category"`
}

// CostWeights turn cost counters into money, so designs compare under
// matched budgets: each weight prices one unit of its counter (tokens per
// thousand). Environment and fixture resets are priced apart: resetting
// the whole system of record for an integrated run is not setting up one
// agent's fixture. Model-backed cores add their per-1k input and output
// token weights here (beside Per1kTokens) and a line each to costCounters.
type CostWeights struct {
	PerModelCall float64 `json:"per_model_call" yaml:"per_model_call"`
	Per1kTokens  float64 `json:"per_1k_tokens" yaml:"per_1k_tokens"`
	// Per1kInputTokens and Per1kOutputTokens price the tokens a model
	// read (prompt) and wrote (completion) apart, as endpoints bill them;
	// they add to Per1kTokens, which prices both alike.
	Per1kInputTokens    float64 `json:"per_1k_input_tokens" yaml:"per_1k_input_tokens"`
	Per1kOutputTokens   float64 `json:"per_1k_output_tokens" yaml:"per_1k_output_tokens"`
	PerToolCall         float64 `json:"per_tool_call" yaml:"per_tool_call"`
	PerEnvironmentReset float64 `json:"per_environment_reset" yaml:"per_environment_reset"`
	PerFixtureReset     float64 `json:"per_fixture_reset" yaml:"per_fixture_reset"`
	PerEmit             float64 `json:"per_emit" yaml:"per_emit"`
	PerParse            float64 `json:"per_parse" yaml:"per_parse"`
	PerContractCheck    float64 `json:"per_contract_check" yaml:"per_contract_check"`
	PerAttributionStep  float64 `json:"per_attribution_step" yaml:"per_attribution_step"`
	Currency            string  `json:"currency" yaml:"currency"`
}

// Thresholds are the pre-registered numbers that decide H1-H3.
type Thresholds struct {
	// H1: design A's hand-off detection is at least H1MinGap below its
	// control detection, with non-overlapping 95% intervals.
	H1MinGap float64 `json:"h1_min_gap" yaml:"h1_min_gap"`
	// H2: C's hand-off detection is within H2MaxDetectionGap of B's, C's
	// exact localisation at least H2MinLocalisationGain above B's, and C's
	// cost at most H2MaxCostRatio of B's.
	H2MaxDetectionGap     float64 `json:"h2_max_detection_gap" yaml:"h2_max_detection_gap"`
	H2MinLocalisationGain float64 `json:"h2_min_localisation_gain" yaml:"h2_min_localisation_gain"`
	H2MaxCostRatio        float64 `json:"h2_max_cost_ratio" yaml:"h2_max_cost_ratio"`
	// H3: B's share of flagged suite runs without exact localisation exceeds
	// C's by at least H3MinGap.
	H3MinGap float64 `json:"h3_min_gap" yaml:"h3_min_gap"`

	// The designs (or variants) each hypothesis is stated on: H1's per-agent
	// design (A), H2's and H3's design (C) and baseline (B). Empty means
	// those defaults.
	H1Design   string `json:"h1_design" yaml:"h1_design"`
	H2Design   string `json:"h2_design" yaml:"h2_design"`
	H2Baseline string `json:"h2_baseline" yaml:"h2_baseline"`
	H3Design   string `json:"h3_design" yaml:"h3_design"`
	H3Baseline string `json:"h3_baseline" yaml:"h3_baseline"`
}

// The designs the hypotheses are stated on when a protocol names none.
const (
	DefaultH1Design = "A"
	DefaultDesign   = "C" // H2's and H3's
	DefaultBaseline = "B" // H2's and H3's
)

// Named returns the thresholds with every hypothesis design set (the
// defaults where none is named).
func (t Thresholds) Named() Thresholds {
	or := func(s *string, def string) {
		if *s == "" {
			*s = def
		}
	}
	or(&t.H1Design, DefaultH1Design)
	or(&t.H2Design, DefaultDesign)
	or(&t.H2Baseline, DefaultBaseline)
	or(&t.H3Design, DefaultDesign)
	or(&t.H3Baseline, DefaultBaseline)
	return t
}
