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

// evaluateHypotheses decides H1–H3 against the pre-registered thresholds,
// each on the designs the protocol states it on ([Thresholds.Named]).
// A verdict is inconclusive whenever the interval that decides it straddles
// its threshold; a discarded run decides nothing.
func evaluateHypotheses(r *Results) []Hypothesis {
	th := r.Thresholds.Named()
	h1h, _ := h1(r, th, th.H1Design)
	h2h, _ := h2(r, th, th.H2Design, th.H2Baseline)
	h3h, _ := h3(r, th, th.H3Design, th.H3Baseline)
	hs := []Hypothesis{h1h, h2h, h3h}
	if !r.Validity.Valid {
		for i := range hs {
			hs[i].Why = discardedWhy(r, hs[i].Verdict, hs[i].Why)
			hs[i].Verdict = Inconclusive
		}
	}
	return hs
}

// discardedWhy is the why of a verdict a discarded run cannot decide.
func discardedWhy(r *Results, verdict, why string) string {
	return fmt.Sprintf("run discarded (%s); had it stood, the figures gave %s: %s", r.Validity.Reason, verdict, why)
}

// h1 decides H1 on design a (A or a variant of it) and returns its
// clauses' margins.
func h1(r *Results, th Thresholds, a string) (Hypothesis, []Clause) {
	h := Hypothesis{
		ID: "H1",
		Statement: fmt.Sprintf("Hand-off blindness: design %s's detection on the hand-off classes is at least %s below its detection on the control, with non-overlapping 95%% intervals (the mutant is the unit; detection of the harmful trials).",
			a, F4(th.H1MinGap)),
	}
	if !hasDesign(r, a) {
		h.Verdict, h.Why = Inconclusive, "design "+a+" is not in the run"
		return h, nil
	}
	hoC, ctlC := mutantClusters(r, a, handOff), mutantClusters(r, a, isControl)
	ho, ctl := figOf(hoC), figOf(ctlC)
	if ho.m == 0 || ctl.m == 0 {
		h.Verdict, h.Why = Inconclusive, fmt.Sprintf("not enough mutants with suite runs: %s hand-off %d, control %d", a, ho.m, ctl.m)
		return h, nil
	}
	gap, gapLo, gapHi := clusteredDiff(ctlC, hoC)
	overlap := ho.hi >= ctl.lo
	clauses := []Clause{
		marginClause("gap control−hand-off, lower bound ≥ threshold", gapLo-th.H1MinGap, gapHi-th.H1MinGap),
		marginClause("intervals do not overlap", ctl.lo-ho.hi, ctl.hi-ho.lo),
	}
	why := fmt.Sprintf("%s detects hand-off defects at %s and the control at %s; gap control−hand-off %s [%s–%s] (Newcombe's interval for independent samples, on the mutants), threshold %s; intervals %s",
		a, ho, ctl, F4(gap), F4(gapLo), F4(gapHi), F4(th.H1MinGap), map[bool]string{true: "overlap", false: "do not overlap"}[overlap])
	switch {
	case gapLo >= th.H1MinGap && !overlap:
		h.Verdict = Confirmed
		why += "; the gap's lower bound reaches the threshold"
	case gap <= 0:
		h.Verdict = Refuted
		why += "; " + a + "'s hand-off detection is not below its control detection at all"
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
	return h, clauses
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

// h2 decides H2 on design c (C or a variant) against baseline b and
// returns its clauses' margins.
func h2(r *Results, th Thresholds, c, b string) (Hypothesis, []Clause) {
	h := Hypothesis{
		ID: "H2",
		Statement: fmt.Sprintf("Contracts close most of the gap: design %s's hand-off detection is within %s of design %s's, its exact localisation at least %s above %s's (both paired on the same mutants and trials, the mutant as the unit), and it costs at most %s of %s's per suite. By the protocol's refutation criterion (“%s”), %s must also miss no hand-off class that %s detects.",
			c, F4(th.H2MaxDetectionGap), b, F4(th.H2MinLocalisationGain), b, F4(th.H2MaxCostRatio), b, h2Refutation, c, b) + " Detection and localisation are of the harmful trials.",
	}
	if !hasDesign(r, b) || !hasDesign(r, c) {
		h.Verdict, h.Why = Inconclusive, fmt.Sprintf("designs %s and %s must both be in the run", b, c)
		return h, nil
	}
	var why []string
	var clauses []Clause
	add := func(cl Clause, s string) {
		clauses = append(clauses, cl)
		why = append(why, s)
	}

	// Detection: b − c within the allowed gap, paired on the mutants.
	det := pairedOf(pairs(r, b, c, handOff, false), b, c)
	if det.m == 0 {
		add(Clause{Name: "detection gap", Outcome: undecided.String()}, fmt.Sprintf("detection: no hand-off mutants both %s and %s evaluated", b, c))
	} else {
		cl := marginClause("detection gap "+b+"−"+c+" ≤ threshold", th.H2MaxDetectionGap-det.hi, th.H2MaxDetectionGap-det.lo)
		add(cl, fmt.Sprintf("hand-off detection %s %s, %s %s; %s vs at most %s: %s", b, F4(det.a), c, F4(det.b), det, F4(th.H2MaxDetectionGap), cl.Outcome))
	}

	// Localisation: c − b exact, among the runs both detected.
	loc := pairedOf(pairs(r, b, c, handOff, true), b, c).negated(c + "−" + b)
	if loc.m == 0 {
		add(Clause{Name: "localisation gain", Outcome: undecided.String()}, fmt.Sprintf("localisation: no hand-off mutant that %s and %s both detected in a trial", b, c))
	} else {
		cl := marginClause("exact localisation gain "+c+"−"+b+" ≥ threshold", loc.lo-th.H2MinLocalisationGain, loc.hi-th.H2MinLocalisationGain)
		s := fmt.Sprintf("exact localisation among the hand-off suite runs both detected %s %s, %s %s; %s vs at least %s: %s", b, F4(loc.b), c, F4(loc.a), loc, F4(th.H2MinLocalisationGain), cl.Outcome)
		if ok, row := namesNoEdge(r, b); ok {
			s += fmt.Sprintf(" (%s's part by definition: %s named no edge in any of its %d flagged items, and a hand-off defect's ground truth is an edge)", b, b, row.Flagged)
		}
		add(cl, s)
	}

	add(h2Cost(r, th, c, b))

	// Whole classes c misses that b reveals.
	missed := 0
	for _, p := range r.PairedHarmful {
		if !handOff(p.Class) || !(p.A == b && p.B == c || p.A == c && p.B == b) {
			continue
		}
		cDetected := p.Both + p.OnlyB
		lo := float64(p.DiffCI95[0])
		if p.A == c {
			cDetected, lo = p.Both+p.OnlyA, -float64(p.DiffCI95[1])
		}
		if p.N > 0 && cDetected == 0 && lo > 0 {
			missed++
			why = append(why, fmt.Sprintf("%s misses class %s entirely (0 of %d suite runs) that %s detects (%s−%s's paired interval on the %d mutants lies above 0): refuted by the protocol's criterion", c, p.Class, p.N, b, b, c, p.Units))
		}
	}
	clauses = append(clauses, marginClause("no hand-off class missed that "+b+" detects", float64(-missed), float64(-missed)))

	h.Verdict = combineClauses(clauses)
	h.Why = strings.Join(why, "; ")
	return h, clauses
}

// h2Cost is H2's cost clause: c's money per suite over b's, from the
// unrounded money (or, without cost weights, model and tool calls), with
// the weight values at which the clause would flip.
func h2Cost(r *Results, th Thresholds, c, b string) (Clause, string) {
	bc, cc := costRow(r, b), costRow(r, c)
	w := r.CostWeights
	bCost, cCost, unit := float64(bc.MoneyPerSuite), float64(cc.MoneyPerSuite), "money"
	weighted := bCost > 0
	if !weighted {
		bCost = float64(bc.PerSuite.ModelCalls) + float64(bc.PerSuite.ToolCalls)
		cCost = float64(cc.PerSuite.ModelCalls) + float64(cc.PerSuite.ToolCalls)
		unit = "model+tool calls (no cost weights)"
	}
	if bCost <= 0 {
		return Clause{Name: "cost ratio", Outcome: undecided.String()}, "cost: " + b + "'s suite cost is zero"
	}
	ratio := cCost / bCost
	cl := marginClause("cost ratio "+c+"/"+b+" ≤ threshold", th.H2MaxCostRatio-ratio, th.H2MaxCostRatio-ratio)
	s := fmt.Sprintf("cost per suite in %s %s %s / %s %s = %s vs at most %s: %s", unit, c, F4(cCost), b, F4(bCost), F4(ratio), F4(th.H2MaxCostRatio), cl.Outcome)
	if weighted {
		cl.BreakEven = breakEven(w, cc.PerSuite, bc.PerSuite, th.H2MaxCostRatio)
		if len(cl.BreakEven) > 0 {
			s += "; it flips at " + breakEvenText(cl.BreakEven)
		}
	}
	return cl, s
}

func costRow(r *Results, design string) CostRow {
	for _, x := range r.Cost {
		if x.Design == design {
			return x
		}
	}
	return CostRow{Design: design}
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

// h3 decides H3 on design c (C, a variant or D) against baseline b and
// returns its clause's margin.
func h3(r *Results, th Thresholds, c, b string) (Hypothesis, []Clause) {
	h := Hypothesis{
		ID: "H3",
		Statement: fmt.Sprintf("End-to-end finds but does not locate: among the harmful mutant suite runs both designs detected, design %s's share without exact localisation exceeds design %s's by at least %s (paired, the mutant as the unit).",
			b, c, F4(th.H3MinGap)),
	}
	if !hasDesign(r, b) || !hasDesign(r, c) {
		h.Verdict, h.Why = Inconclusive, fmt.Sprintf("designs %s and %s must both be in the run", b, c)
		return h, nil
	}
	// Not exactly localised, b − c, is exactly localised, c − b.
	f := pairedOf(pairs(r, b, c, anyClass, true), b, c).negated(b + "−" + c)
	if f.m == 0 {
		h.Verdict, h.Why = Inconclusive, fmt.Sprintf("no mutant that %s and %s both detected in a trial", b, c)
		return h, []Clause{{Name: "share gap", Outcome: undecided.String()}}
	}
	cl := marginClause("share without exact localisation "+b+"−"+c+" ≥ threshold", f.lo-th.H3MinGap, f.hi-th.H3MinGap)
	why := fmt.Sprintf("not exactly localised among the suite runs both detected: %s %s, %s %s; %s vs at least %s",
		b, F4(1-f.b), c, F4(1-f.a), f, F4(th.H3MinGap))
	if ok, row := namesNoEdge(r, b); ok {
		why += fmt.Sprintf("; on the hand-off mutants %s's share is 1 by definition (%s named no edge in any of its %d flagged items)", b, b, row.Flagged)
	}
	h.Verdict = combineClauses([]Clause{cl})
	if h.Verdict == Inconclusive {
		why += "; the interval straddles the threshold"
	}
	h.Why = why
	return h, []Clause{cl}
}
