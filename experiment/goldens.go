package experiment

import (
	"context"
	"fmt"

	"github.com/baton-lab/baton/mission"
)

// Goldens belong to the build. A regression keeps the clean goldens: every
// team's tests still expect what the clean mission does. A deliberate new
// version (BuildSpec.Rebaseline) is shipped by the changed agent's team
// with its own tests re-baselined: the experiment re-records that agent's
// goldens from the build, while every other agent keeps the clean ones.
// So a producer's new format passes the producer's own tests and meets the
// consumer's old expectations only downstream. Designs are handed the
// goldens and never learn why one differs from the clean build's.

// rebaseline returns build b's goldens for sc: the clean goldens, but for
// the changed agent's entries, recorded as its team would re-record them:
// the build's whole agent run alone on the same golden input (zero slips,
// zero faults, no oracle), its calls, result and emitted messages taken as
// the new expectation.
func rebaseline(m mission.Mission, b BuildSpec, sc *mission.Scenario, clean []mission.Golden) ([]mission.Golden, error) {
	out := make([]mission.Golden, len(clean))
	copy(out, clean)
	build := b.Switch(nil)
	for i, g := range clean {
		if g.Agent != b.Rebaseline {
			continue
		}
		cr, err := m.RunCore(context.Background(), build, g.Agent, sc, g.Input, 0, mission.Env{})
		if err != nil {
			return nil, fmt.Errorf("re-record %s %s: %w", g.Agent, g.Item, err)
		}
		out[i] = mission.Golden{Agent: g.Agent, Item: g.Item, Input: g.Input, Calls: cr.Calls, Result: cr.Result, Emitted: cr.Emitted}
		cr.Trace.Recycle()
	}
	return out, nil
}
