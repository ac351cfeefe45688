package reports

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// htmlCell is one linked, coloured table cell.
type htmlCell struct {
	Text   string
	Anchor string
	Style  template.CSS
}

type htmlRow struct {
	Name  string
	Cells []htmlCell
}

// drillItem is one work item of a drill-down run: a link to its trace
// when the run names a trace pattern, else the command that regenerates it.
type drillItem struct {
	Scenario string
	New      bool
	URL      string
	Command  string
}

type drillRun struct {
	Build, TopBlame, Location      string
	Trial                          int
	Raw, Detected, Exact, Adjacent bool
	Items                          []drillItem
	More                           int
}

type drill struct {
	Anchor, Design, Class string
	Mutants               []MutantDetection
	Runs                  []drillRun
	Scenarios             []ScenarioDetection
}

type htmlView struct {
	R                     *Results
	ClassNames            []string
	Deviations            []string
	ControlEvidence       string
	Methods               []methodsPart
	Detection, Trial, Raw []htmlRow
	Exact, Adjacent       []htmlRow
	DetSVG, LocSVG        template.HTML
	PassSVG, PassBuildSVG template.HTML
	PassNote              string
	Drills                []drill
	PassCat               [][]string
	PassHeader            []string
}

// matrixArgs feeds the "matrix" sub-template.
type matrixArgs struct {
	Classes []string
	Rows    []htmlRow
}

// colour maps a rate in [0, 1] to the heat map's palette; grey when empty.
func colour(v float64, empty bool) template.CSS {
	if empty {
		return "background:#dcdcdc"
	}
	p := newBlues(32)
	c := p[int(math.Round(v*31))]
	r, g, b, _ := c.RGBA()
	fg := "#000"
	if v > 0.6 {
		fg = "#fff"
	}
	return template.CSS(fmt.Sprintf("background:#%02x%02x%02x;color:%s", r>>8, g>>8, b>>8, fg))
}

// traceURL fills the trace pattern for one item.
func traceURL(pattern string, ex SuiteExample, scenario string) string {
	if pattern == "" {
		return ""
	}
	return strings.NewReplacer(
		"{build}", url.PathEscape(ex.Build), "{design}", url.PathEscape(ex.Design),
		"{scenario}", url.PathEscape(scenario), "{trial}", strconv.Itoa(ex.Trial),
	).Replace(pattern)
}

// replayCommand is the command that regenerates an item's trace, run in
// the run folder (where report.html lies); the item id is quoted for a
// POSIX shell when it holds anything but plain characters.
func replayCommand(itemID string) string {
	return "baton replay . " + shellQuote(itemID) + " --trace"
}

