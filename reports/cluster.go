package reports

import (
	"math"

	"github.com/baton-lab/baton/internal/binom"
)

// The mutant is the unit of analysis. A class's mutants are a sample of the
// defects of that class; the trials of one mutant differ only in seeded
// slips and faults, so they are repeated measurements of one unit, not
// independent units. Every class-level rate and every difference between
// designs is therefore computed on the mutants, the trials nested inside:
//
//   - a rate is the mean over the m mutants of each mutant's rate over its
//     trials, with Wilson's interval on n = m ([ClusteredRate]);
//   - a paired difference (two designs on the same mutants and trials) is
//     Newcombe's paired interval on the mutants' 2×2 table, each mutant
//     contributing its trials' shares of the four cells, n = m
//     ([ClusteredPaired]);
//   - McNemar's exact test is run on the mutants: a mutant is discordant
//     when one design detected it in more of the trials than the other
//     ([MutantMcNemar]).
//
// This is a cluster-level analysis (Donner & Klar 2000, Design and Analysis
// of Cluster Randomization Trials in Health Research, ch. 6–7: each cluster's
// summary is one observation). Taking n = m is Korn & Graubard's (1998,
// "Confidence intervals for proportions with small expected number of
// positive counts estimated from survey data", Survey Methodology 24,
// 193–201) effective sample size n/deff at the largest design effect trials
// nested in mutants can have, deff = t (every trial of a mutant alike,
// intra-class correlation 1); Dean & Pagano (2015, "Evaluating confidence
// interval methods for binomial proportions in clustered surveys", J Survey
// Statistics and Methodology 3, 484–503) recommend Wilson's interval on such
// an effective sample size. It holds whatever the correlation: a mutant's
// rate lies in [0, 1], so its variance across mutants is at most μ(1 − μ)
// (Bhatia & Davis 2000), the variance Wilson's score test assumes for m
// units, and the within-mutant variation only lowers the variance of the
// mean further. An estimated design effect would be smaller, but with three
// to five mutants a class it is noise, and it makes intervals jump the
// wrong way: 80 detections of 80 give no variance to estimate, 79 of 80 an
// intra-class correlation near 0 and a narrower interval than 80 of 80.
//
// So a class of m mutants each detected in every trial gets exactly the
// Wilson interval of m/m (for m = 4, [0.51, 1]); one mutant gets Wilson's
// 1/1 ([0.21, 1]) whatever its trials say, since one mutant says nothing of
// its class's other defects; and the trial-level rate stays beside it,
// labelled conditional on these mutants.

// Cluster is one mutant's count: K of its N trials (suite runs).
type Cluster struct{ K, N int }

// ClusteredRate returns the mean over the mutants with N > 0 of K/N, the
// number m of such mutants and the 95% Wilson interval of that mean on n = m
// (see the package's note on the unit of analysis). With no mutant it
// returns 0, 0 and [0, 1].
func ClusteredRate(cs []Cluster) (rate float64, m int, lo, hi float64) {
	sum := 0.0
	for _, c := range cs {
		if c.N > 0 {
			sum += float64(c.K) / float64(c.N)
			m++
		}
	}
	if m == 0 {
		return 0, 0, 0, 1
	}
	lo, hi = wilson(sum, float64(m))
	return sum / float64(m), m, lo, hi
}

// clusteredDiff is the difference of two clustered rates on disjoint sets
// of mutants (independent samples of mutants): Newcombe's hybrid score
// interval ([NewcombeDiff]) built from the two clustered Wilson intervals.
func clusteredDiff(a, b []Cluster) (d, lo, hi float64) {
	ra, ma, _, _ := ClusteredRate(a)
	rb, mb, _, _ := ClusteredRate(b)
	return newcombeDiff(ra*float64(ma), float64(ma), rb*float64(mb), float64(mb))
}

// Pair is one mutant's paired outcomes for designs a and b over the trials
// both evaluated: in how many both, only a, only b or neither counted.
type Pair struct{ Both, OnlyA, OnlyB, Neither int }

// N is the number of trials of the pair.
func (p Pair) N() int { return p.Both + p.OnlyA + p.OnlyB + p.Neither }

