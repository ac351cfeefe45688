package reports

import (
	"cmp"
	"fmt"
	"slices"
)

// passKSection is pass^k by category: the tables, and in HTML the clean
// build's curves per category, one small panel per build, and every
// build × scenario row folded away.
func passKSection(r *Results) *section {
	s := &section{ID: "pass-k", Title: "pass^k by category"}
	s.add(p("Mean over a category's scenarios of the unbiased estimator C(c,k)/C(n,k) from the integrated runs' mission success."), p(passKNote))
	clean := cleanCategoryCurves(r)
	if len(clean) > 0 {
		s.add(&figure{ID: "pass-k-clean", Title: "pass^k by category, clean build", Draw: func() string { return lineChartSVG("pass^k by category, clean build", clean) },
			Caption: "One line per category of the clean build's scenarios."})
	}
	if builds, ref := buildCurves(r); len(builds) > 0 {
		s.add(&figure{ID: "pass-k-builds", Title: "pass^k by build", Draw: func() string { return smallMultiplesSVG("pass^k by build, mean over scenarios", builds, ref) },
			Caption: "One panel per build, the most reliable first (by pass^k at the largest k, then pass^1); the grey line in each is the clean build."})
	}
	s.add(passKCategoryTable(r), passKScenarioTable(r))
	return s
}

func passKCategoryTable(r *Results) *table {
	maxN := 0
	for _, x := range r.PassKByCategory {
		maxN = max(maxN, x.N)
	}
	ks := passKColumns(maxN)
	t := &table{ID: "pass-k-table", Header: []string{"build", "category", "scenarios", "n"}, RowHeads: true}
	for _, k := range ks {
		t.Header = append(t.Header, fmt.Sprintf("k=%d", k))
	}
	for _, x := range r.PassKByCategory {
		row := []tcell{textCell(x.Build), textCell(x.Category), intCell(x.Scenarios), intCell(x.N)}
		for _, k := range ks {
			if v, ok := x.At(k); ok {
				row = append(row, numCell(fmt.Sprintf("%.2f", float64(v)), float64(v)))
			} else {
				row = append(row, textCell(""))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// passKScenarioTable is the clean build's scenarios, HTML only and
// folded: pass_k.csv has every build's with every k.
func passKScenarioTable(r *Results) *table {
	t := &table{ID: "pass-k-scenarios-table", Header: []string{"build", "scenario", "category", "pass^1", "pass^n"},
		RowHeads: true, HTMLOnly: true, Collapsed: "pass^k of the clean build per scenario (pass_k.csv has every build's)"}
	for _, x := range r.PassK {
		if x.Build != CleanBuild {
			continue
		}
		last := textCell("")
		if len(x.PassK) > 0 {
			v := x.PassK[len(x.PassK)-1]
			last = numCell(v.String(), float64(v))
		}
		t.Rows = append(t.Rows, []tcell{textCell(x.Build), textCell(x.Scenario), textCell(x.Category), trialRateCell(x.C, x.N), last})
	}
	return t
}

// cleanCategoryCurves are the clean build's mean pass^k per category, at
// the k results.json keeps.
func cleanCategoryCurves(r *Results) []curve {
	var out []curve
	for _, x := range r.PassKByCategory {
		if x.Build != CleanBuild {
			continue
		}
		c := curve{name: x.Category}
		for i, k := range x.K {
			if i < len(x.PassK) {
				c.xs = append(c.xs, float64(k))
				c.ys = append(c.ys, float64(x.PassK[i]))
			}
		}
		out = append(out, c)
	}
	return out
}

// buildCurves is, per build, the mean over its scenarios of pass^k at the
// k results.json keeps for the fewest trials of any of them, from each
// scenario's n and c; sorted most reliable first, with the clean build's
// curve as the reference.
func buildCurves(r *Results) ([]curve, *curve) {
	var order []string
	byBuild := make(map[string][]*PassKRow)
	for i := range r.PassK {
		x := &r.PassK[i]
		if byBuild[x.Build] == nil {
			order = append(order, x.Build)
		}
		byBuild[x.Build] = append(byBuild[x.Build], x)
	}
	var out []curve
	var ref *curve
	for _, b := range order {
		g := passKGroup{build: b, rows: byBuild[b], n: byBuild[b][0].N}
		for _, x := range g.rows {
			g.n = min(g.n, x.N)
		}
		c := curve{name: b}
		for _, k := range passKPoints(g.n) {
			c.xs = append(c.xs, float64(k))
			c.ys = append(c.ys, Round4(g.mean(k)))
		}
		if b == CleanBuild {
			cc := c
			ref = &cc
		}
		out = append(out, c)
	}
	last := func(c curve) float64 {
		if len(c.ys) == 0 {
			return -1
		}
		return c.ys[len(c.ys)-1]
	}
	first := func(c curve) float64 {
		if len(c.ys) == 0 {
			return -1
		}
		return c.ys[0]
	}
	slices.SortStableFunc(out, func(a, b curve) int {
		return cmp.Or(cmp.Compare(last(b), last(a)), cmp.Compare(first(b), first(a)))
	})
	return out, ref
}