// shellQuote quotes s for a POSIX shell unless it is made of characters no
// shell treats specially.
func shellQuote(s string) string {
	plain := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_./:@%+=,-", c)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// HTML renders report.html into memory; see [WriteHTML].
func HTML(r *Results) ([]byte, error) {
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteHTML writes report.html to out: one self-contained file with inline
// SVG heat maps and pass^k curves (gonum/plot) and a drill-down from every
// detection and localisation cell to its mutants and example suite runs,
// whose items link to their traces ([Results.TracePattern]) or show the
// command that regenerates them. Every string is escaped by html/template,
// and every label inside the SVG by vgsvg.
// figures builds the detection and localisation matrices and heat maps,
// each cell linked to its drill-down anchor.
func (v *htmlView) figures(designs, classes []string, anchor map[[2]string]string) error {
	r := v.R
	det := make(map[[2]string]DetectionRow)
	loc := make(map[[2]string]LocalisationRow)
	for _, d := range r.Detection {
		det[[2]string{d.Design, d.Class}] = d
	}
	for _, l := range r.Localisation {
		loc[[2]string{l.Design, l.Class}] = l
	}
	// A cell is a clustered figure (rate, interval, mutants) and, after it,
	// the trial-level count it stands on, or the trial-level figure alone.
	type fig struct {
		rate    F4
		ci      CI
		m, k, n int
	}
	cellRow := func(d string, clustered bool, get func(c string) fig) htmlRow {
		row := htmlRow{Name: d}
		for _, c := range classes {
			f := get(c)
			text, v, empty := rateCell(f.k, f.n), ratio(f.k, f.n), f.n == 0
			if clustered {
				text, v, empty = mutantCell(f.rate, f.ci, f.m)+"; trials "+fmt.Sprintf("%d/%d", f.k, f.n), float64(f.rate), f.m == 0
			}
			row.Cells = append(row.Cells, htmlCell{Text: text, Anchor: anchor[[2]string{d, c}], Style: colour(v, empty)})
		}
		return row
	}
	detFig := func(d, c string) fig { x := det[[2]string{d, c}]; return fig{x.Rate, x.CI95, x.Units, x.Detected, x.N} }
	exactFig := func(d, c string) fig {
		x := loc[[2]string{d, c}]
		return fig{x.ExactRate, x.ExactCI95, x.Units, x.Exact, x.Flagged}
	}
	for _, d := range designs {
		v.Detection = append(v.Detection, cellRow(d, true, func(c string) fig { return detFig(d, c) }))
		v.Trial = append(v.Trial, cellRow(d, false, func(c string) fig { return detFig(d, c) }))
		v.Raw = append(v.Raw, cellRow(d, true, func(c string) fig {
			x := det[[2]string{d, c}]
			return fig{x.RawRate, x.RawCI95, x.Units, x.RawDetected, x.N}
		}))
		v.Exact = append(v.Exact, cellRow(d, true, func(c string) fig { return exactFig(d, c) }))
		v.Adjacent = append(v.Adjacent, cellRow(d, true, func(c string) fig {
			x := loc[[2]string{d, c}]
			return fig{x.AdjacentRate, x.AdjacentCI95, x.Units, x.Adjacent, x.Flagged}
		}))
	}

	heat := func(title string, get func(d, c string) fig) (template.HTML, error) {
		z := make([][]float64, len(designs))
		text := make([][]string, len(designs))
		for i, d := range designs {
			for _, c := range classes {
				f := get(d, c)
				if f.m == 0 {
					z[i] = append(z[i], math.NaN())
					text[i] = append(text[i], "–")
					continue
				}
				z[i] = append(z[i], float64(f.rate))
				text[i] = append(text[i], fmt.Sprintf("%.2f [%.2f–%.2f] (%d)", float64(f.rate), float64(f.ci[0]), float64(f.ci[1]), f.m))
			}
		}
		s, err := heatmapSVG(title, designs, classes, z, text)
		return template.HTML(s), err // vgsvg escapes every label
	}
	var err error
	if v.DetSVG, err = heat("Detection (design × class), per mutant", detFig); err != nil {
		return err
	}
	if v.LocSVG, err = heat("Exact localisation (design × class), per mutant", exactFig); err != nil {
		return err
	}
	v.Deviations = deviationLines(r.Protocol)
	v.ControlEvidence = controlEvidence(r)
	v.Methods = methodsSection(r)
	return nil
}

// drillDown builds the drill-down section, one per design × class cell,
// and returns each cell's anchor.
func (v *htmlView) drillDown(designs, classes []string) map[[2]string]string {
	r := v.R
	anchor := make(map[[2]string]string)
	for _, d := range designs {
		for _, c := range classes {
			a := fmt.Sprintf("cell-%d", len(v.Drills)+1)
			anchor[[2]string{d, c}] = a
			dr := drill{Anchor: a, Design: d, Class: c}
			for _, m := range r.DetectionByMutant {
				if m.Design == d && m.Class == c {
					dr.Mutants = append(dr.Mutants, m)
				}
			}
			for _, ex := range r.Examples {
				if ex.Design != d || ex.Class != c {
					continue
				}
				run := drillRun{Build: ex.Build, Trial: ex.Trial, TopBlame: ex.TopBlame, Location: ex.Location,
					Raw: ex.Raw, Detected: ex.Detected, Exact: ex.Exact, Adjacent: ex.Adjacent, More: ex.MoreItems}
				for _, it := range ex.Items {
					di := drillItem{Scenario: it.Scenario, New: it.New}
					if _, listed := slices.BinarySearch(r.TraceItems, it.ID); listed || len(r.TraceItems) == 0 {
						di.URL = traceURL(r.TracePattern, ex, it.Scenario)
					}
					if di.URL == "" {
						di.Command = replayCommand(it.ID)
					}
					run.Items = append(run.Items, di)
				}
				dr.Runs = append(dr.Runs, run)
			}
			for _, s := range r.DetectionByScenario {
				if s.Design == d && s.Class == c && s.RawDetected > 0 {
					dr.Scenarios = append(dr.Scenarios, s)
				}
			}
			v.Drills = append(v.Drills, dr)
		}
	}
	return anchor
}

func WriteHTML(out io.Writer, r *Results) error {
	r = r.normalised()
	designs, classes := designsAndClasses(r)
	v := htmlView{R: r, ClassNames: classes}
	anchor := v.drillDown(designs, classes)
	if err := v.figures(designs, classes, anchor); err != nil {
		return err
	}
	var cleanCurves, buildCurves []curve
	for _, x := range r.PassKByCategory {
		if x.Build != CleanBuild {
			continue
		}
		c := curve{name: x.Category}
		for i, k := range x.K {
			if i < len(x.PassK) {
				c.xs = append(c.xs, float64(k))
				c.ys = append(c.ys, float64(x.PassK[i])) // as results.json holds it
			}
		}
		cleanCurves = append(cleanCurves, c)
	}
	// Per build, the mean over its scenarios at the k results.json keeps
	// for the fewest trials of any of them, from each scenario's n and c.
	var buildOrder []string
	byBuild := make(map[string][]*PassKRow)
	for i := range r.PassK {
		x := &r.PassK[i]
		if byBuild[x.Build] == nil {
			buildOrder = append(buildOrder, x.Build)
		}
		byBuild[x.Build] = append(byBuild[x.Build], x)
	}
	for _, b := range buildOrder {
		g := passKGroup{build: b, rows: byBuild[b], n: byBuild[b][0].N}
		for _, x := range g.rows {
			g.n = min(g.n, x.N)
		}
		c := curve{name: b}
		for _, k := range passKPoints(g.n) {
			c.xs = append(c.xs, float64(k))
			c.ys = append(c.ys, Round4(g.mean(k)))
		}
		buildCurves = append(buildCurves, c)
	}
	s, err := passKSVG("pass^k by category, clean build", cleanCurves)
	if err != nil {
		return err
	}
	v.PassSVG = template.HTML(s)
	if s, err = passKSVG("pass^k by build, mean over scenarios", buildCurves); err != nil {
		return err
	}
	v.PassBuildSVG = template.HTML(s)

	maxN := 0
	for _, x := range r.PassKByCategory {
		maxN = max(maxN, x.N)
	}
	ks := passKColumns(maxN)
	v.PassHeader = []string{"build", "category", "scenarios", "n"}
	for _, k := range ks {
		v.PassHeader = append(v.PassHeader, fmt.Sprintf("k=%d", k))
	}
	for _, x := range r.PassKByCategory {
		row := []string{x.Build, x.Category, itoa(x.Scenarios), itoa(x.N)}
		for _, k := range ks {
			if p, ok := x.At(k); ok {
				row = append(row, fmt.Sprintf("%.2f", float64(p)))
			} else {
				row = append(row, "")
			}
		}
		v.PassCat = append(v.PassCat, row)
	}
	v.PassNote = passKNote

	if err := htmlTmpl.Execute(out, v); err != nil {
		return fmt.Errorf("render html: %w", err)
	}
	return nil
}

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"rate":  rateCell,
	"args":  func(c []string, r []htmlRow) matrixArgs { return matrixArgs{c, r} },
	"last":  func(s []F4) int { return len(s) - 1 },
	"kappa": kappaCell,
	"p":     func(p F4) string { return FormatP(float64(p)) },
	"diff":  diffCell,
	"mrate": mutantCell,
	"join":  func(s []string) string { return strings.Join(s, ", ") },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>baton report</title>
<style>
body{font-family:sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
td a{color:inherit}
.valid{background:#e6f4ea;padding:.5rem 1rem;border-left:4px solid #1e8e3e}
.discarded{background:#fce8e6;padding:.5rem 1rem;border-left:4px solid #d93025}
.note{background:#fef7e0;padding:.5rem 1rem;border-left:4px solid #b06000}
.confirmed{color:#1e8e3e}.refuted{color:#d93025}.inconclusive{color:#b06000}
svg{max-width:100%;height:auto}
details{margin:.5rem 0}
</style>
</head>
<body>
<h1>baton report</h1>
<p>Protocol {{.R.Protocol.Name}}, sha256 <code>{{.R.Protocol.SHA256}}</code>, seed {{.R.Protocol.Seed}},
{{.R.Protocol.Trials}} trials, contract level {{.R.Protocol.ContractLevel}}. Schema {{.R.Schema}}.{{with .R.Baton}} Run by baton {{.}}.{{end}}</p>
<div class="{{if .R.Protocol.Deviations}}discarded{{else if .R.Protocol.Locked}}valid{{else}}note{{end}}">{{range $i, $l := .Deviations}}{{if eq $i 0}}<p><b>{{$l}}</b></p><ul>{{else}}<li>{{$l}}</li>{{end}}{{end}}</ul></div>
<p>Rates are per mutant (the unit of analysis), with the trial-level rate beside them; see <a href="#methods">Methods and limitations</a>.</p>

<h2 id="validity">Validity</h2>
{{if .R.Validity.Valid}}<p class="valid"><b>Valid.</b> Every design caught every control mutant in every trial ({{.R.Validity.ControlSuiteRuns}} control suite runs checked): each flagged a scenario that its clean twin does not flag. {{.ControlEvidence}}{{with .R.Validity.Reason}} Note: {{.}}.{{end}}</p>
{{else}}<p class="discarded"><b>DISCARDED.</b> {{.R.Validity.Reason}}. The harness is not validated: no figure below stands.</p>{{end}}

<h2 id="hypotheses">Hypotheses</h2>
<ul>{{range .R.Hypotheses}}
<li><b>{{.ID}} — <span class="{{.Verdict}}">{{.Verdict}}</span>.</b> {{.Statement}}<br>{{.Why}}</li>{{end}}
</ul>
{{with .R.Warnings}}<h2>Warnings</h2><ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}

<h2 id="detection">Detection</h2>
<p>Mean over the class's mutants of each mutant's share of suite runs in which the design flags a scenario that it does not flag on the clean build under the same seed: rate [95% Wilson interval on the mutants] (mutants); then the trial-level count. Each cell links to its suite runs.</p>
{{.DetSVG}}
{{template "matrix" (args .ClassNames .Detection)}}
<h3>Trial level, conditional on these mutants</h3>
<p>Share of (mutant × trial) suite runs detected: rate [95% Wilson interval] (k/n). It says how often these very mutants were caught, not how often the class would be.</p>
{{template "matrix" (args .ClassNames .Trial)}}
<h3>Raw detection (any flag)</h3>
{{template "matrix" (args .ClassNames .Raw)}}

<h2 id="localisation">Localisation</h2>
<p>Among detected suite runs, the share whose top blame is the mutant's location (exact) or the location or a neighbour of it (adjacent): the mean over the mutants the design detected at least once, with the 95% Wilson interval on those mutants; then the trial-level count.</p>
{{.LocSVG}}
<h3>Exact</h3>
{{template "matrix" (args .ClassNames .Exact)}}
<h3>Adjacent</h3>
{{template "matrix" (args .ClassNames .Adjacent)}}

<h2 id="false-alarms">False alarms</h2>
<table><tr><th>design</th><th>flagged</th><th>explained by slip</th><th>explained by fault</th><th>unexplained</th></tr>
{{range .R.FalseAlarms}}<tr><td>{{.Design}}</td><td>{{rate .Flagged .N}}</td><td>{{.ExplainedBySlip}}</td><td>{{.ExplainedByFault}}</td><td>{{rate .Unexplained .N}}</td></tr>
{{end}}</table>

<h2 id="pass-k">pass^k by category</h2>
<p>{{.PassNote}}</p>
{{.PassSVG}}
{{.PassBuildSVG}}
<table><tr>{{range .PassHeader}}<th>{{.}}</th>{{end}}</tr>
{{range .PassCat}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
<details><summary>pass^k per build and scenario</summary>
<table><tr><th>build</th><th>scenario</th><th>category</th><th>pass^1</th><th>pass^n</th></tr>
{{range .R.PassK}}<tr><td>{{.Build}}</td><td>{{.Scenario}}</td><td>{{.Category}}</td><td>{{rate .C .N}}</td><td>{{with .PassK}}{{index . (last .)}}{{end}}</td></tr>
{{end}}</table></details>

<h2 id="cost">Cost</h2>
<table><tr><th>design</th><th>suite runs</th><th>model calls</th><th>tool calls</th><th>tokens</th><th>sandbox resets</th><th>wall ms</th><th>money per suite</th><th>money total</th></tr>
{{range .R.Cost}}<tr><td>{{.Design}}</td><td>{{.SuiteRuns}}</td><td>{{.PerSuite.ModelCalls}}</td><td>{{.PerSuite.ToolCalls}}</td><td>{{.PerSuite.Tokens}}</td><td>{{.PerSuite.SandboxResets}}</td><td>{{.PerSuite.WallMS}}</td><td>{{.MoneyPerSuite}} {{.Currency}}</td><td>{{.Money}} {{.Currency}}</td></tr>
{{end}}</table>

<h2 id="paired">Paired comparisons</h2>
<p>Designs a and b on the same mutants and trials: the difference a − b of the clustered detection rates with Newcombe's paired interval on the mutants, McNemar's exact test on the mutants, then the trial-level table and its exact test (conditional on these mutants); both p-values Holm-adjusted over the table's tests.</p>
<table><tr><th>class</th><th>designs</th><th>mutants</th><th>a − b [95% CI]</th><th>more a</th><th>more b</th><th>p (mutants)</th><th>p Holm</th><th>trial pairs</th><th>both</th><th>only a</th><th>only b</th><th>neither</th><th>p (trials)</th><th>p Holm (trials)</th></tr>
{{range .R.Paired}}<tr><td>{{.Class}}</td><td>{{.A}} vs {{.B}}</td><td>{{.Units}}</td><td>{{diff .Diff .DiffCI95 .Units}}</td><td>{{.MoreA}}</td><td>{{.MoreB}}</td><td>{{p .PValue}}</td><td>{{p .PHolm}}</td><td>{{.N}}</td><td>{{.Both}}</td><td>{{.OnlyA}}</td><td>{{.OnlyB}}</td><td>{{.Neither}}</td><td>{{p .TrialPValue}}</td><td>{{p .TrialPHolm}}</td></tr>
{{end}}</table>

<h2 id="agreement">Agreement</h2>
{{if .R.Agreement}}<p>Cohen's kappa with its 95% interval (kappa ± 1.96·SE, SE of Fleiss, Cohen &amp; Everitt 1969) on the samples both raters rated, of the exported sample.</p>
<table><tr><th>a</th><th>b</th><th>n</th><th>of sample</th><th>agreement</th><th>kappa [95% CI]</th></tr>
{{range .R.Agreement}}<tr><td>{{.AKind}} {{.A}}</td><td>{{.BKind}} {{.B}}</td><td>{{.N}}</td><td>{{.Sample}}</td><td>{{rate .Agree .N}}</td><td>{{kappa .}}</td></tr>
{{end}}</table>{{else}}<p>No reviewer labels imported.</p>{{end}}

<h2 id="mutants">Mutants</h2>
<table><tr><th>mutant</th><th>class</th><th>location</th><th>operator</th><th>status</th><th>reached</th><th>trace diffs</th><th>detected by</th></tr>
{{range .R.Mutants}}<tr><td>{{.ID}}</td><td>{{.Class}}</td><td>{{.Location}}</td><td>{{.Operator}}</td><td>{{.Status}}</td><td>{{.Reached}}</td><td>{{.TraceDiffs}}/{{.Observations}}</td><td>{{join .DetectedBy}}</td></tr>
{{end}}</table>

<h2 id="methods">Methods and limitations</h2>
{{range .Methods}}<h3>{{.Title}}</h3>
<ul>{{range .Items}}<li>{{.}}</li>{{end}}</ul>
{{end}}

<h2 id="drill-down">Drill-down</h2>
<p>Each cell's mutants, then, for each design and mutant, the first trial the design detected it in and the first it missed it in, with their items:
the scenarios newly flagged (flagged here, not on the clean twin) of a detected run, the scenarios flagged on both of a missed one.
suite_runs.csv has every suite run and runs.db every item.
{{if .R.TracePattern}}Each item links to its trace.{{else}}Run an item's command in the run folder (where this report lies) to regenerate its trace.{{end}}</p>
{{range .Drills}}
<section id="{{.Anchor}}">
<h3>Design {{.Design}}, class {{.Class}}</h3>
{{if .Mutants}}<table><tr><th>mutant</th><th>detected</th><th>raw</th></tr>
{{range .Mutants}}<tr><td>{{.Build}}</td><td>{{rate .Detected .N}}</td><td>{{rate .RawDetected .N}}</td></tr>
{{end}}</table>{{end}}
{{if .Runs}}<table><tr><th>mutant</th><th>trial</th><th>detected</th><th>raw</th><th>items</th><th>top blame</th><th>ground truth</th><th>exact</th><th>adjacent</th></tr>
{{range .Runs}}<tr><td>{{.Build}}</td><td>{{.Trial}}</td><td>{{.Detected}}</td><td>{{.Raw}}</td><td>{{range .Items}}<div>{{if .URL}}<a href="{{.URL}}">{{.Scenario}}</a>{{else}}{{.Scenario}}: <code>{{.Command}}</code>{{end}}</div>{{else}}none flagged{{end}}{{with .More}}<div>and {{.}} more</div>{{end}}</td><td>{{.TopBlame}}</td><td>{{.Location}}</td><td>{{.Exact}}</td><td>{{.Adjacent}}</td></tr>
{{end}}</table>{{else}}<p>No suite runs.</p>{{end}}
{{if .Scenarios}}<table><tr><th>mutant</th><th>scenario</th><th>detected</th><th>raw</th></tr>
{{range .Scenarios}}<tr><td>{{.Build}}</td><td>{{.Scenario}}</td><td>{{rate .Detected .N}}</td><td>{{rate .RawDetected .N}}</td></tr>
{{end}}</table>{{end}}
<p><a href="#detection">back to detection</a></p>
</section>
{{end}}
</body>
</html>
{{define "matrix"}}<table><tr><th>design</th>{{range .Classes}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><th>{{.Name}}</th>{{range .Cells}}<td style="{{.Style}}"><a href="#{{.Anchor}}">{{.Text}}</a></td>{{end}}</tr>
{{end}}</table>{{end}}
`))
