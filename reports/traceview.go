package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"
)

// TraceInput is what the trace viewer shows of one work item: its trace,
// the findings its design raised, and the trace of its clean twin (the
// clean build's item with the same design, scenario and trial, under the
// same seed) to diff against.
type TraceInput struct {
	Item     string    // build/design/scenario/trial
	Trace    []byte    // JSON Lines, or a JSON array of events
	Source   string    // where the trace came from, in a sentence
	Findings []Finding // the design's findings on the item
	Flagged  bool      // the design flagged the item
	// Twin is the clean twin's item id, "" for an item of the clean build.
	Twin string
	// TwinTrace is the twin's trace; nil when it is not at hand, and
	// TwinNote then says how to get it.
	TwinTrace []byte
	TwinNote  string
	// Command regenerates the item (and its twin) into this view.
	Command string
}

// TraceView is a trace viewer ready to render: the input read and laid
// out in lanes, findings placed at their events, the diff computed.
type TraceView struct {
	in           TraceInput
	anchor, back string
	runs         []traceRun
	lanes        []string
	twin         []traceRun
	hasTwin      bool
	diff         []diffLine
	// marks[run][event] lists the findings placed at an event (-1: the
	// run as a whole); loose are the findings no run of the trace holds.
	marks map[int]map[int][]int
	loose []int
	// state[&event] is the event's diff state against the twin.
	state map[*traceEvent]diffOp
}

// NewTraceView reads in into a viewer whose element id is anchor and
// whose close link returns to back.
func NewTraceView(in TraceInput, anchor, back string) (*TraceView, error) {
	v := &TraceView{in: in, anchor: anchor, back: back, marks: map[int]map[int][]int{}, state: map[*traceEvent]diffOp{}}
	var err error
	if v.runs, err = parseTrace(in.Trace); err != nil {
		return nil, fmt.Errorf("trace of %s: %w", in.Item, err)
	}
	if in.TwinTrace != nil {
		if v.twin, err = parseTrace(in.TwinTrace); err != nil {
			return nil, fmt.Errorf("trace of %s: %w", in.Twin, err)
		}
		v.hasTwin = true
		v.diff = diffTraces(v.runs, v.twin)
		for _, d := range v.diff {
			if d.A != nil {
				v.state[d.A] = d.Op
			}
		}
	}
	v.lanes = lanes(append(append([]traceRun(nil), v.runs...), v.twin...))
	for i, f := range in.Findings {
		ri, ok := anchorRun(v.runs, f.Evidence)
		if !ok {
			v.loose = append(v.loose, i)
			continue
		}
		if v.marks[ri] == nil {
			v.marks[ri] = map[int][]int{}
		}
		ei := anchorEvent(v.runs[ri], f.Evidence)
		v.marks[ri][ei] = append(v.marks[ri][ei], i)
	}
	return v, nil
}

// WriteTracePage writes one trace viewer as a standalone page (what
// `baton replay RUN ITEM --html FILE` writes), with report.html's style
// and script.
func WriteTracePage(out io.Writer, in TraceInput) error {
	v, err := NewTraceView(in, "trace-1", "trace-1")
	if err != nil {
		return err
	}
	h := &htmlWriter{w: out}
	h.head("baton trace " + in.Item)
	h.raw(`<body class="standalone"><main id="main">` + "\n")
	h.viewer(v, true)
	h.raw("</main>\n<script>" + pageJS + "</script>\n</body>\n</html>\n")
	return h.err
}

// viewer writes a trace viewer: its head, the findings, one lane grid per
// run, the diff against the clean twin, and the raw events for download.
func (h *htmlWriter) viewer(v *TraceView, standalone bool) {
	h.f(`<section class="viewer" id="%s" aria-label="trace viewer">`+"\n", html.EscapeString(v.anchor))
	h.raw(`<div class="vbox"><div class="vhead" id="` + html.EscapeString(v.anchor) + `-head"><h3>Trace of <code>`)
	h.esc(v.in.Item)
	h.raw("</code></h3>")
	if !standalone {
		h.f(`<a class="close" href="#%s" title="back to the report (Escape)">close ✕</a>`, html.EscapeString(v.back))
	}
	h.raw("</div>\n<p>")
	verdict := "not flagged"
	if v.in.Flagged || len(v.in.Findings) > 0 {
		verdict = fmt.Sprintf("flagged, %d finding%s", len(v.in.Findings), plural(len(v.in.Findings)))
	}
	h.esc(fmt.Sprintf("%s; %d run%s, %d events; agents in lanes: %s. %s", verdict, len(v.runs), plural(len(v.runs)),
		eventCount(v.runs), strings.Join(v.lanes, ", "), v.in.Source))
	h.raw("</p>\n")
	if v.in.Command != "" {
		h.raw("<p>Regenerate it, with its clean twin, as a page of its own: <code>")
		h.esc(v.in.Command)
		h.raw("</code></p>\n")
	}
	h.viewerFindings(v)
	for ri := range v.runs {
		h.runLanes(v, ri)
	}
	h.twinDiff(v)
	h.rawTrace(v)
	h.raw("</div></section>\n")
}

