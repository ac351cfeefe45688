package invoice

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

var updateGolden = flag.Bool("update", false, "rewrite scenarios/golden/*.json from the clean build (then review the diff)")

const goldenUpdateHint = "run go test ./mission/invoice -run TestGoldenFiles -update and review the diff"

// TestGoldenFiles checks the stored goldens of the default scenarios: each
// scenario's file is exactly what the clean build records now (so any
// change of behaviour is reviewed and re-recorded), round-trips to the
// recorded goldens byte for byte, agrees with the scenario's authored end
// state, and is what DefaultScenarios attaches. With -update it rewrites
// the files (and removes those of scenarios that are gone).
func TestGoldenFiles(t *testing.T) {
	scs := suiteScenarios(t)
	m := New()
	ids := map[string]bool{}
	for _, sc := range scs {
		ids[sc.ID] = true
		t.Run(sc.ID, func(t *testing.T) {
			attached := sc.Golden
			rec, err := recordGolden(m, sc)
			if err != nil {
				t.Fatalf("the clean build does not reach the authored end state: %v", err)
			}
			f, err := mission.NewGoldenFile(spec(), sc, rec, goldenRecorded)
			if err != nil {
				t.Fatal(err)
			}
			want, err := f.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			path := goldenDir + "/" + sc.ID + ".json"
			// The stored form gives back exactly what was recorded, wire bytes included.
			if diff := gocmp.Diff(rec, mustParseGoldens(t, path, want)); diff != "" {
				t.Fatalf("goldens do not round-trip through the file format (-recorded +reloaded):\n%s", diff)
			}
			if *updateGolden {
				// Never store goldens that disagree with the authored end state.
				if checkGoldenAgrees(t, sc, rec) {
					writeGoldenIfChanged(t, path, want)
				}
				return
			}
			stored, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (%s)", err, goldenUpdateHint)
			}
			sf, err := mission.ParseGoldenFile(path, stored, spec())
			if err != nil {
				t.Fatal(err)
			}
			goldens := mustParseGoldens(t, path, stored)
			checkGoldenAgrees(t, sc, goldens)
			if !bytes.Equal(stored, want) {
				t.Errorf("%s differs from what the clean build records now (-stored +recorded); %s:\n%s", path, goldenUpdateHint, goldenLineDiff(stored, want))
			}
			if sf.ScenarioSHA256 != f.ScenarioSHA256 {
				t.Errorf("%s was recorded for another version of %s (day, initial state, emails or expect changed), so it is not used", path, sc.ID)
			} else if diff := gocmp.Diff(goldens, attached); diff != "" {
				t.Errorf("DefaultScenarios attached other goldens than %s (-file +attached):\n%s", path, diff)
			}
		})
	}
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range files {
		if id := strings.TrimSuffix(filepath.Base(p), ".json"); !ids[id] {
			if *updateGolden {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s: no default scenario %s; %s", p, id, goldenUpdateHint)
		}
	}
}

