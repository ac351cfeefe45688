package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Finding is one finding of a design on a work item, as runs.db keeps it:
// the trace viewer marks it at the event its evidence points to.
type Finding struct {
	Rule     string          `json:"rule"`
	Message  string          `json:"message"`
	Location string          `json:"location"`
	Evidence FindingEvidence `json:"evidence"`
}

// FindingEvidence points into a work item's trace: the run ("integrated",
// or "core:<agent>:<item>", "emit:<edge>:<item>", "parse:<edge>:<item>")
// and the event's sequence number in it (0 when it names none).
type FindingEvidence struct {
	Run   string `json:"run"`
	Seq   int    `json:"seq,omitempty"`
	Item  string `json:"item,omitempty"`
	Field string `json:"field,omitempty"`
}

// SetFindings hands the report the findings of the work items whose
// traces it embeds (item id → findings, from runs.db), which the trace
// viewer marks on their events. results.json does not hold them.
func (r *Results) SetFindings(f map[string][]Finding) { r.findings = f }

// traceEvent is one event of a kept trace, read as the trace's JSON has
// it (mission.Event's fields), with the raw JSON fields kept as bytes.
type traceEvent struct {
	Run       string          `json:"run"` // set on a run marker line only
	Seq       int             `json:"seq"`
	At        int64           `json:"at_ms"`
	Kind      string          `json:"kind"`
	Agent     string          `json:"agent"`
	Item      string          `json:"item"`
	Decision  string          `json:"decision"`
	Choice    string          `json:"choice"`
	TokensIn  int             `json:"tokens_in"`
	TokensOut int             `json:"tokens_out"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Output    json.RawMessage `json:"output"`
	Error     string          `json:"error"`
	Key       string          `json:"key"`
	Attempt   int             `json:"attempt"`
	Effect    string          `json:"effect"`
	Edge      string          `json:"edge"`
	Raw       string          `json:"raw"`
	Parsed    json.RawMessage `json:"parsed"`
	To        []string        `json:"to"`
	Reason    string          `json:"reason"`

	// line is the event's JSON as the trace has it.
	line json.RawMessage
}

// traceRun is one run of a trace: the integrated run, or one of the
// per-agent runs a design executed ({"run":"core:<agent>:<item>"}
// markers split them).
type traceRun struct {
	Name   string
	Events []traceEvent
}

// integratedRun names a trace without run markers: the whole mission.
const integratedRun = "integrated"

// parseTrace reads a trace as JSON Lines (what `baton replay --trace`
// prints) or as a JSON array of events (a line of traces/<build>.jsonl).
func parseTrace(data []byte) ([]traceRun, error) {
	var lines []json.RawMessage
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &lines); err != nil {
			return nil, fmt.Errorf("read trace: %w", err)
		}
	} else {
		for i, l := range bytes.Split(trimmed, []byte("\n")) {
			if l = bytes.TrimSpace(l); len(l) > 0 {
				if !json.Valid(l) {
					return nil, fmt.Errorf("read trace: line %d: not JSON", i+1)
				}
				lines = append(lines, l)
			}
		}
	}
	var runs []traceRun
	for i, l := range lines {
		var e traceEvent
		if err := json.Unmarshal(l, &e); err != nil {
			return nil, fmt.Errorf("read trace: event %d: %w", i+1, err)
		}
		if e.Run != "" && e.Kind == "" {
			runs = append(runs, traceRun{Name: e.Run})
			continue
		}
		if len(runs) == 0 {
			runs = append(runs, traceRun{Name: integratedRun})
		}
		e.line = l
		runs[len(runs)-1].Events = append(runs[len(runs)-1].Events, e)
	}
	return runs, nil
}

// lanes orders the agents of a trace, one lane each: along the hand-off
// edges (a producer before its consumer), then in order of appearance.
func lanes(runs []traceRun) []string {
	var seen []string
	edges := map[string][]string{}
	indeg := map[string]int{}
	add := func(a string) {
		if a != "" && !slices.Contains(seen, a) {
			seen = append(seen, a)
		}
	}
	for _, r := range runs {
		for _, e := range r.Events {
			add(e.Agent)
			from, to, ok := strings.Cut(e.Edge, "->")
			if !ok || slices.Contains(edges[from], to) {
				continue
			}
			add(from)
			add(to)
			edges[from] = append(edges[from], to)
			indeg[to]++
		}
	}
	// Kahn's algorithm, taking the earliest-seen ready agent each time, so
	// a cycle or an agent off every edge keeps its order of appearance.
	var out []string
	done := map[string]bool{}
	for len(out) < len(seen) {
		pick := ""
		for _, a := range seen {
			if !done[a] && indeg[a] == 0 {
				pick = a
				break
			}
		}
		if pick == "" { // a cycle: break it at the earliest-seen agent left
			for _, a := range seen {
				if !done[a] {
					pick = a
					break
				}
			}
		}
		done[pick] = true
		out = append(out, pick)
		for _, to := range edges[pick] {
			indeg[to]--
		}
	}
	return out
}

// eventKey is what lines two runs' events up in the diff: the same kind
// of step by the same agent on the same item and tool, edge or decision.
func (e *traceEvent) eventKey() string {
	return e.Kind + "\x00" + e.Agent + "\x00" + e.Item + "\x00" + e.Tool + "\x00" + e.Edge + "\x00" + e.Decision
}

// content is the event without its place (sequence number and time): two
// lined-up events with the same content are the same step.
func (e *traceEvent) content() string {
	c := *e
	c.Seq, c.At, c.line = 0, 0, nil
	b, _ := json.Marshal(c)
	return string(b)
}

// diffOp is one line of a diff between a run and its clean twin's.
type diffOp int

const (
	diffSame    diffOp = iota
	diffChanged        // lined up, with other content
	diffAdded          // only in this build's run
	diffRemoved        // only in the clean twin's
)

func (o diffOp) String() string { return [...]string{"same", "changed", "added", "removed"}[o] }

// allDiffOps lists every diff operation.
var allDiffOps = []diffOp{diffSame, diffChanged, diffAdded, diffRemoved}

// diffLine pairs an event of this run (A) with one of the twin's (B);
// one of them is nil for an added or removed event.
type diffLine struct {
	Op   diffOp
	Run  string
	A, B *traceEvent
}

// diffTraces lines up each run of a with the twin's run of the same name
// (longest common subsequence of event keys) and lists every event.
func diffTraces(a, b []traceRun) []diffLine {
	var out []diffLine
	byName := map[string]*traceRun{}
	for i := range b {
		byName[b[i].Name] = &b[i]
	}
	used := map[string]bool{}
	for i := range a {
		tw := byName[a[i].Name]
		var twin []traceEvent
		if tw != nil {
			twin, used[tw.Name] = tw.Events, true
		}
		out = append(out, diffEvents(a[i].Name, a[i].Events, twin)...)
	}
	for i := range b {
		if !used[b[i].Name] {
			out = append(out, diffEvents(b[i].Name, nil, b[i].Events)...)
		}
	}
	return out
}

// diffEvents diffs one run's events against the twin's.
func diffEvents(run string, a, b []traceEvent) []diffLine {
	// lcs[i][j] is the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i].eventKey() == b[j].eventKey() {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []diffLine
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i].eventKey() == b[j].eventKey():
			op := diffSame
			if a[i].content() != b[j].content() {
				op = diffChanged
			}
			out = append(out, diffLine{op, run, &a[i], &b[j]})
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			out = append(out, diffLine{diffRemoved, run, nil, &b[j]})
			j++
		default:
			out = append(out, diffLine{diffAdded, run, &a[i], nil})
			i++
		}
	}
	return out
}

// anchorRun is the run of a trace a finding's evidence points to: its own
// run when the trace has it; for an emitted or parsed hand-off
// ("emit:<from>-><to>:<item>", "parse:...") the core run of the agent that
// emitted or parsed it, whose result or receipt the hand-off is.
func anchorRun(runs []traceRun, ev FindingEvidence) (int, bool) {
	find := func(name string) (int, bool) {
		for i, r := range runs {
			if r.Name == name {
				return i, true
			}
		}
		return 0, false
	}
	if i, ok := find(ev.Run); ok {
		return i, true
	}
	if ev.Run == "" && len(runs) == 1 {
		return 0, true
	}
	kind, rest, _ := strings.Cut(ev.Run, ":")
	edge, item, ok := strings.Cut(rest, ":")
	from, to, isEdge := strings.Cut(edge, "->")
	if !ok || !isEdge {
		return 0, false
	}
	var core string
	switch kind {
	case "emit":
		core = "core:" + from + ":" + item
	case "parse":
		core = "core:" + to + ":" + item
	default:
		return 0, false
	}
	if i, ok := find(core); ok {
		return i, true
	}
	return find(integratedRun) // the integrated run sent and received it
}

// anchorEvent is the event of run r a finding points to: the event with
// its sequence number; for an emitted or parsed hand-off, the hand-off
// sent or received on its edge for its item, else (a core run) the run's
// result or first receipt; -1 for the run as a whole.
func anchorEvent(r traceRun, ev FindingEvidence) int {
	kind, rest, _ := strings.Cut(ev.Run, ":")
	edge, item, _ := strings.Cut(rest, ":")
	want := map[string]string{"emit": "handoff_sent", "parse": "handoff_received"}[kind]
	for i, e := range r.Events {
		if ev.Seq > 0 && e.Seq == ev.Seq && (r.Name == ev.Run || ev.Run == "") {
			return i
		}
		if ev.Seq == 0 && want != "" && e.Kind == want && e.Edge == edge && e.Item == item {
			return i
		}
	}
	for i, e := range r.Events {
		if ev.Seq == 0 && kind == "parse" && e.Kind == "handoff_received" {
			return i
		}
	}
	if ev.Seq == 0 && kind == "emit" {
		for i := len(r.Events) - 1; i >= 0; i-- {
			if r.Events[i].Kind == "result" {
				return i
			}
		}
	}
	return -1
}