func eventCount(runs []traceRun) int {
	n := 0
	for _, r := range runs {
		n += len(r.Events)
	}
	return n
}

// eventID is the element id of event ei of run ri.
func (v *TraceView) eventID(ri, ei int) string {
	return fmt.Sprintf("%s-r%d-e%d", v.anchor, ri+1, ei+1)
}

// viewerFindings lists the findings, each linked to the event it marks.
func (h *htmlWriter) viewerFindings(v *TraceView) {
	if len(v.in.Findings) == 0 {
		if v.in.Flagged {
			h.raw("<p>The run folder holds no findings for this item (report.html was rendered without runs.db's findings).</p>\n")
		}
		return
	}
	where := make(map[int]string)
	for ri, m := range v.marks {
		for ei, fs := range m {
			for _, fi := range fs {
				if ei >= 0 {
					where[fi] = v.eventID(ri, ei)
				} else {
					where[fi] = fmt.Sprintf("%s-r%d", v.anchor, ri+1)
				}
			}
		}
	}
	h.raw(`<h4>Findings</h4><ol class="findings">`)
	for i, f := range v.in.Findings {
		h.raw("<li><b>")
		h.esc(f.Rule)
		h.raw("</b> ")
		h.esc(f.Message)
		h.raw(" <small>(blames ")
		h.esc(orDash(f.Location))
		h.raw("; evidence ")
		h.esc(evidenceText(f.Evidence))
		h.raw(")</small> ")
		if id, ok := where[i]; ok {
			h.f(`<a href="#%s">at the event</a>`, html.EscapeString(id))
		} else {
			h.raw("<i>(a run this trace does not hold)</i>")
		}
		h.raw("</li>\n")
	}
	h.raw("</ol>\n")
}

func evidenceText(e FindingEvidence) string {
	s := orDash(e.Run)
	if e.Seq > 0 {
		s += fmt.Sprintf(" seq %d", e.Seq)
	}
	if e.Field != "" {
		s += ", field " + e.Field
	}
	return s
}

// runLanes writes one run's events as a grid, one lane per agent.
func (h *htmlWriter) runLanes(v *TraceView, ri int) {
	r := v.runs[ri]
	ls := runLanes(v.lanes, r)
	n := min(len(ls), maxLanes)
	h.f(`<h4 id="%s-r%d">Run <code>`, html.EscapeString(v.anchor), ri+1)
	h.esc(r.Name)
	h.f("</code> (%d events)</h4>\n", len(r.Events))
	h.markList(v, v.marks[ri][-1])
	h.f(`<div class="lanes n%d"><div class="tm">seq · ms</div>`, max(n, 1))
	for i, a := range ls[:n] {
		h.f(`<div class="lane-h c%d">`, i+1)
		h.esc(a)
		h.raw("</div>")
	}
	h.raw("\n")
	for ei := range r.Events {
		h.event(v, ri, ei, ls, n)
	}
	h.raw("</div>\n")
}

// markList writes the findings placed on a run as a whole.
func (h *htmlWriter) markList(v *TraceView, fs []int) {
	for _, fi := range fs {
		f := v.in.Findings[fi]
		h.raw(`<p><span class="badge finding">finding</span><b>`)
		h.esc(f.Rule)
		h.raw("</b> ")
		h.esc(f.Message)
		h.raw("</p>\n")
	}
}

// runLanes are the lanes of the agents a run has events of, in the
// trace's lane order: an integrated run has every agent, a per-agent run
// its own.
func runLanes(all []string, r traceRun) []string {
	var out []string
	for _, a := range all {
		for _, e := range r.Events {
			if e.Agent == a {
				out = append(out, a)
				break
			}
		}
	}
	if len(out) == 0 {
		out = all
	}
	return out
}

// laneOf is the lane of an agent (1-based; the last for an agent beyond
// maxLanes or none).
func laneOf(lanes []string, agent string, n int) int {
	for i, a := range lanes {
		if a == agent {
			return min(i+1, n)
		}
	}
	return max(n, 1)
}

