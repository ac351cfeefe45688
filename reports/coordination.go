package reports

import (
	"slices"
	"strings"

	"github.com/baton-lab/baton/coordination"
)

// observationDesign is the design part of an observation run's item id,
// as the experiment writes it.
const observationDesign = "obs"

// verdictCount counts one dimension's verdicts over observation runs, and
// names the first failing run (by scenario, then trial).
type verdictCount struct {
	pass, fail, na int
	exScenario     string
	exTrial        int
}

// addCoordination counts an observation run's coordination verdicts for
// build b (see [Item].Coordination).
func (a *Aggregator) addCoordination(b id, it *Item) {
	vs := it.Coordination
	if len(vs) == 0 {
		return
	}
	if a.coord == nil {
		a.coord = make(map[id][]verdictCount)
	}
	cs := a.coord[b]
	if cs == nil {
		cs = make([]verdictCount, len(coordination.AllDimensions))
		a.coord[b] = cs
	}
	for i, v := range vs {
		if i >= len(cs) {
			break
		}
		switch v {
		case coordination.Pass:
			cs[i].pass++
		case coordination.Fail:
			c := &cs[i]
			if c.fail == 0 || it.Scenario < c.exScenario || it.Scenario == c.exScenario && it.Trial < c.exTrial {
				c.exScenario, c.exTrial = strings.Clone(it.Scenario), it.Trial
			}
			c.fail++
		default:
			cs[i].na++
		}
	}
}

// CoordinationRow is one build's coordination dimension over its
// observation runs (one per scenario and trial), each judged on the record
// derived from its trace: failed of n judged (the runs the dimension
// applies to), with the 95% Wilson interval of the failure rate on n.
type CoordinationRow struct {
	Build         string `json:"build"`
	Class         string `json:"class"` // "" for the clean build
	Dimension     string `json:"dimension"`
	Runs          int    `json:"runs"` // observation runs
	NotApplicable int    `json:"not_applicable"`
	N             int    `json:"n"` // runs judged pass or fail
	Failed        int    `json:"failed"`
	FailRate      F4     `json:"fail_rate"`
	CI95          CI     `json:"ci95"`
	// Example is the first failing run's item id (by scenario, then
	// trial), "" when none failed: `baton replay RUN_DIR ITEM
	// --coordination` prints its record and the events of each failure.
	Example string `json:"example,omitempty"`
}

// Movement says how a class's coordination failure rate compares with
// the clean build's.
type Movement string

// The movements: a class raises (lowers) a dimension when the 95%
// interval of its clustered failure rate lies wholly above (below) the
// clean build's trial-level interval.
const (
	MoveNone   Movement = "none"
	MoveRaises Movement = "raises"
	MoveLowers Movement = "lowers"
)

// AllMovements lists every movement.
var AllMovements = []Movement{MoveNone, MoveRaises, MoveLowers}

// String returns the movement's name.
func (m Movement) String() string { return string(m) }

// CoordinationClassRow is one class's coordination dimension with the
// mutant as the unit: FailRate is the mean over the class's mutants of
// each one's failure rate over its judged observation runs, CI95 its
// clustered interval on Units mutants; the trial-level counts stand
// beside it. Moves compares it with the clean build's row.
type CoordinationClassRow struct {
	Class         string   `json:"class"`
	Dimension     string   `json:"dimension"`
	Mutants       int      `json:"mutants"`
	Units         int      `json:"units"` // mutants with a judged run: the n of the clustered interval
	FailRate      F4       `json:"fail_rate"`
	CI95          CI       `json:"ci95"`
	Failed        int      `json:"failed"`
	N             int      `json:"n"`
	NotApplicable int      `json:"not_applicable"`
	Moves         Movement `json:"moves"`
	Example       string   `json:"example,omitempty"` // the first of its mutants' examples, in build order
}

// coordinationRows computes the coordination rows per build (clean first,
// then the mutated builds in order) and per class.
func (a *Aggregator) coordinationRows(builds []BuildInfo, classes []string) ([]CoordinationRow, []CoordinationClassRow) {
	byBuild := []CoordinationRow{}
	row := func(b BuildInfo, i int) (CoordinationRow, bool) {
		bid, known := a.buildIDs.ids[b.ID]
		cs, ok := a.coord[bid]
		if !known || !ok {
			return CoordinationRow{}, false
		}
		c := cs[i]
		n := c.pass + c.fail
		x := CoordinationRow{Build: b.ID, Class: b.Class, Dimension: coordination.AllDimensions[i].String(),
			Runs: n + c.na, NotApplicable: c.na, N: n, Failed: c.fail, FailRate: rateOf(c.fail, n), CI95: wilsonCI(c.fail, n)}
		if c.fail > 0 {
			x.Example = itemID(b.ID, observationDesign, c.exScenario, c.exTrial)
		}
		return x, true
	}
	clean := map[string]CoordinationRow{}
	for i := range coordination.AllDimensions {
		if r, ok := row(BuildInfo{ID: CleanBuild}, i); ok {
			byBuild = append(byBuild, r)
			clean[r.Dimension] = r
		}
	}
	perBuild := map[string][]CoordinationRow{}
	for _, b := range builds {
		for i := range coordination.AllDimensions {
			if r, ok := row(b, i); ok {
				byBuild = append(byBuild, r)
				perBuild[b.Class] = append(perBuild[b.Class], r)
			}
		}
	}
	byClass := []CoordinationClassRow{}
	for _, class := range classes {
		for _, d := range coordination.AllDimensions {
			x := CoordinationClassRow{Class: class, Dimension: d.String()}
			var cs []Cluster
			for _, r := range perBuild[class] {
				if r.Dimension != x.Dimension {
					continue
				}
				x.Mutants++
				if x.Example == "" {
					x.Example = r.Example
				}
				x.Failed, x.N, x.NotApplicable = x.Failed+r.Failed, x.N+r.N, x.NotApplicable+r.NotApplicable
				cs = append(cs, Cluster{K: r.Failed, N: r.N})
			}
			if x.Mutants == 0 {
				continue
			}
			x.FailRate, x.Units, x.CI95 = clustered(cs)
			x.Moves = movement(x, clean[x.Dimension])
			byClass = append(byClass, x)
		}
	}
	return byBuild, byClass
}