func mustParseGoldens(tb testing.TB, name string, data []byte) []mission.Golden {
	tb.Helper()
	f, err := mission.ParseGoldenFile(name, data, spec())
	if err != nil {
		tb.Fatal(err)
	}
	g, err := f.Goldens()
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

func writeGoldenIfChanged(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// goldenLineDiff shows the first line where got departs from want, with context.
func goldenLineDiff(want, got []byte) string {
	wl := strings.Split(string(want), "\n")
	gl := strings.Split(string(got), "\n")
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	var b strings.Builder
	for j := max(0, i-3); j < i; j++ {
		fmt.Fprintf(&b, "  %5d  %s\n", j+1, wl[j])
	}
	for j := i; j < min(len(wl), i+3); j++ {
		fmt.Fprintf(&b, "- %5d  %s\n", j+1, wl[j])
	}
	for j := i; j < min(len(gl), i+3); j++ {
		fmt.Fprintf(&b, "+ %5d  %s\n", j+1, gl[j])
	}
	return b.String()
}

// checkGoldenAgrees reports every way goldens disagree with sc's authored
// end state, and whether they agree.
func checkGoldenAgrees(tb testing.TB, sc *mission.Scenario, goldens []mission.Golden) bool {
	tb.Helper()
	probs := goldenDisagreements(sc, goldens)
	for _, p := range probs {
		tb.Errorf("golden disagrees with the authored end state: %s", p)
	}
	return len(probs) == 0
}

// goldenDisagreements returns the ways goldens depart from sc's authored
// end state: per expected item, the writes its agents' calls make (one
// schedule_payment with the expected amount, currency, due date, bank
// account and supplier for a paid item; one escalate, reject_invoice or
// close_item with the expected reason otherwise; none of the others) and
// boundary's decision; and the monitor's one exception report, whose
// entries are the expected ones.
func goldenDisagreements(sc *mission.Scenario, goldens []mission.Golden) []string {
	var out []string
	emails := map[string]bool{}
	for _, e := range sc.Inputs {
		emails[e.ID] = true
	}
	calls := map[string][]mission.ToolCall{}
	decisions := map[string]mission.Result{}
	var reports []mission.ToolCall
	monitors := 0
	for _, g := range goldens {
		switch {
		case g.Agent == Monitor:
			monitors++
			if g.Item != sc.Day {
				out = append(out, fmt.Sprintf("monitor golden for %q, want the day %s", g.Item, sc.Day))
			}
			for _, c := range g.Calls {
				if c.Name == PublishReport && c.Error == "" {
					reports = append(reports, c)
				}
			}
		case !emails[g.Item]:
			out = append(out, fmt.Sprintf("%s golden for unknown email %q", g.Agent, g.Item))
		default:
			calls[g.Item] = append(calls[g.Item], g.Calls...)
			if g.Agent == Boundary {
				decisions[g.Item] = g.Result
			}
		}
	}
	for _, it := range expectOf(sc).Items {
		probs := goldenItemDisagreements(it, calls[it.Item], decisions[it.Item])
		for _, alt := range it.Alternatives {
			if alt.Item == "" {
				alt.Item = it.Item
			}
			if len(probs) > 0 && len(goldenItemDisagreements(alt, calls[it.Item], decisions[it.Item])) == 0 {
				probs = nil
			}
		}
		out = append(out, probs...)
	}
	if monitors != 1 || len(reports) != 1 {
		return append(out, fmt.Sprintf("want one monitor golden publishing one exception report, got %d goldens, %d reports", monitors, len(reports)))
	}
	got, err := goldenReportEntries(reports[0].Args["entries"])
	if err != nil {
		return append(out, "exception report: "+err.Error())
	}
	want := slices.Clone(expectOf(sc).Report)
	for _, l := range [][]ReportEntry{want, got} {
		slices.SortFunc(l, func(a, b ReportEntry) int {
			return cmp.Or(cmp.Compare(a.Item, b.Item), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Reason, b.Reason))
		})
	}
	if diff := gocmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		out = append(out, "exception report entries (-expect +golden):\n"+diff)
	}
	return out
}

// goldenOutcomeTools maps an item outcome to the write that realises it, and
// boundary's decision for it.
var goldenOutcomeTools = []struct{ outcome, tool, decision string }{
	{OutcomePaid, SchedulePayment, "approved"},
	{OutcomeEscalated, Escalate, "escalated"},
	{OutcomeRejected, RejectInvoice, "rejected"},
	{OutcomeClosed, CloseItem, "closed"},
}

