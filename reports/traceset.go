package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxEmbeddedTraces caps the trace viewers report.html embeds; a kept
// trace beyond it is named in the traces section with the command that
// opens it. A default run keeps a handful of its example items' traces
// (its 2% sample); a viewer costs about 50 kB of HTML.
const maxEmbeddedTraces = 30

// traceSet is what report.html knows of the traces of the items it
// points to (the drill-down's example items): the viewers of those whose
// trace the run folder keeps, up to the cap, and what was left out.
type traceSet struct {
	views    []*TraceView
	anchor   map[string]string // item id → its viewer's id
	pointed  int               // items the report points to
	kept     int               // of those, with a trace in the run folder
	left     []string          // kept, left out by the cap
	rawBytes int               // the embedded traces' JSON
}

// traceBack is where a viewer's close link returns to: the drill-down
// cell of its design and class.
type traceBack struct{ item, back string }

// loadTraceSet reads, from the run folder dir ("" for none), the kept
// traces of the items r points to and of their clean twins, and builds
// their viewers.
func loadTraceSet(dir string, r *Results) (*traceSet, error) {
	designs, classes := designsAndClasses(r)
	anchors := cellAnchors(designs, classes)
	var pointed []traceBack
	for _, ex := range r.Examples {
		for _, it := range ex.Items {
			pointed = append(pointed, traceBack{it.ID, anchors[[2]string{ex.Design, ex.Class}]})
		}
	}
	ts := &traceSet{anchor: map[string]string{}, pointed: len(pointed)}
	kept, err := readKeptTraces(dir, r, pointed)
	if err != nil {
		return nil, err
	}
	for _, p := range pointed {
		data, ok := kept[p.item]
		if !ok {
			continue
		}
		ts.kept++
		if len(ts.views) >= maxEmbeddedTraces {
			ts.left = append(ts.left, p.item)
			continue
		}
		in := TraceInput{Item: p.item, Trace: data, Flagged: true, Findings: r.findings[p.item],
			Source: "Kept in the run folder's " + tracesDir + "/" + buildOf(p.item) + ".jsonl.",
			Twin:   twinOf(p.item), Command: replayHTMLCommand(p.item)}
		if in.Twin != "" {
			if tw, ok := kept[in.Twin]; ok {
				in.TwinTrace, in.TwinNote = tw, "kept in "+tracesDir+"/"+CleanBuild+".jsonl"
			} else {
				in.TwinNote = "its trace is not kept in the run folder; the command above executes it too and shows the diff."
			}
		}
		anchor := fmt.Sprintf("trace-%d", len(ts.views)+1)
		v, err := NewTraceView(in, anchor, p.back)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, tracesDir, buildOf(p.item)+".jsonl"), err)
		}
		ts.views = append(ts.views, v)
		ts.anchor[p.item] = anchor
		ts.rawBytes += len(data)
	}
	return ts, nil
}

// tracesDir is the run folder's trace folder, where traces/<build>.jsonl
// keeps a line {"item": id, "trace": [events…]} per kept trace.
const tracesDir = "traces"

// buildOf is the build of an item id (build/design/scenario/trial).
func buildOf(item string) string { b, _, _ := strings.Cut(item, "/"); return b }

// twinOf is the clean twin of an item id: the clean build's item with the
// same design, scenario and trial; "" for an item of the clean build.
func twinOf(item string) string {
	b, rest, ok := strings.Cut(item, "/")
	if !ok || b == CleanBuild {
		return ""
	}
	return CleanBuild + "/" + rest
}

// replayHTMLCommand regenerates an item and its clean twin into a trace
// viewer page, run in the run folder; every argument is quoted for a
// POSIX shell when it needs it.
func replayHTMLCommand(item string) string {
	return "baton replay . " + shellQuote(item) + " --html " + shellQuote(strings.ReplaceAll(item, "/", "_")+".html")
}

// readKeptTraces reads the run folder's kept traces of the pointed items
// (only the builds r.TraceItems names: the files a sweep wrote them to)
// and of their clean twins.
func readKeptTraces(dir string, r *Results, pointed []traceBack) (map[string][]byte, error) {
	if dir == "" || len(r.TraceItems) == 0 {
		return map[string][]byte{}, nil
	}
	want := map[string]bool{}
	var builds []string
	for _, id := range r.TraceItems {
		if b := buildOf(id); !slices.Contains(builds, b) {
			builds = append(builds, b)
		}
	}
	for _, p := range pointed {
		want[p.item] = true
		if tw := twinOf(p.item); tw != "" {
			want[tw] = true
		}
	}
	if !slices.Contains(builds, CleanBuild) {
		builds = append(builds, CleanBuild)
	}
	out := map[string][]byte{}
	for _, b := range builds {
		if err := readTraceFile(filepath.Join(dir, tracesDir, b+".jsonl"), want, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readTraceFile adds to out the trace of every line of path whose item
// want holds; a missing file holds none.
func readTraceFile(path string, want map[string]bool, out map[string][]byte) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read kept traces: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<28)
	prefix, sep := []byte(`{"item":`), []byte(`,"trace":`)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		i := bytes.Index(line, sep)
		if !bytes.HasPrefix(line, prefix) || i < 0 {
			return fmt.Errorf("read kept traces: %s:%d: not a {\"item\":…,\"trace\":[…]} line", path, n)
		}
		var id string
		if err := json.Unmarshal(line[len(prefix):i], &id); err != nil {
			return fmt.Errorf("read kept traces: %s:%d: item: %w", path, n, err)
		}
		if !want[id] {
			continue
		}
		var l struct {
			Trace json.RawMessage `json:"trace"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			return fmt.Errorf("read kept traces: %s:%d: %w", path, n, err)
		}
		out[id] = l.Trace
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read kept traces: %s: %w", path, err)
	}
	return nil
}

// section is report.html's traces section: what is embedded, what was
// left out and why, an index, and the viewers.
func (ts *traceSet) section() *section {
	s := &section{ID: "traces", Title: "Traces", HTMLOnly: true}
	s.add(p(fmt.Sprintf("The report points to %d items (the drill-down's example items, every one of them flagged). "+
		"The run folder keeps the trace of %d of them (%s/<build>.jsonl holds the clean build's flagged items and a seeded sample of all items); "+
		"%d are embedded here (%d kB of trace JSON), each opening from its drill-down cell as a timeline with one lane per agent, "+
		"its findings marked at the events they point to and, where the clean twin's trace is kept too, the diff against it.",
		ts.pointed, ts.kept, tracesDir, len(ts.views), (ts.rawBytes+512)/1024)))
	if len(ts.left) > 0 {
		s.add(&para{Class: "note", Spans: []span{text(fmt.Sprintf(
			"This page embeds at most %d traces: %d more kept traces were left out (%s). Open any of them with baton replay . ITEM --html FILE.",
			maxEmbeddedTraces, len(ts.left), strings.Join(ts.left, ", ")))}})
	}
	s.add(&para{Spans: []span{text(fmt.Sprintf("The other %d items show, in the drill-down, the command that regenerates them: ", ts.pointed-ts.kept)),
		code("baton replay . ITEM --html FILE"),
		text(" executes the item and its clean twin from the run folder alone and writes this viewer, with the diff, as a page of its own.")}})
	if len(ts.views) > 0 {
		items := make([][]span, len(ts.views))
		for i, v := range ts.views {
			items[i] = []span{link(v.in.Item, v.anchor), text(fmt.Sprintf(" (%d findings)", len(v.in.Findings)))}
		}
		s.add(&list{Items: items}, &viewers{Items: ts.views})
	}
	return s
}
