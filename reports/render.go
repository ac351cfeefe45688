package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/baton-lab/baton/internal/safecsv"
)

// WriteAll renders r into dir: results.json, report.md, report.html (with
// the trace viewers of the kept traces in dir/traces/) and one tidy CSV
// per table ([Files]). Files are written two at a time (results.json, the
// longest, first), each streamed through a buffer into a temporary file
// renamed into place, so a reader never sees half a file and memory holds
// two files' rendering state at most, never every file. A Results read
// back from results.json has no suite runs: WriteAll then leaves
// suite_runs.csv as it is. On an error it returns the first file's in
// name order.
func WriteAll(dir string, r *Results) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write reports: %w", err)
	}
	files := filesIn(dir, r)
	var order []int // results.json, then the others by name
	for i, f := range files {
		if f.Name == "results.json" {
			order = append([]int{i}, order...)
		} else {
			order = append(order, i)
		}
	}
	errs := make([]error, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < len(order); k = int(next.Add(1) - 1) {
				f := files[order[k]]
				errs[order[k]] = writeFileAtomic(filepath.Join(dir, f.Name), f.Write)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("write reports: %w", err)
		}
	}
	return nil
}

// writers is how many files WriteAll writes at once: the end of a run has
// the sweep's two cores to itself.
const writers = 2

// File is one report file: its name in the run folder and what writes it.
type File struct {
	Name  string
	Write func(w io.Writer) error
}

// Files lists every report file of r, sorted by name, each rendered only
// when its Write is called: results.json, report.md, report.html and one
// CSV per table of [Tables].
func Files(r *Results) []File { return filesIn("", r) }

// filesIn is [Files] for the run folder dir, whose kept traces
// report.html embeds ("" for none).
func filesIn(dir string, r *Results) []File {
	r = r.normalised()
	files := []File{
		{"results.json", func(w io.Writer) error { return writeJSON(w, r) }},
		{"report.md", func(w io.Writer) error { return WriteMarkdown(w, r) }},
		{"report.html", func(w io.Writer) error { return WriteHTMLIn(w, r, dir) }},
	}
	for _, t := range Tables(r) {
		files = append(files, File{t.Name + ".csv", t.WriteCSV})
	}
	files = append(files, mutationFiles(r)...)
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return files
}

// Render returns every report file's name and bytes, without writing: a
// convenience for tests and small runs that holds every file in memory at
// once, which [WriteAll] never does.
func Render(r *Results) (map[string][]byte, error) {
	out := make(map[string][]byte)
	for _, f := range Files(r) {
		var b bytes.Buffer
		if err := f.Write(&b); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		out[f.Name] = b.Bytes()
	}
	return out, nil
}

// writeJSON writes results.json: the bytes of json.MarshalIndent(r, "",
// "  ") and a newline, streamed one top-level key and one row at a time so
// that the whole document never sits in memory.
func writeJSON(w io.Writer, r *Results) error {
	if err := streamJSON(w, reflect.ValueOf(r).Elem()); err != nil {
		return fmt.Errorf("results.json: %w", err)
	}
	return nil
}

// streamJSON writes the struct v as json.MarshalIndent with indent "  "
// would, each slice field element by element.
func streamJSON(w io.Writer, v reflect.Value) error {
	ew := &errWriter{w: w}
	ew.str("{")
	first := true
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		fv := v.Field(i)
		if strings.Contains(opts, "omitempty") && fv.IsZero() {
			continue
		}
		if !first {
			ew.str(",")
		}
		first = false
		key, _ := json.Marshal(name)
		ew.str("\n  " + string(key) + ": ")
		if fv.Kind() != reflect.Slice || fv.Len() == 0 {
			ew.json(fv.Interface(), "  ")
			continue
		}
		ew.str("[")
		for j := range fv.Len() {
			if j > 0 {
				ew.str(",")
			}
			ew.str("\n    ")
			ew.json(fv.Index(j).Interface(), "    ")
		}
		ew.str("\n  ]")
	}
	ew.str("\n}\n")
	return ew.err
}

// errWriter writes until the first error and keeps it.
type errWriter struct {
	w   io.Writer
	err error
	// enc writes into buf the values json indents into out, both reused.
	enc *json.Encoder
	buf bytes.Buffer
	out []byte
}

