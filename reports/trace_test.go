package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixtureTrace is a small integrated trace: intake hands an invoice to
// action, whose parser reads a currency the wire bytes lack (a context
// loss); action's first tool call times out and its retry commits.
func fixtureTrace() []byte {
	return []byte(`{"seq":1,"at_ms":0,"kind":"model_call","agent":"intake","item":"E1","decision":"classify","choice":"invoice","tokens_in":90,"tokens_out":1}
{"seq":2,"at_ms":20,"kind":"handoff_sent","agent":"intake","item":"E1","edge":"intake->action","raw":"{\"next_owner\":[\"action\"],\"payload\":{\"gross\":100}}","to":["action"]}
{"seq":3,"at_ms":20,"kind":"handoff_received","agent":"action","item":"E1","edge":"intake->action","raw":"{\"next_owner\":[\"action\"],\"payload\":{\"gross\":100}}","parsed":{"next_owner":["action"],"payload":{"currency":"EUR","gross":100}}}
{"seq":4,"at_ms":40,"kind":"tool_call","agent":"action","item":"E1","tool":"record_match","args":{"invoice_id":"INV-1"},"error":"timeout SYS-504: request timed out","key":"E1:record_match"}
{"seq":5,"at_ms":240,"kind":"tool_call","agent":"action","item":"E1","tool":"record_match","args":{"invoice_id":"INV-1"},"output":{"match_id":"MAT-1"},"key":"E1:record_match","attempt":1,"effect":"MAT-1"}
{"seq":6,"at_ms":240,"kind":"result","agent":"action","item":"E1","output":{"currency":"EUR"}}
`)
}

// fixtureTwin is fixtureTrace's clean twin: the currency is sent, and the
// first call does not time out.
func fixtureTwin() []byte {
	return []byte(`{"seq":1,"at_ms":0,"kind":"model_call","agent":"intake","item":"E1","decision":"classify","choice":"invoice","tokens_in":90,"tokens_out":1}
{"seq":2,"at_ms":20,"kind":"handoff_sent","agent":"intake","item":"E1","edge":"intake->action","raw":"{\"next_owner\":[\"action\"],\"payload\":{\"currency\":\"GBP\",\"gross\":100}}","to":["action"]}
{"seq":3,"at_ms":20,"kind":"handoff_received","agent":"action","item":"E1","edge":"intake->action","raw":"{\"next_owner\":[\"action\"],\"payload\":{\"currency\":\"GBP\",\"gross\":100}}","parsed":{"next_owner":["action"],"payload":{"currency":"GBP","gross":100}}}
{"seq":4,"at_ms":40,"kind":"tool_call","agent":"action","item":"E1","tool":"record_match","args":{"invoice_id":"INV-1"},"output":{"match_id":"MAT-1"},"key":"E1:record_match","effect":"MAT-1"}
{"seq":5,"at_ms":40,"kind":"result","agent":"action","item":"E1","output":{"currency":"GBP"}}
`)
}

