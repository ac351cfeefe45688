package reports

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
)

// mdCell escapes text for a Markdown table cell: backslashes and pipes
// (so that "EUR\|x" cannot end the cell), newlines, and "<" and "&" so
// that markup a scenario carries renders as text (no tag can open without
// "<").
var mdCell = strings.NewReplacer(`\`, `\\`, "|", `\|`, "\n", " ", "\r", " ", "&", "&amp;", "<", "&lt;")

// mdText escapes markup in running Markdown text.
var mdText = strings.NewReplacer("&", "&amp;", "<", "&lt;", "\n", " ")

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

// mdWriter writes Markdown lines to w, keeping the first error.
type mdWriter struct {
	w   io.Writer
	err error
}

func (w *mdWriter) p(format string, args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.w, format+"\n", args...)
	}
}

func (w *mdWriter) table(header []string, rows [][]string) {
	esc := func(cells []string) string {
		out := make([]string, len(cells))
		for i, c := range cells {
			out[i] = mdCell.Replace(c)
		}
		return "| " + strings.Join(out, " | ") + " |"
	}
	w.p("%s", esc(header))
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = "---"
	}
	w.p("|%s|", strings.Join(sep, "|"))
	for _, r := range rows {
		w.p("%s", esc(r))
	}
	w.p("")
}

// matrix lays rows (designs) against columns (classes) from cells.
func matrix(rows, cols []string, cell func(row, col string) string) [][]string {
	out := make([][]string, 0, len(rows))
	for _, r := range rows {
		line := []string{r}
		for _, c := range cols {
			line = append(line, cell(r, c))
		}
		out = append(out, line)
	}
	return out
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

// Markdown renders report.md: validity and hypotheses first, then the
// tables.
func Markdown(r *Results) []byte {
	var b bytes.Buffer
	WriteMarkdown(&b, r) // a bytes.Buffer does not fail
	return b.Bytes()
}

// WriteMarkdown writes report.md to w.
func WriteMarkdown(out io.Writer, r *Results) error {
	w := &mdWriter{w: out}
	pr := r.Protocol
	w.p("# baton report")
	w.p("")
	w.p("Protocol %s, sha256 `%s`, seed %d, %d trials, contract level %s. Schema %s.",
		mdText.Replace(orDash(pr.Name)), mdText.Replace(orDash(pr.SHA256)), pr.Seed, pr.Trials, mdText.Replace(orDash(pr.ContractLevel)), r.Schema)
	if r.baton != "" {
		w.p("Run by baton %s.", mdText.Replace(r.baton))
	}
	w.p("")
	for i, l := range deviationLines(pr) {
		if i == 0 {
			w.p("**%s**", mdText.Replace(l))
		} else {
			w.p("- %s", mdText.Replace(l))
		}
	}
	w.p("")
	w.p("Rates are per mutant (the unit of analysis), with the trial-level rate beside them; see *Methods and limitations* at the end.")
	w.p("")

	w.p("## Validity")
	w.p("")
	if r.Validity.Valid {
		w.p("**Valid.** Every design caught every control mutant in every trial (%d control suite runs checked): each flagged a scenario that its clean twin does not flag. %s", r.Validity.ControlSuiteRuns, mdText.Replace(controlEvidence(r)))
		if r.Validity.Reason != "" {
			w.p("")
			w.p("Note: %s.", mdText.Replace(r.Validity.Reason))
		}
	} else {
		w.p("**DISCARDED.** %s. The harness is not validated: no figure below stands.", mdText.Replace(r.Validity.Reason))
	}
	w.p("")

	w.p("## Hypotheses")
	w.p("")
	for _, h := range r.Hypotheses {
		w.p("- **%s — %s.** %s  ", h.ID, h.Verdict, mdText.Replace(h.Statement))
		w.p("  %s", mdText.Replace(h.Why))
	}
	w.p("")

	if len(r.Warnings) > 0 {
		w.p("## Warnings")
		w.p("")
		for _, x := range r.Warnings {
			w.p("- %s", mdText.Replace(x))
		}
		w.p("")
	}

	designs, classes := designsAndClasses(r)
	det := make(map[[2]string]DetectionRow)
	for _, d := range r.Detection {
		det[[2]string{d.Design, d.Class}] = d
	}
	header := append([]string{"design"}, classes...)
	w.p("## Detection")
	w.p("")
	w.p("Mean over the class's mutants of each mutant's share of suite runs in which the design flags a scenario that it does not flag on the clean build under the same seed: rate [95%% Wilson interval on the mutants] (mutants). The mutant is the unit; the trial-level table below is conditional on these mutants.")
	w.p("")
	w.table(header, matrix(designs, classes, func(d, c string) string {
		x := det[[2]string{d, c}]
		return mutantCell(x.Rate, x.CI95, x.Units)
	}))
	w.p("### Trial level, conditional on these mutants")
	w.p("")
	w.p("Share of (mutant × trial) suite runs detected: rate [95%% Wilson interval] (k/n). It says how often these very mutants were caught, not how often the class would be.")
	w.p("")
	w.table(header, matrix(designs, classes, func(d, c string) string {
		x := det[[2]string{d, c}]
		return rateCell(x.Detected, x.N)
	}))
	w.p("### Raw detection (any flag)")
	w.p("")
	w.table(header, matrix(designs, classes, func(d, c string) string {
		x := det[[2]string{d, c}]
		return mutantCell(x.RawRate, x.RawCI95, x.Units) + "; trials " + rateCell(x.RawDetected, x.N)
	}))
	writeByMutant(w, r, designs)

	loc := make(map[[2]string]LocalisationRow)
	for _, l := range r.Localisation {
		loc[[2]string{l.Design, l.Class}] = l
	}
	w.p("## Localisation")
	w.p("")
	w.p("Among detected suite runs, the share whose top blame (most named first by the newly flagged scenarios) is the mutant's location (exact), or the location or a neighbour of it (adjacent): the mean over the mutants the design detected at least once, with the 95%% Wilson interval on those mutants; trial level beside it.")
	w.p("")
	w.p("### Exact")
	w.p("")
	w.table(header, matrix(designs, classes, func(d, c string) string {
		x := loc[[2]string{d, c}]
		return mutantCell(x.ExactRate, x.ExactCI95, x.Units) + "; trials " + rateCell(x.Exact, x.Flagged)
	}))
	w.p("### Adjacent")
	w.p("")
	w.table(header, matrix(designs, classes, func(d, c string) string {
		x := loc[[2]string{d, c}]
		return mutantCell(x.AdjacentRate, x.AdjacentCI95, x.Units) + "; trials " + rateCell(x.Adjacent, x.Flagged)
	}))

	writeMatchers(w, r.TrajectoryMatchers)

	w.p("## False alarms")
	w.p("")
	w.p("Clean-build suite runs with any scenario flagged; explained when a flagged run had an intrinsic slip (or else a fault) fire.")
	w.p("")
	var fa [][]string
	for _, x := range r.FalseAlarms {
		fa = append(fa, []string{x.Design, rateCell(x.Flagged, x.N), itoa(x.ExplainedBySlip), itoa(x.ExplainedByFault), rateCell(x.Unexplained, x.N)})
	}
	w.table([]string{"design", "flagged", "explained by slip", "explained by fault", "unexplained"}, fa)

	w.p("## pass^k by category")
	w.p("")
	w.p("Mean over a category's scenarios of the unbiased estimator C(c,k)/C(n,k) from the integrated runs' mission success.")
	w.p("")
	w.p("%s", passKNote)
	w.p("")
	maxN := 0
	for _, x := range r.PassKByCategory {
		maxN = max(maxN, x.N)
	}
	ks := passKColumns(maxN)
	ph := []string{"build", "category", "scenarios", "n"}
	for _, k := range ks {
		ph = append(ph, fmt.Sprintf("k=%d", k))
	}
	var pk [][]string
	for _, x := range r.PassKByCategory {
		row := []string{x.Build, x.Category, itoa(x.Scenarios), itoa(x.N)}
		for _, k := range ks {
			if v, ok := x.At(k); ok {
				row = append(row, fmt.Sprintf("%.2f", float64(v)))
			} else {
				row = append(row, "")
			}
		}
		pk = append(pk, row)
	}
	w.table(ph, pk)

	w.p("## Cost")
	w.p("")
	w.p("Mean per suite run (one full suite); money with the protocol's cost weights.")
	w.p("")
	var co [][]string
	for _, x := range r.Cost {
		co = append(co, []string{x.Design, itoa(x.SuiteRuns), x.PerSuite.ModelCalls.String(), x.PerSuite.ToolCalls.String(),
			x.PerSuite.Tokens.String(), x.PerSuite.SandboxResets.String(), x.PerSuite.WallMS.String(),
			strings.TrimSpace(x.MoneyPerSuite.String() + " " + x.Currency), strings.TrimSpace(x.Money.String() + " " + x.Currency)})
	}
	w.table([]string{"design", "suite runs", "model calls", "tool calls", "tokens", "sandbox resets", "wall ms", "money per suite", "money total"}, co)

	writePaired(w, r.Paired)
	writeAgreement(w, r.Agreement)

	w.p("## Mutants")
	w.p("")
	var mu [][]string
	for _, x := range r.Mutants {
		mu = append(mu, []string{x.ID, x.Class, x.Location, x.Operator, x.Status, itoa(x.Reached),
			fmt.Sprintf("%d/%d", x.TraceDiffs, x.Observations), orDash(strings.Join(x.DetectedBy, ", "))})
	}
	w.table([]string{"mutant", "class", "location", "operator", "status", "reached", "trace diffs", "detected by"}, mu)

	w.p("## Methods and limitations")
	w.p("")
	for _, part := range methodsSection(r) {
		w.p("### %s", part.Title)
		w.p("")
		for _, it := range part.Items {
			w.p("- %s", mdText.Replace(it))
		}
		w.p("")
	}
	return w.err
}

// writeByMutant writes detection per mutant (trial level: one mutant is
// one unit).
func writeByMutant(w *mdWriter, r *Results, designs []string) {
	if len(r.DetectionByMutant) == 0 {
		return
	}
	w.p("### Detection by mutant")
	w.p("")
	w.p("Per mutant over its trials: rate [95%% Wilson interval] (k/n).")
	w.p("")
	byM := make(map[[2]string]MutantDetection)
	var ms []string
	class := make(map[string]string)
	for _, x := range r.DetectionByMutant {
		byM[[2]string{x.Build, x.Design}] = x
		if !slices.Contains(ms, x.Build) {
			ms = append(ms, x.Build)
			class[x.Build] = x.Class
		}
	}
	var rows [][]string
	for _, m := range ms {
		row := []string{m, class[m]}
		for _, d := range designs {
			x := byM[[2]string{m, d}]
			row = append(row, rateCell(x.Detected, x.N))
		}
		rows = append(rows, row)
	}
	w.table(append([]string{"mutant", "class"}, designs...), rows)
}

// writePaired writes the paired comparisons.
func writePaired(w *mdWriter, rows []PairedRow) {
	w.p("## Paired comparisons")
	w.p("")
	w.p("Designs a and b on the same mutants and trials. Difference a − b of the clustered detection rates with Newcombe's paired interval on the mutants; McNemar's exact test on the mutants (more a: mutants a detected in more trials than b); then the trial-level table and its exact McNemar test, conditional on these mutants. Both p-values are Holm-adjusted over the %d tests of the table.", len(rows))
	w.p("")
	var pa [][]string
	for _, x := range rows {
		pa = append(pa, []string{x.Class, x.A + " vs " + x.B, itoa(x.Units), diffCell(x.Diff, x.DiffCI95, x.Units),
			itoa(x.MoreA), itoa(x.MoreB), FormatP(float64(x.PValue)), FormatP(float64(x.PHolm)),
			itoa(x.N), itoa(x.Both), itoa(x.OnlyA), itoa(x.OnlyB), itoa(x.Neither), FormatP(float64(x.TrialPValue)), FormatP(float64(x.TrialPHolm))})
	}
	w.table([]string{"class", "designs", "mutants", "a − b [95% CI]", "more a", "more b", "p (mutants)", "p Holm",
		"trial pairs", "both", "only a", "only b", "neither", "p (trials)", "p Holm (trials)"}, pa)
}

// writeAgreement writes reviewer agreement.
func writeAgreement(w *mdWriter, rows []AgreementRow) {
	w.p("## Agreement")
	w.p("")
	if len(rows) == 0 {
		w.p("No reviewer labels imported.")
		w.p("")
		return
	}
	w.p("Cohen's kappa with its 95%% interval (kappa ± 1.96·SE, SE of Fleiss, Cohen & Everitt 1969) on the blinded review samples both raters rated (a design's flag counts as fail); agreement is the observed share. n is the samples both rated, of the exported sample.")
	w.p("")
	var ag [][]string
	for _, x := range rows {
		n := itoa(x.N)
		if x.Sample > 0 && x.N < x.Sample {
			n = fmt.Sprintf("%d of %d (partial)", x.N, x.Sample)
		}
		ag = append(ag, []string{x.AKind + " " + x.A, x.BKind + " " + x.B, n, rateCell(x.Agree, x.N), kappaCell(x)})
	}
	w.table([]string{"a", "b", "n", "agreement", "kappa [95% CI]"}, ag)
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