// movement compares a class's row with the clean build's.
func movement(x CoordinationClassRow, clean CoordinationRow) Movement {
	switch {
	case x.Units == 0 || clean.N == 0:
		return MoveNone
	case x.CI95[0] > clean.CI95[1]:
		return MoveRaises
	case x.CI95[1] < clean.CI95[0]:
		return MoveLowers
	}
	return MoveNone
}

// coordinationSection is the coordination evidence: each dimension's
// failure rate on the clean build and per class, and which dimensions
// each class moves, from those figures; nil when the run has none.
func coordinationSection(r *Results) *section {
	if len(r.Coordination) == 0 {
		return nil
	}
	s := &section{ID: "coordination", Title: "Coordination evidence"}
	s.add(p("Each observation run's coordination record is derived from its trace alone (no design reads it, and the build's class plays no part in it) and judged on " +
		itoa(len(coordination.AllDimensions)) + " dimensions, each pass, fail or not applicable. " +
		"Per class: the mean over the class's mutants of each mutant's share of judged runs that fail, [95% Wilson interval on the mutants] (mutants), with the trial-level k/n beside it; " +
		"the clean build: share of its judged runs that fail, [95% Wilson interval] (k/n). A run the dimension does not apply to is not judged."))
	clean := map[string]CoordinationRow{}
	for _, x := range r.Coordination {
		if x.Build == CleanBuild {
			clean[x.Dimension] = x
		}
	}
	var classes []string
	at := map[[2]string]CoordinationClassRow{}
	for _, x := range r.CoordinationByClass {
		if !slices.Contains(classes, x.Class) {
			classes = append(classes, x.Class)
		}
		at[[2]string{x.Class, x.Dimension}] = x
	}
	t := &table{ID: "coordination-table", Header: append([]string{"dimension", "clean"}, classes...), RowHeads: true, Heat: true}
	var never []string
	for _, d := range coordination.AllDimensions {
		c := clean[d.String()]
		row := []tcell{textCell(d.String()), trialRateCell(c.Failed, c.N)}
		judged := c.N
		for _, class := range classes {
			x := at[[2]string{class, d.String()}]
			judged += x.N
			row = append(row, clusteredCell(x.FailRate, x.CI95, x.Units).then("; trials "+rateCell(x.Failed, x.N)))
		}
		t.Rows = append(t.Rows, row)
		if judged == 0 {
			never = append(never, d.String())
		}
	}
	s.add(t)
	if len(never) > 0 {
		s.add(p("Not applicable in any run of any build: " + joinAnd(never) + "."))
	}
	s.add(p("A class moves a dimension when the 95% interval of its per-mutant failure rate lies wholly above (raises failures) or below (lowers failures) the clean build's interval:"))
	items := make([][]span, 0, len(classes))
	for _, class := range classes {
		var up, down []string
		for _, d := range coordination.AllDimensions {
			switch at[[2]string{class, d.String()}].Moves {
			case MoveRaises:
				up = append(up, d.String())
			case MoveLowers:
				down = append(down, d.String())
			}
		}
		line := class + ": moves no dimension"
		switch {
		case len(up) > 0 && len(down) > 0:
			line = class + ": raises failures of " + joinAnd(up) + "; lowers failures of " + joinAnd(down)
		case len(up) > 0:
			line = class + ": raises failures of " + joinAnd(up)
		case len(down) > 0:
			line = class + ": lowers failures of " + joinAnd(down)
		}
		items = append(items, []span{text(line + ".")})
	}
	s.add(&list{Items: items})
	if ex := coordinationExamples(clean, r.CoordinationByClass); len(ex) > 0 {
		s.add(&para{Spans: []span{text("A failing run of each dimension, per build kind; "),
			code("baton replay RUN_DIR ITEM --coordination"), text(" prints its record, each failure naming the trace events that show it:")}},
			&list{Items: ex})
	}
	return s
}

// coordinationExamples lists the example run of each failing dimension:
// the clean build's, then each class's.
func coordinationExamples(clean map[string]CoordinationRow, byClass []CoordinationClassRow) [][]span {
	var out [][]span
	for _, d := range coordination.AllDimensions {
		if x := clean[d.String()]; x.Example != "" {
			out = append(out, []span{text("clean, " + d.String() + ": "), code(x.Example)})
		}
	}
	for _, x := range byClass {
		if x.Example != "" {
			out = append(out, []span{text(x.Class + ", " + x.Dimension + ": "), code(x.Example)})
		}
	}
	return out
}

// joinAnd joins names as "a, b and c".
func joinAnd(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
