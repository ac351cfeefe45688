package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// WriteAll renders r into dir: results.json, report.md, report.html and
// one tidy CSV per table. Every file is written atomically.
func WriteAll(dir string, r *Results) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write reports: %w", err)
	}
	files, err := Render(r)
	if err != nil {
		return fmt.Errorf("write reports: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := writeFileAtomic(filepath.Join(dir, name), files[name]); err != nil {
			return fmt.Errorf("write reports: %w", err)
		}
	}
	return nil
}

// Render returns every report file's name and bytes, without writing.
func Render(r *Results) (map[string][]byte, error) {
	r = r.normalised()
	files := make(map[string][]byte)
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("results.json: %w", err)
	}
	files["results.json"] = append(js, '\n')
	files["report.md"] = Markdown(r)
	html, err := HTML(r)
	if err != nil {
		return nil, fmt.Errorf("report.html: %w", err)
	}
	files["report.html"] = html
	for _, t := range Tables(r) {
		b, err := t.CSV()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		files[t.Name+".csv"] = b
	}
	return files, nil
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
	c.FalseAlarms = nonNil(c.FalseAlarms)
	c.PassK = nonNil(c.PassK)
	c.PassKByCategory = nonNil(c.PassKByCategory)
	c.Agreement = nonNil(c.Agreement)
	c.Cost = nonNil(c.Cost)
	c.Paired = nonNil(c.Paired)
	c.Mutants = nonNil(c.Mutants)
	c.SuiteRuns = nonNil(c.SuiteRuns)
	return &c
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Table is one tidy table: a name (its CSV file's base name), a header and
// rows of formatted cells.
type Table struct {
	Name   string
	Header []string
	Rows   [][]string
}

// CSV writes the table as CSV.
func (t Table) CSV() ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(t.Header)
	w.WriteAll(t.Rows)
	if err := w.Error(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func itoa(i int) string      { return strconv.Itoa(i) }
func btoa(b bool) string     { return strconv.FormatBool(b) }
func ci(c CI) []string       { return []string{c[0].String(), c[1].String()} }
func join(s []string) string { return strings.Join(s, ";") }

// Tables returns every table of r in tidy (long) form.
func Tables(r *Results) []Table {
	var ts []Table

	v := Table{Name: "validity", Header: []string{"valid", "reason", "control_suite_runs"}}
	v.Rows = append(v.Rows, []string{btoa(r.Validity.Valid), r.Validity.Reason, itoa(r.Validity.ControlSuiteRuns)})
	ts = append(ts, v)

	h := Table{Name: "hypotheses", Header: []string{"id", "verdict", "statement", "why"}}
	for _, x := range r.Hypotheses {
		h.Rows = append(h.Rows, []string{x.ID, x.Verdict, x.Statement, x.Why})
	}
	ts = append(ts, h)

	rateCols := []string{"detected", "raw_detected", "n", "rate", "ci_low", "ci_high", "raw_rate", "raw_ci_low", "raw_ci_high"}
	rateCells := func(det, raw, n int, rate F4, c CI, rawRate F4, rc CI) []string {
		out := []string{itoa(det), itoa(raw), itoa(n), rate.String()}
		out = append(out, ci(c)...)
		out = append(out, rawRate.String())
		return append(out, ci(rc)...)
	}
	d := Table{Name: "detection", Header: append([]string{"design", "class", "mutants"}, rateCols...)}
	for _, x := range r.Detection {
		d.Rows = append(d.Rows, append([]string{x.Design, x.Class, itoa(x.Mutants)}, rateCells(x.Detected, x.RawDetected, x.N, x.Rate, x.CI95, x.RawRate, x.RawCI95)...))
	}
	ts = append(ts, d)

	dm := Table{Name: "detection_by_mutant", Header: append([]string{"design", "build", "class"}, rateCols...)}
	for _, x := range r.DetectionByMutant {
		dm.Rows = append(dm.Rows, append([]string{x.Design, x.Build, x.Class}, rateCells(x.Detected, x.RawDetected, x.N, x.Rate, x.CI95, x.RawRate, x.RawCI95)...))
	}
	ts = append(ts, dm)

	ds := Table{Name: "detection_by_scenario", Header: append([]string{"design", "build", "class", "scenario"}, rateCols...)}
	for _, x := range r.DetectionByScenario {
		ds.Rows = append(ds.Rows, append([]string{x.Design, x.Build, x.Class, x.Scenario}, rateCells(x.Detected, x.RawDetected, x.N, x.Rate, x.CI95, x.RawRate, x.RawCI95)...))
	}
	ts = append(ts, ds)

	l := Table{Name: "localisation", Header: []string{"design", "class", "flagged", "exact", "adjacent",
		"exact_rate", "exact_ci_low", "exact_ci_high", "adjacent_rate", "adjacent_ci_low", "adjacent_ci_high"}}
	for _, x := range r.Localisation {
		row := []string{x.Design, x.Class, itoa(x.Flagged), itoa(x.Exact), itoa(x.Adjacent), x.ExactRate.String()}
		row = append(row, ci(x.ExactCI95)...)
		row = append(row, x.AdjacentRate.String())
		l.Rows = append(l.Rows, append(row, ci(x.AdjacentCI95)...))
	}
	ts = append(ts, l)

	fa := Table{Name: "false_alarms", Header: []string{"design", "flagged", "n", "rate", "ci_low", "ci_high",
		"explained_by_slip", "explained_by_fault", "unexplained", "unexplained_rate", "unexplained_ci_low", "unexplained_ci_high"}}
	for _, x := range r.FalseAlarms {
		row := []string{x.Design, itoa(x.Flagged), itoa(x.N), x.Rate.String()}
		row = append(row, ci(x.CI95)...)
		row = append(row, itoa(x.ExplainedBySlip), itoa(x.ExplainedByFault), itoa(x.Unexplained), x.UnexplainedRate.String())
		fa.Rows = append(fa.Rows, append(row, ci(x.UnexplainedCI95)...))
	}
	ts = append(ts, fa)

	pk := Table{Name: "pass_k", Header: []string{"build", "scenario", "category", "n", "c", "k", "pass_k"}}
	for _, x := range r.PassK {
		for k, p := range x.PassK {
			pk.Rows = append(pk.Rows, []string{x.Build, x.Scenario, x.Category, itoa(x.N), itoa(x.C), itoa(k + 1), p.String()})
		}
	}
	ts = append(ts, pk)

	pc := Table{Name: "pass_k_by_category", Header: []string{"build", "category", "scenarios", "n", "k", "pass_k"}}
	for _, x := range r.PassKByCategory {
		for k, p := range x.PassK {
			pc.Rows = append(pc.Rows, []string{x.Build, x.Category, itoa(x.Scenarios), itoa(x.N), itoa(k + 1), p.String()})
		}
	}
	ts = append(ts, pc)

	co := Table{Name: "cost", Header: []string{"design", "suite_runs", "model_calls", "tool_calls", "tokens", "sandbox_resets", "wall_ms",
		"per_suite_model_calls", "per_suite_tool_calls", "per_suite_tokens", "per_suite_sandbox_resets", "per_suite_wall_ms",
		"money", "money_per_suite", "currency"}}
	for _, x := range r.Cost {
		co.Rows = append(co.Rows, []string{x.Design, itoa(x.SuiteRuns), itoa(x.ModelCalls), itoa(x.ToolCalls), itoa(x.Tokens),
			itoa(x.SandboxResets), strconv.FormatInt(x.WallMS, 10),
			x.PerSuite.ModelCalls.String(), x.PerSuite.ToolCalls.String(), x.PerSuite.Tokens.String(),
			x.PerSuite.SandboxResets.String(), x.PerSuite.WallMS.String(),
			x.Money.String(), x.MoneyPerSuite.String(), x.Currency})
	}
	ts = append(ts, co)

	pa := Table{Name: "paired", Header: []string{"a", "b", "class", "n", "both", "only_a", "only_b", "neither", "p_value"}}
	for _, x := range r.Paired {
		pa.Rows = append(pa.Rows, []string{x.A, x.B, x.Class, itoa(x.N), itoa(x.Both), itoa(x.OnlyA), itoa(x.OnlyB), itoa(x.Neither), x.PValue.String()})
	}
	ts = append(ts, pa)

	ag := Table{Name: "agreement", Header: []string{"a", "a_kind", "b", "b_kind", "n", "both_fail", "only_a_fail", "only_b_fail", "both_pass",
		"agree", "rate", "ci_low", "ci_high", "kappa"}}
	for _, x := range r.Agreement {
		row := []string{x.A, x.AKind, x.B, x.BKind, itoa(x.N), itoa(x.BothFail), itoa(x.OnlyA), itoa(x.OnlyB), itoa(x.BothPass), itoa(x.Agree), x.Rate.String()}
		row = append(row, ci(x.CI95)...)
		ag.Rows = append(ag.Rows, append(row, kappaString(x.Kappa, "")))
	}
	ts = append(ts, ag)

	m := Table{Name: "mutants", Header: []string{"id", "class", "location", "operator", "status", "observations", "trace_diffs", "reached", "detected_by"}}
	for _, x := range r.Mutants {
		m.Rows = append(m.Rows, []string{x.ID, x.Class, x.Location, x.Operator, x.Status, itoa(x.Observations), itoa(x.TraceDiffs), itoa(x.Reached), join(x.DetectedBy)})
	}
	ts = append(ts, m)

	s := Table{Name: "suite_runs", Header: []string{"design", "build", "class", "trial", "scenarios", "raw", "detected", "flagged", "new_flags",
		"top_blame", "location", "exact", "adjacent", "slipped", "faulted", "reached"}}
	for _, x := range r.SuiteRuns {
		s.Rows = append(s.Rows, []string{x.Design, x.Build, x.Class, itoa(x.Trial), itoa(x.Scenarios), btoa(x.Raw), btoa(x.Detected),
			join(x.Flagged), join(x.NewFlags), x.TopBlame, x.Location, btoa(x.Exact), btoa(x.Adjacent), btoa(x.Slipped), btoa(x.Faulted), itoa(x.Reached)})
	}
	ts = append(ts, s)
	return ts
}

func kappaString(k *F4, undefined string) string {
	if k == nil {
		return undefined
	}
	return k.String()
}