func (p Pair) add(q Pair) Pair {
	return Pair{p.Both + q.Both, p.OnlyA + q.OnlyA, p.OnlyB + q.OnlyB, p.Neither + q.Neither}
}

// NewcombePaired returns p_a − p_b and its 95% interval for paired
// proportions, p_a = (both + onlyA)/n and p_b = (both + onlyB)/n, by
// Newcombe's square-and-add method 10 (Newcombe 1998, "Improved confidence
// intervals for the difference between binomial proportions based on paired
// data", Statistics in Medicine 17, 2635–2650): the two Wilson intervals
// combined with the correlation φ of the 2×2 table, whose numerator
// both·neither − onlyA·onlyB is reduced by n/2 when above it and taken as
// 0 between 0 and n/2. The cells may be fractional ([ClusteredPaired]).
func NewcombePaired(both, onlyA, onlyB, neither float64) (d, lo, hi float64) {
	return newcombePaired(both, onlyA, onlyB, neither, wilson)
}

// NewcombePairedZ is [NewcombePaired] at another confidence: z is the
// standard normal quantile of 1 − α/2, for the Wilson intervals it builds
// on ([binom.WilsonZ]).
func NewcombePairedZ(both, onlyA, onlyB, neither, z float64) (d, lo, hi float64) {
	return newcombePaired(both, onlyA, onlyB, neither, func(k, n float64) (float64, float64) { return binom.WilsonZ(k, n, z) })
}

func newcombePaired(both, onlyA, onlyB, neither float64, wilson func(k, n float64) (lo, hi float64)) (d, lo, hi float64) {
	n := both + onlyA + onlyB + neither
	if n <= 0 {
		return 0, -1, 1
	}
	ka, kb := both+onlyA, both+onlyB
	pa, pb := ka/n, kb/n
	la, ua := wilson(ka, n)
	lb, ub := wilson(kb, n)
	phi := 0.0
	if e, f, g, h := ka, onlyB+neither, kb, onlyA+neither; e > 0 && f > 0 && g > 0 && h > 0 {
		num := both*neither - onlyA*onlyB
		switch {
		case num > n/2:
			num -= n / 2
		case num >= 0:
			num = 0
		}
		phi = num / math.Sqrt(e*f*g*h)
	}
	dl, du := pa-la, ub-pb
	el, eu := pb-lb, ua-pa
	d = pa - pb
	lo = d - math.Sqrt(math.Max(0, dl*dl-2*phi*dl*du+du*du))
	hi = d + math.Sqrt(math.Max(0, el*el-2*phi*el*eu+eu*eu))
	return d, math.Max(-1, lo), math.Min(1, hi)
}

// ClusteredPaired returns the paired difference p_a − p_b over mutants, the
// number m of mutants with trials, and its 95% interval: [NewcombePaired]
// on the mutants' 2×2 table, where each mutant adds its trials' shares of
// the four cells (so the cells sum to m and each mutant weighs one).
func ClusteredPaired(ps []Pair) (d float64, m int, lo, hi float64) {
	var both, onlyA, onlyB, neither float64
	for _, p := range ps {
		n := float64(p.N())
		if n == 0 {
			continue
		}
		m++
		both += float64(p.Both) / n
		onlyA += float64(p.OnlyA) / n
		onlyB += float64(p.OnlyB) / n
		neither += float64(p.Neither) / n
	}
	if m == 0 {
		return 0, 0, -1, 1
	}
	d, lo, hi = NewcombePaired(both, onlyA, onlyB, neither)
	return d, m, lo, hi
}

// MutantMcNemar is McNemar's exact test with the mutant as the unit: a
// mutant is discordant when one design counted it in more of its trials
// than the other; moreA and moreB count those, and p is [McNemarExact] on
// them (the sign test on the mutants' paired differences, the cluster-level
// test of Donner & Klar 2000, ch. 7).
func MutantMcNemar(ps []Pair) (moreA, moreB int, p float64) {
	for _, q := range ps {
		switch {
		case q.N() == 0:
		case q.OnlyA > q.OnlyB:
			moreA++
		case q.OnlyB > q.OnlyA:
			moreB++
		}
	}
	return moreA, moreB, McNemarExact(moreA, moreB)
}
