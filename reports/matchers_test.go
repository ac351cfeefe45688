package reports

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTrajectoryMatchers: the matcher counts of every item of a design add
// up, designs that score none get no row, and the gaps are the rate
// differences to exact.
func TestTrajectoryMatchers(t *testing.T) {
	cfg := Config{Designs: []string{"A", "B"}, Builds: []BuildInfo{{ID: CleanBuild}}}
	a := NewAggregator(cfg)
	for trial, m := range [][4]int{{4, 4, 4, 4}, {4, 2, 4, 3}, {2, 1, 2, 1}} {
		a.Add(Item{Build: CleanBuild, Design: "A", Scenario: "S1", Trial: trial + 1,
			MatchN: m[0], MatchExact: m[1], MatchNameOnly: m[2], MatchOrderIgnored: m[3]})
		a.Add(Item{Build: CleanBuild, Design: "B", Scenario: "S1", Trial: trial + 1})
	}
	want := []MatcherRow{{
		Design: "A", N: 10, Exact: 7, NameOnly: 10, OrderIgnored: 8,
		ExactRate: 0.7, ExactCI95: wilsonCI(7, 10),
		NameOnlyRate: 1, NameOnlyCI95: wilsonCI(10, 10),
		OrderIgnoredRate: 0.8, OrderIgnoredCI95: wilsonCI(8, 10),
		NameOnlyGap: 0.3, OrderIgnoredGap: 0.1,
	}}
	if diff := cmp.Diff(want, a.Results().TrajectoryMatchers); diff != "" {
		t.Errorf("trajectory matchers (-want +got):\n%s", diff)
	}
	if got := gapCell(0.3); got != "+0.300" {
		t.Errorf("gapCell(0.3) = %q, want +0.300", got)
	}
}
