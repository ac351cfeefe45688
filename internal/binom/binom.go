// Package binom holds the intervals of binomial proportions that both the
// run reports and the scorers of recorded observations quote.
package binom

import "math"

// Z975 is the 0.975 quantile of the standard normal distribution: the z of
// a two-sided 95% interval.
const Z975 = 1.959963984540054

// Wilson returns the 95% Wilson score interval (Wilson 1927; Newcombe 1998,
// method 3) for k successes out of n. With n == 0 it returns [0, 1]: no
// evidence either way.
func Wilson(k, n int) (lo, hi float64) { return WilsonF(float64(k), float64(n)) }

// WilsonF is [Wilson] for a count k of n that may be fractional (a sum of
// per-unit rates, as a cluster-level analysis has): the p whose score test
// |k/n − p| ≤ z·√(p(1−p)/n) does not reject.
func WilsonF(k, n float64) (lo, hi float64) { return wilson(k, n, Z975, Z975*Z975) }

// WilsonZ is [WilsonF] at another confidence: z is the standard normal
// quantile of 1 − α/2 (Z975 for 95%), as an interval adjusted for several
// looks at accumulating data needs.
func WilsonZ(k, n, z float64) (lo, hi float64) { return wilson(k, n, z, z*z) }

// wilson is the interval at z, whose square z2 is given (a constant's is
// exact).
func wilson(k, n, z, z2 float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	p := k / n
	den := 1 + z2/n
	centre := (p + z2/(2*n)) / den
	half := z * math.Sqrt(math.Max(0, p*(1-p))/n+z2/(4*n*n)) / den
	lo, hi = centre-half, centre+half
	if k <= 0 {
		lo = 0
	}
	if k >= n {
		hi = 1
	}
	return math.Max(0, lo), math.Min(1, hi)
}

// NewcombeDiff returns the 95% interval of the difference p1 - p2 of two
// independent proportions k1/n1 and k2/n2 by Newcombe's hybrid score method
// (Newcombe 1998, "Interval estimation for the difference between
// independent proportions", method 10), built from the two Wilson intervals.
func NewcombeDiff(k1, n1, k2, n2 int) (d, lo, hi float64) {
	return NewcombeDiffF(float64(k1), float64(n1), float64(k2), float64(n2))
}

// NewcombeDiffF is [NewcombeDiff] for counts that may be fractional.
func NewcombeDiffF(k1, n1, k2, n2 float64) (d, lo, hi float64) {
	p1, p2 := ratio(k1, n1), ratio(k2, n2)
	l1, u1 := WilsonF(k1, n1)
	l2, u2 := WilsonF(k2, n2)
	d = p1 - p2
	lo = d - math.Sqrt((p1-l1)*(p1-l1)+(u2-p2)*(u2-p2))
	hi = d + math.Sqrt((u1-p1)*(u1-p1)+(p2-l2)*(p2-l2))
	return d, math.Max(-1, lo), math.Min(1, hi)
}

// ratio is k/n, or 0 when n is 0.
func ratio(k, n float64) float64 {
	if n <= 0 {
		return 0
	}
	return k / n
}
