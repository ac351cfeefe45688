package release

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/triage"
)

// TestViolations: a run's trace is split into turns and each checked
// against the agent's hard rules; a slip that breaks one shows, the clean
// build shows none.
func TestViolations(t *testing.T) {
	m := triage.New()
	scs, _, err := m.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	var s01 *mission.Scenario
	for _, sc := range scs {
		if sc.ID == "S01" {
			s01 = sc
		}
	}
	tests := []struct {
		name    string
		profile mission.Profile
		want    []string
	}{
		{"clean", nil, nil},
		{"refund without look-up", mission.Profile{triage.Billing: {triage.SkipLookup: 1}}, []string{"hard.refund_without_lookup"}},
		{"supervisor answers itself", mission.Profile{triage.Supervisor: {triage.SelfAnswer: 1}}, []string{"hard.supervisor_answers_itself"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := m.Run(context.Background(), mission.Clean(), s01, 1, mission.Env{Profile: tt.profile})
			if err != nil {
				t.Fatal(err)
			}
			n, rules := violations(m.Spec(), r.Trace)
			if diff := cmp.Diff(tt.want, rules); diff != "" || n != len(tt.want) {
				t.Errorf("violations %d, rules (-want +got):\n%s", n, diff)
			}
		})
	}
}
