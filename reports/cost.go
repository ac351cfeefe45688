package reports

import "github.com/baton-lab/baton/mission"

// costCounter is one counter of [mission.Cost]: its name in results.json
// and the CSV files, its label in the reports, where it sits in a Cost and
// in a [CostMeans], and the weight that prices one unit of it.
type costCounter struct {
	key, label string
	weightKey  string // the protocol's cost_weights key
	get        func(*mission.Cost) *int
	mean       func(*CostMeans) *F4
	weight     func(*CostWeights) *float64
	// per is how many units the weight prices (1000 for tokens).
	per float64
}

// costCounters are every cost counter, in the order of mission.Cost's
// fields: money is the sum over them of counter × weight / per. A new
// counter (the model cores' input and output tokens, say) is a field in
// mission.Cost, CostMeans and CostWeights and one line here; the cost
// table, cost.csv, money and the break-even weights follow.
var costCounters = []costCounter{
	{"model_calls", "model calls", "per_model_call", func(c *mission.Cost) *int { return &c.ModelCalls },
		func(m *CostMeans) *F4 { return &m.ModelCalls }, func(w *CostWeights) *float64 { return &w.PerModelCall }, 1},
	{"tool_calls", "tool calls", "per_tool_call", func(c *mission.Cost) *int { return &c.ToolCalls },
		func(m *CostMeans) *F4 { return &m.ToolCalls }, func(w *CostWeights) *float64 { return &w.PerToolCall }, 1},
	{"tokens", "tokens", "per_1k_tokens", func(c *mission.Cost) *int { return &c.Tokens },
		func(m *CostMeans) *F4 { return &m.Tokens }, func(w *CostWeights) *float64 { return &w.Per1kTokens }, 1000},
	{"tokens_in", "tokens in", "per_1k_input_tokens", func(c *mission.Cost) *int { return &c.TokensIn },
		func(m *CostMeans) *F4 { return &m.TokensIn }, func(w *CostWeights) *float64 { return &w.Per1kInputTokens }, 1000},
	{"tokens_out", "tokens out", "per_1k_output_tokens", func(c *mission.Cost) *int { return &c.TokensOut },
		func(m *CostMeans) *F4 { return &m.TokensOut }, func(w *CostWeights) *float64 { return &w.Per1kOutputTokens }, 1000},
	{"environment_resets", "environment resets", "per_environment_reset", func(c *mission.Cost) *int { return &c.EnvironmentResets },
		func(m *CostMeans) *F4 { return &m.EnvironmentResets }, func(w *CostWeights) *float64 { return &w.PerEnvironmentReset }, 1},
	{"fixture_resets", "fixture resets", "per_fixture_reset", func(c *mission.Cost) *int { return &c.FixtureResets },
		func(m *CostMeans) *F4 { return &m.FixtureResets }, func(w *CostWeights) *float64 { return &w.PerFixtureReset }, 1},
	{"emits", "emits", "per_emit", func(c *mission.Cost) *int { return &c.Emits },
		func(m *CostMeans) *F4 { return &m.Emits }, func(w *CostWeights) *float64 { return &w.PerEmit }, 1},
	{"parses", "parses", "per_parse", func(c *mission.Cost) *int { return &c.Parses },
		func(m *CostMeans) *F4 { return &m.Parses }, func(w *CostWeights) *float64 { return &w.PerParse }, 1},
	{"contract_checks", "contract checks", "per_contract_check", func(c *mission.Cost) *int { return &c.ContractChecks },
		func(m *CostMeans) *F4 { return &m.ContractChecks }, func(w *CostWeights) *float64 { return &w.PerContractCheck }, 1},
	{"attribution_steps", "attribution steps", "per_attribution_step", func(c *mission.Cost) *int { return &c.AttributionSteps },
		func(m *CostMeans) *F4 { return &m.AttributionSteps }, func(w *CostWeights) *float64 { return &w.PerAttributionStep }, 1},
}

// Money prices a cost with the weights.
func (w CostWeights) Money(c mission.Cost) float64 {
	sum := 0.0
	for _, k := range costCounters {
		sum += float64(*k.get(&c)) * *k.weight(&w) / k.per
	}
	return sum
}

// MeanMoney prices a mean suite cost with the weights.
func (w CostWeights) MeanMoney(m CostMeans) float64 {
	sum := 0.0
	for _, k := range costCounters {
		sum += float64(*k.mean(&m)) * *k.weight(&w) / k.per
	}
	return sum
}

// meansOf divides a total cost by n suite runs.
func meansOf(c mission.Cost, n int) CostMeans {
	var m CostMeans
	if n == 0 {
		return m
	}
	for _, k := range costCounters {
		*k.mean(&m) = f4(float64(*k.get(&c)) / float64(n))
	}
	return m
}

// CostWeightKeys lists the protocol's cost_weights keys of the weights, in
// counter order ("currency" aside).
func CostWeightKeys() []string {
	out := make([]string, len(costCounters))
	for i, k := range costCounters {
		out[i] = k.weightKey
	}
	return out
}

// Weight returns the weight a cost_weights key sets.
func (w *CostWeights) Weight(key string) (*float64, bool) {
	for _, k := range costCounters {
		if k.weightKey == key {
			return k.weight(w), true
		}
	}
	return nil, false
}
