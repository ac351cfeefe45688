package reports

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/baton-lab/baton/internal/binom"
)

// Wilson returns the 95% Wilson score interval (Wilson 1927; Newcombe 1998,
// method 3) for k successes out of n. With n == 0 it returns [0, 1]: no
// evidence either way.
func Wilson(k, n int) (lo, hi float64) { return binom.Wilson(k, n) }

// wilson is Wilson's score interval for a count k of n that may be
// fractional (a sum of per-mutant rates, see [ClusteredRate]).
func wilson(k, n float64) (lo, hi float64) { return binom.WilsonF(k, n) }

// z975 is the z of a two-sided 95% interval.
const z975 = binom.Z975

// NewcombeDiff returns the 95% interval of the difference p1 - p2 of two
// independent proportions k1/n1 and k2/n2 by Newcombe's hybrid score method
// (Newcombe 1998, "Interval estimation for the difference between
// independent proportions", method 10), built from the two Wilson intervals.
func NewcombeDiff(k1, n1, k2, n2 int) (d, lo, hi float64) {
	return binom.NewcombeDiff(k1, n1, k2, n2)
}

// newcombeDiff is [NewcombeDiff] for counts that may be fractional.
func newcombeDiff(k1, n1, k2, n2 float64) (d, lo, hi float64) {
	return binom.NewcombeDiffF(k1, n1, k2, n2)
}

// ratio is k/n, or 0 when n is 0.
func ratio(k, n int) float64 { return fratio(float64(k), float64(n)) }

func fratio(k, n float64) float64 {
	if n <= 0 {
		return 0
	}
	return k / n
}

// PassK is the unbiased estimator of pass^k from n trials of which c passed:
// C(c,k)/C(n,k), the chance that k trials drawn without replacement all pass
// (τ-bench, Yao et al. 2024). It is computed as the product
// Π_{i<k} (c-i)/(n-i), which never overflows. k outside 1..n gives 0.
func PassK(n, c, k int) float64 {
	if k < 1 || k > n || c < 0 || c > n {
		return 0
	}
	v := 1.0
	for i := range k {
		if c-i <= 0 {
			return 0
		}
		v *= float64(c-i) / float64(n-i)
	}
	return v
}

// PassKCurve returns pass^k for k = 1..n.
func PassKCurve(n, c int) []float64 {
	out := make([]float64, 0, max(n, 0))
	for k := 1; k <= n; k++ {
		out = append(out, PassK(n, c, k))
	}
	return out
}

// Kappa is Cohen's kappa (Cohen 1960) for two raters' binary judgements,
// given the 2×2 table: yy both yes, yn first yes second no, ny first no
// second yes, nn both no. ok is false when kappa is undefined (no items, or
// chance agreement is 1 because both raters gave one constant answer).
func Kappa(yy, yn, ny, nn int) (kappa float64, ok bool) {
	n := float64(yy + yn + ny + nn)
	if n == 0 {
		return 0, false
	}
	po := float64(yy+nn) / n
	pYes := float64(yy+yn) / n * float64(yy+ny) / n
	pNo := float64(ny+nn) / n * float64(yn+nn) / n
	pe := pYes + pNo
	if pe >= 1 {
		return 0, false
	}
	return (po - pe) / (1 - pe), true
}

// McNemarExact is the two-sided exact McNemar test (the conditional
// binomial test on the discordant pairs): with b pairs where only the first
// classifier succeeded and c where only the second did, the p-value is
// min(1, 2·P(X ≤ min(b, c))) for X ~ Binomial(b+c, 1/2). No discordant pairs
// give 1.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	bin := distuv.Binomial{N: float64(n), P: 0.5}
	return math.Min(1, 2*bin.CDF(float64(min(b, c))))
}

// KappaCI returns Cohen's kappa for the 2×2 table of [Kappa], its
// large-sample standard error and the 95% interval kappa ± z·SE, clipped to
// [-1, 1]. The standard error is Fleiss, Cohen & Everitt's (1969, "Large
// sample standard errors of kappa and weighted kappa", Psychological
// Bulletin 72, 323–327), as Fleiss, Levin & Paik (2003, Statistical Methods
// for Rates and Proportions, 3rd ed., §18.1) give it for a confidence
// interval (not the one under kappa = 0, which is for a test):
//
//	SE = √(A + B − C) / ((1 − pe)·√n)
//	A  = Σᵢ pᵢᵢ·(1 − (pᵢ. + p.ᵢ)(1 − κ))²
//	B  = (1 − κ)²·Σ_{i≠j} pᵢⱼ·(p.ᵢ + pⱼ.)²
//	C  = (κ − pe·(1 − κ))²
//
// With perfect agreement the SE is 0 and the interval a point: a
// large-sample formula says nothing more on a small sample, and the
// renderers say so. ok is false when kappa is undefined.
func KappaCI(yy, yn, ny, nn int) (kappa, se, lo, hi float64, ok bool) {
	kappa, ok = Kappa(yy, yn, ny, nn)
	if !ok {
		return 0, 0, -1, 1, false
	}
	n := float64(yy + yn + ny + nn)
	p := [2][2]float64{{float64(yy) / n, float64(yn) / n}, {float64(ny) / n, float64(nn) / n}}
	row := [2]float64{p[0][0] + p[0][1], p[1][0] + p[1][1]} // first rater
	col := [2]float64{p[0][0] + p[1][0], p[0][1] + p[1][1]} // second rater
	pe := row[0]*col[0] + row[1]*col[1]
	var a, b float64
	for i := range 2 {
		t := 1 - (row[i]+col[i])*(1-kappa)
		a += p[i][i] * t * t
		for j := range 2 {
			if i != j {
				s := col[i] + row[j]
				b += p[i][j] * s * s
			}
		}
	}
	b *= (1 - kappa) * (1 - kappa)
	c := kappa - pe*(1-kappa)
	se = math.Sqrt(math.Max(0, a+b-c*c)) / ((1 - pe) * math.Sqrt(n))
	return kappa, se, math.Max(-1, kappa-z975*se), math.Min(1, kappa+z975*se), true
}

// Holm returns Holm's (1979, "A simple sequentially rejective multiple
// test procedure", Scandinavian Journal of Statistics 6, 65–70) adjusted
// p-values of a family of tests, in the order given: with the m p-values
// sorted p(1) ≤ … ≤ p(m), the adjusted p(i) is max over j ≤ i of
// min(1, (m − j + 1)·p(j)). Rejecting where the adjusted p is at most α
// controls the family-wise error rate at α under any dependence.
func Holm(ps []float64) []float64 {
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ps[a], ps[b]) })
	out := make([]float64, len(ps))
	running := 0.0
	for rank, i := range order {
		running = math.Max(running, math.Min(1, float64(len(ps)-rank)*ps[i]))
		out[i] = running
	}
	return out
}

// PFloor is the smallest p-value the renderers print as a number; below it
// they print the bound "< 1e-6".
const PFloor = 1e-6

// FormatP writes a p-value for a report: four decimals from 0.001, two
// significant digits below that, and the bound "< 1e-6" below [PFloor],
// so that no p-value prints as 0.
func FormatP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "–"
	case p < PFloor:
		return "< 1e-6"
	case p < 0.001:
		return strconv.FormatFloat(p, 'e', 1, 64)
	}
	return strconv.FormatFloat(math.Round(p*1e4)/1e4, 'f', -1, 64)
}
