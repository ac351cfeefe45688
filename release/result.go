package release

// Result is a release run's figures and decision.
type Result struct {
	Protocol       string   `json:"protocol"`
	Mission        string   `json:"mission"`
	MissionVersion string   `json:"mission_version"`
	Seed           uint64   `json:"seed"`
	Scenarios      []string `json:"scenarios"`
	// Trials is the trials per scenario each version ran; Runs the runs
	// of both versions together.
	Trials int `json:"trials"`
	Runs   int `json:"runs"`
	// Rounds of the protocol's trials were run; Looks were planned (1
	// unless sequential), and every interval is at quantile Z
	// (Bonferroni over the looks).
	Rounds     int     `json:"rounds"`
	Looks      int     `json:"looks"`
	Sequential bool    `json:"sequential"`
	MaxTrials  int     `json:"max_trials"`
	Z          float64 `json:"z"`
	// History is the verdict at each look, the last one deciding.
	History []Look `json:"history"`

	Baseline   Arm            `json:"baseline"`
	Candidate  Arm            `json:"candidate"`
	Difference Paired         `json:"difference"`
	Cases      []Case         `json:"cases"`
	Clusters   []Cluster      `json:"clusters"`
	Clauses    []ClauseResult `json:"clauses"`
	Verdict    Verdict        `json:"verdict"`
}

// Arm is one version's figures over every run.
type Arm struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Runs        int    `json:"runs"`
	Correct     int    `json:"correct"`
	// Outcome is the share of runs whose end state is correct, with its
	// Wilson interval at the result's quantile.
	Outcome   float64 `json:"outcome"`
	OutcomeLo float64 `json:"outcome_lo"`
	OutcomeHi float64 `json:"outcome_hi"`
	// Violations counts (run, agent, item) whose calls broke a hard
	// trajectory rule; RunsWithViolation the runs with one, and
	// CorrectWithViolation those among them whose outcome was correct
	// anyway (right by luck).
	Violations           int         `json:"violations"`
	RunsWithViolation    int         `json:"runs_with_violation"`
	CorrectWithViolation int         `json:"correct_with_violation"`
	ByRule               []RuleCount `json:"by_rule"`
	// Failures groups the wrong end states by the kinds of record they
	// differ on ("bug+reply": a bug and a reply are not as expected), most
	// first.
	Failures []FailureCount `json:"failures"`
	// ModelCalls is the mean number of model calls per run.
	ModelCalls float64 `json:"model_calls"`
}

// RuleCount is how often one hard rule was broken.
type RuleCount struct {
	Rule     string `json:"rule"`
	Breaches int    `json:"breaches"`
}

// Paired is the 2×2 table of (scenario, trial) pairs and the paired
// difference candidate − baseline with its interval (Newcombe 1998,
// method 10).
type Paired struct {
	Both          int     `json:"both"`
	OnlyCandidate int     `json:"only_candidate"`
	OnlyBaseline  int     `json:"only_baseline"`
	Neither       int     `json:"neither"`
	Difference    float64 `json:"difference"`
	Lo            float64 `json:"lo"`
	Hi            float64 `json:"hi"`
}

// Case is one scenario's figures for both versions.
type Case struct {
	Scenario  string  `json:"scenario"`
	Title     string  `json:"title"`
	Category  string  `json:"category"`
	Trials    int     `json:"trials"`
	Baseline  CaseArm `json:"baseline"`
	Candidate CaseArm `json:"candidate"`
}

// CaseArm is one version on one scenario.
type CaseArm struct {
	Correct    int `json:"correct"`
	Violations int `json:"violations"`
	ModelCalls int `json:"model_calls"`
}

func (c *CaseArm) add(r run) {
	if r.correct {
		c.Correct++
	}
	c.Violations += r.violations
	c.ModelCalls += r.modelCalls
}

// Cluster is where failures fall: one scenario category.
type Cluster struct {
	Category          string `json:"category"`
	Runs              int    `json:"runs"`
	BaselineFailures  int    `json:"baseline_failures"`
	CandidateFailures int    `json:"candidate_failures"`
}

// Look is the rule read after one round: the trials per scenario so far,
// the runs of both versions, the verdict and the paired difference.
type Look struct {
	Trials     int     `json:"trials"`
	Runs       int     `json:"runs"`
	Verdict    Verdict `json:"verdict"`
	Difference float64 `json:"difference"`
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
}

// FailureCount is how many wrong end states differ on one set of record
// kinds.
type FailureCount struct {
	Record string `json:"record"`
	Runs   int    `json:"runs"`
}
