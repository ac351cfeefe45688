package score

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// table writes tab-separated rows aligned in columns; text from the input
// must go through [clean] or [list] first.
type table struct {
	tw *tabwriter.Writer
}

func newTable(w io.Writer) *table {
	return &table{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
}

// row writes one formatted line.
func (t *table) row(format string, a ...any) { fmt.Fprintf(t.tw, format, a...) }

// cells writes one line of cells, already cleaned.
func (t *table) cells(c ...string) { t.row("%s\n", strings.Join(c, "\t")) }

// flush aligns what was written since the last flush.
func (t *table) flush() error { return t.tw.Flush() }

// figures writes a table of figures: each with its count out of n, rate,
// 95% Wilson interval, the records left out for want of evidence and what
// n counts.
func (t *table) figures(figs []namedFigure) {
	t.row("figure\tcount/n\trate\t95%% CI\tunknown\tof\n")
	for _, f := range figs {
		t.row("%s\t%d/%d\t%s\t%s\t%d\t%s\n", f.name, f.fig.Count, f.fig.N, fmtRate(f.fig.Value), f.fig.Interval(), f.fig.Unknown, f.fig.Of)
	}
}

// list joins input ids for one cell, "-" when there are none.
func list(ids []string) string {
	if len(ids) == 0 {
		return "-"
	}
	c := make([]string, len(ids))
	for i, id := range ids {
		c[i] = clean(id)
	}
	return strings.Join(c, " ")
}

// orDash returns clean(s), or "-" when s is empty.
func orDash(s string) string {
	if s = clean(s); s == "" {
		return "-"
	}
	return s
}

// notMeasured writes the closing line of a report.
func notMeasured(w io.Writer, items []string) error {
	_, err := fmt.Fprintf(w, "\nnot measured: %s\n", strings.Join(items, "; "))
	return err
}