// event writes one event in its agent's lane.
func (h *htmlWriter) event(v *TraceView, ri, ei int, ls []string, n int) {
	e := &v.runs[ri].Events[ei]
	cls := "ev k-" + e.Kind
	if e.Error != "" {
		cls += " fault"
	}
	marks := v.marks[ri][ei]
	if len(marks) > 0 {
		cls += " flagged"
	}
	st, inDiff := v.state[e]
	if inDiff && st != diffSame {
		cls += " d-" + st.String()
	}
	h.f(`<div class="tm">%d · %d</div><div class="%s c%d" id="%s">`, e.Seq, e.At, html.EscapeString(cls), laneOf(ls, e.Agent, n), v.eventID(ri, ei))
	if e.Error != "" {
		h.raw(`<span class="badge fault">error</span>`)
	}
	if e.Attempt > 0 {
		h.f(`<span class="badge retry">retry %d</span>`, e.Attempt)
	}
	if inDiff && st != diffSame {
		h.f(`<span class="badge diff">%s vs clean twin</span>`, st)
	}
	h.raw("<b>")
	h.esc(strings.ReplaceAll(e.Kind, "_", " "))
	h.raw("</b> ")
	h.esc(eventSummary(e))
	for _, fi := range marks {
		f := v.in.Findings[fi]
		h.raw(`<div><span class="badge finding">finding</span><b>`)
		h.esc(f.Rule)
		h.raw("</b> ")
		h.esc(f.Message)
		h.raw("</div>")
	}
	h.eventDetail(e)
	h.raw("</div>\n")
}

// eventSummary is an event in one line.
func eventSummary(e *traceEvent) string {
	var b strings.Builder
	w := func(s string) { b.WriteString(s) }
	switch e.Kind {
	case "model_call":
		w(e.Decision)
		if e.Choice != "" {
			w(" → " + e.Choice)
		}
		w(fmt.Sprintf(" (%d/%d tokens)", e.TokensIn, e.TokensOut))
	case "tool_call":
		w(e.Tool + clip(compactJSON(e.Args), 80))
		if e.Error != "" {
			w(" ✗ " + e.Error)
		} else if len(e.Output) > 0 {
			w(" → " + clip(compactJSON(e.Output), 80))
		}
		if e.Key != "" {
			w(" [key " + e.Key + "]")
		}
	case "handoff_sent":
		w(e.Edge + " to " + orDash(strings.Join(e.To, ", ")))
	case "handoff_received":
		w(e.Edge)
	case "handoff_dropped":
		w(e.Edge + ": " + e.Reason)
	default:
		w(e.Reason)
		if e.Kind == "result" {
			w(clip(compactJSON(e.Output), 100))
		}
	}
	if e.Item != "" {
		w(" · item " + e.Item)
	}
	return b.String()
}

func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// eventDetail writes what an event carries in full, folded: arguments and
// output of a tool call; for a hand-off, the wire bytes sent beside the
// consumer's parsed view, with the fields that differ between them.
func (h *htmlWriter) eventDetail(e *traceEvent) {
	if e.Kind == "handoff_received" && len(e.Parsed) > 0 {
		h.fieldDiff(e)
		h.raw(`<details><summary>sent beside parsed</summary><div class="sp"><div>sent (wire bytes)<pre>`)
		h.esc(prettyJSON(e.Raw))
		h.raw("</pre></div><div>parsed (the consumer's view)<pre>")
		h.esc(prettyJSON(string(e.Parsed)))
		h.raw("</pre></div></div></details>")
		return
	}
	var parts [][2]string
	if len(e.Args) > 0 {
		parts = append(parts, [2]string{"arguments", prettyJSON(string(e.Args))})
	}
	if len(e.Output) > 0 {
		parts = append(parts, [2]string{"output", prettyJSON(string(e.Output))})
	}
	if e.Raw != "" {
		parts = append(parts, [2]string{"wire bytes", prettyJSON(e.Raw)})
	}
	if e.Effect != "" {
		parts = append(parts, [2]string{"record written", e.Effect})
	}
	if len(parts) == 0 {
		return
	}
	h.raw("<details><summary>detail</summary>")
	for _, p := range parts {
		h.esc(p[0])
		h.raw("<pre>")
		h.esc(p[1])
		h.raw("</pre>")
	}
	h.raw("</details>")
}

// fieldDiff writes the fields a hand-off's parsed view reads otherwise
// than its wire bytes say (a dropped field the parser defaulted, a
// renamed one, a reformatted value).
func (h *htmlWriter) fieldDiff(e *traceEvent) {
	diffs := jsonFieldDiff([]byte(e.Raw), e.Parsed)
	if len(diffs) == 0 {
		h.raw(`<div class="fd">parsed as sent</div>`)
		return
	}
	h.raw(`<table class="fd"><tr><th>field</th><th>sent</th><th>parsed</th></tr>`)
	for _, d := range diffs {
		h.raw("<tr><td>")
		h.esc(d[0])
		h.raw("</td><td>")
		h.esc(d[1])
		h.raw("</td><td>")
		h.esc(d[2])
		h.raw("</td></tr>")
	}
	h.raw("</table>")
}