func goldenItemDisagreements(it ExpectedItem, calls []mission.ToolCall, decision mission.Result) []string {
	var out []string
	bad := func(format string, args ...any) {
		out = append(out, it.Item+": "+fmt.Sprintf(format, args...))
	}
	var write *mission.ToolCall
	wantDecision := ""
	for _, ot := range goldenOutcomeTools {
		var n []*mission.ToolCall
		for i := range calls {
			if calls[i].Name == ot.tool && calls[i].Error == "" {
				n = append(n, &calls[i])
			}
		}
		want := 0
		if ot.outcome == it.Outcome {
			want, wantDecision = 1, ot.decision
			if len(n) > 0 {
				write = n[0]
			}
		}
		if len(n) != want {
			bad("%s item: want %d %s call(s), got %d", it.Outcome, want, ot.tool, len(n))
		}
	}
	if wantDecision == "" {
		bad("unknown outcome %q", it.Outcome)
		return out
	}
	switch {
	case decision == nil:
		bad("no boundary golden with a decision")
	case decision["decision"] != wantDecision:
		bad("boundary decision %v, want %s", decision["decision"], wantDecision)
	case it.Outcome != OutcomePaid && decision["reason"] != it.Reason:
		bad("boundary reason %v, want %s", decision["reason"], it.Reason)
	}
	if it.Invoice != "" && decision != nil && decision["invoice_number"] != it.Invoice {
		bad("boundary invoice_number %v, want %s", decision["invoice_number"], it.Invoice)
	}
	if write == nil {
		return out
	}
	if it.Outcome != OutcomePaid {
		if write.Args["item"] != it.Item || write.Args["reason"] != it.Reason {
			bad("%s args item %v reason %v, want item %s reason %s", write.Name, write.Args["item"], write.Args["reason"], it.Item, it.Reason)
		}
		return out
	}
	if amount, ok := write.Args["amount"].(float64); !ok || math.Round(amount*100) != math.Round(it.Amount*100) {
		bad("schedule_payment amount %v, want %.2f", write.Args["amount"], it.Amount)
	}
	for _, f := range []struct{ arg, want string }{
		{"currency", it.Currency}, {"due_date", it.DueDate}, {"bank_account", it.BankAccount}, {"supplier_id", it.Supplier},
	} {
		if f.want != "" && write.Args[f.arg] != f.want {
			bad("schedule_payment %s %v, want %s", f.arg, write.Args[f.arg], f.want)
		}
	}
	// A payment follows a supplier look-up and an approval of the same invoice.
	pay := slices.IndexFunc(calls, func(c mission.ToolCall) bool { return c.Name == write.Name && c.Error == "" })
	looked := slices.ContainsFunc(calls[:pay], func(c mission.ToolCall) bool { return c.Name == LookupSupplier && c.Args["supplier_id"] == it.Supplier })
	approved := slices.ContainsFunc(calls[:pay], func(c mission.ToolCall) bool {
		return c.Name == ApproveInvoice && c.Error == "" && c.Args["invoice_id"] == write.Args["invoice_id"]
	})
	if !looked || !approved {
		bad("schedule_payment without an earlier supplier look-up (%v) and approval of %v (%v)", looked, write.Args["invoice_id"], approved)
	}
	return out
}

// goldenReportEntries reads publish_exception_report's entries argument.
func goldenReportEntries(v any) ([]ReportEntry, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("entries is %T, want a list", v)
	}
	out := make([]ReportEntry, 0, len(l))
	for i, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("entries[%d] is %T, want an object", i, e)
		}
		item, _ := m["item"].(string)
		kind, _ := m["kind"].(string)
		reason, _ := m["reason"].(string)
		out = append(out, ReportEntry{Item: item, Kind: kind, Reason: reason})
	}
	return out, nil
}

// TestGoldenDisagreements: the agreement check catches goldens that do not
// match the authored end state.
func TestGoldenDisagreements(t *testing.T) {
	sc := scenarioByID(t, "T1")
	rec, err := recordGolden(New(), sc)
	if err != nil {
		t.Fatal(err)
	}
	if p := goldenDisagreements(sc, rec); len(p) > 0 {
		t.Fatalf("recorded goldens disagree: %q", p)
	}
	boundary := slices.IndexFunc(rec, func(g mission.Golden) bool { return g.Agent == Boundary && g.Item == "E1" })
	if boundary < 0 {
		t.Fatal("no boundary golden for E1")
	}
	tests := []struct {
		name   string
		change func(sc *mission.Scenario, g []mission.Golden)
		want   string
	}{
		{"amount", func(_ *mission.Scenario, g []mission.Golden) {
			setGoldenCallArg(g[boundary].Calls, SchedulePayment, "amount", 1.0)
		}, "schedule_payment amount 1"},
		{"currency", func(_ *mission.Scenario, g []mission.Golden) {
			setGoldenCallArg(g[boundary].Calls, SchedulePayment, "currency", "USD")
		}, "schedule_payment currency USD"},
		{"due date", func(_ *mission.Scenario, g []mission.Golden) {
			setGoldenCallArg(g[boundary].Calls, SchedulePayment, "due_date", "2030-01-01")
		}, "schedule_payment due_date 2030-01-01"},
		{"bank account", func(_ *mission.Scenario, g []mission.Golden) {
			setGoldenCallArg(g[boundary].Calls, SchedulePayment, "bank_account", "XX00")
		}, "schedule_payment bank_account XX00"},
		{"no payment", func(_ *mission.Scenario, g []mission.Golden) {
			g[boundary].Calls = slices.DeleteFunc(g[boundary].Calls, func(c mission.ToolCall) bool { return c.Name == SchedulePayment })
		}, "want 1 schedule_payment call(s), got 0"},
		{"expected escalation", func(sc *mission.Scenario, _ []mission.Golden) {
			it := &expectOf(sc).Items[0]
			*it = ExpectedItem{Item: it.Item, Outcome: OutcomeEscalated, Reason: ReasonAboveThreshold}
		}, "want 1 escalate call(s), got 0"},
		{"decision", func(_ *mission.Scenario, g []mission.Golden) { g[boundary].Result["decision"] = "closed" }, "boundary decision closed"},
		{"report", func(sc *mission.Scenario, _ []mission.Golden) {
			expectOf(sc).Report = append(expectOf(sc).Report, ReportEntry{Item: "E1", Kind: "escalation", Reason: ReasonSuspicious})
		}, "exception report entries"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc2 := sc.Clone()
			sc2.Golden = rec
			g := sc2.Clone().Golden
			tc.change(sc2, g)
			got := strings.Join(goldenDisagreements(sc2, g), "\n")
			if !strings.Contains(got, tc.want) {
				t.Errorf("disagreements %q, want one containing %q", got, tc.want)
			}
		})
	}
}

