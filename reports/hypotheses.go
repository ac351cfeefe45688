package reports

import (
	"fmt"
	"strings"
)

// tally is a count out of n with its Wilson interval.
type tally struct{ k, n int }

func (t tally) rate() float64 { return ratio(t.k, t.n) }

func (t tally) ci() (float64, float64) { return Wilson(t.k, t.n) }

// String writes "k/n = rate [lo–hi]".
func (t tally) String() string {
	lo, hi := t.ci()
	return fmt.Sprintf("%d/%d = %s [%s–%s]", t.k, t.n, F4(t.rate()), F4(lo), F4(hi))
}

// pooled sums detection (detected or raw) of a design over the classes
// keep selects.
func pooledDetection(r *Results, design string, keep func(class string) bool) tally {
	var t tally
	for _, d := range r.Detection {
		if d.Design == design && keep(d.Class) {
			t.k += d.Detected
			t.n += d.N
		}
	}
	return t
}

// pooledExact sums exact localisation among detected suite runs of a design
// over the classes keep selects.
func pooledExact(r *Results, design string, keep func(class string) bool) tally {
	var t tally
	for _, l := range r.Localisation {
		if l.Design == design && keep(l.Class) {
			t.k += l.Exact
			t.n += l.Flagged
		}
	}
	return t
}

// diff writes the Newcombe interval of a - b.
func diff(a, b tally) (d, lo, hi float64, s string) {
	d, lo, hi = NewcombeDiff(a.k, a.n, b.k, b.n)
	return d, lo, hi, fmt.Sprintf("%s [%s–%s]", F4(d), F4(lo), F4(hi))
}

func hasDesign(r *Results, id string) bool {
	for _, c := range r.Cost {
		if c.Design == id {
			return true
		}
	}
	return false
}

func anyClass(string) bool { return true }

// evaluateHypotheses decides H1–H3 against the pre-registered thresholds.
// A verdict is inconclusive whenever the interval that decides it straddles
// its threshold; a discarded run decides nothing.
func evaluateHypotheses(r *Results) []Hypothesis {
	th := r.Thresholds
	hs := []Hypothesis{
		h1(r, th), h2(r, th), h3(r, th),
	}
	if !r.Validity.Valid {
		for i := range hs {
			hs[i].Why = fmt.Sprintf("run discarded (%s); had it stood, the figures gave %s: %s", r.Validity.Reason, hs[i].Verdict, hs[i].Why)
			hs[i].Verdict = Inconclusive
		}
	}
	return hs
}

func h1(r *Results, th Thresholds) Hypothesis {
	h := Hypothesis{
		ID: "H1",
		Statement: fmt.Sprintf("Hand-off blindness: design A's detection on the hand-off classes is at least %s below its detection on the control, with non-overlapping 95%% intervals.",
			F4(th.H1MinGap)),
	}
	if !hasDesign(r, "A") {
		h.Verdict, h.Why = Inconclusive, "design A is not in the run"
		return h
	}
	ho := pooledDetection(r, "A", handOff)
	ctl := pooledDetection(r, "A", isControl)
	if ho.n == 0 || ctl.n == 0 {
		h.Verdict, h.Why = Inconclusive, fmt.Sprintf("not enough suite runs: A hand-off %d, control %d", ho.n, ctl.n)
		return h
	}
	gap, gapLo, gapHi, gapS := diff(ctl, ho)
	_, hoHi := ho.ci()
	ctlLo, _ := ctl.ci()
	overlap := hoHi >= ctlLo
	why := fmt.Sprintf("A detects hand-off defects in %s and the control in %s; gap control−hand-off %s (Newcombe), threshold %s; intervals %s",
		ho, ctl, gapS, F4(th.H1MinGap), map[bool]string{true: "overlap", false: "do not overlap"}[overlap])
	switch {
	case gapLo >= th.H1MinGap && !overlap:
		h.Verdict = Confirmed
		why += "; the gap's lower bound reaches the threshold"
	case gap <= 0:
		h.Verdict = Refuted
		why += "; A's hand-off detection is not below its control detection at all"
	case gapHi < th.H1MinGap:
		h.Verdict = Refuted
		why += "; even the gap's upper bound is below the threshold"
	case overlap:
		h.Verdict = Inconclusive
		why += "; the intervals overlap"
	default:
		h.Verdict = Inconclusive
		why += "; the gap's interval straddles the threshold"
	}
	h.Why = why
	return h
}

// cond is one sub-condition's outcome: holds, fails or undecided.
type cond int

const (
	undecided cond = iota
	holds
	fails
)

// h2Refutation is the protocol's own refutation criterion for H2, quoted
// from the protocol seed ("What would confirm or refute it"): H2 is refuted
// whatever the thresholds say when C misses a hand-off class that B reveals.
const h2Refutation = "It is refuted if contracts miss whole classes — escalation gaps are the likeliest — that only an end-to-end state check reveals."

