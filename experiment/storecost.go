package experiment

import "github.com/baton-lab/baton/mission"

// costColumns are the outcomes columns holding an item's cost counters, in
// the order of [mission.Cost]'s fields: what the writer binds, the reader
// scans and both checksum. A new counter is one line here and a column in
// schemaTemplate (outcomes and the items view). bits is how wide the
// writer packs the counter (see [packing]): a wider value is stored all
// the same, only bound alone.
var costColumns = []struct {
	name string
	get  func(*mission.Cost) *int
	bits int
}{
	{"model_calls", func(c *mission.Cost) *int { return &c.ModelCalls }, 16},
	{"tool_calls", func(c *mission.Cost) *int { return &c.ToolCalls }, 16},
	{"tokens", func(c *mission.Cost) *int { return &c.Tokens }, 31},
	{"tokens_in", func(c *mission.Cost) *int { return &c.TokensIn }, 31},
	{"tokens_out", func(c *mission.Cost) *int { return &c.TokensOut }, 32},
	{"environment_resets", func(c *mission.Cost) *int { return &c.EnvironmentResets }, 8},
	{"fixture_resets", func(c *mission.Cost) *int { return &c.FixtureResets }, 8},
	{"emits", func(c *mission.Cost) *int { return &c.Emits }, 8},
	{"parses", func(c *mission.Cost) *int { return &c.Parses }, 8},
	{"contract_checks", func(c *mission.Cost) *int { return &c.ContractChecks }, 8},
	{"attribution_steps", func(c *mission.Cost) *int { return &c.AttributionSteps }, 8},
}

// costPacking is the cost columns as the writer packs them.
func costPacking() []packedColumn {
	out := make([]packedColumn, len(costColumns))
	for i, c := range costColumns {
		out[i] = packedColumn{name: c.name, bits: c.bits}
	}
	return out
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
