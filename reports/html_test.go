package reports

import (
	"bytes"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const evil = `<script>alert("x")</script>`

// evilResults is a run whose scenario, category, build and blame carry
// markup, as an adversarial scenario does.
func evilResults() *Results {
	cfg := Config{
		Designs:   []string{"A"},
		Builds:    []BuildInfo{{ID: "m" + evil, Class: "context_loss", Location: "intake->action", Operator: evil}},
		Scenarios: []ScenarioInfo{{ID: "S01" + evil, Category: "adversarial" + evil}},
	}
	sc := "S01" + evil
	clean := item("clean", "", "", "A", sc, 0, false)
	clean.Category = "adversarial" + evil
	mut := item("m"+evil, "context_loss", "intake->action", "A", sc, 0, true, evil)
	obs := Item{Build: "clean", Scenario: sc, Category: "adversarial" + evil, Success: true, TraceHash: evil}
	obsM := Item{Build: "m" + evil, Scenario: sc, Success: false, TraceHash: "other"}
	a := NewAggregator(cfg)
	for _, it := range []Item{clean, obs, mut, obsM} {
		a.Add(it)
	}
	r := a.Results()
	r.Protocol.Locked = true
	r.Protocol.Deviations = []Deviation{{Setting: "trials" + evil, Locked: "20", Ran: "2" + evil, Reason: "because " + evil}}
	r.Methods = Methods{
		Mission: MissionInfo{Name: "m" + evil, Version: evil},
		Cores:   []CoreInfo{{Agent: "intake" + evil, Kind: CoreModel, Model: evil, Detail: evil}},
		Designs: []DesignInfo{{ID: "A", Name: evil, Doc: evil}},
		Limits:  []string{evil},
	}
	r.Warnings = []string{evil}
	return r
}

// hostile holds markup for every context a string lands in: text, an
// attribute, JSON inside a script element (a closing tag, a comment
// opener, the line separators JavaScript once read as new lines).
const hostile = "</script><script>alert(1)</script><!-- \"' onmouseover=alert(2) <img src=x onerror=alert(3)> \u2028\u2029&amp;"

// hostileTrace is a trace whose every string field carries hostile text.
func hostileTrace() []byte {
	raw, _ := json.Marshal(map[string]any{"next_owner": []string{hostile}, "payload": map[string]string{"note": hostile}})
	parsed, _ := json.Marshal(map[string]any{"payload": map[string]string{"note": hostile + "?"}})
	evs := []map[string]any{
		{"seq": 1, "at_ms": 0, "kind": "model_call", "agent": hostile, "item": hostile, "decision": hostile, "choice": hostile},
		{"seq": 2, "at_ms": 20, "kind": "tool_call", "agent": hostile, "tool": hostile, "args": map[string]string{hostile: hostile},
			"output": map[string]string{"o": hostile}, "error": hostile, "key": hostile, "attempt": 2, "effect": hostile},
		{"seq": 3, "at_ms": 20, "kind": "handoff_received", "agent": "b", "edge": hostile + "->b", "raw": string(raw), "parsed": json.RawMessage(parsed)},
		{"seq": 4, "at_ms": 30, "kind": "exception", "agent": "b", "reason": hostile},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as the mission writes traces: raw "<" in the bytes
	for _, e := range evs {
		enc.Encode(e)
	}
	return b.Bytes()
}

// keepTraces writes a run folder's traces/<build>.jsonl for the items, as
// a sweep keeps them, and lists them in r.TraceItems.
func keepTraces(tb testing.TB, dir string, r *Results, trace []byte, items ...string) {
	tb.Helper()
	byBuild := map[string][]byte{}
	for _, id := range items {
		lines := strings.Split(strings.TrimSpace(string(trace)), "\n")
		line, err := json.Marshal(struct {
			Item  string          `json:"item"`
			Trace json.RawMessage `json:"trace"`
		}{id, json.RawMessage("[" + strings.Join(lines, ",") + "]")})
		if err != nil {
			tb.Fatal(err)
		}
		byBuild[buildOf(id)] = append(append(byBuild[buildOf(id)], line...), '\n')
		if buildOf(id) != CleanBuild {
			r.TraceItems = append(r.TraceItems, id)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, tracesDir), 0o755); err != nil {
		tb.Fatal(err)
	}
	for b, data := range byBuild {
		if err := os.WriteFile(filepath.Join(dir, tracesDir, b+".jsonl"), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// renderIn writes r into dir and returns report.html.
func renderIn(tb testing.TB, dir string, r *Results) string {
	tb.Helper()
	if err := WriteAll(dir, r); err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

var (
	pageScript = regexp.MustCompile(`(?s)<script>\n\(function \(\) \{.*?</script>`)
	dataScript = regexp.MustCompile(`(?s)<script type="application/json" class="raw-trace"[^>]*>(.*?)</script>`)
)

// checkEscaped fails for any live markup a hostile string could have
// made: a script element but the page's own and its JSON data, an event
// handler or style attribute, a tag a payload carries; and for JSON data
// that could close its element or read otherwise.
func checkEscaped(t *testing.T, name, page string) {
	t.Helper()
	for _, m := range dataScript.FindAllStringSubmatch(page, -1) {
		body := m[1]
		for _, bad := range []string{"</", "<!--", "<", "\u2028", "\u2029"} {
			if strings.Contains(body, bad) {
				t.Errorf("%s: embedded JSON holds %q", name, bad)
			}
		}
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Errorf("%s: embedded JSON does not parse: %v", name, err)
		}
		if !strings.Contains(body, `\u003c/script\u003e`) && strings.Contains(page, "alert(1)") {
			t.Errorf("%s: the embedded JSON lost the hostile text instead of escaping it", name)
		}
	}
	rest := dataScript.ReplaceAllString(pageScript.ReplaceAllString(page, ""), "")
	for _, bad := range []string{"<script", "<img", "<svg onload", "javascript:"} {
		if i := strings.Index(rest, bad); i >= 0 {
			t.Errorf("%s: live %q near %q", name, bad, rest[max(0, i-60):min(len(rest), i+60)])
		}
	}
	// No tag carries an event handler or a style attribute (the policy
	// would refuse the style; a handler would be a hole).
	if m := regexp.MustCompile(`<[a-zA-Z][^>]*\s(on[a-z]+|style)=`).FindString(rest); m != "" {
		t.Errorf("%s: a tag with a handler or style attribute: %q", name, m)
	}
}

func TestHTMLEscapesScenarioText(t *testing.T) {
	html := string(renderAll(t, evilResults())["report.html"])
	checkEscaped(t, "report.html", html)
	if !strings.Contains(html, "S01&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Error("report.html does not show the scenario id as escaped text")
	}
	if strings.Contains(string(Markdown(evilResults())), "<script") {
		t.Error("report.md carries a raw <script> element")
	}
}

// TestHTMLEscapesEveryPlace: hostile strings in a kept trace, its
// findings, the run's ids and texts land escaped in text, in attributes
// and in the embedded JSON of report.html and of a trace page.
func TestHTMLEscapesEveryPlace(t *testing.T) {
	r := evilResults()
	dir := t.TempDir()
	id := r.Examples[0].Items[0].ID
	keepTraces(t, dir, r, hostileTrace(), id, twinOf(id))
	r.SetFindings(map[string][]Finding{id: {
		{Rule: hostile, Message: hostile, Location: hostile, Evidence: FindingEvidence{Run: integratedRun, Seq: 2, Field: hostile}},
		{Rule: hostile, Message: hostile, Evidence: FindingEvidence{Run: hostile}},
	}})
	page := renderIn(t, dir, r)
	checkEscaped(t, "report.html", page)
	if n := len(dataScript.FindAllString(page, -1)); n != 1 {
		t.Errorf("report.html embeds %d traces, want 1", n)
	}
	for _, want := range []string{html.EscapeString(hostile), `class="ev k-tool_call fault flagged`} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	var b bytes.Buffer
	err := WriteTracePage(&b, TraceInput{Item: hostile, Trace: hostileTrace(), Source: hostile, Command: hostile, Twin: hostile,
		TwinTrace: hostileTrace(), TwinNote: hostile, Findings: []Finding{{Rule: hostile, Message: hostile, Evidence: FindingEvidence{Run: hostile, Seq: 9}}}})
	if err != nil {
		t.Fatal(err)
	}
	checkEscaped(t, "trace page", b.String())
}

// TestHTMLSelfContained: report.html loads nothing: every link is to an
// anchor of the page, every URL-looking string is the SVG namespace, and
// the policy's hashes are those of the page's one style sheet and script.
func TestHTMLSelfContained(t *testing.T) {
	page := string(renderAll(t, synthResults())["report.html"])
	for _, m := range regexp.MustCompile(`(?:href|src)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") {
			t.Errorf("link to %q: want a fragment of the page", m[1])
		}
	}
	rest := strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
	if i := strings.Index(rest, "://"); i >= 0 {
		t.Errorf("a URL in report.html, not the SVG namespace: %q", rest[max(0, i-60):min(len(rest), i+60)])
	}
	policy := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if policy == nil {
		t.Fatal("no Content-Security-Policy")
	}
	css := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(page)
	js := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(page)
	want := strings.Join([]string{"default-src 'none'", "style-src " + sourceHash(css[1]), "script-src " + sourceHash(js[1]),
		"img-src data:", "base-uri 'none'", "form-action 'none'"}, "; ")
	if got := html.UnescapeString(policy[1]); got != want {
		t.Errorf("policy (-want +got):\n%s", cmp.Diff(want, got))
	}
}

// TestMethodsAndDeviations: every report carries the deviations first and
// the methods and limitations section, with the protocol's own limits and
// the clauses a design's definition settles.
func TestMethodsAndDeviations(t *testing.T) {
	r := synthResults()
	r.Protocol.Locked = true
	r.Protocol.Deviations = []Deviation{{Setting: "trials", Locked: "20", Ran: "4", Reason: "a pilot"}}
	files := renderAll(t, r)
	md, page := string(files["report.md"]), string(files["report.html"])
	for name, doc := range map[string]string{"report.md": md, "report.html": page} {
		validity := strings.Index(doc, "## Validity")
		if name == "report.html" {
			validity = strings.Index(doc, `<section id="validity">`)
		}
		dev := strings.Index(doc, "DEVIATED from the locked protocol in 1 setting")
		if dev < 0 || dev > validity || !strings.Contains(doc, "trials: locked 20, ran 4; reason: a pilot") {
			t.Errorf("%s does not show the deviation before the validity gate", name)
		}
		for _, want := range []string{"Methods and limitations", "What ran", "Units of analysis and intervals",
			"Clauses that hold by definition of a design", "What this run cannot show",
			"Core of intake: a deterministic policy with seeded slips; slips misread 0.01",
			"Design B named no edge in any of its 29 flagged items",
			"One reference mission. Results may not transfer",
			"A synthetic stream: no mission ran.",
			"Mission synthetic, version 0."} {
			if !strings.Contains(doc, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		if strings.Contains(doc, "Design C named no edge") {
			t.Errorf("%s says C named no edge, but C blamed edges", name)
		}
	}
	if strings.Index(md, "## Methods and limitations") < strings.Index(md, "## Mutants") {
		t.Error("report.md: methods before the tables")
	}
}

// TestHTMLCoversMarkdown: every heading and every table of report.md is in
// report.html, the same text at the same level, the same cells in order.
func TestHTMLCoversMarkdown(t *testing.T) {
	for name, r := range map[string]*Results{"synthetic": synthResults(), "adversarial": evilResults()} {
		t.Run(name, func(t *testing.T) {
			files := renderAll(t, r)
			for _, miss := range missingFromHTML(string(files["report.md"]), string(files["report.html"])) {
				t.Error(miss)
			}
		})
	}
	t.Run("a section dropped from the HTML is caught", func(t *testing.T) {
		files := renderAll(t, synthResults())
		page := strings.Replace(string(files["report.html"]), "<h2>Cost</h2>", "<h2>Costs</h2>", 1)
		page = regexp.MustCompile(`(?s)<table class="sortable" id="false-alarms-table">.*?</table>`).ReplaceAllString(page, "")
		if got := missingFromHTML(string(files["report.md"]), page); len(got) != 2 {
			t.Errorf("missing = %q, want the Cost heading and the false alarms table", got)
		}
	})
}

func TestHTMLDrillDown(t *testing.T) {
	page := string(renderAll(t, synthResults())["report.html"])
	if n := strings.Count(page, "<svg"); n != 5 {
		t.Errorf("report.html has %d inline SVGs, want 5 (three heat maps, two pass^k figures)", n)
	}
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`id="(cell-\d+)"`).FindAllStringSubmatch(page, -1) {
		ids[m[1]] = true
	}
	links := regexp.MustCompile(`href="#(cell-\d+)"`).FindAllStringSubmatch(page, -1)
	// 3 designs × 5 classes × 8 matrices (harm, harmful trials, benign
	// flags, detection, trial level, raw, exact, adjacent).
	if len(links) != 120 || len(ids) != 15 {
		t.Errorf("%d cell links to %d anchors, want 120 links to 15", len(links), len(ids))
	}
	for _, l := range links {
		if !ids[l[1]] {
			t.Errorf("link #%s has no anchor", l[1])
		}
	}
	if v, d := strings.Index(page, `id="validity"`), strings.Index(page, `id="detection"`); v < 0 || v > d {
		t.Error("validity does not come before detection")
	}
	if n := strings.Count(page, `class="scale"`); n < 5 {
		t.Errorf("%d colour scales, want one above each heat table", n)
	}
}

func TestHTMLReplayCommands(t *testing.T) {
	evilItem := "m" + evil + "/A/S01" + evil + "/0"
	for _, tc := range []struct{ item, want string }{
		{"ctx-1/B/S01/3", "baton replay . ctx-1/B/S01/3 --html ctx-1_B_S01_3.html"},
		{evilItem, `baton replay . 'm<script>alert("x")</script>/A/S01<script>alert("x")</script>/0' --html 'm<script>alert("x")<_script>_A_S01<script>alert("x")<_script>_0.html'`},
	} {
		if got := replayHTMLCommand(tc.item); got != tc.want {
			t.Errorf("replayHTMLCommand(%q) = %s, want %s", tc.item, got, tc.want)
		}
	}
	if got, want := shellQuote("it's"), `'it'\''s'`; got != want {
		t.Errorf("shellQuote = %s, want %s", got, want)
	}

	r := synthResults()
	items := 0
	page := string(renderAll(t, r)["report.html"])
	for _, ex := range r.Examples {
		for _, it := range ex.Items {
			items++
			if !strings.Contains(page, "<code>"+html.EscapeString(replayHTMLCommand(it.ID))+"</code>") {
				t.Errorf("no replay command for %s", it.ID)
			}
		}
	}
	if items < 10 {
		t.Errorf("%d example items, want the synthetic run's detected mutants to give more than 10", items)
	}
	// With kept traces, those items open their viewer instead.
	dir := t.TempDir()
	keepTraces(t, dir, r, fixtureTrace(), "ctx-1/B/S01/0", "clean/B/S01/0")
	page = renderIn(t, dir, r)
	if !regexp.MustCompile(`<a href="#(trace-1)" class="trace-link">S01: open the trace</a>`).MatchString(page) || !strings.Contains(page, `<section class="viewer" id="trace-1"`) {
		t.Error("a kept item does not open its trace viewer")
	}
	if strings.Contains(page, "S01: <code>"+replayHTMLCommand("ctx-1/B/S01/0")+"</code>") || !strings.Contains(page, "S02: <code>"+replayHTMLCommand("ctx-1/B/S02/0")+"</code>") {
		t.Error("a kept item should have no command, an item not kept should")
	}
	if !strings.Contains(page, "The clean twin <code>clean/B/S01/0</code> under the same seed") {
		t.Error("the viewer does not diff against the kept clean twin")
	}
}

// TestHTMLCapsEmbeddedTraces: beyond the cap, kept traces are named, not
// embedded.
func TestHTMLCapsEmbeddedTraces(t *testing.T) {
	r := synthResults()
	var ids []string
	for _, ex := range r.Examples {
		for _, it := range ex.Items {
			ids = append(ids, it.ID)
		}
	}
	if len(ids) <= 3 {
		t.Fatalf("%d example items", len(ids))
	}
	dir := t.TempDir()
	keepTraces(t, dir, r, fixtureTrace(), ids...)
	ts, err := loadTraceSet(dir, r.normalised())
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.views) != min(len(ids), maxEmbeddedTraces) || len(ts.left) != max(0, len(ids)-maxEmbeddedTraces) || ts.kept != len(ids) {
		t.Errorf("%d embedded, %d left out, %d kept of %d", len(ts.views), len(ts.left), ts.kept, len(ids))
	}
}

// missingFromHTML lists every heading and table of md that page lacks.
func missingFromHTML(md, page string) []string {
	var out []string
	unmd := strings.NewReplacer(`\|`, "|")
	headings := regexp.MustCompile(`(?s)<h(\d)>(.*?)</h\d>`).FindAllStringSubmatch(page, -1)
	tables := htmlTables(page)
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := regexp.MustCompile(`^(#+) (.*)$`).FindStringSubmatch(l); m != nil {
			want := html.UnescapeString(m[2])
			found := false
			for _, h := range headings {
				found = found || h[1] == itoa(len(m[1])) && html.UnescapeString(h[2]) == want
			}
			if !found {
				out = append(out, "heading "+l+" is not in the HTML")
			}
			continue
		}
		if !strings.HasPrefix(l, "| ") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "|---") {
			continue
		}
		var rows [][]string
		for ; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			if strings.HasPrefix(lines[i], "|---") {
				continue
			}
			var cells []string
			for _, c := range regexp.MustCompile(`[^\\]\|`).Split(" "+strings.TrimSuffix(strings.TrimPrefix(lines[i], "|"), "|")+" ", -1) {
				cells = append(cells, html.UnescapeString(unmd.Replace(strings.TrimSpace(c))))
			}
			rows = append(rows, cells)
		}
		found := false
		for _, tb := range tables {
			found = found || cmp.Equal(rows, tb)
		}
		if !found {
			out = append(out, "table "+strings.Join(rows[0], ", ")+" is not in the HTML")
		}
	}
	return out
}

// htmlTables reads every table of page as rows of cell texts.
func htmlTables(page string) [][][]string {
	var out [][][]string
	tags := regexp.MustCompile(`<[^>]*>`)
	for _, t := range regexp.MustCompile(`(?s)<table[^>]*>(.*?)</table>`).FindAllStringSubmatch(page, -1) {
		var rows [][]string
		for _, r := range regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`).FindAllStringSubmatch(t[1], -1) {
			var cells []string
			for _, c := range regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`).FindAllStringSubmatch(r[1], -1) {
				cells = append(cells, html.UnescapeString(strings.TrimSpace(tags.ReplaceAllString(c[1], ""))))
			}
			rows = append(rows, cells)
		}
		out = append(out, rows)
	}
	return out
}
