package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/reports"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// findBrowser returns the Chromium to drive: $BATON_CHROMIUM, else the
// first of the usual names on PATH; it skips the test when there is none.
func findBrowser(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("BATON_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const msg = "no Chromium found on PATH (apt-get install chromium, or set BATON_CHROMIUM): the browser test of report.html"
	if os.Getenv("BATON_BROWSER_REQUIRED") != "" {
		t.Fatal(msg + " cannot run, and BATON_BROWSER_REQUIRED is set")
	}
	t.Skip(msg + " is skipped")
	return ""
}

// newBrowser starts headless Chromium with a new empty profile; the flags
// keep it off every network (this one is closed, and it would wait on it).
func newBrowser(t *testing.T, exe string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 900),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
		cancel()
	})
	if err := chromedp.Do(bctx); err != nil { // starts the browser
		t.Fatalf("start %s: %v", exe, err)
	}
	return bctx
}

// tab is one page under watch: every console error, uncaught exception,
// browser log error (a refused script or style among them), dialog and
// request to anything but a local file it saw.
type tab struct {
	ctx  context.Context
	mu   sync.Mutex
	seen []string
}

func openTab(t *testing.T, browser context.Context, path string) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	tb := &tab{ctx: ctx}
	if err := chromedp.Do(ctx); err != nil { // opens the tab
		t.Fatal(err)
	}
	err := chromedp.Listen(ctx, func(ev any) {
		var s string
		switch ev := ev.(type) {
		case *page.EventJavascriptDialogOpening:
			s = "dialog: " + ev.Message
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; !strings.HasPrefix(u, "file:") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "blob:") {
				s = "request: " + u
			}
		}
		if s != "" {
			tb.mu.Lock()
			tb.seen = append(tb.seen, s)
			tb.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	console := chromedp.Console(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleWarning {
				tb.mu.Lock()
				tb.seen = append(tb.seen, fmt.Sprintf("console %s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line+1))
				tb.mu.Unlock()
			}
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
	t.Cleanup(func() { tb.clean(t) }) // what it saw, even when a step failed
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate("file://"+path)); err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return tb
}

// clean fails the test for anything the tab saw.
func (tb *tab) clean(t *testing.T) {
	t.Helper()
	time.Sleep(200 * time.Millisecond) // let the last console messages arrive
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, s := range tb.seen {
		t.Errorf("the page must raise no error, dialog or request: %s", s)
	}
	tb.seen = nil
}

// stepTimeout bounds one step: a missing element fails the test at once
// rather than at the browser's deadline.
const stepTimeout = 20 * time.Second

func (tb *tab) step() (context.Context, context.CancelFunc) {
	return context.WithTimeout(tb.ctx, stepTimeout)
}

func eval[T any](t *testing.T, tb *tab, js string) T {
	t.Helper()
	ctx, cancel := tb.step()
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

func do(t *testing.T, tb *tab, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := tb.step()
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// shot keeps a screenshot in $BATON_SCREENSHOTS (when set).
func shot(t *testing.T, tb *tab, name string, a chromedp.Action[[]byte]) {
	t.Helper()
	dir := os.Getenv("BATON_SCREENSHOTS")
	if dir == "" {
		return
	}
	ctx, cancel := tb.step()
	defer cancel()
	b, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// defaultRun runs the default protocol with two trials and a larger trace
// sample (so that more than the cap of viewers is kept), then exports a
// review pack that holds the scenario whose email carries a <script>.
func defaultRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	sum, err := experiment.Run(context.Background(), experiment.Options{RunDir: dir, Trials: 2, TraceSample: 0.3, Logger: zerolog.Nop(), Missions: missions(t)})
	if err != nil {
		t.Fatalf("default run: %v", err)
	}
	pick := func(all []reports.ReviewCandidate) []reports.ReviewCandidate {
		out := reports.SampleReview(all, 12, sum.Manifest.Seed)
		for _, c := range all {
			if c.Scenario == scriptScenario && c.Build == reports.CleanBuild && c.Trial == 1 {
				out = append(out, c)
			}
		}
		return out
	}
	cands, err := experiment.ReviewCandidates(missions(t), dir, pick)
	if err != nil {
		t.Fatal(err)
	}
	if err := reports.ExportReview(dir, cands, len(cands), sum.Manifest.Seed); err != nil {
		t.Fatal(err)
	}
	return dir
}

// scriptScenario is the default scenario whose HTML email carries a
// <script> that would fetch collect.example with the page's cookie.
const scriptScenario = "S58"

func TestReportInBrowser(t *testing.T) {
	exe := findBrowser(t)
	run := defaultRun(t)
	browser := newBrowser(t, exe)

	t.Run("report", func(t *testing.T) { checkReport(t, openTab(t, browser, filepath.Join(run, "report.html"))) })
	t.Run("review pack", func(t *testing.T) {
		tb := openTab(t, browser, filepath.Join(run, "review", "pack.html"))
		body := eval[string](t, tb, `document.body.innerText`)
		if !strings.Contains(body, `<script type="text/javascript">`) || !strings.Contains(body, "collect.example") {
			t.Error("the pack does not show scenario S58's <script> as text")
		}
		if n := eval[int](t, tb, `document.querySelectorAll("script").length`); n != 0 {
			t.Errorf("the pack has %d script elements, want none", n)
		}
		tb.clean(t)
	})
	t.Run("adversarial strings", func(t *testing.T) {
		dir := adversarialRun(t)
		for _, name := range []string{"report.html", "trace.html"} {
			tb := openTab(t, browser, filepath.Join(dir, name))
			if name == "report.html" {
				do(t, tb, chromedp.Click(chromedp.CSS(`#detection-table a[href^="#cell-"]`)), chromedp.Click(chromedp.CSS(`a.trace-link`)))
				if !eval[bool](t, tb, `getComputedStyle(document.querySelector(".viewer:target")).display === "block"`) {
					t.Error("the adversarial item's trace viewer does not open")
				}
			}
			if pwned := eval[string](t, tb, `String(window.batonPwned)`); pwned != "undefined" {
				t.Errorf("%s: an injected script ran (window.batonPwned = %s)", name, pwned)
			}
			if !strings.Contains(eval[string](t, tb, `document.documentElement.textContent`), "<script>window.batonPwned=3") {
				t.Errorf("%s does not show the injected markup as text", name)
			}
			tb.clean(t)
		}
	})
}

// checkReport checks the default report: every section renders, the
// heat maps have their scale, tables sort, the trace viewer opens from a
// detection cell and closes with Escape.
func checkReport(t *testing.T, tb *tab) {
	shot(t, tb, "report-top", chromedp.CaptureScreenshot())
	empty := eval[[]string](t, tb, `Array.from(document.querySelectorAll("main section:not(.viewer)")).filter(s => s.getBoundingClientRect().height < 20 || s.textContent.trim() === "").map(s => s.id)`)
	if len(empty) > 0 {
		t.Errorf("sections that render empty: %v", empty)
	}
	sections := eval[[]string](t, tb, `Array.from(document.querySelectorAll("main > section")).map(s => s.id)`)
	for _, want := range []string{"validity", "hypotheses", "detection", "localisation", "false-alarms", "pass-k", "cost", "paired", "agreement", "mutants", "methods", "drill-down", "traces"} {
		if !slices.Contains(sections, want) {
			t.Errorf("no section %q among %v", want, sections)
		}
	}
	if d := eval[float64](t, tb, `document.querySelector("nav.toc").getBoundingClientRect().top`); d < -1 {
		t.Errorf("the table of contents is not at the top: %v", d)
	}
	do(t, tb, chromedp.Evaluate[chromedp.Void](`document.getElementById("mutants").scrollIntoView()`))
	if top := eval[float64](t, tb, `document.querySelector("nav.toc").getBoundingClientRect().top`); top < -1 || top > 5 {
		t.Errorf("the table of contents scrolled out of view (top %v)", top)
	}
	for _, id := range []string{"detection-map", "localisation-map"} {
		if n := eval[int](t, tb, `document.querySelectorAll("#`+id+` svg rect").length`); n < 11 {
			t.Errorf("heat map %s has %d rectangles, want its cells and an 11-step scale", id, n)
		}
	}
	do(t, tb, chromedp.Evaluate[chromedp.Void](`document.getElementById("detection-map").scrollIntoView()`))
	shot(t, tb, "heatmap", chromedp.Screenshot(chromedp.CSS("#detection")))
	do(t, tb, chromedp.Evaluate[chromedp.Void](`document.getElementById("pass-k").scrollIntoView()`))
	shot(t, tb, "pass-k", chromedp.Screenshot(chromedp.CSS("#pass-k-builds")))
	checkSort(t, tb)
	checkViewer(t, tb)
	tb.clean(t)
}

// checkSort sorts the mutants table by "reached" both ways.
func checkSort(t *testing.T, tb *tab) {
	if n := eval[int](t, tb, `document.querySelectorAll("table.sortable th button.sort").length`); n == 0 {
		t.Fatal("no table has sort buttons: the page's script did not run")
	}
	col := `Array.from(document.querySelectorAll("#mutants-table tbody tr")).map(r => parseFloat(r.cells[5].getAttribute("data-v")))`
	for _, dir := range []string{"ascending", "descending"} {
		do(t, tb, chromedp.Click(chromedp.CSS(`#mutants-table thead th:nth-child(6) button`)))
		got := eval[[]float64](t, tb, col)
		want := slices.Clone(got)
		slices.Sort(want)
		if dir == "descending" {
			slices.Reverse(want)
		}
		if !slices.Equal(got, want) || len(got) < 2 {
			t.Errorf("mutants table %s by reached: %v", dir, got)
		}
		if s := eval[string](t, tb, `document.querySelector("#mutants-table thead th:nth-child(6)").getAttribute("aria-sort")`); s != dir {
			t.Errorf("aria-sort = %q, want %q", s, dir)
		}
	}
}

// checkViewer clicks a detection cell whose drill-down has an embedded
// trace, then the item, and checks the viewer opened on top, with lanes,
// events and the findings marked; Escape closes it.
func checkViewer(t *testing.T, tb *tab) {
	// A cell whose item's viewer has a diff against the clean twin, else
	// any with an embedded trace.
	pick := eval[[]string](t, tb, `(() => {
		const links = Array.from(document.querySelectorAll("section[id^=cell-] a.trace-link"));
		const diffed = links.filter(a => document.getElementById(a.getAttribute("href").slice(1)).querySelector("table.diff"));
		const a = diffed[0] || links[0];
		return a ? [a.closest("section").id, a.getAttribute("href"), String(diffed.length), String(links.length)] : ["", "", "0", "0"]; })()`)
	cell, link := pick[0], pick[1]
	t.Logf("%s of %s embedded traces in the drill-down have a diff against their clean twin", pick[2], pick[3])
	if cell == "" {
		t.Fatal("no drill-down cell holds an embedded trace")
	}
	if pick[2] == "0" {
		t.Error("no embedded trace has a diff against its clean twin (the run keeps 30% of traces)")
	}
	do(t, tb, chromedp.Click(chromedp.CSS(`#detection-table a[href="#`+cell+`"]`)))
	if h := eval[string](t, tb, `location.hash`); h != "#"+cell {
		t.Fatalf("clicking the detection cell went to %q, want #%s", h, cell)
	}
	do(t, tb, chromedp.Click(chromedp.CSS(`#`+cell+` a.trace-link[href="`+link+`"]`)))
	type state struct {
		Hash    string  `json:"hash"`
		Display string  `json:"display"`
		Lanes   int     `json:"lanes"`
		Events  int     `json:"events"`
		Marked  int     `json:"marked"`
		Finds   int     `json:"finds"`
		Top     float64 `json:"top"`
	}
	st := eval[state](t, tb, `(() => { const v = document.querySelector(".viewer:target"); return {
		hash: location.hash, display: v ? getComputedStyle(v).display : "",
		lanes: v ? v.querySelectorAll(".lane-h").length : 0, events: v ? v.querySelectorAll(".ev").length : 0,
		marked: v ? v.querySelectorAll(".ev.flagged").length : 0, finds: v ? v.querySelectorAll(".findings li").length : 0,
		top: v ? v.getBoundingClientRect().top : -1}; })()`)
	t.Logf("trace viewer %s: %d lanes, %d events, %d findings, %d marked events", st.Hash, st.Lanes, st.Events, st.Finds, st.Marked)
	if st.Display != "block" || st.Lanes < 1 || st.Events < 1 || st.Top != 0 {
		t.Fatalf("the trace viewer did not open over the page: %+v", st)
	}
	if st.Finds == 0 {
		t.Error("the viewer lists no findings (runs.db has them for every flagged item)")
	}
	shot(t, tb, "trace-viewer", chromedp.CaptureScreenshot())
	do(t, tb, chromedp.Evaluate[chromedp.Void](`document.querySelector(".viewer:target table.diff, .viewer:target h4:last-of-type").scrollIntoView()`))
	shot(t, tb, "trace-diff", chromedp.CaptureScreenshot())
	do(t, tb, chromedp.KeyEvent("\x1b"))
	if h := eval[string](t, tb, `location.hash`); h != "#"+cell {
		t.Errorf("Escape went to %q, want back to #%s", h, cell)
	}
}

// Strings an adversary controls, each of which would run script if it
// reached the page unescaped; no build or scenario id holds a "/".
const (
	evilID   = `m<img src=x onerror="window.batonPwned=1">`
	evilSc   = `S<svg onload=window.batonPwned=2>`
	evilText = "</script><script>window.batonPwned=3;alert(3)</script><!-- \u2028 \" ' <b>"
)

// adversarialRun writes a run folder whose every string is hostile: ids,
// categories, operators, methods, blame, findings, and a kept trace whose
// agents, tools, arguments, wire bytes and errors carry markup; and a
// standalone trace page of it.
func adversarialRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cfg := reports.Config{
		Protocol:  reports.ProtocolInfo{Name: evilText, SHA256: evilText, ContractLevel: evilText},
		Designs:   []string{"A"},
		Builds:    []reports.BuildInfo{{ID: reports.CleanBuild}, {ID: evilID, Class: "control", Location: "boundary", Operator: evilText, Description: evilText}},
		Scenarios: []reports.ScenarioInfo{{ID: evilSc, Category: "adversarial" + evilText}},
		Methods:   reports.Methods{Mission: reports.MissionInfo{Name: evilText, Version: evilText}, Limits: []string{evilText}},
	}
	a := reports.NewAggregator(cfg)
	id := evilID + "/A/" + evilSc + "/1"
	for _, it := range []reports.Item{
		{Build: reports.CleanBuild, Design: "A", Scenario: evilSc, Category: "adversarial" + evilText, Trial: 1},
		{Build: evilID, Class: "control", Location: "boundary", Design: "A", Scenario: evilSc, Trial: 1, Flagged: true, Blame: []string{evilText}, Findings: 1},
		{Build: reports.CleanBuild, Scenario: evilSc, Trial: 1, Success: true, TraceHash: "a"},
		{Build: evilID, Scenario: evilSc, Trial: 1, TraceHash: "b"},
	} {
		a.Add(it)
	}
	r := a.Results()
	r.TraceItems = []string{id}
	r.SetFindings(map[string][]reports.Finding{id: {{Rule: evilText, Message: evilText, Location: evilText,
		Evidence: reports.FindingEvidence{Run: "integrated", Seq: 2, Field: evilText}}}})
	trace := evilTrace(t)
	if err := os.MkdirAll(filepath.Join(dir, "traces"), 0o755); err != nil {
		t.Fatal(err)
	}
	for build, item := range map[string]string{evilID: id, reports.CleanBuild: reports.CleanBuild + "/A/" + evilSc + "/1"} {
		line, _ := json.Marshal(map[string]any{"item": item, "trace": json.RawMessage("[" + strings.Join(strings.Split(strings.TrimSpace(string(trace)), "\n"), ",") + "]")})
		if err := os.WriteFile(filepath.Join(dir, "traces", build+".jsonl"), append(line, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := reports.WriteAll(dir, r); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "trace.html"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := reports.WriteTracePage(f, reports.TraceInput{Item: id, Trace: trace, Source: evilText, Flagged: true,
		Findings: []reports.Finding{{Rule: evilText, Message: evilText, Evidence: reports.FindingEvidence{Run: evilText}}},
		Twin:     reports.CleanBuild + "/A/" + evilSc + "/1", TwinNote: evilText, Command: evilText}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// evilTrace is a trace (JSON Lines) whose every field carries markup.
func evilTrace(t *testing.T) []byte {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"payload": map[string]string{"note": evilText}, "next_owner": []string{evilText}})
	parsed, _ := json.Marshal(map[string]any{"payload": map[string]string{"note": evilText + "!"}})
	events := []map[string]any{
		{"seq": 1, "at_ms": 0, "kind": "model_call", "agent": evilText, "item": evilText, "decision": evilText, "choice": evilText},
		{"seq": 2, "at_ms": 20, "kind": "tool_call", "agent": evilText, "tool": evilText, "args": map[string]string{evilText: evilText},
			"error": evilText, "key": evilText, "attempt": 1},
		{"seq": 3, "at_ms": 20, "kind": "handoff_sent", "agent": evilText, "edge": evilText + "->b", "raw": string(raw), "to": []string{evilText}},
		{"seq": 4, "at_ms": 20, "kind": "handoff_received", "agent": "b", "edge": evilText + "->b", "raw": string(raw), "parsed": json.RawMessage(parsed)},
		{"seq": 5, "at_ms": 40, "kind": "escalation", "agent": "b", "reason": evilText},
	}
	var b strings.Builder
	for _, e := range events {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// missions are the missions the test runs: the reference mission.
func missions(tb testing.TB) *mission.Registry {
	tb.Helper()
	reg, err := mission.NewRegistry(invoice.New())
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}
