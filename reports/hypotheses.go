package reports

import (
	"fmt"
	"strings"
)

// The hypotheses decide on the mutant as the unit (see [ClusteredRate]):
// H1 compares design A on two disjoint sets of mutants (hand-off classes
// and the control), so it uses Newcombe's interval for independent samples
// on the two clustered rates; H2 and H3 compare designs B and C on the same
// mutants and trials, so they use the paired clustered interval
// ([ClusteredPaired]) over the per-mutant tables of
// [Results.PairedByMutantHarmful]. Every figure is in the harmful view
// (see [HarmRow]): detection counts over the (mutant, trial) units in which
// the mutant did harm, so a flag on a mutant that did no damage never
// counts as detecting a failure. Every figure is taken unrounded; the why
// text rounds only for reading.

// mutantFig is a clustered rate with the trial-level count beside it.
type mutantFig struct {
	rate, lo, hi float64
	m            int
	k, n         int // trial level
}

func figOf(cs []Cluster) mutantFig {
	f := mutantFig{}
	f.rate, f.m, f.lo, f.hi = ClusteredRate(cs)
	for _, c := range cs {
		f.k += c.K
		f.n += c.N
	}
	return f
}

// String writes "rate [lo–hi] over m mutants (trials k/n)".
func (f mutantFig) String() string {
	return fmt.Sprintf("%s [%s–%s] over %d mutant%s (trial level %d/%d, conditional on these mutants)",
		F4(f.rate), F4(f.lo), F4(f.hi), f.m, plural(f.m), f.k, f.n)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// mutantClusters collects a design's per-mutant detection of the harmful
// trials over the classes keep selects.
func mutantClusters(r *Results, design string, keep func(class string) bool) []Cluster {
	var out []Cluster
	for _, m := range r.DetectionByMutantHarmful {
		if m.Design == design && keep(m.Class) {
			out = append(out, Cluster{m.Detected, m.Harmful})
		}
	}
	return out
}

// pairs collects the per-mutant paired tables of designs a and b (a's
// outcome first, whichever order the run stored them in) over the harmful
// trials of the classes keep selects: detection, or, with exact, exact
// localisation among the trials both detected.
func pairs(r *Results, a, b string, keep func(class string) bool, exact bool) []Pair {
	var out []Pair
	for _, m := range r.PairedByMutantHarmful {
		if !keep(m.Class) {
			continue
		}
		p := m.detection()
		if exact {
			p = m.exact()
		}
		switch {
		case m.A == a && m.B == b:
			out = append(out, p)
		case m.A == b && m.B == a:
			out = append(out, Pair{p.Both, p.OnlyB, p.OnlyA, p.Neither})
		}
	}
	return out
}

// pairedFig is a paired clustered difference a − b.
type pairedFig struct {
	a, b          float64 // the clustered rates of each
	d, lo, hi     float64
	m             int
	trial         Pair // trial-level cells summed
	pairedDesigns string
}

func pairedOf(ps []Pair, a, b string) pairedFig {
	f := pairedFig{pairedDesigns: a + "−" + b}
	f.d, f.m, f.lo, f.hi = ClusteredPaired(ps)
	for _, p := range ps {
		f.trial = f.trial.add(p)
		if n := float64(p.N()); n > 0 {
			f.a += float64(p.Both+p.OnlyA) / n
			f.b += float64(p.Both+p.OnlyB) / n
		}
	}
	if f.m > 0 {
		f.a /= float64(f.m)
		f.b /= float64(f.m)
	}
	return f
}

// negated is the difference b − a: the interval mirrored.
func (f pairedFig) negated(name string) pairedFig {
	return pairedFig{a: f.b, b: f.a, d: -f.d, lo: -f.hi, hi: -f.lo, m: f.m,
		trial: Pair{f.trial.Both, f.trial.OnlyB, f.trial.OnlyA, f.trial.Neither}, pairedDesigns: name}
}

// String writes "d [lo–hi] over m mutants (paired, clustered; trial level:
// only a x, only b y of n)".
func (f pairedFig) String() string {
	return fmt.Sprintf("%s %s [%s–%s] over %d mutant%s (paired, clustered by mutant; trial level: only the first %d, only the second %d of %d pairs)",
		f.pairedDesigns, F4(f.d), F4(f.lo), F4(f.hi), f.m, plural(f.m), f.trial.OnlyA, f.trial.OnlyB, f.trial.N())
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

// namesNoEdge reports whether a design's flagged items never named an edge
// although some named a location: then its exact localisation of a defect
// whose ground truth is an edge is 0 by what the design can blame, not by
// what the mutants did.
func namesNoEdge(r *Results, design string) (bool, BlameRow) {
	for _, b := range r.Blames {
		if b.Design == design {
			return b.Flagged > 0 && b.Edge == 0, b
		}
	}
	return false, BlameRow{Design: design}
}

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
		Statement: fmt.Sprintf("Hand-off blindness: design A's detection on the hand-off classes is at least %s below its detection on the control, with non-overlapping 95%% intervals (the mutant is the unit; detection of the harmful trials).",
			F4(th.H1MinGap)),
	}
	if !hasDesign(r, "A") {
		h.Verdict, h.Why = Inconclusive, "design A is not in the run"
		return h
	}
	hoC, ctlC := mutantClusters(r, "A", handOff), mutantClusters(r, "A", isControl)
	ho, ctl := figOf(hoC), figOf(ctlC)
	if ho.m == 0 || ctl.m == 0 {
		h.Verdict, h.Why = Inconclusive, fmt.Sprintf("not enough mutants with suite runs: A hand-off %d, control %d", ho.m, ctl.m)
		return h
	}
	gap, gapLo, gapHi := clusteredDiff(ctlC, hoC)
	overlap := ho.hi >= ctl.lo
	why := fmt.Sprintf("A detects hand-off defects at %s and the control at %s; gap control−hand-off %s [%s–%s] (Newcombe's interval for independent samples, on the mutants), threshold %s; intervals %s",
		ho, ctl, F4(gap), F4(gapLo), F4(gapHi), F4(th.H1MinGap), map[bool]string{true: "overlap", false: "do not overlap"}[overlap])
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
		why += ": not confirmed while they do"
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
		Statement: fmt.Sprintf("Contracts close most of the gap: design C's hand-off detection is within %s of design B's, its exact localisation at least %s above B's (both paired on the same mutants and trials, the mutant as the unit), and it costs at most %s of B's per suite. By the protocol's refutation criterion (“%s”), C must also miss no hand-off class that B detects.",
			F4(th.H2MaxDetectionGap), F4(th.H2MinLocalisationGain), F4(th.H2MaxCostRatio), h2Refutation) + " Detection and localisation are of the harmful trials.",
	}
	if !hasDesign(r, "B") || !hasDesign(r, "C") {
		h.Verdict, h.Why = Inconclusive, "designs B and C must both be in the run"
		return h
	}
	var why []string
	var conds []cond
	add := func(c cond, s string) {
		conds = append(conds, c)
		why = append(why, s)
	}

	// Detection: B − C within the allowed gap, paired on the mutants.
	det := pairedOf(pairs(r, "B", "C", handOff, false), "B", "C")
	if det.m == 0 {
		add(undecided, "detection: no hand-off mutants both B and C evaluated")
	} else {
		c := undecided
		switch {
		case det.hi <= th.H2MaxDetectionGap:
			c = holds
		case det.lo > th.H2MaxDetectionGap:
			c = fails
		}
		add(c, fmt.Sprintf("hand-off detection B %s, C %s; %s vs at most %s: %s", F4(det.a), F4(det.b), det, F4(th.H2MaxDetectionGap), c))
	}

	// Localisation: C − B exact, among the runs both detected.
	loc := pairedOf(pairs(r, "B", "C", handOff, true), "B", "C").negated("C−B")
	if loc.m == 0 {
		add(undecided, "localisation: no hand-off mutant that B and C both detected in a trial")
	} else {
		c := undecided
		switch {
		case loc.lo >= th.H2MinLocalisationGain:
			c = holds
		case loc.hi < th.H2MinLocalisationGain:
			c = fails
		}
		s := fmt.Sprintf("exact localisation among the hand-off suite runs both detected B %s, C %s; %s vs at least %s: %s", F4(loc.b), F4(loc.a), loc, F4(th.H2MinLocalisationGain), c)
		if ok, b := namesNoEdge(r, "B"); ok {
			s += fmt.Sprintf(" (B's part by definition: B named no edge in any of its %d flagged items, and a hand-off defect's ground truth is an edge)", b.Flagged)
		}
		add(c, s)
	}

	add(h2Cost(r, th))

	// Whole classes C misses that B reveals.
	for _, p := range r.PairedHarmful {
		bc := (p.A == "B" && p.B == "C") || (p.A == "C" && p.B == "B")
		if !bc || !handOff(p.Class) {
			continue
		}
		cDetected := p.Both + p.OnlyB
		lo := float64(p.DiffCI95[0])
		if p.A == "C" {
			cDetected, lo = p.Both+p.OnlyA, -float64(p.DiffCI95[1])
		}
		if p.N > 0 && cDetected == 0 && lo > 0 {
			add(fails, fmt.Sprintf("C misses class %s entirely (0 of %d suite runs) that B detects (B−C's paired interval on the %d mutants lies above 0): refuted by the protocol's criterion", p.Class, p.N, p.Units))
		}
	}

	h.Verdict = combine(conds)
	h.Why = strings.Join(why, "; ")
	return h
}

