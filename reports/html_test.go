package reports

import (
	"html/template"
	"regexp"
	"strings"
	"testing"
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
	r.TracePattern = "traces/{build}/{design}/{scenario}-{trial}.json"
	r.Protocol.Locked = true
	r.Protocol.Deviations = []Deviation{{Setting: "trials" + evil, Locked: "20", Ran: "2" + evil, Reason: "because " + evil}}
	r.Methods = Methods{
		Mission: MissionInfo{Name: "m" + evil, Version: evil},
		Cores:   []CoreInfo{{Agent: "intake" + evil, Kind: CoreModel, Model: evil, Detail: evil}},
		Designs: []DesignInfo{{ID: "A", Name: evil, Doc: evil}},
		Limits:  []string{evil},
	}
	return r
}

func TestHTMLEscapesScenarioText(t *testing.T) {
	files := renderAll(t, evilResults())
	html := string(files["report.html"])
	if strings.Contains(html, "<script") {
		i := strings.Index(html, "<script")
		t.Fatalf("report.html carries a live <script> element near %q", html[max(0, i-80):min(len(html), i+80)])
	}
	if !strings.Contains(html, "S01&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Error("report.html does not show the scenario id as escaped text")
	}
	for _, name := range []string{"report.md"} {
		if strings.Contains(string(files[name]), "<script") {
			t.Errorf("%s carries a raw <script> element", name)
		}
	}
	// The trace link escapes the path segments.
	if !strings.Contains(html, `href="traces/m%3Cscript%3Ealert%28%22x%22%29%3C/script%3E`) &&
		!strings.Contains(html, `href="traces/m%3Cscript%3Ealert%28%22x%22%29%3C%2Fscript%3E`) {
		t.Errorf("trace link not escaped: %s", regexp.MustCompile(`href="traces[^"]*"`).FindString(html))
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
	md, html := string(files["report.md"]), string(files["report.html"])
	for name, doc := range map[string]string{"report.md": md, "report.html": html} {
		dev, validity := strings.Index(doc, "DEVIATED from the locked protocol in 1 setting"), strings.Index(doc, "Validity")
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

func TestHTMLRejectsScriptURLs(t *testing.T) {
	r := evilResults()
	r.TracePattern = "javascript:alert(1)//{scenario}"
	html := string(renderAll(t, r)["report.html"])
	if strings.Contains(html, "javascript:") {
		t.Error("report.html links to a javascript: URL")
	}
}

func TestHTMLDrillDown(t *testing.T) {
	html := string(renderAll(t, synthResults())["report.html"])
	if n := strings.Count(html, "<svg"); n != 4 {
		t.Errorf("report.html has %d inline SVGs, want 4 (two heat maps, two pass^k plots)", n)
	}
	if strings.Contains(html, "<?xml") {
		t.Error("inline SVG keeps its XML declaration")
	}
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`id="(cell-\d+)"`).FindAllStringSubmatch(html, -1) {
		ids[m[1]] = true
	}
	links := regexp.MustCompile(`href="#(cell-\d+)"`).FindAllStringSubmatch(html, -1)
	// 3 designs × 5 classes × 5 matrices (detection, trial level, raw,
	// exact, adjacent).
	if len(links) != 75 || len(ids) != 15 {
		t.Errorf("%d cell links to %d anchors, want 75 links to 15", len(links), len(ids))
	}
	for _, l := range links {
		if !ids[l[1]] {
			t.Errorf("link #%s has no anchor", l[1])
		}
	}
	// A validity section comes before any figure.
	if v, d := strings.Index(html, `id="validity"`), strings.Index(html, `id="detection"`); v < 0 || v > d {
		t.Error("validity does not come before detection")
	}
}

func TestHTMLReplayCommands(t *testing.T) {
	evilItem := "m" + evil + "/A/S01" + evil + "/0"
	if got, want := replayCommand(evilItem), `baton replay . 'm<script>alert("x")</script>/A/S01<script>alert("x")</script>/0' --trace`; got != want {
		t.Errorf("replayCommand = %s, want %s", got, want)
	}
	if got, want := replayCommand("ctx-1/B/S01/3"), "baton replay . ctx-1/B/S01/3 --trace"; got != want {
		t.Errorf("replayCommand = %s, want %s", got, want)
	}
	if got, want := shellQuote("it's"), `'it'\''s'`; got != want {
		t.Errorf("shellQuote = %s, want %s", got, want)
	}

	r := evilResults()
	r.TracePattern = ""
	html := string(renderAll(t, r)["report.html"])
	if strings.Contains(html, "<script") {
		t.Fatal("report.html carries a live <script> element")
	}
	if want := template.HTMLEscapeString(replayCommand(evilItem)); !strings.Contains(html, "<code>"+want+"</code>") {
		t.Errorf("report.html does not show the escaped replay command %s", want)
	}
	if strings.Contains(html, `href="traces`) {
		t.Error("report.html links to traces although the run names no trace pattern")
	}

	t.Run("every example item of the synthetic run has its command", func(t *testing.T) {
		r := synthResults()
		html := string(renderAll(t, r)["report.html"])
		items := 0
		for _, ex := range r.Examples {
			for _, it := range ex.Items {
				items++
				if !strings.Contains(html, "<code>baton replay . "+it.ID+" --trace</code>") {
					t.Errorf("no replay command for %s", it.ID)
				}
			}
		}
		if items < 10 {
			t.Errorf("%d example items, want the synthetic run's detected mutants to give more than 10", items)
		}
		r.TracePattern = "traces/{build}_{design}_{scenario}_{trial}.jsonl"
		html = string(renderAll(t, r)["report.html"])
		if !strings.Contains(html, `<a href="traces/ctx-1_B_S01_0.jsonl">S01</a>`) || strings.Contains(html, "baton replay . ctx-1") {
			t.Error("with a trace pattern, items link to traces/<id>.jsonl instead of showing a command")
		}
		// Only the listed items have a trace in the pattern's file.
		r.TracePattern, r.TraceItems = "traces/{build}.jsonl", []string{"ctx-1/B/S01/0"}
		html = string(renderAll(t, r)["report.html"])
		if !strings.Contains(html, `<a href="traces/ctx-1.jsonl">S01</a>`) {
			t.Error("a listed item does not link to its build's trace file")
		}
		if !strings.Contains(html, "<code>baton replay . ctx-1/B/S02/0 --trace</code>") || strings.Contains(html, "<code>baton replay . ctx-1/B/S01/0 --trace</code>") {
			t.Error("with TraceItems, an unlisted item should show its command and a listed one should not")
		}
	})
}
