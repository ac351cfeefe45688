package reports

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gonum.org/v1/gonum/stat/combin"
)

// near reports whether got rounds to want at 4 decimal places (published
// values are given to 4).
func near(got, want float64) bool { return math.Abs(got-want) <= 0.00005+1e-12 }

func TestWilson(t *testing.T) {
	// Newcombe RG (1998), "Two-sided confidence intervals for the single
	// proportion: comparison of seven methods", Statistics in Medicine 17,
	// 857–872, Table I, method 3 (score interval without continuity
	// correction).
	tests := []struct {
		name   string
		k, n   int
		lo, hi float64
	}{
		{"newcombe 81/263", 81, 263, 0.2553, 0.3662},
		{"newcombe 15/148", 15, 148, 0.0624, 0.1605},
		{"newcombe 0/20", 0, 20, 0.0000, 0.1611},
		{"newcombe 1/29", 1, 29, 0.0061, 0.1718},
		// Symmetry of the score interval: 29/29 mirrors 0/29 (Newcombe's
		// 0/20 row gives 0.1611; 0/29 by the same formula 0.1170).
		{"all successes 29/29", 29, 29, 1 - 0.1170, 1},
		{"no trials", 0, 0, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := Wilson(tt.k, tt.n)
			if !near(lo, tt.lo) || !near(hi, tt.hi) {
				t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", tt.k, tt.n, lo, hi, tt.lo, tt.hi)
			}
		})
	}
}

func TestNewcombeDiff(t *testing.T) {
	// Newcombe RG (1998), "Interval estimation for the difference between
	// independent proportions: comparison of eleven methods", Statistics in
	// Medicine 17, 873–890, Table II, method 10 (hybrid score, no continuity
	// correction).
	tests := []struct {
		name           string
		k1, n1, k2, n2 int
		lo, hi         float64
	}{
		{"(a) 56/70-48/80", 56, 70, 48, 80, 0.0524, 0.3339},
		{"(b) 9/10-3/10", 9, 10, 3, 10, 0.1705, 0.8090},
		{"(d) 5/56-0/29", 5, 56, 0, 29, -0.0381, 0.1926},
		{"(e) 0/10-0/20", 0, 10, 0, 20, -0.1611, 0.2775},
		{"(f) 0/10-0/10", 0, 10, 0, 10, -0.2775, 0.2775},
		{"(g) 10/10-0/20", 10, 10, 0, 20, 0.6791, 1.0000},
		{"(h) 10/10-0/10", 10, 10, 0, 10, 0.6075, 1.0000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, lo, hi := NewcombeDiff(tt.k1, tt.n1, tt.k2, tt.n2)
			if !near(lo, tt.lo) || !near(hi, tt.hi) {
				t.Errorf("NewcombeDiff = [%.4f, %.4f], want [%.4f, %.4f]", lo, hi, tt.lo, tt.hi)
			}
		})
	}
}

