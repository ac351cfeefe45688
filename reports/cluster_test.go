package reports

import (
	"math"
	"testing"

	"github.com/baton-lab/baton/internal/binom"
)

func TestNewcombePaired(t *testing.T) {
	tests := []struct {
		name                      string
		both, onlyA, onlyB, neith float64
		d, lo, hi                 float64
	}{
		// Fagerland MW, Lydersen S, Laake P (2014), "Recommended tests and
		// confidence intervals for paired binomial proportions", Statistics
		// in Medicine 33, 2850–2875, and their book (2017) "Statistical
		// Analysis of Contingency Tables", ch. 8: complete response before
		// and after consolidation therapy (Cavo et al. 2012), 59 both, 6
		// before only, 16 after only, 80 neither; Newcombe's square-and-add
		// interval −0.0621 (−0.1186 to −0.0046).
		{"cavo 2012", 59, 6, 16, 80, -0.0621, -0.1186, -0.0046},
		// Swapping the designs mirrors the interval.
		{"cavo 2012 swapped", 59, 16, 6, 80, 0.0621, 0.0046, 0.1186},
		// No discordant cells at all: the difference is 0 but the interval
		// is as wide as the two Wilson intervals allow (φ = 0 as a margin
		// is empty): for 4 of 4, Wilson's [0.5101, 1] gives ±0.4899.
		{"four of four both", 4, 0, 0, 0, 0, -0.4899, 0.4899},
		{"empty", 0, 0, 0, 0, 0, -1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, lo, hi := NewcombePaired(tt.both, tt.onlyA, tt.onlyB, tt.neith)
			if !near(d, tt.d) || !near(lo, tt.lo) || !near(hi, tt.hi) {
				t.Errorf("NewcombePaired = %.4f [%.4f, %.4f], want %.4f [%.4f, %.4f]", d, lo, hi, tt.d, tt.lo, tt.hi)
			}
		})
	}
}

// allDetected is m mutants each detected in every one of t trials.
func allDetected(m, t int) []Cluster {
	cs := make([]Cluster, m)
	for i := range cs {
		cs[i] = Cluster{K: t, N: t}
	}
	return cs
}

func TestClusteredRate(t *testing.T) {
	t.Run("m of m is never surer than Wilson's m/m", func(t *testing.T) {
		// The hard requirement: 4 mutants, each detected in all 20 trials,
		// are 4 units, not 80: the lower bound is Wilson's 4/4, 0.5101
		// (Newcombe 1998's formula; 0/4 mirrored), not 80/80's 0.9542.
		for _, m := range []int{1, 2, 3, 4, 5, 10, 19} {
			for _, trials := range []int{1, 2, 20, 200} {
				rate, gotM, lo, hi := ClusteredRate(allDetected(m, trials))
				wlo, _ := Wilson(m, m)
				if rate != 1 || gotM != m || hi != 1 || lo > wlo+1e-15 {
					t.Errorf("%d mutants × %d trials all detected: %v [%v, %v] over %d, want 1 with lower bound ≤ Wilson(%d, %d) = %v", m, trials, rate, lo, hi, gotM, m, m, wlo)
				}
			}
		}
		if _, _, lo, _ := ClusteredRate(allDetected(4, 20)); !near(lo, 0.5101) {
			t.Errorf("4 mutants × 20 trials: lower bound %.4f, want 0.5101", lo)
		}
	})
	t.Run("one mutant", func(t *testing.T) {
		// One mutant is one unit of its class whatever its trials: Wilson
		// 1/1 = [0.2065, 1] when always detected, and a middling rate keeps
		// a wide interval (Wilson of 0.3 of 1).
		_, m, lo, hi := ClusteredRate([]Cluster{{20, 20}})
		if m != 1 || !near(lo, 0.2065) || hi != 1 {
			t.Errorf("1 mutant 20/20: [%.4f, %.4f] over %d, want [0.2065, 1] over 1", lo, hi, m)
		}
		rate, _, lo, hi := ClusteredRate([]Cluster{{6, 20}})
		wlo, whi := wilson(0.3, 1)
		if rate != 0.3 || lo != wlo || hi != whi || lo > 0.05 || hi < 0.8 {
			t.Errorf("1 mutant 6/20: %v [%v, %v], want 0.3 [%v, %v]", rate, lo, hi, wlo, whi)
		}
		if _, _, lo, hi := ClusteredRate([]Cluster{{0, 20}}); lo != 0 || !near(hi, 0.7935) {
			t.Errorf("1 mutant 0/20: [%v, %v], want [0, 0.7935]", lo, hi)
		}
	})
	t.Run("mixed rates", func(t *testing.T) {
		// Design A on the default protocol's five duplicate_action mutants:
		// 6, 0, 0, 8 and 14 of 20. The rate is the mean of the mutants'
		// rates (0.28); the interval is Wilson's on 1.4 of 5 and much
		// wider than the trial-level one (28/100: [0.2014, 0.3749]).
		cs := []Cluster{{6, 20}, {0, 20}, {0, 20}, {8, 20}, {14, 20}}
		rate, m, lo, hi := ClusteredRate(cs)
		tlo, thi := Wilson(28, 100)
		if !near(rate, 0.28) || m != 5 || !near(lo, 0.0646) || !near(hi, 0.6866) || lo >= tlo || hi <= thi {
			t.Errorf("mixed: %.4f [%.4f, %.4f] over %d, want 0.28 [0.0646, 0.6866] over 5, wider than [%.4f, %.4f]", rate, lo, hi, m, tlo, thi)
		}
	})
	t.Run("each mutant weighs one", func(t *testing.T) {
		// Unequal trials: 10/10 and 0/90 average to 0.5, not 10/100.
		if rate, _, _, _ := ClusteredRate([]Cluster{{10, 10}, {0, 90}}); rate != 0.5 {
			t.Errorf("rate = %v, want 0.5", rate)
		}
	})
	t.Run("monotone in every mutant's count", func(t *testing.T) {
		// One more detection never lowers either bound (an estimated design
		// effect would: 79/80 could come out surer than 80/80).
		prevLo, prevHi := -1.0, -1.0
		for k := 0; k <= 20; k++ {
			_, _, lo, hi := ClusteredRate([]Cluster{{20, 20}, {20, 20}, {20, 20}, {k, 20}})
			if lo < prevLo || hi < prevHi {
				t.Errorf("k = %d: [%v, %v] below the previous [%v, %v]", k, lo, hi, prevLo, prevHi)
			}
			prevLo, prevHi = lo, hi
		}
	})
	t.Run("no mutants", func(t *testing.T) {
		if rate, m, lo, hi := ClusteredRate([]Cluster{{0, 0}}); rate != 0 || m != 0 || lo != 0 || hi != 1 {
			t.Errorf("no trials: %v, %d, [%v, %v]; want 0, 0, [0, 1]", rate, m, lo, hi)
		}
	})
}