func h2(r *Results, th Thresholds) Hypothesis {
	h := Hypothesis{
		ID: "H2",
		Statement: fmt.Sprintf("Contracts close most of the gap: design C's hand-off detection is within %s of design B's, its exact localisation at least %s above B's, and it costs at most %s of B's per suite. By the protocol's refutation criterion (“%s”), C must also miss no hand-off class that B detects.",
			F4(th.H2MaxDetectionGap), F4(th.H2MinLocalisationGain), F4(th.H2MaxCostRatio), h2Refutation),
	}
	if !hasDesign(r, "B") || !hasDesign(r, "C") {
		h.Verdict, h.Why = Inconclusive, "designs B and C must both be in the run"
		return h
	}
	var why []string
	var conds []cond

	// Detection: B - C within the allowed gap.
	bd, cd := pooledDetection(r, "B", handOff), pooledDetection(r, "C", handOff)
	if bd.n == 0 || cd.n == 0 {
		conds = append(conds, undecided)
		why = append(why, "detection: no hand-off suite runs")
	} else {
		_, lo, hi, s := diff(bd, cd)
		c := undecided
		switch {
		case hi <= th.H2MaxDetectionGap:
			c = holds
		case lo > th.H2MaxDetectionGap:
			c = fails
		}
		conds = append(conds, c)
		why = append(why, fmt.Sprintf("detection B %s, C %s, B−C %s vs at most %s: %s", bd, cd, s, F4(th.H2MaxDetectionGap), c))
	}

	// Localisation: C - B exact at least the gain.
	bl, cl := pooledExact(r, "B", handOff), pooledExact(r, "C", handOff)
	if bl.n == 0 || cl.n == 0 {
		conds = append(conds, undecided)
		why = append(why, fmt.Sprintf("localisation: detected hand-off suite runs B %d, C %d", bl.n, cl.n))
	} else {
		_, lo, hi, s := diff(cl, bl)
		c := undecided
		switch {
		case lo >= th.H2MinLocalisationGain:
			c = holds
		case hi < th.H2MinLocalisationGain:
			c = fails
		}
		conds = append(conds, c)
		why = append(why, fmt.Sprintf("exact localisation B %s, C %s, C−B %s vs at least %s: %s", bl, cl, s, F4(th.H2MinLocalisationGain), c))
	}

	// Cost per suite.
	var bc, cc CostRow
	for _, c := range r.Cost {
		switch c.Design {
		case "B":
			bc = c
		case "C":
			cc = c
		}
	}
	bCost, cCost, unit := float64(bc.MoneyPerSuite), float64(cc.MoneyPerSuite), "money"
	if bCost <= 0 {
		bCost = float64(bc.PerSuite.ModelCalls + bc.PerSuite.ToolCalls)
		cCost = float64(cc.PerSuite.ModelCalls + cc.PerSuite.ToolCalls)
		unit = "model+tool calls (no cost weights)"
	}
	if bCost <= 0 {
		conds = append(conds, undecided)
		why = append(why, "cost: B's suite cost is zero")
	} else {
		ratio := cCost / bCost
		c := fails
		if ratio <= th.H2MaxCostRatio {
			c = holds
		}
		conds = append(conds, c)
		why = append(why, fmt.Sprintf("cost per suite in %s C %s / B %s = %s vs at most %s: %s", unit, F4(cCost), F4(bCost), F4(ratio), F4(th.H2MaxCostRatio), c))
	}

	// Whole classes C misses that B reveals.
	for _, d := range r.Detection {
		if d.Design != "C" || !handOff(d.Class) || d.N == 0 || d.Detected > 0 {
			continue
		}
		b := pooledDetection(r, "B", func(c string) bool { return c == d.Class })
		bLo, _ := b.ci()
		_, cHi := Wilson(d.Detected, d.N)
		if b.n > 0 && bLo > cHi {
			conds = append(conds, fails)
			why = append(why, fmt.Sprintf("C misses class %s entirely (%s) that B detects (%s): refuted by the protocol's criterion", d.Class, tally{d.Detected, d.N}, b))
		}
	}

	h.Verdict = combine(conds)
	h.Why = strings.Join(why, "; ")
	return h
}

func (c cond) String() string {
	switch c {
	case holds:
		return "holds"
	case fails:
		return "fails"
	}
	return "interval straddles the threshold"
}

// combine: any failure refutes, all holding confirms, else inconclusive.
func combine(cs []cond) string {
	all := len(cs) > 0
	for _, c := range cs {
		if c == fails {
			return Refuted
		}
		all = all && c == holds
	}
	if all {
		return Confirmed
	}
	return Inconclusive
}

func h3(r *Results, th Thresholds) Hypothesis {
	h := Hypothesis{
		ID: "H3",
		Statement: fmt.Sprintf("End-to-end finds but does not locate: among detected mutant suite runs, design B's share without exact localisation exceeds design C's by at least %s.",
			F4(th.H3MinGap)),
	}
	if !hasDesign(r, "B") || !hasDesign(r, "C") {
		h.Verdict, h.Why = Inconclusive, "designs B and C must both be in the run"
		return h
	}
	be, ce := pooledExact(r, "B", anyClass), pooledExact(r, "C", anyClass)
	bu, cu := tally{be.n - be.k, be.n}, tally{ce.n - ce.k, ce.n}
	if bu.n == 0 || cu.n == 0 {
		h.Verdict, h.Why = Inconclusive, fmt.Sprintf("detected mutant suite runs: B %d, C %d", bu.n, cu.n)
		return h
	}
	_, lo, hi, s := diff(bu, cu)
	why := fmt.Sprintf("not exactly localised: B %s, C %s; B−C %s vs at least %s", bu, cu, s, F4(th.H3MinGap))
	switch {
	case lo >= th.H3MinGap:
		h.Verdict = Confirmed
	case hi < th.H3MinGap:
		h.Verdict = Refuted
	default:
		h.Verdict = Inconclusive
		why += "; the interval straddles the threshold"
	}
	h.Why = why
	return h
}
