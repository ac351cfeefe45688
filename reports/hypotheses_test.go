package reports

import (
	"fmt"
	"strings"
	"testing"
)

// group is m mutants of a class with the same figures, for a
// hand-made Results: design A's detection (k of n trials) or designs B and
// C's paired table over n trials (detection cells, then exact-localisation
// cells among the trials both detected).
type group struct {
	class string
	m     int
	// Design A alone.
	k, n int
	// B (first) and C (second).
	pair, exact Pair
}

// hypoResults builds a Results with A's per-mutant detection, B and C's
// per-mutant paired tables (and the paired rows pairedRows derives from
// them), and C's and B's money per suite.
func hypoResults(cMoney, bMoney float64, groups ...group) *Results {
	r := &Results{
		Validity:   Validity{Valid: true},
		Thresholds: Thresholds{H1MinGap: 0.3, H2MaxDetectionGap: 0.1, H2MinLocalisationGain: 0.2, H2MaxCostRatio: 0.5, H3MinGap: 0.2},
		Blames:     []BlameRow{{Design: "B", Flagged: 10, Agent: 10}, {Design: "C", Flagged: 10, Edge: 9, Agent: 1}},
	}
	var classes []string
	for gi, g := range groups {
		classes = append(classes, g.class)
		for i := range g.m {
			id := fmt.Sprintf("%s-%d-%d", g.class, gi, i)
			// Every trial of the hand-made mutants did harm: the
			// hypotheses read the harmful view.
			if g.n > 0 {
				r.DetectionByMutantHarmful = append(r.DetectionByMutantHarmful, MutantHarm{Design: "A", Build: id, Class: g.class, Detected: g.k, Harmful: g.n})
			}
			if g.pair.N() > 0 {
				r.PairedByMutantHarmful = append(r.PairedByMutantHarmful, PairedMutant{A: "B", B: "C", Build: id, Class: g.class,
					Both: g.pair.Both, OnlyA: g.pair.OnlyA, OnlyB: g.pair.OnlyB, Neither: g.pair.Neither,
					ExactBoth: g.exact.Both, ExactOnlyA: g.exact.OnlyA, ExactOnlyB: g.exact.OnlyB, ExactNeither: g.exact.Neither})
			}
		}
	}
	r.PairedHarmful = pairedRows([]string{"B", "C"}, classes, r.PairedByMutantHarmful)
	r.Cost = []CostRow{{Design: "A"}, {Design: "B", MoneyPerSuite: F4(bMoney)}, {Design: "C", MoneyPerSuite: F4(cMoney)}}
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
	// Both designs detect every trial; C localises each exactly, B none.
	bothDetect, cLocates := Pair{Both: 20}, Pair{OnlyB: 20}
	tests := []struct {
		name, id, want string
		r              *Results
		why            string // a substring of why
	}{
		{"H1 confirmed: A blind to hand-offs", "H1", Confirmed, hypoResults(0, 0,
			group{class: "context_loss", m: 5, k: 0, n: 20},
			group{class: "control", m: 4, k: 20, n: 20},
		), "do not overlap"},
		{"H1 inconclusive: many trials do not make up for few mutants", "H1", Inconclusive, hypoResults(0, 0,
			// 200/200 against 0/200 trial by trial, but the evidence is two
			// hand-off mutants and one control: their intervals overlap.
			group{class: "context_loss", m: 2, k: 0, n: 100},
			group{class: "control", m: 1, k: 200, n: 200},
		), "intervals overlap"},
		{"H1 refuted: A catches hand-offs too", "H1", Refuted, hypoResults(0, 0,
			group{class: "context_loss", m: 40, k: 19, n: 20},
			group{class: "control", m: 40, k: 20, n: 20},
		), "upper bound"},
		{"H1 inconclusive: the gap's interval straddles the threshold", "H1", Inconclusive, hypoResults(0, 0,
			group{class: "context_loss", m: 10, k: 4, n: 20},
			group{class: "control", m: 10, k: 16, n: 20},
		), "gap control−hand-off 0.6 ["},
		{"H1 refuted: hand-off detection not below the control's", "H1", Refuted, hypoResults(0, 0,
			group{class: "context_loss", m: 3, k: 20, n: 20},
			group{class: "control", m: 3, k: 10, n: 20},
		), "not below its control detection at all"},
		{"H1 inconclusive without control mutants", "H1", Inconclusive, hypoResults(0, 0,
			group{class: "context_loss", m: 3, k: 3, n: 10},
		), "control 0"},
		{"H2 confirmed", "H2", Confirmed, hypoResults(1, 10,
			group{class: "context_loss", m: 40, pair: bothDetect, exact: cLocates},
		), "C 1 / B 10 = 0.1"},
		{"H2 inconclusive: few mutants however many trials", "H2", Inconclusive, hypoResults(1, 10,
			// 4,000 paired suite runs in agreement, but four mutants: the
			// paired interval of B − C is ±0.49, straddling 0.1.
			group{class: "context_loss", m: 4, pair: Pair{Both: 1000}, exact: Pair{OnlyB: 1000}},
		), "interval straddles the threshold"},
		{"H2 refuted by cost", "H2", Refuted, hypoResults(9, 10,
			group{class: "context_loss", m: 40, pair: bothDetect, exact: cLocates},
		), "0.9 vs at most 0.5: fails"},
		{"H2 refuted by a class C misses", "H2", Refuted, hypoResults(1, 10,
			group{class: "context_loss", m: 40, pair: bothDetect, exact: cLocates},
			group{class: "escalation_gap", m: 10, pair: Pair{OnlyA: 20}},
		), "misses class escalation_gap"},
		{"H2 names B's part of localisation as definitional", "H2", Confirmed, hypoResults(1, 10,
			group{class: "context_loss", m: 40, pair: bothDetect, exact: cLocates},
		), "B named no edge in any of its 10 flagged items"},
		{"H3 confirmed", "H3", Confirmed, hypoResults(0, 0,
			group{class: "context_loss", m: 40, pair: bothDetect, exact: cLocates},
		), "B 1, C 0"},
		{"H3 refuted", "H3", Refuted, hypoResults(0, 0,
			group{class: "context_loss", m: 40, pair: bothDetect, exact: Pair{Both: 20}},
		), "at least 0.2"},
		{"H3 inconclusive: few mutants", "H3", Inconclusive, hypoResults(0, 0,
			group{class: "context_loss", m: 2, pair: bothDetect, exact: cLocates},
		), "straddles"},
		{"H3 inconclusive: nothing both detected", "H3", Inconclusive, hypoResults(0, 0,
			group{class: "context_loss", m: 3, pair: Pair{OnlyA: 20}},
		), "no mutant that B and C both detected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := verdict(t, tt.r, tt.id)
			if h.Verdict != tt.want || !strings.Contains(h.Why, tt.why) {
				t.Errorf("%s = %s (%s), want %s with %q", tt.id, h.Verdict, h.Why, tt.want, tt.why)
			}
		})
	}
	t.Run("H2 names where its extra criterion comes from", func(t *testing.T) {
		h := verdict(t, hypoResults(0, 0), "H2")
		for _, want := range []string{"the protocol's refutation criterion", "It is refuted if contracts miss whole classes", "C must also miss no hand-off class that B detects"} {
			if !strings.Contains(h.Statement, want) {
				t.Errorf("H2 statement %q does not say %q", h.Statement, want)
			}
		}
	})
	t.Run("missing design", func(t *testing.T) {
		r := hypoResults(0, 0, group{class: "control", m: 1, k: 1, n: 1})
		r.Cost = r.Cost[:1]
		for _, id := range []string{"H2", "H3"} {
			if h := verdict(t, r, id); h.Verdict != Inconclusive {
				t.Errorf("%s without B and C = %s, want inconclusive", id, h.Verdict)
			}
		}
	})
	t.Run("the cost ratio is computed from unrounded money", func(t *testing.T) {
		// 0.00005 / 0.0001 = 0.5 holds; rounded to 4 decimals first it would
		// be 0.0001 / 0.0001 = 1 and fail.
		h := verdict(t, hypoResults(0.00005, 0.0001, group{class: "context_loss", m: 40, pair: bothDetect, exact: cLocates}), "H2")
		if !strings.Contains(h.Why, "= 0.5 vs at most 0.5: holds") {
			t.Errorf("H2 = %s (%s), want the cost clause to hold at 0.5", h.Verdict, h.Why)
		}
	})
}