func TestClusteredPaired(t *testing.T) {
	t.Run("designs agreeing on every trial of m mutants", func(t *testing.T) {
		// Four mutants both designs detect in all 20 trials: a difference
		// of 0 whose interval is the paired one on 4 units, ±0.4899, not
		// on 80 pairs.
		ps := []Pair{{Both: 20}, {Both: 20}, {Both: 20}, {Both: 20}}
		d, m, lo, hi := ClusteredPaired(ps)
		if d != 0 || m != 4 || !near(lo, -0.4899) || !near(hi, 0.4899) {
			t.Errorf("%v [%v, %v] over %d, want 0 [-0.4899, 0.4899] over 4", d, lo, hi, m)
		}
	})
	t.Run("each mutant adds its trials' shares", func(t *testing.T) {
		// Two mutants of 10 trials: the first both-detected 5 and a-only 5,
		// the second neither 10: cells 0.5, 0.5, 0, 1 of m = 2.
		ps := []Pair{{Both: 5, OnlyA: 5}, {Neither: 10}}
		d, m, lo, hi := ClusteredPaired(ps)
		wd, wlo, whi := NewcombePaired(0.5, 0.5, 0, 1)
		if m != 2 || d != wd || lo != wlo || hi != whi || !near(d, 0.25) {
			t.Errorf("%v [%v, %v] over %d, want %v [%v, %v] over 2", d, lo, hi, m, wd, wlo, whi)
		}
	})
	t.Run("a difference on one mutant is not significant", func(t *testing.T) {
		// One mutant of five that a detects in all 20 trials and b never:
		// the trial-level table would call it certain (20 discordant
		// pairs); on the mutants the interval reaches below 0.
		ps := []Pair{{OnlyA: 20}, {Both: 20}, {Both: 20}, {Neither: 20}, {Neither: 20}}
		d, _, lo, hi := ClusteredPaired(ps)
		if !near(d, 0.2) || lo >= 0 || hi <= d {
			t.Errorf("%v [%v, %v], want 0.2 with an interval reaching below 0", d, lo, hi)
		}
		if a, b, p := MutantMcNemar(ps); a != 1 || b != 0 || p != 1 {
			t.Errorf("MutantMcNemar = %d, %d, %v; want 1, 0, 1", a, b, p)
		}
		if p := McNemarExact(20, 0); p > 1e-5 {
			t.Errorf("trial-level McNemar of 20 vs 0 = %v, want < 1e-5", p)
		}
	})
}

func TestMutantMcNemar(t *testing.T) {
	// Seven mutants where a detects more often than b and one the other
	// way: McNemarExact(7, 1) = 0.0703 (Fagerland et al. 2013's example);
	// mutants with equal rates are concordant however many trials differ.
	ps := []Pair{
		{OnlyA: 3, Neither: 17}, {OnlyA: 1, Both: 19}, {OnlyA: 20}, {OnlyA: 2, OnlyB: 1, Both: 17},
		{OnlyA: 5, Neither: 15}, {OnlyA: 9, Both: 11}, {OnlyA: 4, OnlyB: 3, Neither: 13},
		{OnlyB: 2, Both: 18},
		{OnlyA: 6, OnlyB: 6, Neither: 8}, {Both: 20}, {},
	}
	a, b, p := MutantMcNemar(ps)
	if a != 7 || b != 1 || math.Abs(p-McNemarExact(7, 1)) > 1e-15 || !near(p, 0.0703) {
		t.Errorf("MutantMcNemar = %d, %d, %.4f; want 7, 1, 0.0703", a, b, p)
	}
}

// TestNewcombePairedZ: at Z975 it is NewcombePaired; a larger z widens
// the interval around the same difference.
func TestNewcombePairedZ(t *testing.T) {
	d, lo, hi := NewcombePaired(86, 9, 0, 5)
	if zd, zl, zh := NewcombePairedZ(86, 9, 0, 5, binom.Z975); zd != d || zl != lo || zh != hi {
		t.Errorf("NewcombePairedZ at Z975 = %v [%v, %v], want %v [%v, %v]", zd, zl, zh, d, lo, hi)
	}
	if zd, zl, zh := NewcombePairedZ(86, 9, 0, 5, 2.807); zd != d || !(zl < lo && zh > hi) {
		t.Errorf("NewcombePairedZ at 2.807 = %v [%v, %v], want %v and wider than [%v, %v]", zd, zl, zh, d, lo, hi)
	}
}
