package release

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// The report is one document, a title, paragraphs and tables, rendered as
// text, Markdown and HTML; every cell from a protocol or scenario is
// escaped by the renderer.
type doc struct {
	title    string
	sections []sec
}

type sec struct {
	title string
	paras []string
	head  []string
	rows  [][]string
}

func pct(v float64) string { return strconv.FormatFloat(100*v, 'f', 0, 64) + "%" }

func interval(lo, hi float64) string { return pct(lo) + "–" + pct(hi) }

func fixed(v float64, d int) string {
	if math.IsInf(v, 0) {
		return "∞"
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

// document builds the report of a result.
func document(r *Result) doc {
	b, c := r.Baseline, r.Candidate
	conf := "95%"
	if r.Looks > 1 {
		conf = fmt.Sprintf("%s per look (z = %s, Bonferroni over %d planned looks)", fixed(100*(1-0.05/float64(r.Looks)), 2)+"%", fixed(r.Z, 3), r.Looks)
	}
	d := doc{title: fmt.Sprintf("Release decision %s: %s vs %s on %s %s", r.Protocol, c.Name, b.Name, r.Mission, r.MissionVersion)}
	d.sections = append(d.sections, sec{
		title: "Decision",
		paras: []string{
			fmt.Sprintf("release decision: %s %s", r.Verdict, c.Name),
			fmt.Sprintf("%d scenarios × %d trials per version, %d runs in all (%d round(s)%s); the same trial seeds for both versions (seed %d); intervals %s.",
				len(r.Scenarios), r.Trials, r.Runs, r.Rounds, seqNote(r), r.Seed, conf),
		},
		head: []string{"CLAUSE", "BOUND", "VALUE", "INTERVAL", "STATUS"},
		rows: clauseRows(r.Clauses),
	})
	armRow := func(a Arm) []string {
		return []string{a.Name, fmt.Sprintf("%d/%d = %s", a.Correct, a.Runs, pct(a.Outcome)), interval(a.OutcomeLo, a.OutcomeHi),
			strconv.Itoa(a.Violations), strconv.Itoa(a.CorrectWithViolation), fixed(a.ModelCalls, 1)}
	}
	d.sections = append(d.sections, sec{
		title: "Outcome, trajectory and cost",
		paras: []string{
			fmt.Sprintf("paired difference %s − %s: %s [%s, %s] (Newcombe's method 10 for paired proportions, paired by scenario × trial: both correct %d, only %s %d, only %s %d, neither %d)",
				c.Name, b.Name, signedPct(r.Difference.Difference), signedPct(r.Difference.Lo), signedPct(r.Difference.Hi),
				r.Difference.Both, c.Name, r.Difference.OnlyCandidate, b.Name, r.Difference.OnlyBaseline, r.Difference.Neither),
			"Hard violations count (run, agent, item) whose calls broke a hard trajectory rule; \"correct anyway\" counts runs with a violation whose end state was right (right by luck).",
			fmt.Sprintf("rules broken: %s %s; %s %s", b.Name, rulesText(b.ByRule), c.Name, rulesText(c.ByRule)),
		},
		head: []string{"VERSION", "OUTCOME", "INTERVAL", "HARD VIOLATIONS", "CORRECT ANYWAY", "AVG MODEL CALLS"},
		rows: [][]string{armRow(b), armRow(c)},
	})
	var cases [][]string
	for _, cs := range r.Cases {
		cases = append(cases, []string{cs.Scenario, cs.Title,
			fmt.Sprintf("%d/%d", cs.Baseline.Correct, cs.Trials), fmt.Sprintf("%d/%d", cs.Candidate.Correct, cs.Trials),
			strconv.Itoa(cs.Baseline.Violations), strconv.Itoa(cs.Candidate.Violations)})
	}
	d.sections = append(d.sections, sec{title: "Per case",
		head: []string{"CASE", "TITLE", b.Name + " CORRECT", c.Name + " CORRECT", b.Name + " VIOLATIONS", c.Name + " VIOLATIONS"}, rows: cases})
	if r.Sequential {
		var looks [][]string
		for i, l := range r.History {
			looks = append(looks, []string{strconv.Itoa(i + 1), strconv.Itoa(l.Trials), strconv.Itoa(l.Runs),
				signedPct(l.Difference) + " [" + signedPct(l.Lo) + ", " + signedPct(l.Hi) + "]", l.Verdict.String()})
		}
		d.sections = append(d.sections, sec{title: "Sequential looks",
			paras: []string{fmt.Sprintf("decided %s after %d runs (%d trials per scenario and version, %d round(s) of %d; cap %d trials).",
				r.Verdict, r.Runs, r.Trials, r.Rounds, r.Trials/max(1, r.Rounds), r.MaxTrials)},
			head: []string{"LOOK", "TRIALS", "RUNS", "DIFFERENCE", "VERDICT"}, rows: looks})
	}
	var cl [][]string
	for _, x := range r.Clusters {
		cl = append(cl, []string{x.Category, strconv.Itoa(x.Runs), strconv.Itoa(x.BaselineFailures), strconv.Itoa(x.CandidateFailures)})
	}
	d.sections = append(d.sections, sec{title: "Where failures cluster",
		paras: []string{clusterNote(r), fmt.Sprintf("wrong end states by the records they differ on: %s %s; %s %s",
			b.Name, failureText(b.Failures), c.Name, failureText(c.Failures))},
		head: []string{"CATEGORY", "RUNS PER VERSION", b.Name + " FAILURES", c.Name + " FAILURES"}, rows: cl})
	return d
}

func seqNote(r *Result) string {
	if !r.Sequential {
		return ""
	}
	return fmt.Sprintf(", sequential: until decided, at most %d trials", r.MaxTrials)
}

func signedPct(v float64) string {
	s := strconv.FormatFloat(100*v, 'f', 1, 64) + " pp"
	if v > 0 {
		return "+" + s
	}
	return s
}

func rulesText(rc []RuleCount) string {
	return joinOrNone(rc, func(x RuleCount) string { return fmt.Sprintf("%s ×%d", x.Rule, x.Breaches) })
}

func failureText(fc []FailureCount) string {
	return joinOrNone(fc, func(x FailureCount) string { return fmt.Sprintf("%s %d", x.Record, x.Runs) })
}

// joinOrNone lists xs, each as f writes it, or says none.
func joinOrNone[T any](xs []T, f func(T) string) string {
	if len(xs) == 0 {
		return "none"
	}
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = f(x)
	}
	return strings.Join(parts, ", ")
}

func clauseRows(cs []ClauseResult) [][]string {
	var rows [][]string
	for _, c := range cs {
		val, iv := fixed(c.Value, 3), "exact"
		switch c.Metric {
		case HardViolations:
			val = fixed(c.Value, 0)
		case Outcome:
			val, iv = pct(c.Value), interval(c.Lo, c.Hi)
		case OutcomeDifference:
			val, iv = signedPct(c.Value), signedPct(c.Lo)+" … "+signedPct(c.Hi)
		}
		rows = append(rows, []string{string(c.Metric), c.Bound(), val, iv, string(c.Status)})
	}
	return rows
}

// clusterNote names the cases holding the candidate's failures, most first.
func clusterNote(r *Result) string {
	total := 0
	for _, c := range r.Cases {
		total += c.Trials - c.Candidate.Correct
	}
	if total == 0 {
		return r.Candidate.Name + " failed no run."
	}
	type f struct {
		id string
		n  int
	}
	var fs []f
	for _, c := range r.Cases {
		if n := c.Trials - c.Candidate.Correct; n > 0 {
			fs = append(fs, f{c.Scenario, n})
		}
	}
	slices.SortFunc(fs, func(a, b f) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.id, b.id)) })
	parts := make([]string, len(fs))
	for i, x := range fs {
		parts[i] = fmt.Sprintf("%s %d", x.id, x.n)
	}
	return fmt.Sprintf("%s's %d failed runs by case: %s.", r.Candidate.Name, total, strings.Join(parts, ", "))
}

