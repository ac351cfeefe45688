package reports

import (
	"fmt"
)

// MatcherRow is a design's tool-call trajectory scores over every agent-item
// it scored (all builds): the exact matcher (name, arguments and order)
// decides; name-only and order-ignored are reported beside it, with how
// much more they would pass (the gaps, as rates over N).
type MatcherRow struct {
	Design           string `json:"design"`
	N                int    `json:"n"` // agent-items scored
	Exact            int    `json:"exact"`
	NameOnly         int    `json:"name_only"`
	OrderIgnored     int    `json:"order_ignored"`
	ExactRate        F4     `json:"exact_rate"`
	ExactCI95        CI     `json:"exact_ci95"`
	NameOnlyRate     F4     `json:"name_only_rate"`
	NameOnlyCI95     CI     `json:"name_only_ci95"`
	OrderIgnoredRate F4     `json:"order_ignored_rate"`
	OrderIgnoredCI95 CI     `json:"order_ignored_ci95"`
	NameOnlyGap      F4     `json:"name_only_gap"`     // name-only rate minus exact rate
	OrderIgnoredGap  F4     `json:"order_ignored_gap"` // order-ignored rate minus exact rate
}

// matcherTally sums a design's items' trajectory scores.
type matcherTally struct{ n, exact, nameOnly, orderIgnored int }

func (t *matcherTally) add(it Item) {
	t.n += it.MatchN
	t.exact += it.MatchExact
	t.nameOnly += it.MatchNameOnly
	t.orderIgnored += it.MatchOrderIgnored
}

// matcherRows lists, in design order, the designs whose items scored any
// trajectory.
func (a *Aggregator) matcherRows(designs []string) []MatcherRow {
	var out []MatcherRow
	for _, d := range designs {
		sp := a.spent[a.designIDs.id(d)]
		if sp == nil || sp.match.n == 0 {
			continue
		}
		t := sp.match
		out = append(out, MatcherRow{
			Design: d, N: t.n, Exact: t.exact, NameOnly: t.nameOnly, OrderIgnored: t.orderIgnored,
			ExactRate: rateOf(t.exact, t.n), ExactCI95: wilsonCI(t.exact, t.n),
			NameOnlyRate: rateOf(t.nameOnly, t.n), NameOnlyCI95: wilsonCI(t.nameOnly, t.n),
			OrderIgnoredRate: rateOf(t.orderIgnored, t.n), OrderIgnoredCI95: wilsonCI(t.orderIgnored, t.n),
			NameOnlyGap:     f4(ratio(t.nameOnly-t.exact, t.n)),
			OrderIgnoredGap: f4(ratio(t.orderIgnored-t.exact, t.n)),
		})
	}
	return out
}

// matcherTable is trajectory_matchers.csv.
func matcherTable(rows []MatcherRow) Table {
	return Table{Name: "trajectory_matchers", Header: []string{"design", "n", "exact", "name_only", "order_ignored",
		"exact_rate", "exact_ci_low", "exact_ci_high", "name_only_rate", "name_only_ci_low", "name_only_ci_high",
		"order_ignored_rate", "order_ignored_ci_low", "order_ignored_ci_high", "name_only_gap", "order_ignored_gap"},
		Rows: rowsOf(rows, func(x *MatcherRow) []string {
			row := []string{x.Design, itoa(x.N), itoa(x.Exact), itoa(x.NameOnly), itoa(x.OrderIgnored), x.ExactRate.String()}
			row = append(row, ci(x.ExactCI95)...)
			row = append(row, x.NameOnlyRate.String())
			row = append(row, ci(x.NameOnlyCI95)...)
			row = append(row, x.OrderIgnoredRate.String())
			row = append(row, ci(x.OrderIgnoredCI95)...)
			return append(row, x.NameOnlyGap.String(), x.OrderIgnoredGap.String())
		})}
}

// matchersSection is the trajectory matchers section; nil when no
// design scored a trajectory.
func matchersSection(rows []MatcherRow) *section {
	if len(rows) == 0 {
		return nil
	}
	t := &table{ID: "trajectory-matchers-table", Header: []string{"design", "agent-items scored", "exact", "name-only", "order-ignored", "name-only gap", "order-ignored gap"}, RowHeads: true}
	for _, x := range rows {
		t.Rows = append(t.Rows, []tcell{textCell(x.Design), intCell(x.N), trialRateCell(x.Exact, x.N), trialRateCell(x.NameOnly, x.N),
			trialRateCell(x.OrderIgnored, x.N), numCell(gapCell(x.NameOnlyGap), float64(x.NameOnlyGap)), numCell(gapCell(x.OrderIgnoredGap), float64(x.OrderIgnoredGap))})
	}
	return &section{ID: "trajectory-matchers", Title: "Trajectory matchers", Blocks: []block{
		p("Agent-items whose tool-call trajectory passed, over all builds. The exact matcher (name, arguments and order) decides; name-only and order-ignored are reported beside it, with the gap to exact."), t}}
}

// gapCell writes a gap as a signed rate with three decimals ("+0.125").
func gapCell(g F4) string { return fmt.Sprintf("%+.3f", float64(g)) }
