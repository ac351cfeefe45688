package reports

import (
	"fmt"
	"strings"
)

// harmSection is the headline detection table: the harmful view, each
// design × class over the (mutant, trial) units in which the mutant did
// harm, and its flags on the benign units apart.
func harmSection(r *Results, designs, classes []string, anchors map[[2]string]string) *section {
	at := byCell(r.DetectionHarmful, func(x HarmRow) (string, string) { return x.Design, x.Class })
	s := &section{ID: "harm", Title: "Detection of harm"}
	s.add(p("Harm comes from the oracle, never from a design: a (mutant, trial) is harmful when, in some scenario, the mutated build's integrated run leaves an end state (the records, not the call log) that differs from its clean twin's under the same seed. " +
		"Per class: the mean over the class's harmful mutants of each one's share of its harmful trials that the design detects (a scenario flagged that the clean twin does not flag): rate [95% Wilson interval on the mutants] (harmful mutants). A flag on a benign trial is never counted as detecting a failure; the hypotheses use this view."))
	cell := func(d, c string) tcell {
		x := at(d, c)
		return clusteredCell(x.Rate, x.CI95, x.Units)
	}
	s.add(heatFigure("harm-map", "Detection of harm (design × class), per harmful mutant", designs, classes, cell))
	s.add(matrixTable("harm-table", designs, classes, anchors, cell))
	t := s.sub("harm-trials", "Harmful trials, conditional on these mutants")
	t.add(p("Share of harmful (mutant × trial) suite runs detected: rate [95% Wilson interval] (k/n)."))
	t.add(matrixTable("harm-trials-table", designs, classes, anchors, func(d, c string) tcell {
		x := at(d, c)
		return trialRateCell(x.Detected, x.N)
	}))
	b := s.sub("harm-benign", "Flags on benign mutants: caught a violation that did no damage")
	b.add(p("Mutants of the class that never did harm and that the design detected anyway (of those never harmful), and the benign (mutant × trial) suite runs it flagged: these are violations caught, not failures, and count in no detection rate above."))
	b.add(matrixTable("harm-benign-table", designs, classes, anchors, func(d, c string) tcell {
		x := at(d, c)
		return numCell(fmt.Sprintf("%d of %d mutants; trials %s", x.FlaggedBenign, x.BenignMutants, rateCell(x.BenignDetected, x.BenignN)),
			ratio(x.FlaggedBenign, x.BenignMutants))
	}))
	return s
}

// provenanceBlock says where the mutants and contracts came from, with
// their hashes: a rate on a hand-written catalogue (written together with
// the contracts that catch it) is an upper bound, one on the generated
// space a measurement.
func provenanceBlock(r *Results) block {
	pv := r.Provenance
	var what string
	switch pv.Space {
	case "generated":
		what = fmt.Sprintf("the mission's generated space (%d mutants: every operator at every site)", pv.Generated)
		if pv.HandWritten > 0 {
			what += fmt.Sprintf(", with the %d hand-written control mutants of catalogue %s as the validity gate", pv.HandWritten, orDash(pv.Catalogue))
		}
	case "both":
		what = fmt.Sprintf("%d hand-written (catalogue %s) and %d generated (every operator at every site)", pv.HandWritten, orDash(pv.Catalogue), pv.Generated)
	default:
		what = fmt.Sprintf("%d hand-written (catalogue %s), written together with the contracts", pv.HandWritten, orDash(pv.Catalogue))
	}
	if pv.PerClass > 0 {
		what += fmt.Sprintf("; the generated space sampled %d per class, seed %d", pv.PerClass, pv.SampleSeed)
	}
	spans := []span{text("Mutants: " + what + "; mutant list sha256 "), code(orDash(pv.CatalogueSHA256))}
	if pv.List != "" {
		spans = append(spans, text(", the exact list in "), code(pv.List))
	}
	spans = append(spans, text(". Contracts sha256 "), code(orDash(pv.ContractsSHA256)), text("."))
	return &para{Spans: spans}
}

// mutantStatuses is the mutants table's per-design status cell.
func mutantStatuses(designs []string, x MutantRow) string {
	parts := make([]string, 0, len(designs))
	for _, d := range designs {
		if s, ok := x.Statuses[d]; ok {
			parts = append(parts, d+" "+s)
		}
	}
	return orDash(strings.Join(parts, ", "))
}

// statusCounts is the mutants section's summary: how many mutants have
// each status, overall.
func statusCounts(rows []MutantRow) string {
	n := map[string]int{}
	for _, x := range rows {
		n[x.Status]++
	}
	var parts []string
	for _, s := range AllStatuses {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", s, n[s]))
		}
	}
	return orDash(strings.Join(parts, ", "))
}

// statusColumns are the mutants table's per-design status columns.
func statusColumns(designs []string) []string {
	out := make([]string, len(designs))
	for i, d := range designs {
		out[i] = "status_" + d
	}
	return out
}