func TestKappa(t *testing.T) {
	tests := []struct {
		name           string
		yy, yn, ny, nn int
		want           float64
		ok             bool
	}{
		// Wikipedia, "Cohen's kappa", worked example: 50 proposals, 20 both
		// yes, 15 both no, 5 A-yes-B-no, 10 A-no-B-yes; po 0.7, pe 0.5.
		{"wikipedia worked example", 20, 5, 10, 15, 0.4, true},
		// Wikipedia, "Same percentages but different numbers": po 0.60 in
		// both tables, kappa 0.1304 and 0.2593.
		{"wikipedia same percentages 1", 45, 15, 25, 15, 0.1304, true},
		{"wikipedia same percentages 2", 25, 35, 5, 35, 0.2593, true},
		// Perfect disagreement on a balanced table (po 0, pe 0.5): -1.
		{"perfect disagreement", 0, 10, 10, 0, -1, true},
		{"no items", 0, 0, 0, 0, 0, false},
		{"both raters constant", 7, 0, 0, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Kappa(tt.yy, tt.yn, tt.ny, tt.nn)
			if ok != tt.ok || (ok && !near(got, tt.want)) {
				t.Errorf("Kappa = %.4f, %v; want %.4f, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// passKByEnumeration counts, over every k-subset of n trials of which the
// first c passed, the share whose trials all passed: the definition of
// pass^k in τ-bench (Yao et al. 2024), without the closed form.
func passKByEnumeration(n, c, k int) float64 {
	all, pass := 0, 0
	for _, s := range combin.Combinations(n, k) {
		all++
		ok := true
		for _, i := range s {
			ok = ok && i < c
		}
		if ok {
			pass++
		}
	}
	return float64(pass) / float64(all)
}

func TestPassK(t *testing.T) {
	tests := []struct {
		name    string
		n, c, k int
		want    float64
	}{
		// pass^1 is the plain success rate (Yao et al. 2024, τ-bench, §5).
		{"pass^1 is the success rate", 20, 19, 1, 0.95},
		// C(19,2)/C(20,2) = 171/190.
		{"pass^2 of 19/20", 20, 19, 2, 171.0 / 190},
		// C(2,2)/C(4,2) = 1/6.
		{"pass^2 of 2/4", 4, 2, 2, 1.0 / 6},
		{"more than c draws never all pass", 4, 2, 3, 0},
		{"all passed", 8, 8, 8, 1},
		{"k out of range", 4, 4, 5, 0},
		{"k zero", 4, 4, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PassK(tt.n, tt.c, tt.k); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("PassK(%d, %d, %d) = %v, want %v", tt.n, tt.c, tt.k, got, tt.want)
			}
		})
	}
	t.Run("matches enumeration and binomials", func(t *testing.T) {
		for n := 1; n <= 8; n++ {
			for c := 0; c <= n; c++ {
				for k := 1; k <= n; k++ {
					got := PassK(n, c, k)
					enum := passKByEnumeration(n, c, k)
					closed := 0.0
					if c >= k {
						closed = float64(combin.Binomial(c, k)) / float64(combin.Binomial(n, k))
					}
					if math.Abs(got-enum) > 1e-12 || math.Abs(got-closed) > 1e-12 {
						t.Fatalf("PassK(%d, %d, %d) = %v, enumeration %v, C(c,k)/C(n,k) %v", n, c, k, got, enum, closed)
					}
				}
			}
		}
	})
	t.Run("large n does not overflow", func(t *testing.T) {
		got := PassK(200, 190, 100)
		if math.IsNaN(got) || got <= 0 || got >= 1 {
			t.Errorf("PassK(200, 190, 100) = %v, want in (0, 1)", got)
		}
	})
	if diff := cmp.Diff([]float64{0.5, 1.0 / 6, 0, 0}, PassKCurve(4, 2), cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
		t.Errorf("PassKCurve(4, 2) (-want +got):\n%s", diff)
	}
}

func TestMcNemarExact(t *testing.T) {
	tests := []struct {
		name string
		b, c int
		want float64
	}{
		// Fagerland MW, Lydersen S, Laake P (2013), "The McNemar test for
		// binary matched-pairs data: mid-p and asymptotic are better than
		// exact conditional", BMC Med Res Methodol 13:91, airway
		// hyper-responsiveness example (b = 1, c = 7): exact conditional
		// p = 0.070 (= 2 · 9/256 = 0.0703).
		{"fagerland 2013 AHR example", 1, 7, 0.0703},
		{"symmetric in b and c", 7, 1, 0.0703},
		// 2·P(X ≤ 6), X ~ Bin(22, 1/2) = 2·110056/4194304.
		{"6 vs 16", 6, 16, 2 * 110056.0 / 4194304},
		{"balanced is 1", 5, 5, 1},
		{"no discordant pairs", 0, 0, 1},
		// 2·(1/2)^7.
		{"all one way", 0, 7, 2.0 / 128},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := McNemarExact(tt.b, tt.c); !near(got, tt.want) {
				t.Errorf("McNemarExact(%d, %d) = %.6f, want %.4f", tt.b, tt.c, got, tt.want)
			}
		})
	}
}

func TestF4(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0.2, "0.2"},
		{0.11834, "0.1183"},
		{0.11835001, "0.1184"},
		{1, "1"},
		{0, "0"},
		{-0.00001, "0"},
		{1.0 / 3, "0.3333"},
		{12345.67891, "12345.6789"},
		{math.NaN(), "null"},
	}
	for _, tt := range tests {
		if got := F4(tt.in).String(); got != tt.want {
			t.Errorf("F4(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKappaCI(t *testing.T) {
	tests := []struct {
		name              string
		yy, yn, ny, nn    int
		kappa, se, lo, hi float64
	}{
		// Bonett DG, statpsych (CRAN) ci.kappa(.05, 31, 12, 4, 58), the
		// example of its documentation, which follows Fleiss, Levin & Paik
		// (2003) §18.1: Cohen kappa 0.6756757, SE 0.07344761, 95% CI
		// 0.5317210 to 0.8196303. Their f00 = 31, f01 = 12, f10 = 4,
		// f11 = 58 are both-no, first-no-second-yes, first-yes-second-no
		// and both-yes.
		{"statpsych ci.kappa example", 58, 4, 12, 31, 0.6757, 0.0734, 0.5317, 0.8196},
		// Fleiss, Cohen & Everitt's SE is symmetric in the raters.
		{"raters swapped", 58, 12, 4, 31, 0.6757, 0.0734, 0.5317, 0.8196},
		// Perfect agreement: the large-sample SE is 0.
		{"perfect agreement", 10, 0, 0, 10, 1, 0, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, se, lo, hi, ok := KappaCI(tt.yy, tt.yn, tt.ny, tt.nn)
			if !ok || !near(k, tt.kappa) || !near(se, tt.se) || !near(lo, tt.lo) || !near(hi, tt.hi) {
				t.Errorf("KappaCI = %.4f, SE %.4f, [%.4f, %.4f], %v; want %.4f, SE %.4f, [%.4f, %.4f]", k, se, lo, hi, ok, tt.kappa, tt.se, tt.lo, tt.hi)
			}
		})
	}
	t.Run("exact to seven digits", func(t *testing.T) {
		k, se, lo, hi, _ := KappaCI(58, 4, 12, 31)
		for _, c := range [][2]float64{{k, 0.6756757}, {se, 0.07344761}, {lo, 0.5317210}, {hi, 0.8196303}} {
			if math.Abs(c[0]-c[1]) > 5e-8 {
				t.Errorf("got %.8f, want %.7f", c[0], c[1])
			}
		}
	})
	if _, _, lo, hi, ok := KappaCI(7, 0, 0, 0); ok || lo != -1 || hi != 1 {
		t.Errorf("KappaCI of a constant pair = [%v, %v], %v; want undefined, [-1, 1]", lo, hi, ok)
	}
}

func TestHolm(t *testing.T) {
	tests := []struct {
		name   string
		p, adj []float64
	}{
		// Wikipedia, "Holm–Bonferroni method", example: four hypotheses,
		// p = 0.01, 0.04, 0.03 and 0.005; at α = 0.05 H1 and H4 are
		// rejected. Adjusted: 4·0.005 = 0.02, 3·0.01 = 0.03, then
		// max(0.03, 2·0.03) = 0.06 and max(0.06, 1·0.04) = 0.06.
		{"wikipedia four hypotheses", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		// pingouin.holm's documented example (Vallat 2018): p = .50, .003,
		// .32, .054, .0003 adjust to .64, .012, .64, .162, .0015.
		{"pingouin example", []float64{0.50, 0.003, 0.32, 0.054, 0.0003}, []float64{0.64, 0.012, 0.64, 0.162, 0.0015}},
		{"capped at 1", []float64{0.6, 0.7}, []float64{1, 1}},
		{"one test is not adjusted", []float64{0.2}, []float64{0.2}},
		{"ties", []float64{0.01, 0.01, 0.5}, []float64{0.03, 0.03, 0.5}},
		{"empty", []float64{}, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Holm(tt.p)
			if diff := cmp.Diff(tt.adj, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
				t.Errorf("Holm(%v) (-want +got):\n%s", tt.p, diff)
			}
		})
	}
}

func TestFormatP(t *testing.T) {
	tests := []struct {
		p    float64
		want string
	}{
		{1, "1"}, {0.05, "0.05"}, {0.070312, "0.0703"}, {0.001, "0.001"},
		{0.00031, "3.1e-04"}, {2e-6, "2.0e-06"}, {1e-6, "1.0e-06"},
		{9.9e-7, "< 1e-6"}, {1e-300, "< 1e-6"}, {0, "< 1e-6"},
	}
	for _, tt := range tests {
		if got := FormatP(tt.p); got != tt.want {
			t.Errorf("FormatP(%g) = %q, want %q", tt.p, got, tt.want)
		}
	}
}