// twinDiff writes the diff against the clean twin, or why there is none.
func (h *htmlWriter) twinDiff(v *TraceView) {
	h.raw("<h4>Against the clean twin</h4>\n<p>")
	switch {
	case v.in.Twin == "":
		h.raw("This item is of the clean build: it has no clean twin.</p>\n")
		return
	case !v.hasTwin:
		h.raw("The clean twin <code>")
		h.esc(v.in.Twin)
		h.raw("</code>: ")
		h.esc(v.in.TwinNote)
		h.raw("</p>\n")
		return
	}
	counts := map[diffOp]int{}
	for _, d := range v.diff {
		counts[d.Op]++
	}
	h.raw("The clean twin <code>")
	h.esc(v.in.Twin)
	h.raw("</code> under the same seed")
	if v.in.TwinNote != "" {
		h.raw(" (")
		h.esc(v.in.TwinNote)
		h.raw(")")
	}
	h.esc(fmt.Sprintf(": %d event%s the same, %d changed, %d only in this build, %d only in the clean twin.",
		counts[diffSame], plural(counts[diffSame]), counts[diffChanged], counts[diffAdded], counts[diffRemoved]))
	h.raw("</p>\n")
	if counts[diffSame] == len(v.diff) {
		return
	}
	h.raw(`<div class="tw"><table class="diff"><thead><tr><th>run</th><th>change</th><th>this build</th><th>clean twin</th></tr></thead><tbody>` + "\n")
	for _, d := range v.diff {
		if d.Op == diffSame {
			continue
		}
		h.f(`<tr class="d-%s"><td>`, d.Op)
		h.esc(d.Run)
		h.f("</td><td>%s</td><td>", d.Op)
		h.diffSide(d.A)
		h.raw("</td><td>")
		h.diffSide(d.B)
		h.raw("</td></tr>\n")
	}
	h.raw("</tbody></table></div>\n")
}

func (h *htmlWriter) diffSide(e *traceEvent) {
	if e == nil {
		h.raw("–")
		return
	}
	h.esc(fmt.Sprintf("seq %d %s %s: %s", e.Seq, e.Agent, strings.ReplaceAll(e.Kind, "_", " "), eventSummary(e)))
}

// rawTrace embeds the item's events as JSON for the download button:
// inside <script type="application/json">, with "<", ">", "&" and
// U+2028/U+2029 escaped (json.HTMLEscape), so no "</script" or "<!--"
// can close or open anything.
func (h *htmlWriter) rawTrace(v *TraceView) {
	var events []json.RawMessage
	for _, r := range v.runs {
		if r.Name != integratedRun || len(v.runs) > 1 {
			m, _ := json.Marshal(map[string]string{"run": r.Name})
			events = append(events, m)
		}
		for _, e := range r.Events {
			events = append(events, e.line)
		}
	}
	b, err := json.Marshal(events)
	if err != nil {
		h.err = err
		return
	}
	var esc bytes.Buffer
	json.HTMLEscape(&esc, b)
	name := strings.ReplaceAll(v.in.Item, "/", "_") + ".jsonl"
	h.f(`<div id="%s-dl"></div><script type="application/json" class="raw-trace" data-for="%s-dl" data-name="`, html.EscapeString(v.anchor), html.EscapeString(v.anchor))
	h.esc(name)
	h.raw(`">`)
	h.raw(esc.String())
	h.raw("</script>\n")
}

// jsonFieldDiff compares two JSON documents field by field (by path,
// objects opened, arrays whole) and returns [path, a, b] for each field
// that differs; a hand-off's envelope bytes against its parsed view.
func jsonFieldDiff(a, b []byte) [][3]string {
	fa, fb := map[string]string{}, map[string]string{}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return nil
	}
	flatten("", va, fa)
	flatten("", vb, fb)
	var out [][3]string
	for _, k := range sortedUnion(fa, fb) {
		x, okA := fa[k]
		y, okB := fb[k]
		if x == y && okA == okB || !okA && emptyJSON(y) || !okB && emptyJSON(x) {
			continue // an empty field left out is the same field
		}
		if !okA {
			x = "(absent)"
		}
		if !okB {
			y = "(absent)"
		}
		out = append(out, [3]string{k, x, y})
	}
	return out
}

func flatten(prefix string, v any, out map[string]string) {
	if m, ok := v.(map[string]any); ok {
		for k, x := range m {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			flatten(p, x, out)
		}
		return
	}
	b, _ := json.Marshal(v)
	out[prefix] = string(b)
}

// emptyJSON reports whether a JSON value is empty: "", null, [] or {}.
func emptyJSON(s string) bool { return s == `""` || s == "null" || s == "[]" || s == "{}" }

// sortedUnion lists the keys of a and b, sorted.
func sortedUnion(a, b map[string]string) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