func TestParseTrace(t *testing.T) {
	lines := fixtureTrace()
	array := []byte("[" + strings.Join(strings.Split(strings.TrimSpace(string(lines)), "\n"), ",") + "]")
	marked := []byte(`[{"run":"core:action:E1"},{"seq":1,"at_ms":0,"kind":"result","agent":"action"},{"run":"core:intake:E1"},{"seq":1,"at_ms":0,"kind":"result","agent":"intake"}]`)
	for _, tc := range []struct {
		name  string
		in    []byte
		runs  []string
		count []int
	}{
		{"JSON Lines", lines, []string{integratedRun}, []int{6}},
		{"an array (traces/<build>.jsonl)", array, []string{integratedRun}, []int{6}},
		{"run markers split the runs", marked, []string{"core:action:E1", "core:intake:E1"}, []int{1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs, err := parseTrace(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			var counts []int
			for _, r := range runs {
				names, counts = append(names, r.Name), append(counts, len(r.Events))
			}
			if d := cmp.Diff(tc.runs, names); d != "" {
				t.Errorf("runs (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.count, counts); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	}
	for _, bad := range []string{"{", `[{"seq":"x"}]`, "{}\nnot json"} {
		if _, err := parseTrace([]byte(bad)); err == nil {
			t.Errorf("parseTrace(%q) accepted", bad)
		}
	}
}

func TestLanes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		trace string
		want  []string
	}{
		{"along the edges, not in order of appearance",
			`{"seq":1,"kind":"result","agent":"monitor"}
{"seq":2,"kind":"handoff_sent","agent":"action","edge":"action->boundary"}
{"seq":3,"kind":"handoff_sent","agent":"intake","edge":"intake->action"}
{"seq":4,"kind":"handoff_sent","agent":"boundary","edge":"boundary->monitor"}`,
			[]string{"intake", "action", "boundary", "monitor"}},
		{"a cycle keeps the order of appearance", `{"seq":1,"kind":"handoff_sent","agent":"b","edge":"b->a"}
{"seq":2,"kind":"handoff_sent","agent":"a","edge":"a->b"}`, []string{"b", "a"}},
		{"no edges", `{"seq":1,"kind":"result","agent":"y"}
{"seq":2,"kind":"result","agent":"x"}`, []string{"y", "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs, err := parseTrace([]byte(tc.trace))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, lanes(runs)); d != "" {
				t.Errorf("lanes (-want +got):\n%s", d)
			}
		})
	}
}

func TestDiffTraces(t *testing.T) {
	a, _ := parseTrace(fixtureTrace())
	b, _ := parseTrace(fixtureTwin())
	var got []string
	for _, d := range diffTraces(a, b) {
		seq := func(e *traceEvent) int {
			if e == nil {
				return 0
			}
			return e.Seq
		}
		got = append(got, d.Op.String()+" "+itoa(seq(d.A))+"/"+itoa(seq(d.B)))
	}
	// The timed-out call lines up with the twin's single call (it differs:
	// it failed) and the retry is the added one.
	want := []string{"same 1/1", "changed 2/2", "changed 3/3", "changed 4/4", "added 5/0", "changed 6/5"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("diff (-want +got):\n%s", d)
	}
	same := diffTraces(a, a)
	for _, d := range same {
		if d.Op != diffSame {
			t.Errorf("a trace against itself: %v at seq %d", d.Op, d.A.Seq)
		}
	}
}

func TestFindingAnchors(t *testing.T) {
	runs, _ := parseTrace([]byte(`[{"run":"core:action:E1"},{"seq":1,"kind":"handoff_received","agent":"action"},{"seq":2,"kind":"result","agent":"action"},
{"run":"core:intake:E1"},{"seq":1,"kind":"model_call","agent":"intake"},{"seq":2,"kind":"result","agent":"intake"}]`))
	for _, tc := range []struct {
		ev       FindingEvidence
		run, evt int
		ok       bool
	}{
		{FindingEvidence{Run: "core:intake:E1", Seq: 1}, 1, 0, true},
		{FindingEvidence{Run: "core:action:E1", Seq: 2}, 0, 1, true},
		{FindingEvidence{Run: "core:action:E1"}, 0, -1, true},                  // the run as a whole
		{FindingEvidence{Run: "emit:intake->action:E1"}, 1, 1, true},           // at intake's result
		{FindingEvidence{Run: "parse:intake->action:E1"}, 0, 0, true},          // at action's receipt
		{FindingEvidence{Run: "core:monitor:2025-03-01", Seq: 1}, 0, 0, false}, // not in the trace
	} {
		ri, ok := anchorRun(runs, tc.ev)
		if ok != tc.ok || ok && (ri != tc.run || anchorEvent(runs[ri], tc.ev) != tc.evt) {
			t.Errorf("%+v: run %d (%v) event %d, want run %d (%v) event %d", tc.ev, ri, ok, anchorEvent(runs[ri], tc.ev), tc.run, tc.ok, tc.evt)
		}
	}
}

// TestFindingAnchorsIntegrated: in an integrated trace, an emitted or
// parsed hand-off's finding lands on the hand-off of its edge and item.
func TestFindingAnchorsIntegrated(t *testing.T) {
	runs, _ := parseTrace(fixtureTrace())
	for ev, want := range map[FindingEvidence]int{
		{Run: "emit:intake->action:E1"}:  1, // seq 2, the hand-off sent
		{Run: "parse:intake->action:E1"}: 2, // seq 3, received
		{Run: integratedRun, Seq: 5}:     4,
	} {
		ri, ok := anchorRun(runs, ev)
		if !ok || ri != 0 || anchorEvent(runs[0], ev) != want {
			t.Errorf("%+v: run %d (%v), event %d, want event %d", ev, ri, ok, anchorEvent(runs[0], ev), want)
		}
	}
}

func TestJSONFieldDiff(t *testing.T) {
	got := jsonFieldDiff([]byte(`{"a":1,"p":{"cur":"GBP","x":""},"gone":[],"n":2}`), []byte(`{"a":1,"p":{"cur":"EUR"},"n":3,"new":true}`))
	want := [][3]string{{"n", "2", "3"}, {"new", "(absent)", "true"}, {"p.cur", `"GBP"`, `"EUR"`}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("field diff (-want +got):\n%s", d)
	}
}

// TestTracePageGolden: the trace viewer of a small trace, its twin and a
// finding, as `baton replay --html` writes it.
func TestTracePageGolden(t *testing.T) {
	var b bytes.Buffer
	err := WriteTracePage(&b, TraceInput{Item: "ctx-1/B/S01/1", Trace: fixtureTrace(), Flagged: true,
		Source: "Regenerated by baton replay from the run folder.", Twin: "clean/B/S01/1", TwinTrace: fixtureTwin(), TwinNote: "replayed too",
		Findings: []Finding{
			{Rule: "end_state.payment", Message: "payment:E1 currency: want GBP, got EUR", Location: "action", Evidence: FindingEvidence{Run: integratedRun, Seq: 6, Item: "E1", Field: "currency"}},
			{Rule: "contract.field", Message: "intake->action: currency: required", Location: "intake->action", Evidence: FindingEvidence{Run: "emit:intake->action:E1"}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`<span class="badge fault">error</span>`, `<span class="badge retry">retry 1</span>`,
		"<td>payload.currency</td><td>(absent)</td><td>&#34;EUR&#34;</td>", `class="ev k-result flagged d-changed c2"`,
		"1 event the same, 4 changed, 1 only in this build", `href="#trace-1-r1-e2">at the event`} {
		if !strings.Contains(page, want) {
			t.Errorf("trace page lacks %q", want)
		}
	}
	golden(t, "trace_page.html", b.Bytes())
}

func FuzzParseTrace(f *testing.F) {
	f.Add(fixtureTrace())
	f.Add([]byte(`[{"run":"core:a:E1"},{"seq":1,"kind":"result","agent":"a","parsed":{"x":1},"raw":"{}"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := parseTrace(data)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := WriteTracePage(&b, TraceInput{Item: "x", Trace: data, TwinTrace: data, Twin: "y"}); err != nil {
			t.Fatalf("a trace that parses does not render: %v", err)
		}
		_ = lanes(runs)
		if strings.Contains(dataScript.ReplaceAllString(pageScript.ReplaceAllString(b.String(), ""), ""), "<script") {
			t.Fatal("a trace made a script element")
		}
	})
}

// TestEnumStrings: every kind and operation has its own name.
func TestEnumStrings(t *testing.T) {
	var names []string
	for _, k := range allSpanKinds {
		names = append(names, "span "+k.String())
	}
	for _, k := range allCellKinds {
		names = append(names, "cell "+k.String())
	}
	for _, o := range allDiffOps {
		names = append(names, "diff "+o.String())
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] || strings.HasSuffix(n, " ") {
			t.Errorf("name %q repeats or is empty", n)
		}
		seen[n] = true
	}
	if len(names) != 6+4+4 {
		t.Errorf("%d names", len(names))
	}
}