func setGoldenCallArg(calls []mission.ToolCall, tool, arg string, v any) {
	for i := range calls {
		if calls[i].Name == tool {
			calls[i].Args[arg] = v
		}
	}
}

// TestGoldenFileRoundTrip: wire bytes come back byte for byte whatever
// they are, other values as they were, and the file is deterministic.
func TestGoldenFileRoundTrip(t *testing.T) {
	sc := &mission.Scenario{ID: "X1", Day: "2026-03-02"}
	goldens := []mission.Golden{
		{Agent: Monitor, Item: "2026-03-02", Input: mission.CoreInput{Item: "2026-03-02"},
			Calls: []mission.ToolCall{{Name: PublishReport, Args: sandbox.Args{"day": "2026-03-02", "entries": []any{}}, Attempts: 1}}},
		{Agent: Boundary, Item: "E1", Input: mission.CoreInput{Item: "E1", Messages: [][]byte{
			[]byte(`{"a":"\u003cscript\u003e","b":[1,2.5,-0.01],"c":{"x":null}}`),
			[]byte(`{"a": 1}`),        // not compact: stored as a string
			[]byte(`not json <&>`),    // not JSON
			[]byte(`"a string"`),      // JSON, but not an object
			[]byte(`{"html":"<b>&"}`), // literal HTML characters
			[]byte(`{"u":"\u2028é"}`), // escapes kept as they are
			[]byte(`[{"k":true}]`),    // an array
			[]byte(``),                // empty
			[]byte(`{"a":1}` + "\n"),  // trailing newline
		}},
			Calls:   []mission.ToolCall{{Name: LookupSupplier, Args: sandbox.Args{"supplier_id": "SUP-1"}, Attempts: 2, Error: "NF-404"}},
			Result:  mission.Result{"decision": "approved", "gross": 1234.5, "n": 3.0, "flags": []any{"x"}, "nested": map[string]any{"k": false}},
			Emitted: map[string][]byte{"boundary->monitor": []byte(`{"edge":"boundary->monitor"}`)}},
		{Agent: Intake, Item: "E1", Input: mission.CoreInput{Item: "E1"}, Calls: []mission.ToolCall{{Name: FindInvoice, Args: nil}}, Result: mission.Result{}},
	}
	f, err := mission.NewGoldenFile(spec(), sc, goldens, goldenRecorded)
	if err != nil {
		t.Fatal(err)
	}
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got := mustParseGoldens(t, "x.json", data)
	want := []mission.Golden{goldens[2], goldens[1], goldens[0]} // flow order
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	for _, s := range []string{`"a": "\u003cscript\u003e"`, `"html": "<b>&"`, `"{\"a\": 1}"`, `"edge": "boundary->monitor"`} {
		if !strings.Contains(string(data), s) {
			t.Errorf("file does not show %s:\n%s", s, data)
		}
	}
	f2, err := mission.NewGoldenFile(spec(), sc, slices.Clone(goldens), goldenRecorded)
	if err != nil {
		t.Fatal(err)
	}
	if data2, _ := f2.Marshal(); !bytes.Equal(data, data2) {
		t.Error("the same goldens give different bytes")
	}
	if _, err := mission.NewGoldenFile(spec(), sc, []mission.Golden{{Agent: Intake, Item: "E1", Emitted: map[string][]byte{"intake->action": {0xff}}}}, goldenRecorded); err == nil {
		t.Error("invalid UTF-8 wire bytes: no error")
	}
}

