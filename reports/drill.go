package reports

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// drillDownSection is report.html's drill-down: one subsection per design
// × class cell (the anchor every matrix cell links to) with its mutants,
// its example suite runs and their items (each opening its trace viewer,
// or showing the command that regenerates it), and the scenarios that
// flagged.
func drillDownSection(r *Results, designs, classes []string, anchors map[[2]string]string, ts *traceSet) *section {
	s := &section{ID: "drill-down", Title: "Drill-down", HTMLOnly: true}
	s.add(p("Each cell's mutants, then, for each design and mutant, the first trial the design detected it in and the first it missed it in, with their items: " +
		"the scenarios newly flagged (flagged here, not on the clean twin) of a detected run, the scenarios flagged on both of a missed one. " +
		"suite_runs.csv has every suite run and runs.db every item. An item whose trace the run folder keeps opens in the trace viewer; " +
		"any other shows the command, run in the run folder (where this report lies), that regenerates it into the same viewer."))
	for _, d := range designs {
		for _, c := range classes {
			s.Sections = append(s.Sections, drillCell(r, d, c, anchors[[2]string{d, c}], ts))
		}
	}
	return s
}

// drillCell is one cell's drill-down.
func drillCell(r *Results, design, class, anchor string, ts *traceSet) *section {
	s := &section{ID: anchor, Title: "Design " + design + ", class " + class, NoTOC: true}
	mt := &table{ID: anchor + "-mutants", Header: []string{"mutant", "detected", "raw"}, RowHeads: true, Heat: true}
	for _, m := range r.DetectionByMutant {
		if m.Design == design && m.Class == class {
			mt.Rows = append(mt.Rows, []tcell{textCell(m.Build), trialRateCell(m.Detected, m.N), trialRateCell(m.RawDetected, m.N)})
		}
	}
	if len(mt.Rows) > 0 {
		s.add(mt)
	}
	rt := &table{ID: anchor + "-runs", Header: []string{"mutant", "trial", "detected", "raw", "items", "top blame", "ground truth", "exact", "adjacent"}, RowHeads: true}
	for _, ex := range r.Examples {
		if ex.Design == design && ex.Class == class {
			rt.Rows = append(rt.Rows, []tcell{textCell(ex.Build), intCell(ex.Trial), textCell(btoa(ex.Detected)), textCell(btoa(ex.Raw)),
				itemsCell(ex, ts), textCell(ex.TopBlame), textCell(ex.Location), textCell(btoa(ex.Exact)), textCell(btoa(ex.Adjacent))})
		}
	}
	if len(rt.Rows) > 0 {
		s.add(rt)
	} else {
		s.add(p("No suite runs."))
	}
	if st := scenarioTable(r, design, class, anchor); st != nil {
		s.add(st)
	}
	s.add(&para{Spans: []span{link("back to detection", "detection")}})
	return s
}

// maxDrillScenarios is how many (mutant, scenario) rows a drill-down cell
// shows; detection_by_scenario.csv has them all.
const maxDrillScenarios = 20

// scenarioTable lists a cell's (mutant, scenario) pairs that flagged, the
// most often detected first, at most maxDrillScenarios of them; nil when
// none flagged.
func scenarioTable(r *Results, design, class, anchor string) *table {
	var rows []ScenarioDetection
	for _, x := range r.DetectionByScenario {
		if x.Design == design && x.Class == class && x.RawDetected > 0 {
			rows = append(rows, x)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	slices.SortStableFunc(rows, func(a, b ScenarioDetection) int {
		return cmp.Or(cmp.Compare(b.Detected, a.Detected), cmp.Compare(b.RawDetected, a.RawDetected))
	})
	t := &table{ID: anchor + "-scenarios", Header: []string{"mutant", "scenario", "detected", "raw"}, RowHeads: true}
	for _, x := range rows[:min(len(rows), maxDrillScenarios)] {
		t.Rows = append(t.Rows, []tcell{textCell(x.Build), textCell(x.Scenario), trialRateCell(x.Detected, x.N), trialRateCell(x.RawDetected, x.N)})
	}
	if n := len(rows) - len(t.Rows); n > 0 {
		t.Rows = append(t.Rows, []tcell{textCell(fmt.Sprintf("and %d more", n)), textCell("detection_by_scenario.csv has them"), textCell(""), textCell("")})
	}
	return t
}

// itemsCell lists an example run's items: a link to the trace viewer of
// each item whose trace is embedded, else its scenario and the command
// that regenerates it (a code cell then).
func itemsCell(ex SuiteExample, ts *traceSet) tcell {
	c := tcell{Kind: cellText, Value: math.NaN()}
	for i, it := range ex.Items {
		if i > 0 {
			c.Spans = append(c.Spans, lineBreak())
		}
		if a := ts.anchor[it.ID]; a != "" {
			c.Spans = append(c.Spans, styled(link(it.Scenario+": open the trace", a), "trace-link"))
			continue
		}
		c.Kind = cellCode // a command to run, mostly
		c.Spans = append(c.Spans, text(it.Scenario+": "), code(replayHTMLCommand(it.ID)))
	}
	if len(ex.Items) == 0 {
		c.Spans = append(c.Spans, text("none flagged"))
	}
	if ex.MoreItems > 0 {
		c.Spans = append(c.Spans, lineBreak(), text(fmt.Sprintf("and %d more", ex.MoreItems)))
	}
	return c
}

// shellQuote quotes s for a POSIX shell unless it is made of characters no
// shell treats specially.
func shellQuote(s string) string {
	plain := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_./:@%+=,-", c)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