// h2Cost is H2's cost clause: C's money per suite over B's, from the
// unrounded money (or, without cost weights, model and tool calls).
func h2Cost(r *Results, th Thresholds) (cond, string) {
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
		return undecided, "cost: B's suite cost is zero"
	}
	ratio := cCost / bCost
	c := fails
	if ratio <= th.H2MaxCostRatio {
		c = holds
	}
	return c, fmt.Sprintf("cost per suite in %s C %s / B %s = %s vs at most %s: %s", unit, F4(cCost), F4(bCost), F4(ratio), F4(th.H2MaxCostRatio), c)
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
		Statement: fmt.Sprintf("End-to-end finds but does not locate: among the harmful mutant suite runs both designs detected, design B's share without exact localisation exceeds design C's by at least %s (paired, the mutant as the unit).",
			F4(th.H3MinGap)),
	}
	if !hasDesign(r, "B") || !hasDesign(r, "C") {
		h.Verdict, h.Why = Inconclusive, "designs B and C must both be in the run"
		return h
	}
	// Not exactly localised, B − C, is exactly localised, C − B.
	f := pairedOf(pairs(r, "B", "C", anyClass, true), "B", "C").negated("B−C")
	if f.m == 0 {
		h.Verdict, h.Why = Inconclusive, "no mutant that B and C both detected in a trial"
		return h
	}
	why := fmt.Sprintf("not exactly localised among the suite runs both detected: B %s, C %s; %s vs at least %s",
		F4(1-f.b), F4(1-f.a), f, F4(th.H3MinGap))
	if ok, b := namesNoEdge(r, "B"); ok {
		why += fmt.Sprintf("; on the hand-off mutants B's share is 1 by definition (B named no edge in any of its %d flagged items)", b.Flagged)
	}
	switch {
	case f.lo >= th.H3MinGap:
		h.Verdict = Confirmed
	case f.hi < th.H3MinGap:
		h.Verdict = Refuted
	default:
		h.Verdict = Inconclusive
		why += "; the interval straddles the threshold"
	}
	h.Why = why
	return h
}
