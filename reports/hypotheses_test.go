package reports

import (
	"strings"
	"testing"
)

// fig is one design × class figure for a hand-made Results.
type fig struct {
	design, class string
	detected, n   int
	exact         int // among detected
	moneyPerSuite float64
}

func resultsOf(figs ...fig) *Results {
	r := &Results{
		Validity:   Validity{Valid: true},
		Thresholds: Thresholds{H1MinGap: 0.3, H2MaxDetectionGap: 0.1, H2MinLocalisationGain: 0.2, H2MaxCostRatio: 0.5, H3MinGap: 0.2},
	}
	cost := map[string]float64{}
	for _, f := range figs {
		r.Detection = append(r.Detection, DetectionRow{Design: f.design, Class: f.class, Detected: f.detected, N: f.n})
		r.Localisation = append(r.Localisation, LocalisationRow{Design: f.design, Class: f.class, Flagged: f.detected, Exact: f.exact})
		if f.moneyPerSuite > 0 {
			cost[f.design] = f.moneyPerSuite
		}
	}
	for _, d := range []string{"A", "B", "C"} {
		r.Cost = append(r.Cost, CostRow{Design: d, MoneyPerSuite: F4(cost[d])})
	}
	return r
}

func verdict(tb testing.TB, r *Results, id string) Hypothesis {
	tb.Helper()
	for _, h := range evaluateHypotheses(r) {
		if h.ID == id {
			return h
		}
	}
	tb.Fatalf("no %s", id)
	return Hypothesis{}
}

func TestHypotheses(t *testing.T) {
	tests := []struct {
		name, id, want string
		figs           []fig
		why            string // a substring of why
	}{
		{"H1 confirmed: A blind to hand-offs", "H1", Confirmed, []fig{
			{design: "A", class: "context_loss", detected: 0, n: 100},
			{design: "A", class: "control", detected: 100, n: 100},
		}, "do not overlap"},
		{"H1 refuted: A catches hand-offs too", "H1", Refuted, []fig{
			{design: "A", class: "context_loss", detected: 95, n: 100},
			{design: "A", class: "control", detected: 100, n: 100},
		}, "upper bound"},
		{"H1 inconclusive: big gap, overlapping intervals", "H1", Inconclusive, []fig{
			{design: "A", class: "context_loss", detected: 3, n: 10},
			{design: "A", class: "control", detected: 8, n: 10},
		}, "overlap"},
		{"H1 inconclusive: the point gap clears the threshold, its interval does not", "H1", Inconclusive, []fig{
			// Gap 0.4 with separate Wilson intervals ([0.11–0.33] and
			// [0.46–0.72]), but the Newcombe interval of the gap starts at
			// 0.21, below 0.3: not confirmed on the point estimate.
			{design: "A", class: "context_loss", detected: 10, n: 50},
			{design: "A", class: "control", detected: 30, n: 50},
		}, "gap control−hand-off 0.4 [0.2"},
		{"H1 confirmed: the gap's lower bound clears the threshold", "H1", Confirmed, []fig{
			{design: "A", class: "context_loss", detected: 20, n: 200},
			{design: "A", class: "control", detected: 160, n: 200},
		}, "lower bound reaches the threshold"},
		{"H1 refuted: hand-off detection not below the control's", "H1", Refuted, []fig{
			// The gap's upper bound (0.31) still reaches 0.3 with n = 3,
			// but A catches hand-off defects better than the control.
			{design: "A", class: "context_loss", detected: 2, n: 3},
			{design: "A", class: "control", detected: 1, n: 3},
		}, "not below its control detection at all"},
		{"H1 inconclusive without control runs", "H1", Inconclusive, []fig{
			{design: "A", class: "context_loss", detected: 3, n: 10},
		}, "control 0"},
		{"H2 confirmed", "H2", Confirmed, []fig{
			{design: "B", class: "context_loss", detected: 900, n: 1000, exact: 0, moneyPerSuite: 10},
			{design: "C", class: "context_loss", detected: 890, n: 1000, exact: 800, moneyPerSuite: 1},
		}, "C 1 / B 10 = 0.1"},
		{"H2 refuted by cost", "H2", Refuted, []fig{
			{design: "B", class: "context_loss", detected: 900, n: 1000, exact: 0, moneyPerSuite: 10},
			{design: "C", class: "context_loss", detected: 890, n: 1000, exact: 800, moneyPerSuite: 9},
		}, "0.9 vs at most 0.5: fails"},
		{"H2 refuted by a class C misses", "H2", Refuted, []fig{
			{design: "B", class: "context_loss", detected: 900, n: 1000, exact: 0, moneyPerSuite: 10},
			{design: "C", class: "context_loss", detected: 900, n: 1000, exact: 800, moneyPerSuite: 1},
			{design: "B", class: "escalation_gap", detected: 40, n: 50},
			{design: "C", class: "escalation_gap", detected: 0, n: 50},
		}, "misses class escalation_gap"},
		{"H2 inconclusive: small samples", "H2", Inconclusive, []fig{
			{design: "B", class: "context_loss", detected: 9, n: 10, exact: 0, moneyPerSuite: 10},
			{design: "C", class: "context_loss", detected: 9, n: 10, exact: 5, moneyPerSuite: 1},
		}, "straddles"},
		{"H3 confirmed", "H3", Confirmed, []fig{
			{design: "B", class: "context_loss", detected: 900, n: 1000, exact: 0},
			{design: "C", class: "context_loss", detected: 890, n: 1000, exact: 800},
		}, "B 900/900"},
		{"H3 refuted", "H3", Refuted, []fig{
			{design: "B", class: "context_loss", detected: 900, n: 1000, exact: 800},
			{design: "C", class: "context_loss", detected: 890, n: 1000, exact: 800},
		}, "at least 0.2"},
		{"H3 inconclusive: nothing detected", "H3", Inconclusive, []fig{
			{design: "B", class: "context_loss", detected: 0, n: 10},
			{design: "C", class: "context_loss", detected: 0, n: 10},
		}, "B 0, C 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := verdict(t, resultsOf(tt.figs...), tt.id)
			if h.Verdict != tt.want || !strings.Contains(h.Why, tt.why) {
				t.Errorf("%s = %s (%s), want %s with %q", tt.id, h.Verdict, h.Why, tt.want, tt.why)
			}
		})
	}
	t.Run("H2 names where its extra criterion comes from", func(t *testing.T) {
		h := verdict(t, resultsOf(), "H2")
		for _, want := range []string{"the protocol's refutation criterion", "It is refuted if contracts miss whole classes", "C must also miss no hand-off class that B detects"} {
			if !strings.Contains(h.Statement, want) {
				t.Errorf("H2 statement %q does not say %q", h.Statement, want)
			}
		}
	})
	t.Run("missing design", func(t *testing.T) {
		r := resultsOf(fig{design: "A", class: "control", detected: 1, n: 1})
		r.Cost = r.Cost[:1]
		for _, id := range []string{"H2", "H3"} {
			if h := verdict(t, r, id); h.Verdict != Inconclusive {
				t.Errorf("%s without B and C = %s, want inconclusive", id, h.Verdict)
			}
		}
	})
}
