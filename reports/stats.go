package reports

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/baton-lab/baton/internal/binom"
)

// Wilson returns the 95% Wilson score interval (Wilson 1927; Newcombe 1998,
// method 3) for k successes out of n. With n == 0 it returns [0, 1]: no
// evidence either way.
func Wilson(k, n int) (lo, hi float64) { return binom.Wilson(k, n) }

// NewcombeDiff returns the 95% interval of the difference p1 - p2 of two
// independent proportions k1/n1 and k2/n2 by Newcombe's hybrid score method
// (Newcombe 1998, "Interval estimation for the difference between
// independent proportions", method 10), built from the two Wilson intervals.
func NewcombeDiff(k1, n1, k2, n2 int) (d, lo, hi float64) {
	return binom.NewcombeDiff(k1, n1, k2, n2)
}

// ratio is k/n, or 0 when n is 0.
func ratio(k, n int) float64 {
	if n <= 0 {
		return 0
	}
	return float64(k) / float64(n)
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
