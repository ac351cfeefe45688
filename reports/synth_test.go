package reports

import (
	"fmt"

	"github.com/baton-lab/baton/mission"
)

// synthConfig describes the small synthetic run the golden tests use.
func synthConfig() Config {
	return Config{
		Protocol: ProtocolInfo{Name: "synthetic", SHA256: "0123abcd", Seed: 7, Trials: 4, ContractLevel: "semantic"},
		Designs:  []string{"A", "B", "C"},
		Builds: []BuildInfo{
			{ID: "clean"},
			{ID: "ctx-1", Class: "context_loss", Location: "intake->action", Operator: "drop_field"},
			{ID: "ctx-2", Class: "context_loss", Location: "action->boundary", Operator: "drop_field"},
			{ID: "esc-1", Class: "escalation_gap", Location: "action->boundary", Operator: "escalation_flag_meaning"},
			{ID: "esc-2", Class: "escalation_gap", Location: "boundary->monitor", Operator: "assume_other_escalated"},
			{ID: "dup-1", Class: "duplicate_action", Location: "action->boundary", Operator: "retry_without_key"},
			{ID: "drift-1", Class: "contract_drift", Location: "intake->action", Operator: "reformat_field"},
			{ID: "ctl-1", Class: "control", Location: "boundary", Operator: "wrong_tool_arg"},
		},
		Scenarios: []ScenarioInfo{
			{ID: "S01", Category: "typical"}, {ID: "S02", Category: "typical"}, {ID: "S03", Category: "adversarial"},
		},
		CostWeights: CostWeights{PerModelCall: 0.01, Per1kTokens: 0.002, PerToolCall: 0.001, PerEnvironmentReset: 0.0005, PerFixtureReset: 0.00005, Currency: "EUR"},
		Thresholds:  Thresholds{H1MinGap: 0.3, H2MaxDetectionGap: 0.1, H2MinLocalisationGain: 0.2, H2MaxCostRatio: 0.5, H3MinGap: 0.2},
		Methods: Methods{
			Mission: MissionInfo{Name: "synthetic", Version: "0"},
			Cores: []CoreInfo{
				{Agent: "intake", Kind: CorePolicy, Detail: "slips misread 0.01"},
				{Agent: "boundary", Kind: CorePolicy},
			},
			Designs: []DesignInfo{
				{ID: "A", Name: "per-agent", Doc: "Each agent alone; a flag blames the agent."},
				{ID: "B", Name: "end-to-end", Doc: "The whole mission; each differing record blames the agent that writes it."},
				{ID: "C", Name: "per-agent plus contracts", Doc: "A, plus hand-off contracts; a violation blames its edge."},
			},
			Limits: []string{"A synthetic stream: no mission ran."},
		},
	}
}

// synthFlag is the synthetic designs' judgement: whether design d flags
// (build, scenario, trial) and whom it blames. The rules are arbitrary but
// exercise every path: intrinsic flags that recur on mutated twins, new
// flags, exact, adjacent and wrong blame, a class one design never sees.
func synthFlag(d, build, sc string, trial int) (bool, string, bool, bool) {
	// Intrinsic: on every build (clean included) A flags S01 in trial 2
	// after a fault, B flags S02 in trial 1 after a slip.
	if d == "A" && sc == "S01" && trial == 2 {
		return true, "intake", false, true
	}
	if d == "B" && sc == "S02" && trial == 1 {
		return true, "boundary", true, false
	}
	switch build {
	case "ctl-1":
		return true, "boundary", false, false
	case "ctx-1":
		switch d {
		case "A":
			return sc == "S01" && trial == 0, "intake", false, false
		case "B":
			return sc != "S03" && trial < 3, "boundary", false, false
		case "C":
			return sc == "S01", "intake->action", false, false
		}
	case "ctx-2":
		switch d {
		case "B":
			return sc == "S02" && trial < 2, "boundary", false, false
		case "C":
			return sc == "S02", "action", false, false
		}
	case "esc-1":
		if d == "B" {
			return sc == "S03", "monitor", false, false
		}
	}
	return false, "", false, false
}