// WriteText writes the report as aligned text tables (stdout).
func WriteText(w io.Writer, r *Result) error {
	d := document(r)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, d.title)
	for _, s := range d.sections {
		fmt.Fprintf(tw, "\n%s\n", s.title)
		for _, p := range s.paras {
			fmt.Fprintln(tw, p)
		}
		if len(s.head) > 0 {
			fmt.Fprintln(tw, strings.Join(s.head, "\t"))
		}
		for _, row := range s.rows {
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return tw.Flush()
}

// mdEscape escapes a Markdown table cell or paragraph.
var mdEscape = strings.NewReplacer("\\", "\\\\", "|", "\\|", "*", "\\*", "_", "\\_", "`", "\\`", "<", "&lt;", ">", "&gt;", "[", "\\[", "]", "\\]", "\n", " ")

// WriteMarkdown writes the report as Markdown.
func WriteMarkdown(w io.Writer, r *Result) error {
	d := document(r)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", mdEscape.Replace(d.title))
	for _, s := range d.sections {
		fmt.Fprintf(&b, "\n## %s\n\n", mdEscape.Replace(s.title))
		for _, p := range s.paras {
			fmt.Fprintf(&b, "%s\n\n", mdEscape.Replace(p))
		}
		if len(s.head) == 0 {
			continue
		}
		b.WriteString("|")
		for _, h := range s.head {
			fmt.Fprintf(&b, " %s |", mdEscape.Replace(strings.ToLower(h)))
		}
		b.WriteString("\n|")
		for range s.head {
			b.WriteString(" --- |")
		}
		b.WriteString("\n")
		for _, row := range s.rows {
			b.WriteString("|")
			for _, c := range row {
				fmt.Fprintf(&b, " %s |", mdEscape.Replace(c))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteHTML writes the report as one self-contained HTML page.
func WriteHTML(w io.Writer, r *Result) error {
	d := document(r)
	e := html.EscapeString
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title>\n", e(d.title))
	b.WriteString("<style>body{font-family:sans-serif;max-width:70em;margin:2em auto}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}</style></head><body>\n")
	fmt.Fprintf(&b, "<h1>%s</h1>\n", e(d.title))
	for _, s := range d.sections {
		fmt.Fprintf(&b, "<h2>%s</h2>\n", e(s.title))
		for _, p := range s.paras {
			fmt.Fprintf(&b, "<p>%s</p>\n", e(p))
		}
		if len(s.head) == 0 {
			continue
		}
		b.WriteString("<table><thead><tr>")
		for _, h := range s.head {
			fmt.Fprintf(&b, "<th>%s</th>", e(strings.ToLower(h)))
		}
		b.WriteString("</tr></thead><tbody>\n")
		for _, row := range s.rows {
			b.WriteString("<tr>")
			for _, c := range row {
				fmt.Fprintf(&b, "<td>%s</td>", e(c))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</tbody></table>\n")
	}
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
