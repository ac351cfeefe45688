package reports

import (
	"fmt"
	"strings"
)

// buildReport builds the report of r as one document, in the order
// report.md has always had: the protocol and its deviations, validity,
// hypotheses, warnings, then the tables, methods last; the HTML's
// drill-down and traces follow. traces (nil for report.md) holds the
// trace viewers of the items the report points to.
func buildReport(r *Results, traces *traceSet) *document {
	designs, classes := designsAndClasses(r)
	anchors := cellAnchors(designs, classes)
	d := &document{Title: "baton report", Intro: introBlocks(r)}
	d.Sections = append(d.Sections, validitySection(r), hypothesesSection(r))
	if s := infraSection(r); s != nil {
		d.Sections = append(d.Sections, s)
	}
	d.Sections = append(d.Sections, robustnessSection(r))
	if len(r.Warnings) > 0 {
		items := make([][]span, len(r.Warnings))
		for i, x := range r.Warnings {
			items[i] = []span{text(x)}
		}
		d.Sections = append(d.Sections, &section{ID: "warnings", Title: "Warnings", Blocks: []block{&list{Items: items}}})
	}
	d.Sections = append(d.Sections,
		harmSection(r, designs, classes, anchors),
		detectionSection(r, designs, classes, anchors),
		localisationSection(r, designs, classes, anchors))
	if s := matchersSection(r.TrajectoryMatchers); s != nil {
		d.Sections = append(d.Sections, s)
	}
	d.Sections = append(d.Sections, falseAlarmsSection(r), passKSection(r), costSection(r))
	for _, s := range []*section{modelSection(r), mistakesSection(r)} { // models.go
		if s != nil {
			d.Sections = append(d.Sections, s)
		}
	}
	d.Sections = append(d.Sections, pairedSection(r.Paired), agreementSection(r.Agreement), mutantsSection(r))
	if s := coordinationSection(r); s != nil {
		d.Sections = append(d.Sections, s)
	}
	d.Sections = append(d.Sections, methodsDoc(r))
	if traces != nil { // report.html's own
		d.Sections = append(d.Sections, drillDownSection(r, designs, classes, anchors, traces), traces.section())
	}
	return d
}

// introBlocks are the protocol line, the pre-registration notice with any
// deviations, and how to read the rates.
func introBlocks(r *Results) []block {
	pr := r.Protocol
	out := []block{&para{Spans: []span{
		text("Protocol " + orDash(pr.Name) + ", sha256 "), code(orDash(pr.SHA256)),
		text(fmt.Sprintf(", seed %d, %d trials, contract level %s. Schema %s.", pr.Seed, pr.Trials, orDash(pr.ContractLevel), r.Schema)),
	}}}
	if r.baton != "" {
		out[0].(*para).Spans = append(out[0].(*para).Spans, text(" Run by baton "+r.baton+"."))
	}
	class := "note"
	switch {
	case len(pr.Deviations) > 0:
		class = "discarded"
	case pr.Locked:
		class = "valid"
	}
	lines := deviationLines(pr)
	notice := &box{Class: class, Blocks: []block{&para{Spans: []span{strong(lines[0])}}}}
	if len(lines) > 1 {
		items := make([][]span, len(lines)-1)
		for i, l := range lines[1:] {
			items[i] = []span{text(l)}
		}
		notice.Blocks = append(notice.Blocks, &list{Items: items})
	}
	return append(out, notice, provenanceBlock(r), &para{Spans: []span{
		text("Rates are per mutant (the unit of analysis), with the trial-level rate beside them; see "),
		ref("Methods and limitations", "methods"), text(" at the end."),
	}})
}

func validitySection(r *Results) *section {
	s := &section{ID: "validity", Title: "Validity"}
	if !r.Validity.Valid {
		s.add(&para{Class: "discarded", Spans: []span{strong("DISCARDED."),
			text(" " + r.Validity.Reason + ". The harness is not validated: no figure below stands.")}})
		return s
	}
	s.add(&para{Class: "valid", Spans: []span{strong("Valid."), text(fmt.Sprintf(
		" Every design caught every control mutant in every trial (%d control suite runs checked): each flagged a scenario that its clean twin does not flag. %s",
		r.Validity.ControlSuiteRuns, controlEvidence(r)))}})
	if r.Validity.Reason != "" {
		s.add(p("Note: " + r.Validity.Reason + "."))
	}
	return s
}

