package triage

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// TestRunCleanEndState: with zero slips and faults the clean build ends
// every default scenario in its authored end state.
func TestRunCleanEndState(t *testing.T) {
	scs, _, err := DefaultScenarios()
	if err != nil {
		t.Fatalf("DefaultScenarios: %v", err)
	}
	if len(scs) < 40 {
		t.Errorf("%d default scenarios, want at least 40", len(scs))
	}
	for _, sc := range scs {
		t.Run(sc.ID, func(t *testing.T) {
			run := mustRun(t, New(), mission.Clean(), sc, 1, mission.Env{})
			if diffs := Check(sc.Expect.(*Expected), run.End); len(diffs) > 0 {
				t.Errorf("end state differs from expected:\n%s", describeDiffs(diffs))
			}
			if run.Cost.ModelCalls == 0 || run.Cost.ToolCalls == 0 {
				t.Errorf("cost %+v: want model calls and tool calls", run.Cost)
			}
		})
	}
}

func describeDiffs(diffs []sandbox.Difference) string {
	var b strings.Builder
	for _, d := range diffs {
		fmt.Fprintf(&b, "  %s.%s: want %q, got %q\n", d.Record, d.Field, d.Want, d.Got)
	}
	return b.String()
}

// mustRun runs m's whole mission; the policy cores never fail, so an
// error is a bug.
func mustRun(tb testing.TB, m mission.Mission, b mission.Build, sc *mission.Scenario, seed uint64, env mission.Env) *mission.Run {
	tb.Helper()
	r, err := m.Run(context.Background(), b, sc, seed, env)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}
