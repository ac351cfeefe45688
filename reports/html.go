package reports

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"net/url"
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

type htmlLink struct {
	Text string
	URL  string
}

type drillRun struct {
	Build, Class, TopBlame, Location string
	Trial                            int
	Raw, Detected, Exact, Adjacent   bool
	NewFlags                         []htmlLink
	Flagged                          []string
}

type drill struct {
	Anchor, Design, Class string
	Runs                  []drillRun
	Scenarios             []ScenarioDetection
}

type htmlView struct {
	R                     *Results
	ClassNames            []string
	Detection, Raw        []htmlRow
	Exact, Adjacent       []htmlRow
	DetSVG, LocSVG        template.HTML
	PassSVG, PassBuildSVG template.HTML
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

// traceURL fills the trace pattern for one scenario of a suite run.
func traceURL(pattern string, run SuiteRunRow, scenario string) string {
	if pattern == "" {
		return ""
	}
	return strings.NewReplacer(
		"{build}", url.PathEscape(run.Build), "{design}", url.PathEscape(run.Design),
		"{scenario}", url.PathEscape(scenario), "{trial}", strconv.Itoa(run.Trial),
	).Replace(pattern)
}

// HTML renders report.html: one self-contained file with inline SVG heat
// maps and pass^k curves (gonum/plot) and a drill-down from every detection
// and localisation cell to its suite runs. Every string is escaped by
// html/template, and every label inside the SVG by vgsvg.
func HTML(r *Results) ([]byte, error) {
	r = r.normalised()
	designs, classes := designsAndClasses(r)
	v := htmlView{R: r, ClassNames: classes}

	anchor := make(map[[2]string]string)
	det := make(map[[2]string]DetectionRow)
	loc := make(map[[2]string]LocalisationRow)
	for _, d := range r.Detection {
		det[[2]string{d.Design, d.Class}] = d
	}
	for _, l := range r.Localisation {
		loc[[2]string{l.Design, l.Class}] = l
	}
	for _, d := range designs {
		for _, c := range classes {
			a := fmt.Sprintf("cell-%d", len(v.Drills)+1)
			anchor[[2]string{d, c}] = a
			dr := drill{Anchor: a, Design: d, Class: c}
			for _, s := range r.SuiteRuns {
				if s.Design != d || s.Class != c || s.Build == CleanBuild {
					continue
				}
				run := drillRun{Build: s.Build, Class: s.Class, Trial: s.Trial, TopBlame: s.TopBlame, Location: s.Location,
					Raw: s.Raw, Detected: s.Detected, Exact: s.Exact, Adjacent: s.Adjacent, Flagged: s.Flagged}
				for _, sc := range s.NewFlags {
					run.NewFlags = append(run.NewFlags, htmlLink{Text: sc, URL: traceURL(r.TracePattern, s, sc)})
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

	cellRow := func(d string, get func(c string) (k, n int)) htmlRow {
		row := htmlRow{Name: d}
		for _, c := range classes {
			k, n := get(c)
			row.Cells = append(row.Cells, htmlCell{Text: rateCell(k, n), Anchor: anchor[[2]string{d, c}], Style: colour(ratio(k, n), n == 0)})
		}
		return row
	}
	for _, d := range designs {
		v.Detection = append(v.Detection, cellRow(d, func(c string) (int, int) { x := det[[2]string{d, c}]; return x.Detected, x.N }))
		v.Raw = append(v.Raw, cellRow(d, func(c string) (int, int) { x := det[[2]string{d, c}]; return x.RawDetected, x.N }))
		v.Exact = append(v.Exact, cellRow(d, func(c string) (int, int) { x := loc[[2]string{d, c}]; return x.Exact, x.Flagged }))
		v.Adjacent = append(v.Adjacent, cellRow(d, func(c string) (int, int) { x := loc[[2]string{d, c}]; return x.Adjacent, x.Flagged }))
	}

	heat := func(title string, get func(d, c string) (k, n int)) (template.HTML, error) {
		z := make([][]float64, len(designs))
		text := make([][]string, len(designs))
		for i, d := range designs {
			for _, c := range classes {
				k, n := get(d, c)
				if n == 0 {
					z[i] = append(z[i], math.NaN())
					text[i] = append(text[i], "–")
					continue
				}
				z[i] = append(z[i], ratio(k, n))
				text[i] = append(text[i], fmt.Sprintf("%.2f (%d/%d)", ratio(k, n), k, n))
			}
		}
		s, err := heatmapSVG(title, designs, classes, z, text)
		return template.HTML(s), err // vgsvg escapes every label
	}
	var err error
	if v.DetSVG, err = heat("Detection (design × class)", func(d, c string) (int, int) {
		x := det[[2]string{d, c}]
		return x.Detected, x.N
	}); err != nil {
		return nil, err
	}
	if v.LocSVG, err = heat("Exact localisation (design × class)", func(d, c string) (int, int) {
		x := loc[[2]string{d, c}]
		return x.Exact, x.Flagged
	}); err != nil {
		return nil, err
	}

	var cleanCurves, buildCurves []curve
	type acc struct {
		sum []float64
		n   int
	}
	byBuild := make(map[string]*acc)
	var buildOrder []string
	for _, x := range r.PassKByCategory {
		ys := make([]float64, len(x.PassK))
		for i, p := range x.PassK {
			ys[i] = Round4(float64(p)) // as results.json holds it
		}
		if x.Build == CleanBuild {
			cleanCurves = append(cleanCurves, curve{name: x.Category, ys: ys})
		}
	}
	for _, x := range r.PassK {
		a := byBuild[x.Build]
		if a == nil {
			a = &acc{sum: make([]float64, len(x.PassK))}
			byBuild[x.Build] = a
			buildOrder = append(buildOrder, x.Build)
		}
		if len(x.PassK) < len(a.sum) {
			a.sum = a.sum[:len(x.PassK)]
		}
		for i := range a.sum {
			a.sum[i] += Round4(float64(x.PassK[i]))
		}
		a.n++
	}
	for _, b := range buildOrder {
		a := byBuild[b]
		ys := make([]float64, len(a.sum))
		for i, s := range a.sum {
			ys[i] = s / float64(a.n)
		}
		buildCurves = append(buildCurves, curve{name: b, ys: ys})
	}
	s, err := passKSVG("pass^k by category, clean build", cleanCurves)
	if err != nil {
		return nil, err
	}
	v.PassSVG = template.HTML(s)
	if s, err = passKSVG("pass^k by build, mean over scenarios", buildCurves); err != nil {
		return nil, err
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
			if k <= len(x.PassK) {
				row = append(row, fmt.Sprintf("%.2f", float64(x.PassK[k-1])))
			} else {
				row = append(row, "")
			}
		}
		v.PassCat = append(v.PassCat, row)
	}

	var b bytes.Buffer
	if err := htmlTmpl.Execute(&b, v); err != nil {
		return nil, fmt.Errorf("render html: %w", err)
	}
	return b.Bytes(), nil
}

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"rate":  rateCell,
	"args":  func(c []string, r []htmlRow) matrixArgs { return matrixArgs{c, r} },
	"last":  func(s []F4) int { return len(s) - 1 },
	"kappa": func(k *F4) string { return kappaString(k, "undefined") },
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
.confirmed{color:#1e8e3e}.refuted{color:#d93025}.inconclusive{color:#b06000}
svg{max-width:100%;height:auto}
details{margin:.5rem 0}
</style>
</head>
<body>
<h1>baton report</h1>
<p>Protocol {{.R.Protocol.Name}}, sha256 <code>{{.R.Protocol.SHA256}}</code>, seed {{.R.Protocol.Seed}},
{{.R.Protocol.Trials}} trials, contract level {{.R.Protocol.ContractLevel}}. Schema {{.R.Schema}}.</p>

<h2 id="validity">Validity</h2>
{{if .R.Validity.Valid}}<p class="valid"><b>Valid.</b> Every design flagged every control suite run ({{.R.Validity.ControlSuiteRuns}} checked).{{with .R.Validity.Reason}} Note: {{.}}.{{end}}</p>
{{else}}<p class="discarded"><b>DISCARDED.</b> {{.R.Validity.Reason}}. The harness is broken: no figure below stands.</p>{{end}}

<h2 id="hypotheses">Hypotheses</h2>
<ul>{{range .R.Hypotheses}}
<li><b>{{.ID}} — <span class="{{.Verdict}}">{{.Verdict}}</span>.</b> {{.Statement}}<br>{{.Why}}</li>{{end}}
</ul>
{{with .R.Warnings}}<h2>Warnings</h2><ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}

<h2 id="detection">Detection</h2>
<p>Share of (mutant × trial) suite runs in which the design flags a scenario that it does not flag on the clean build under the same seed: rate [95% Wilson interval] (k/n). Each cell links to its suite runs.</p>
{{.DetSVG}}
{{template "matrix" (args .ClassNames .Detection)}}
<h3>Raw detection (any flag)</h3>
{{template "matrix" (args .ClassNames .Raw)}}

<h2 id="localisation">Localisation</h2>
<p>Among detected suite runs, the share whose top blame is the mutant's location (exact) or the location or a neighbour of it (adjacent).</p>
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

<h2 id="paired">Paired tests</h2>
<p>McNemar's exact test on the same (mutant, trial) suite runs.</p>
<table><tr><th>class</th><th>designs</th><th>n</th><th>both</th><th>only a</th><th>only b</th><th>neither</th><th>p</th></tr>
{{range .R.Paired}}<tr><td>{{.Class}}</td><td>{{.A}} vs {{.B}}</td><td>{{.N}}</td><td>{{.Both}}</td><td>{{.OnlyA}}</td><td>{{.OnlyB}}</td><td>{{.Neither}}</td><td>{{.PValue}}</td></tr>
{{end}}</table>

<h2 id="agreement">Agreement</h2>
{{if .R.Agreement}}<table><tr><th>a</th><th>b</th><th>n</th><th>agreement</th><th>kappa</th></tr>
{{range .R.Agreement}}<tr><td>{{.AKind}} {{.A}}</td><td>{{.BKind}} {{.B}}</td><td>{{.N}}</td><td>{{rate .Agree .N}}</td><td>{{kappa .Kappa}}</td></tr>
{{end}}</table>{{else}}<p>No reviewer labels imported.</p>{{end}}

<h2 id="mutants">Mutants</h2>
<table><tr><th>mutant</th><th>class</th><th>location</th><th>operator</th><th>status</th><th>reached</th><th>trace diffs</th><th>detected by</th></tr>
{{range .R.Mutants}}<tr><td>{{.ID}}</td><td>{{.Class}}</td><td>{{.Location}}</td><td>{{.Operator}}</td><td>{{.Status}}</td><td>{{.Reached}}</td><td>{{.TraceDiffs}}/{{.Observations}}</td><td>{{join .DetectedBy}}</td></tr>
{{end}}</table>

<h2 id="drill-down">Drill-down</h2>
{{range .Drills}}
<section id="{{.Anchor}}">
<h3>Design {{.Design}}, class {{.Class}}</h3>
{{if .Runs}}<table><tr><th>mutant</th><th>trial</th><th>detected</th><th>raw</th><th>newly flagged scenarios</th><th>all flagged</th><th>top blame</th><th>ground truth</th><th>exact</th><th>adjacent</th></tr>
{{range .Runs}}<tr><td>{{.Build}}</td><td>{{.Trial}}</td><td>{{.Detected}}</td><td>{{.Raw}}</td><td>{{range $i, $l := .NewFlags}}{{if $i}}, {{end}}{{if $l.URL}}<a href="{{$l.URL}}">{{$l.Text}}</a>{{else}}{{$l.Text}}{{end}}{{end}}</td><td>{{join .Flagged}}</td><td>{{.TopBlame}}</td><td>{{.Location}}</td><td>{{.Exact}}</td><td>{{.Adjacent}}</td></tr>
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
