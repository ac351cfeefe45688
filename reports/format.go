package reports

import (
	"fmt"
	"slices"
	"strings"
)

// The formats of report.md's and report.html's cells and sentences.

// rateCell writes "rate [low–high] (k/n)" with two decimals; "–" when n is 0.
func rateCell(k, n int) string {
	if n == 0 {
		return "– (0/0)"
	}
	lo, hi := Wilson(k, n)
	return fmt.Sprintf("%.2f [%.2f–%.2f] (%d/%d)", ratio(k, n), lo, hi, k, n)
}

// mutantCell writes a clustered rate "rate [low–high] (m mutants)" with
// two decimals; "–" when no mutant has suite runs.
func mutantCell(rate F4, c CI, m int) string {
	if m == 0 {
		return "– (0 mutants)"
	}
	return fmt.Sprintf("%.2f [%.2f–%.2f] (%d mutant%s)", float64(rate), float64(c[0]), float64(c[1]), m, plural(m))
}

// kappaCell writes kappa with its interval, "undefined" when it is.
func kappaCell(x AgreementRow) string {
	if x.Kappa == nil {
		return "undefined"
	}
	s := fmt.Sprintf("%.2f [%.2f–%.2f]", float64(*x.Kappa), float64(x.KappaCI95[0]), float64(x.KappaCI95[1]))
	if x.KappaSE != nil && *x.KappaSE == 0 {
		s += " (SE 0: the large-sample interval is a point)"
	}
	return s
}

// diffCell writes a paired difference "d [low–high]" with two decimals.
func diffCell(d F4, c CI, m int) string {
	if m == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f [%.2f–%.2f]", float64(d), float64(c[0]), float64(c[1]))
}

// designsAndClasses lists the designs and classes of the detection table
// in its order.
func designsAndClasses(r *Results) (designs, classes []string) {
	for _, d := range r.Detection {
		if !slices.Contains(designs, d.Design) {
			designs = append(designs, d.Design)
		}
		if !slices.Contains(classes, d.Class) {
			classes = append(classes, d.Class)
		}
	}
	for _, c := range r.Cost {
		if !slices.Contains(designs, c.Design) {
			designs = append(designs, c.Design)
		}
	}
	return designs, classes
}

// passKNote says where each pass^k lives.
const passKNote = "results.json keeps pass^k for every k = 1..n when n ≤ 20, else for k = 1..10, 20, 50, 100 and n; pass_k.csv and pass_k_by_category.csv have every k = 1..n."

// passKColumns picks which k to show in a table: 1, 2, 3, 5, 10, 20, 50 and
// the largest n, each at most maxN.
func passKColumns(maxN int) []int {
	var ks []int
	for _, k := range []int{1, 2, 3, 5, 10, 20, 50, maxN} {
		if k >= 1 && k <= maxN && (len(ks) == 0 || ks[len(ks)-1] < k) {
			ks = append(ks, k)
		}
	}
	return ks
}

// controlEvidence says how much evidence the validity gate rests on: the
// control mutants, each design's clustered control detection.
func controlEvidence(r *Results) string {
	var parts []string
	for _, d := range r.Detection {
		if isControl(d.Class) {
			parts = append(parts, fmt.Sprintf("%s %s", d.Design, mutantCell(d.Rate, d.CI95, d.Units)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("The evidence is %d control mutant%s, not the suite runs: control detection per design %s.",
		r.Validity.ControlMutants, plural(r.Validity.ControlMutants), strings.Join(parts, ", "))
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