func hypothesesSection(r *Results) *section {
	items := make([][]span, len(r.Hypotheses))
	for i, h := range r.Hypotheses {
		items[i] = []span{styled(strong(h.ID+" — "+h.Verdict+"."), h.Verdict), text(" " + h.Statement), lineBreak(), text(h.Why)}
	}
	return &section{ID: "hypotheses", Title: "Hypotheses", Blocks: []block{&list{Items: items}}}
}

// cellAnchors names the drill-down anchor of every design × class cell.
func cellAnchors(designs, classes []string) map[[2]string]string {
	out := make(map[[2]string]string)
	for _, d := range designs {
		for _, c := range classes {
			out[[2]string{d, c}] = fmt.Sprintf("cell-%d", len(out)+1)
		}
	}
	return out
}

// byCell looks rows up by their design and class (the zero row when
// there is none).
func byCell[T any](rows []T, key func(T) (design, class string)) func(design, class string) T {
	m := make(map[[2]string]T, len(rows))
	for _, x := range rows {
		d, c := key(x)
		m[[2]string{d, c}] = x
	}
	return func(d, c string) T { return m[[2]string{d, c}] }
}

// matrixTable lays designs (rows) against classes (columns), each cell
// linked to its drill-down and coloured by its value.
func matrixTable(id string, designs, classes []string, anchors map[[2]string]string, get func(d, c string) tcell) *table {
	t := &table{ID: id, Header: append([]string{"design"}, classes...), RowHeads: true, Heat: true}
	for _, d := range designs {
		row := []tcell{textCell(d)}
		for _, c := range classes {
			row = append(row, get(d, c).linked(anchors[[2]string{d, c}]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func detectionSection(r *Results, designs, classes []string, anchors map[[2]string]string) *section {
	at := byCell(r.Detection, func(x DetectionRow) (string, string) { return x.Design, x.Class })
	s := &section{ID: "detection", Title: "Detection"}
	s.add(p("Mean over the class's mutants of each mutant's share of suite runs in which the design flags a scenario that it does not flag on the clean build under the same seed: rate [95% Wilson interval on the mutants] (mutants). The mutant is the unit; the trial-level table below is conditional on these mutants."))
	s.add(heatFigure("detection-map", "Detection (design × class), per mutant", designs, classes, func(d, c string) tcell {
		x := at(d, c)
		return clusteredCell(x.Rate, x.CI95, x.Units)
	}))
	s.add(matrixTable("detection-table", designs, classes, anchors, func(d, c string) tcell {
		x := at(d, c)
		return clusteredCell(x.Rate, x.CI95, x.Units)
	}))
	t := s.sub("detection-trials", "Trial level, conditional on these mutants")
	t.add(p("Share of (mutant × trial) suite runs detected: rate [95% Wilson interval] (k/n). It says how often these very mutants were caught, not how often the class would be."))
	t.add(matrixTable("detection-trials-table", designs, classes, anchors, func(d, c string) tcell {
		x := at(d, c)
		return trialRateCell(x.Detected, x.N)
	}))
	raw := s.sub("detection-raw", "Raw detection (any flag)")
	raw.add(matrixTable("detection-raw-table", designs, classes, anchors, func(d, c string) tcell {
		x := at(d, c)
		return clusteredCell(x.RawRate, x.RawCI95, x.Units).then("; trials " + rateCell(x.RawDetected, x.N))
	}))
	if bm := byMutantSection(r, designs); bm != nil {
		s.Sections = append(s.Sections, bm)
	}
	return s
}

// byMutantSection is detection per mutant (trial level: one mutant is
// one unit); nil when the run has none.
func byMutantSection(r *Results, designs []string) *section {
	if len(r.DetectionByMutant) == 0 {
		return nil
	}
	byM := make(map[[2]string]MutantDetection)
	var ms []string
	class := make(map[string]string)
	for _, x := range r.DetectionByMutant {
		if _, seen := class[x.Build]; !seen {
			ms = append(ms, x.Build)
			class[x.Build] = x.Class
		}
		byM[[2]string{x.Build, x.Design}] = x
	}
	t := &table{ID: "detection-by-mutant-table", Header: append([]string{"mutant", "class"}, designs...), RowHeads: true, Heat: true}
	for _, m := range ms {
		row := []tcell{textCell(m), textCell(class[m])}
		for _, d := range designs {
			x := byM[[2]string{m, d}]
			row = append(row, trialRateCell(x.Detected, x.N))
		}
		t.Rows = append(t.Rows, row)
	}
	return &section{ID: "detection-by-mutant", Title: "Detection by mutant", Blocks: []block{
		p("Per mutant over its trials: rate [95% Wilson interval] (k/n)."), t}}
}

func localisationSection(r *Results, designs, classes []string, anchors map[[2]string]string) *section {
	at := byCell(r.Localisation, func(x LocalisationRow) (string, string) { return x.Design, x.Class })
	s := &section{ID: "localisation", Title: "Localisation"}
	s.add(p("Among detected suite runs, the share whose top blame (most named first by the newly flagged scenarios) is the mutant's location (exact), or the location or a neighbour of it (adjacent): the mean over the mutants the design detected at least once, with the 95% Wilson interval on those mutants; trial level beside it."))
	s.add(heatFigure("localisation-map", "Exact localisation (design × class), per mutant", designs, classes, func(d, c string) tcell {
		x := at(d, c)
		return clusteredCell(x.ExactRate, x.ExactCI95, x.Units)
	}))
	exact := s.sub("localisation-exact", "Exact")
	exact.add(matrixTable("localisation-exact-table", designs, classes, anchors, func(d, c string) tcell {
		x := at(d, c)
		return clusteredCell(x.ExactRate, x.ExactCI95, x.Units).then("; trials " + rateCell(x.Exact, x.Flagged))
	}))
	if hasBase(r, "D") {
		s.add(p(whoAndWhen))
	}
	adj := s.sub("localisation-adjacent", "Adjacent")
	adj.add(matrixTable("localisation-adjacent-table", designs, classes, anchors, func(d, c string) tcell {
		x := at(d, c)
		return clusteredCell(x.AdjacentRate, x.AdjacentCI95, x.Units).then("; trials " + rateCell(x.Adjacent, x.Flagged))
	}))
	return s
}

func falseAlarmsSection(r *Results) *section {
	t := &table{ID: "false-alarms-table", Header: []string{"design", "flagged", "explained by slip", "explained by fault", "unexplained"}, RowHeads: true}
	for _, x := range r.FalseAlarms {
		t.Rows = append(t.Rows, []tcell{textCell(x.Design), trialRateCell(x.Flagged, x.N), intCell(x.ExplainedBySlip),
			intCell(x.ExplainedByFault), trialRateCell(x.Unexplained, x.N)})
	}
	return &section{ID: "false-alarms", Title: "False alarms", Blocks: []block{
		p("Clean-build suite runs with any scenario flagged; explained when a flagged run had an intrinsic slip (or else a fault) fire."), t}}
}

func costSection(r *Results) *section {
	header := []string{"design", "suite runs"}
	for _, k := range costCounters {
		header = append(header, k.label)
	}
	header = append(header, "wall ms", "money per suite", "money total")
	t := &table{ID: "cost-table", Header: header, RowHeads: true}
	money := func(v F4, cur string) tcell { return numCell(strings.TrimSpace(v.String()+" "+cur), float64(v)) }
	mean := func(v F4) tcell { return numCell(v.String(), float64(v)) }
	for _, x := range r.Cost {
		ps := x.PerSuite
		row := []tcell{textCell(x.Design), intCell(x.SuiteRuns)}
		for _, k := range costCounters {
			row = append(row, mean(*k.mean(&ps)))
		}
		t.Rows = append(t.Rows, append(row, mean(ps.WallMS), money(x.MoneyPerSuite, x.Currency), money(x.Money, x.Currency)))
	}
	s := &section{ID: "cost", Title: "Cost", Blocks: []block{
		p("Mean per suite run (one full suite), counting what each design executed: the runs (an integrated run resets the whole system of record, an environment reset; a core run alone sets up one agent's fixture, a fixture reset), every message its emitters packaged and its parsers read, every message a design checked against its edge's contract and every trace event a design's attribution examined. Money with the protocol's cost weights, each counter priced by its own."), t}}
	if b := selectionNote(r); b != nil {
		s.Blocks = append(s.Blocks, b)
	}
	return s
}

func pairedSection(rows []PairedRow) *section {
	t := &table{ID: "paired-table", Header: []string{"class", "designs", "mutants", "a − b [95% CI]", "more a", "more b", "p (mutants)", "p Holm",
		"trial pairs", "both", "only a", "only b", "neither", "p (trials)", "p Holm (trials)"}}
	pv := func(x F4) tcell { return numCell(FormatP(float64(x)), float64(x)) }
	for _, x := range rows {
		diff := tcell{Kind: cellRate, Spans: []span{text(diffCell(x.Diff, x.DiffCI95, x.Units))}, Value: float64(x.Diff), M: x.Units,
			Lo: float64(x.DiffCI95[0]), Hi: float64(x.DiffCI95[1])}
		t.Rows = append(t.Rows, []tcell{textCell(x.Class), textCell(x.A + " vs " + x.B), intCell(x.Units), diff,
			intCell(x.MoreA), intCell(x.MoreB), pv(x.PValue), pv(x.PHolm),
			intCell(x.N), intCell(x.Both), intCell(x.OnlyA), intCell(x.OnlyB), intCell(x.Neither), pv(x.TrialPValue), pv(x.TrialPHolm)})
	}
	return &section{ID: "paired", Title: "Paired comparisons", Blocks: []block{p(fmt.Sprintf(
		"Designs a and b on the same mutants and trials. Difference a − b of the clustered detection rates with Newcombe's paired interval on the mutants; McNemar's exact test on the mutants (more a: mutants a detected in more trials than b); then the trial-level table and its exact McNemar test, conditional on these mutants. Both p-values are Holm-adjusted over the %d tests of the table.",
		len(rows))), t}}
}

func agreementSection(rows []AgreementRow) *section {
	s := &section{ID: "agreement", Title: "Agreement"}
	if len(rows) == 0 {
		s.add(p("No reviewer labels imported."))
		return s
	}
	s.add(p("Cohen's kappa with its 95% interval (kappa ± 1.96·SE, SE of Fleiss, Cohen & Everitt 1969) on the blinded review samples both raters rated (a design's flag counts as fail); agreement is the observed share. n is the samples both rated, of the exported sample."))
	t := &table{ID: "agreement-table", Header: []string{"a", "b", "n", "agreement", "kappa [95% CI]"}}
	for _, x := range rows {
		n := intCell(x.N)
		if x.Sample > 0 && x.N < x.Sample {
			n.Spans = []span{text(fmt.Sprintf("%d of %d (partial)", x.N, x.Sample))}
		}
		kappa := textCell(kappaCell(x))
		if x.Kappa != nil {
			kappa = numCell(kappaCell(x), float64(*x.Kappa))
		}
		t.Rows = append(t.Rows, []tcell{textCell(x.AKind + " " + x.A), textCell(x.BKind + " " + x.B), n, trialRateCell(x.Agree, x.N), kappa})
	}
	s.add(t)
	return s
}

func mutantsSection(r *Results) *section {
	designs, _ := designsAndClasses(r)
	t := &table{ID: "mutants-table", Header: []string{"mutant", "class", "origin", "location", "operator", "status", "by design",
		"reached", "trace diffs", "harmful runs", "harmful trials", "detected by"}, RowHeads: true}
	for _, x := range r.Mutants {
		diffs := numCell(fmt.Sprintf("%d/%d", x.TraceDiffs, x.Observations), ratio(x.TraceDiffs, x.Observations))
		harm := numCell(fmt.Sprintf("%d/%d", x.HarmfulRuns, x.Observations), ratio(x.HarmfulRuns, x.Observations))
		t.Rows = append(t.Rows, []tcell{textCell(x.ID), textCell(x.Class), textCell(x.Origin), textCell(x.Location), textCell(x.Operator),
			textCell(x.Status), textCell(mutantStatuses(designs, x)), intCell(x.Reached), diffs, harm, intCell(x.HarmfulTrials),
			textCell(orDash(strings.Join(x.DetectedBy, ", ")))})
	}
	return &section{ID: "mutants", Title: "Mutants", Blocks: []block{
		p("Statuses: killed (detected in a trial in which it did harm), flagged_benign (detected, never harmful), survived (harmful, its harmful trials never detected), benign (trace changed, end state never), equivalent (reached, no trace changed), no_coverage (never reached). Overall: " + statusCounts(r.Mutants) + "."),
		t}}
}

// methodsDoc is the methods and limitations section, one subsection per
// part of [methodsSection].
func methodsDoc(r *Results) *section {
	s := &section{ID: "methods", Title: "Methods and limitations"}
	for i, part := range methodsSection(r) {
		items := make([][]span, len(part.Items))
		for j, it := range part.Items {
			items[j] = []span{text(it)}
		}
		c := s.sub(fmt.Sprintf("methods-%d", i+1), part.Title)
		c.add(&list{Items: items})
	}
	return s
}