func (e *errWriter) str(s string) {
	if e.err == nil {
		_, e.err = io.WriteString(e.w, s)
	}
}

// json writes v indented as if nested at prefix, as json.MarshalIndent
// does.
func (e *errWriter) json(v any, prefix string) {
	if e.err != nil {
		return
	}
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.buf)
	}
	e.buf.Reset()
	if e.err = e.enc.Encode(v); e.err != nil {
		return
	}
	compact := bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")) // Encode ends the value with one
	e.out = appendIndent(e.out[:0], compact, prefix, "  ")
	_, e.err = e.w.Write(e.out)
}

// appendIndent appends compact JSON (as json.Marshal writes it: no space
// outside strings) indented as json.Indent would: each element and member
// on its own line, after prefix and one indent per level, ": " after a
// key, empty arrays and objects as [] and {}.
func appendIndent(dst, src []byte, prefix, indent string) []byte {
	depth := 0
	open := false // after '[' or '{': the line break waits for what follows
	newline := func(depth int) {
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		for range depth {
			dst = append(dst, indent...)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if open && c != ']' && c != '}' {
			open = false
			depth++
			newline(depth)
		}
		switch c {
		case '"':
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\\' {
					j++
				}
			}
			dst = append(dst, src[i:min(j+1, len(src))]...)
			i = j
		case '[', '{':
			open = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline(depth)
		case ':':
			dst = append(dst, ':', ' ')
		case ']', '}':
			if open {
				open = false
			} else {
				depth--
				newline(depth)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// normalised returns a copy of r whose nil slices are empty, so that JSON
// writes [] rather than null.
func (r *Results) normalised() *Results {
	c := *r
	c.Warnings = nonNil(c.Warnings)
	c.Hypotheses = nonNil(c.Hypotheses)
	c.Detection = nonNil(c.Detection)
	c.DetectionByMutant = nonNil(c.DetectionByMutant)
	c.DetectionByScenario = nonNil(c.DetectionByScenario)
	c.Localisation = nonNil(c.Localisation)
	c.TrajectoryMatchers = nonNil(c.TrajectoryMatchers)
	c.FalseAlarms = nonNil(c.FalseAlarms)
	c.PassK = nonNil(c.PassK)
	c.PassKByCategory = nonNil(c.PassKByCategory)
	c.Agreement = nonNil(c.Agreement)
	c.Cost = nonNil(c.Cost)
	c.Paired = nonNil(c.Paired)
	c.PairedByMutant = nonNil(c.PairedByMutant)
	c.DetectionHarmful = nonNil(c.DetectionHarmful)
	c.DetectionByMutantHarmful = nonNil(c.DetectionByMutantHarmful)
	c.PairedHarmful = nonNil(c.PairedHarmful)
	c.PairedByMutantHarmful = nonNil(c.PairedByMutantHarmful)
	c.Blames = nonNil(c.Blames)
	c.Mistakes = nonNil(c.Mistakes)
	c.Protocol.Deviations = nonNil(c.Protocol.Deviations)
	c.Methods.Cores = nonNil(c.Methods.Cores)
	c.Methods.Designs = nonNil(c.Methods.Designs)
	c.Methods.Limits = nonNil(c.Methods.Limits)
	c.Mutants = nonNil(c.Mutants)
	c.Examples = nonNil(c.Examples)
	return &c
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Table is one tidy table: a name (its CSV file's base name), a header and
// its rows of formatted cells, produced one at a time as they are written,
// so a table as long as pass_k or suite_runs never sits in memory whole. A
// row may be reused for the next: copy it to keep it.
type Table struct {
	Name   string
	Header []string
	Rows   iter.Seq[[]string]
}

// WriteCSV writes the table as CSV to w, every cell guarded against
// formula injection ([safecsv.Cell]).
func (t Table) WriteCSV(w io.Writer) error {
	cw := safecsv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	if t.Rows != nil {
		for row := range t.Rows {
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// CSV returns the table as CSV.
func (t Table) CSV() ([]byte, error) {
	var b bytes.Buffer
	if err := t.WriteCSV(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// rowsOf yields one row per element of s.
func rowsOf[T any](s []T, row func(x *T) []string) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		for i := range s {
			if !yield(row(&s[i])) {
				return
			}
		}
	}
}

func itoa(i int) string      { return strconv.Itoa(i) }
func btoa(b bool) string     { return strconv.FormatBool(b) }
func ci(c CI) []string       { return []string{c[0].String(), c[1].String()} }
func join(s []string) string { return strings.Join(s, ";") }

// Tables returns every table of r in tidy (long) form. suite_runs is there
// only when r carries its suite runs ([Results.HasSuiteRuns]).
func Tables(r *Results) []Table {
	var ts []Table

	ts = append(ts, Table{Name: "validity", Header: []string{"valid", "reason", "control_suite_runs"},
		Rows: rowsOf([]Validity{r.Validity}, func(v *Validity) []string {
			return []string{btoa(v.Valid), v.Reason, itoa(v.ControlSuiteRuns)}
		})})

	ts = append(ts, Table{Name: "hypotheses", Header: []string{"id", "verdict", "statement", "why"},
		Rows: rowsOf(r.Hypotheses, func(x *Hypothesis) []string { return []string{x.ID, x.Verdict, x.Statement, x.Why} })})

	rateCols := []string{"detected", "raw_detected", "n", "rate", "ci_low", "ci_high", "raw_rate", "raw_ci_low", "raw_ci_high"}
	rateCells := func(det, raw, n int, rate F4, c CI, rawRate F4, rc CI) []string {
		out := []string{itoa(det), itoa(raw), itoa(n), rate.String()}
		out = append(out, ci(c)...)
		out = append(out, rawRate.String())
		return append(out, ci(rc)...)
	}
	ts = append(ts, Table{Name: "detection", Header: []string{"design", "class", "mutants", "units",
		"rate", "ci_low", "ci_high", "raw_rate", "raw_ci_low", "raw_ci_high",
		"detected", "raw_detected", "n", "trial_rate", "trial_ci_low", "trial_ci_high", "raw_trial_rate", "raw_trial_ci_low", "raw_trial_ci_high"},
		Rows: rowsOf(r.Detection, func(x *DetectionRow) []string {
			row := []string{x.Design, x.Class, itoa(x.Mutants), itoa(x.Units), x.Rate.String()}
			row = append(row, ci(x.CI95)...)
			row = append(row, x.RawRate.String())
			row = append(row, ci(x.RawCI95)...)
			row = append(row, itoa(x.Detected), itoa(x.RawDetected), itoa(x.N), x.TrialRate.String())
			row = append(row, ci(x.TrialCI95)...)
			row = append(row, x.RawTrialRate.String())
			return append(row, ci(x.RawTrialCI95)...)
		})})

	ts = append(ts, Table{Name: "detection_by_mutant", Header: append(append([]string{"design", "build", "class"}, rateCols...), "exact", "adjacent"),
		Rows: rowsOf(r.DetectionByMutant, func(x *MutantDetection) []string {
			row := append([]string{x.Design, x.Build, x.Class}, rateCells(x.Detected, x.RawDetected, x.N, x.Rate, x.CI95, x.RawRate, x.RawCI95)...)
			return append(row, itoa(x.Exact), itoa(x.Adjacent))
		})})

	ts = append(ts, Table{Name: "detection_by_scenario", Header: append([]string{"design", "build", "class", "scenario"}, rateCols...),
		Rows: rowsOf(r.DetectionByScenario, func(x *ScenarioDetection) []string {
			return append([]string{x.Design, x.Build, x.Class, x.Scenario}, rateCells(x.Detected, x.RawDetected, x.N, x.Rate, x.CI95, x.RawRate, x.RawCI95)...)
		})})

	ts = append(ts, Table{Name: "localisation", Header: []string{"design", "class", "units",
		"exact_rate", "exact_ci_low", "exact_ci_high", "adjacent_rate", "adjacent_ci_low", "adjacent_ci_high",
		"flagged", "exact", "adjacent", "exact_trial_rate", "exact_trial_ci_low", "exact_trial_ci_high",
		"adjacent_trial_rate", "adjacent_trial_ci_low", "adjacent_trial_ci_high"},
		Rows: rowsOf(r.Localisation, func(x *LocalisationRow) []string {
			row := []string{x.Design, x.Class, itoa(x.Units), x.ExactRate.String()}
			row = append(row, ci(x.ExactCI95)...)
			row = append(row, x.AdjacentRate.String())
			row = append(row, ci(x.AdjacentCI95)...)
			row = append(row, itoa(x.Flagged), itoa(x.Exact), itoa(x.Adjacent), x.ExactTrialRate.String())
			row = append(row, ci(x.ExactTrialCI95)...)
			row = append(row, x.AdjacentTrialRate.String())
			return append(row, ci(x.AdjacentTrialCI95)...)
		})})

	ts = append(ts, harmTables(r)...)
	ts = append(ts, matcherTable(r.TrajectoryMatchers))
	ts = append(ts, reliabilityTables(r)...)
	return append(ts, comparisonTables(r)...)
}

// reliabilityTables are false_alarms, pass_k, pass_k_by_category and cost.
func reliabilityTables(r *Results) []Table {
	var ts []Table

	ts = append(ts, Table{Name: "false_alarms", Header: []string{"design", "flagged", "n", "rate", "ci_low", "ci_high",
		"explained_by_slip", "explained_by_fault", "unexplained", "unexplained_rate", "unexplained_ci_low", "unexplained_ci_high"},
		Rows: rowsOf(r.FalseAlarms, func(x *FalseAlarmRow) []string {
			row := []string{x.Design, itoa(x.Flagged), itoa(x.N), x.Rate.String()}
			row = append(row, ci(x.CI95)...)
			row = append(row, itoa(x.ExplainedBySlip), itoa(x.ExplainedByFault), itoa(x.Unexplained), x.UnexplainedRate.String())
			return append(row, ci(x.UnexplainedCI95)...)
		})})

	// pass^k for every k = 1..n, computed from n and c as each row is
	// written: results.json keeps only some k when n is large.
	ts = append(ts, Table{Name: "pass_k", Header: []string{"build", "scenario", "category", "n", "c", "k", "pass_k"},
		Rows: func(yield func([]string) bool) {
			row := make([]string, 7)
			for _, x := range r.PassK {
				row[0], row[1], row[2], row[3], row[4] = x.Build, x.Scenario, x.Category, itoa(x.N), itoa(x.C)
				for k := 1; k <= x.N; k++ {
					row[5], row[6] = itoa(k), f4(PassK(x.N, x.C, k)).String()
					if !yield(row) {
						return
					}
				}
			}
		}})

	ts = append(ts, Table{Name: "pass_k_by_category", Header: []string{"build", "category", "scenarios", "n", "k", "pass_k"},
		Rows: func(yield func([]string) bool) {
			row := make([]string, 6)
			for _, g := range passKGroups(r.PassK) {
				row[0], row[1], row[2], row[3] = g.build, g.category, itoa(len(g.rows)), itoa(g.n)
				for k := 1; k <= g.n; k++ {
					row[4], row[5] = itoa(k), f4(g.mean(k)).String()
					if !yield(row) {
						return
					}
				}
			}
		}})

	header := []string{"design", "suite_runs"}
	for _, k := range costCounters {
		header = append(header, k.key)
	}
	header = append(header, "wall_ms")
	for _, k := range costCounters {
		header = append(header, "per_suite_"+k.key)
	}
	header = append(header, "per_suite_wall_ms", "money", "money_per_suite", "currency")
	ts = append(ts, Table{Name: "cost", Header: header,
		Rows: rowsOf(r.Cost, func(x *CostRow) []string {
			row := []string{x.Design, itoa(x.SuiteRuns)}
			for _, k := range costCounters {
				row = append(row, itoa(*k.get(&x.Cost)))
			}
			row = append(row, strconv.FormatInt(x.WallMS, 10))
			for _, k := range costCounters {
				row = append(row, k.mean(&x.PerSuite).String())
			}
			return append(row, x.PerSuite.WallMS.String(), x.Money.String(), x.MoneyPerSuite.String(), x.Currency)
		})})

	return ts
}

// comparisonTables are paired, paired_by_mutant, blames, agreement,
// mutants and, when r carries them, suite_runs.
func comparisonTables(r *Results) []Table {
	var ts []Table
	ts = append(ts, Table{Name: "paired", Header: []string{"a", "b", "class", "units", "diff", "diff_ci_low", "diff_ci_high",
		"mutants_more_a", "mutants_more_b", "p_value", "p_holm", "n", "both", "only_a", "only_b", "neither", "trial_p_value", "trial_p_holm"},
		Rows: rowsOf(r.Paired, func(x *PairedRow) []string {
			row := []string{x.A, x.B, x.Class, itoa(x.Units), x.Diff.String()}
			row = append(row, ci(x.DiffCI95)...)
			return append(row, itoa(x.MoreA), itoa(x.MoreB), FormatP(float64(x.PValue)), FormatP(float64(x.PHolm)),
				itoa(x.N), itoa(x.Both), itoa(x.OnlyA), itoa(x.OnlyB), itoa(x.Neither), FormatP(float64(x.TrialPValue)), FormatP(float64(x.TrialPHolm)))
		})})

	ts = append(ts, Table{Name: "paired_by_mutant", Header: []string{"a", "b", "build", "class", "both", "only_a", "only_b", "neither",
		"exact_both", "exact_only_a", "exact_only_b", "exact_neither"},
		Rows: rowsOf(r.PairedByMutant, func(x *PairedMutant) []string {
			return []string{x.A, x.B, x.Build, x.Class, itoa(x.Both), itoa(x.OnlyA), itoa(x.OnlyB), itoa(x.Neither),
				itoa(x.ExactBoth), itoa(x.ExactOnlyA), itoa(x.ExactOnlyB), itoa(x.ExactNeither)}
		})})

	ts = append(ts, Table{Name: "blames", Header: []string{"design", "flagged", "edge", "agent"},
		Rows: rowsOf(r.Blames, func(x *BlameRow) []string {
			return []string{x.Design, itoa(x.Flagged), itoa(x.Edge), itoa(x.Agent)}
		})})

	ts = append(ts, Table{Name: "agreement", Header: []string{"a", "a_kind", "b", "b_kind", "n", "sample", "both_fail", "only_a_fail", "only_b_fail", "both_pass",
		"agree", "rate", "ci_low", "ci_high", "kappa", "kappa_se", "kappa_ci_low", "kappa_ci_high"},
		Rows: rowsOf(r.Agreement, func(x *AgreementRow) []string {
			row := []string{x.A, x.AKind, x.B, x.BKind, itoa(x.N), itoa(x.Sample), itoa(x.BothFail), itoa(x.OnlyA), itoa(x.OnlyB), itoa(x.BothPass), itoa(x.Agree), x.Rate.String()}
			row = append(row, ci(x.CI95)...)
			row = append(row, kappaString(x.Kappa, ""), kappaString(x.KappaSE, ""))
			if x.Kappa == nil {
				return append(row, "", "")
			}
			return append(row, ci(x.KappaCI95)...)
		})})

	designs, _ := designsAndClasses(r)
	ts = append(ts, Table{Name: "mutants", Header: append([]string{"id", "class", "origin", "source", "location", "operator", "status"},
		append(statusColumns(designs), "observations", "trace_diffs", "harmful_runs", "harmful_trials", "reached", "detected_by", "covered_by")...),
		Rows: rowsOf(r.Mutants, func(x *MutantRow) []string {
			row := []string{x.ID, x.Class, x.Origin, x.Source, x.Location, x.Operator, x.Status}
			for _, d := range designs {
				row = append(row, x.Statuses[d])
			}
			return append(row, itoa(x.Observations), itoa(x.TraceDiffs), itoa(x.HarmfulRuns), itoa(x.HarmfulTrials), itoa(x.Reached),
				join(x.DetectedBy), join(x.CoveredBy))
		})})

	if r.HasSuiteRuns() {
		ts = append(ts, Table{Name: "suite_runs", Header: []string{"design", "build", "class", "trial", "scenarios", "raw", "detected", "flagged", "new_flags",
			"top_blame", "location", "exact", "adjacent", "slipped", "faulted", "reached"},
			Rows: func(yield func([]string) bool) {
				for x := range r.SuiteRuns() {
					if !yield([]string{x.Design, x.Build, x.Class, itoa(x.Trial), itoa(x.Scenarios), btoa(x.Raw), btoa(x.Detected),
						join(x.Flagged), join(x.NewFlags), x.TopBlame, x.Location, btoa(x.Exact), btoa(x.Adjacent), btoa(x.Slipped), btoa(x.Faulted), itoa(x.Reached)}) {
						return
					}
				}
			}})
	}
	return ts
}

func kappaString(k *F4, undefined string) string {
	if k == nil {
		return undefined
	}
	return k.String()
}
