package experiment

import "github.com/baton-lab/baton/mission"

// costColumns are the outcomes columns holding an item's cost counters, in
// the order of [mission.Cost]'s fields: what the writer binds, the reader
// scans and both checksum. A new counter is one line here and a column in
// schemaTemplate (outcomes and the items view).
var costColumns = []struct {
	name string
	get  func(*mission.Cost) *int
}{
	{"model_calls", func(c *mission.Cost) *int { return &c.ModelCalls }},
	{"tool_calls", func(c *mission.Cost) *int { return &c.ToolCalls }},
	{"tokens", func(c *mission.Cost) *int { return &c.Tokens }},
	{"tokens_in", func(c *mission.Cost) *int { return &c.TokensIn }},
	{"tokens_out", func(c *mission.Cost) *int { return &c.TokensOut }},
	{"environment_resets", func(c *mission.Cost) *int { return &c.EnvironmentResets }},
	{"fixture_resets", func(c *mission.Cost) *int { return &c.FixtureResets }},
	{"emits", func(c *mission.Cost) *int { return &c.Emits }},
	{"parses", func(c *mission.Cost) *int { return &c.Parses }},
	{"contract_checks", func(c *mission.Cost) *int { return &c.ContractChecks }},
	{"attribution_steps", func(c *mission.Cost) *int { return &c.AttributionSteps }},
}

// costNames lists the cost columns, comma-separated, each prefixed.
func costNames(prefix string) string {
	s := ""
	for i, c := range costColumns {
		if i > 0 {
			s += ", "
		}
		s += prefix + c.name
	}
	return s
}

// appendCost appends an item's cost counters in column order.
func appendCost(vs []int64, c mission.Cost) []int64 {
	for _, col := range costColumns {
		vs = append(vs, int64(*col.get(&c)))
	}
	return vs
}