func TestParseGoldenFileErrors(t *testing.T) {
	valid := `{"format": 1, "scenario": "S1", "scenario_sha256": "", "recorded": "", "goldens": [
  {"agent": "intake", "item": "E1", "input": {"item": "E1"}, "calls": [], "result": null}
]}`
	if _, err := mission.ParseGoldenFile("ok.json", []byte(valid), spec()); err != nil {
		t.Fatalf("valid file: %v", err)
	}
	tests := []struct{ name, data, want string }{
		{"syntax", "{\n\"format\": 1,\n\"scenario\": }", "bad.json:3:"},
		{"unknown key", `{"format": 1, "scenario": "S1", "colour": 1}`, `unknown field "colour"`},
		{"type", "{\"format\": 1,\n \"scenario\": 7}", "bad.json:2:"},
		{"format", strings.Replace(valid, `"format": 1`, `"format": 2`, 1), "format: want 1, got 2"},
		{"scenario", strings.Replace(valid, `"scenario": "S1"`, `"scenario": ""`, 1), "scenario: missing"},
		{"agent", strings.Replace(valid, `"intake"`, `"sales"`, 1), `goldens[0].agent: unknown agent "sales"`},
		{"item", strings.Replace(valid, `"item": "E1", "input"`, `"item": "", "input"`, 1), "goldens[0].item: missing"},
		{"edge", strings.Replace(valid, `"result": null`, `"result": null, "emitted": {"a->b": {}}`, 1), `unknown edge "a->b"`},
		{"wire", strings.Replace(valid, `"result": null`, `"result": null, "emitted": {"intake->action": 5}`, 1), "want a JSON object, array or string"},
		{"trailing", valid + " {}", "data after the top-level object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mission.ParseGoldenFile("bad.json", []byte(tc.data), spec())
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.json") {
				t.Errorf("err = %v, want one naming bad.json and containing %q", err, tc.want)
			}
		})
	}
}

// TestDefaultGoldensAttached: the default scenarios carry their stored
// goldens, a scenario changed since its file was recorded does not, and
// scenarios loaded from files have none (designs record them on the fly).
func TestDefaultGoldensAttached(t *testing.T) {
	scs := suiteScenarios(t)
	for _, sc := range scs {
		if len(sc.Golden) == 0 {
			t.Errorf("%s: no goldens attached (%s)", sc.ID, goldenUpdateHint)
		}
	}
	changed := scs[0].Clone()
	changed.Golden = nil
	changed.Inputs[0].Body += " "
	if err := mission.AttachGoldens(goldenFS, goldenDir, spec(), []*mission.Scenario{changed}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if changed.Golden != nil {
		t.Errorf("%s: goldens attached to a changed scenario", changed.ID)
	}
	loaded, err := LoadScenarios("scenarios")
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range loaded {
		if sc.Golden != nil {
			t.Errorf("%s loaded from a file has goldens", sc.ID)
		}
	}
}

// FuzzParseGoldenFile: no input makes the parser panic; what it accepts
// marshals to a file that parses to the same goldens.
func FuzzParseGoldenFile(f *testing.F) {
	f.Add([]byte(`{"format": 1, "scenario": "S1", "goldens": [{"agent": "action", "item": "E1", "input": {"item": "E1", "messages": [{"a": [1, "<"]}, "raw"]}, "calls": [{"name": "x", "args": {"n": 1.5}}], "result": {}, "emitted": {"action->boundary": {"b": null}}}]}`))
	f.Add([]byte(`{"format": 1, "scenario": "S1", "goldens": []}`))
	f.Add([]byte(`{"format": 1, "scenario": "S1", "goldens": [{"agent": "monitor", "item": "d", "input": {"item": "d", "messages": [" \"x\""]}, "calls": null, "result": null}]} x`))
	f.Fuzz(func(t *testing.T, data []byte) {
		gf, err := mission.ParseGoldenFile("fuzz.json", data, spec())
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		g1, err := gf.Goldens()
		if err != nil {
			t.Fatalf("parsed file has no goldens: %v", err)
		}
		out, err := gf.Marshal()
		if err != nil {
			t.Fatalf("parsed file does not marshal: %v", err)
		}
		g2 := mustParseGoldens(t, "again.json", out)
		if diff := gocmp.Diff(g1, g2); diff != "" {
			t.Fatalf("marshal and parse changed the goldens (-first +second):\n%s", diff)
		}
	})
}