// synthItems returns the synthetic stream: every clean item, then every
// mutated item, observation runs included.
func synthItems() []Item {
	cfg := synthConfig()
	var clean, mutated []Item
	for _, b := range cfg.Builds {
		for _, sc := range cfg.Scenarios {
			for trial := range 4 {
				seed := uint64(1000 + trial)
				for _, d := range cfg.Designs {
					flagged, blame, slipped, faulted := synthFlag(d, b.ID, sc.ID, trial)
					it := Item{
						Build: b.ID, Class: b.Class, Location: b.Location, Design: d,
						Scenario: sc.ID, Category: sc.Category, Trial: trial, Seed: seed,
						Flagged: flagged, Slipped: slipped, Faulted: faulted,
						Cost:   synthCost(d),
						WallNS: 1_500_000,
					}
					if flagged {
						it.Blame = []string{blame, "monitor"}
						it.Findings = 1
					}
					if d != "B" { // the per-agent designs score trajectories
						it.MatchN, it.MatchExact, it.MatchNameOnly, it.MatchOrderIgnored = synthMatch(flagged, trial)
					}
					if b.ID != "clean" && b.ID != "dup-1" {
						it.Reached = 1
					}
					if b.ID == "clean" {
						clean = append(clean, it)
					} else {
						mutated = append(mutated, it)
					}
				}
				obs := Item{
					Build: b.ID, Class: b.Class, Location: b.Location, Scenario: sc.ID, Category: sc.Category,
					Trial: trial, Seed: seed, Success: synthSuccess(b.ID, sc.ID, trial),
					TraceHash: synthHash(b.ID, sc.ID, trial), EndHash: synthEnd(b.ID, sc.ID, trial),
				}
				if b.ID != "clean" && b.ID != "dup-1" {
					obs.Reached = 2
				}
				if b.ID == "clean" {
					clean = append(clean, obs)
				} else {
					mutated = append(mutated, obs)
				}
			}
		}
	}
	return append(clean, mutated...)
}

// synthMatch scores 4 agent-items: a flagged item fails one exactly, which
// name-only always passes and order-ignored passes in odd trials.
func synthMatch(flagged bool, trial int) (n, exact, nameOnly, orderIgnored int) {
	if !flagged {
		return 4, 4, 4, 4
	}
	return 4, 3, 4, 3 + trial%2
}

func synthCost(d string) mission.Cost {
	switch d {
	case "A":
		return mission.Cost{ModelCalls: 4, ToolCalls: 3, Tokens: 500, FixtureResets: 4}
	case "B":
		return mission.Cost{ModelCalls: 8, ToolCalls: 10, Tokens: 2000, EnvironmentResets: 1}
	}
	return mission.Cost{ModelCalls: 4, ToolCalls: 3, Tokens: 650, FixtureResets: 4}
}

func synthSuccess(build, sc string, trial int) bool {
	switch {
	case sc == "S03" && trial == 3:
		return false
	case build == "ctx-1" && sc == "S01":
		return false
	case build == "ctx-2" && sc == "S02" && trial%2 == 0:
		return false
	case build == "ctl-1":
		return trial == 1
	}
	return true
}

func synthHash(build, sc string, trial int) string {
	switch {
	case build == "ctx-1", build == "ctl-1", build == "drift-1":
		return fmt.Sprintf("%s-%s-%d", build, sc, trial)
	case build == "ctx-2" && sc == "S02":
		return fmt.Sprintf("%s-%s-%d", build, sc, trial)
	}
	return fmt.Sprintf("clean-%s-%d", sc, trial)
}

// synthEnd is an observation run's end-state hash: ctx-1 does harm on S01,
// ctx-2 on S02 in even trials and ctl-1 everywhere; drift-1 changes traces
// (synthHash) but never the end state, and esc-1, which B flags on S03,
// changes neither.
func synthEnd(build, sc string, trial int) string {
	switch {
	case build == "ctx-1" && sc == "S01", build == "ctx-2" && sc == "S02" && trial%2 == 0, build == "ctl-1":
		return fmt.Sprintf("end-%s-%s-%d", build, sc, trial)
	}
	return fmt.Sprintf("end-clean-%s-%d", sc, trial)
}

// synthResults aggregates the synthetic stream.
func synthResults() *Results {
	a := NewAggregator(synthConfig())
	for _, it := range synthItems() {
		a.Add(it)
	}
	return a.Results()
}
