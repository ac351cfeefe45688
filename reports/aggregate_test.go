package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// item is a shorthand for a design item.
func item(build, class, loc, design, sc string, trial int, flagged bool, blame ...string) Item {
	return Item{Build: build, Class: class, Location: loc, Design: design, Scenario: sc, Category: "typical", Trial: trial, Flagged: flagged, Blame: blame}
}

func aggregate(cfg Config, items ...Item) *Results {
	a := NewAggregator(cfg)
	for _, it := range items {
		a.Add(it)
	}
	return a.Results()
}

func findSuite(tb testing.TB, r *Results, design, build string, trial int) SuiteRunRow {
	tb.Helper()
	for s := range r.SuiteRuns() {
		if s.Design == design && s.Build == build && s.Trial == trial {
			return s
		}
	}
	tb.Fatalf("no suite run %s/%s/%d", design, build, trial)
	return SuiteRunRow{}
}

func TestDetectionNeedsAFlagTheCleanTwinLacks(t *testing.T) {
	const m, cls, loc = "m1", "context_loss", "intake->action"
	tests := []struct {
		name         string
		items        []Item
		raw, det     bool
		newFlags     []string
		top          string
		exact, adjac bool
	}{
		{
			name: "flag the clean twin also raises is not detection",
			items: []Item{
				item("clean", "", "", "A", "S01", 0, true, "intake"),
				item(m, cls, loc, "A", "S01", 0, true, "intake"),
			},
			raw: true, det: false, newFlags: []string{},
		},
		{
			name: "same scenario flagged in another trial is new",
			items: []Item{
				item("clean", "", "", "A", "S01", 1, true, "intake"),
				item("clean", "", "", "A", "S01", 0, false),
				item(m, cls, loc, "A", "S01", 0, true, "intake->action"),
			},
			raw: true, det: true, newFlags: []string{"S01"}, top: "intake->action", exact: true, adjac: true,
		},
		{
			name: "top blame is the location most newly flagged scenarios name first",
			items: []Item{
				item("clean", "", "", "A", "S01", 0, false),
				item("clean", "", "", "A", "S02", 0, false),
				item("clean", "", "", "A", "S03", 0, true, "monitor"),
				item(m, cls, loc, "A", "S01", 0, true, "boundary"),
				item(m, cls, loc, "A", "S02", 0, true, "action", "intake->action"),
				item(m, cls, loc, "A", "S03", 0, true, "action"), // not new: ignored
			},
			raw: true, det: true, newFlags: []string{"S01", "S02"}, top: "boundary", exact: false, adjac: false,
		},
		{
			name: "adjacent when the blame is an agent of the edge",
			items: []Item{
				item("clean", "", "", "A", "S01", 0, false),
				item("clean", "", "", "A", "S02", 0, false),
				item(m, cls, loc, "A", "S02", 0, true, "action"),
				item(m, cls, loc, "A", "S01", 0, true, "action"),
			},
			raw: true, det: true, newFlags: []string{"S01", "S02"}, top: "action", exact: false, adjac: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := aggregate(Config{}, tt.items...)
			s := findSuite(t, r, "A", m, 0)
			got := []any{s.Raw, s.Detected, s.NewFlags, s.TopBlame, s.Exact, s.Adjacent}
			want := []any{tt.raw, tt.det, tt.newFlags, tt.top, tt.exact, tt.adjac}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("suite run (raw, detected, new flags, top blame, exact, adjacent) (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTopBlameIgnoresArrivalOrder(t *testing.T) {
	items := []Item{
		item("clean", "", "", "A", "S01", 0, false),
		item("clean", "", "", "A", "S02", 0, false),
		item("m", "control", "boundary", "A", "S02", 0, true, "action"),
		item("m", "control", "boundary", "A", "S01", 0, true, "boundary"),
	}
	fwd := findSuite(t, aggregate(Config{}, items...), "A", "m", 0)
	slices.Reverse(items[2:])
	rev := findSuite(t, aggregate(Config{}, items...), "A", "m", 0)
	if fwd.TopBlame != "boundary" || rev.TopBlame != "boundary" {
		t.Errorf("tie between S01 (boundary) and S02 (action): top blame %q then %q, want boundary both times", fwd.TopBlame, rev.TopBlame)
	}
}

func TestAdjacent(t *testing.T) {
	tests := []struct {
		blame, truth string
		want         bool
	}{
		{"intake->action", "intake->action", true},
		{"intake", "intake->action", true},
		{"action", "intake->action", true},
		{"boundary", "intake->action", false},
		{"action->boundary", "intake->action", false},
		{"boundary", "boundary", true},
		{"action->boundary", "boundary", true},
		{"intake->action", "boundary", false},
		{"", "boundary", false},
	}
	for _, tt := range tests {
		if got := adjacent(tt.blame, tt.truth); got != tt.want {
			t.Errorf("adjacent(%q, %q) = %v, want %v", tt.blame, tt.truth, got, tt.want)
		}
	}
}

func TestValidityGate(t *testing.T) {
	cfg := Config{Designs: []string{"A", "B"}}
	// The clean twins: nothing flagged, except B on S02 in trial 0 (an
	// intrinsic slip).
	base := []Item{
		item("clean", "", "", "A", "S01", 0, false),
		item("clean", "", "", "B", "S01", 0, false),
		item("clean", "", "", "A", "S01", 1, false),
		item("clean", "", "", "B", "S01", 1, false),
		item("clean", "", "", "B", "S02", 0, true, "intake"),
	}
	ctl := func(design string, trial int, flagged bool) Item {
		return item("ctl-1", "control", "boundary", design, "S01", trial, flagged, "boundary")
	}
	ctlOn := func(design, sc string, trial int, flagged bool) Item {
		return item("ctl-1", "control", "boundary", design, sc, trial, flagged, "boundary")
	}
	tests := []struct {
		name   string
		cfg    Config
		items  []Item
		valid  bool
		reason []string // substrings of the reason
	}{
		{"every design flags every trial", cfg, []Item{ctl("A", 0, true), ctl("B", 0, true), ctl("A", 1, true), ctl("B", 1, true)}, true, nil},
		{"B misses trial 1", cfg, []Item{ctl("A", 0, true), ctl("B", 0, true), ctl("A", 1, true), ctl("B", 1, false)}, false, []string{"design B", "ctl-1", "trial 1", "clean twin"}},
		{"A has no suite run in trial 1", cfg, []Item{ctl("A", 0, true), ctl("B", 0, true), ctl("B", 1, true)}, false, []string{"design A", "trial 1"}},
		{
			"a flag the clean twin raises too does not catch the control", cfg,
			[]Item{
				ctl("A", 0, true), ctl("A", 1, true), ctl("B", 1, true),
				ctlOn("B", "S01", 0, false), ctlOn("B", "S02", 0, true), // only B's intrinsic S02 flag
			},
			false, []string{"design B missed control mutant ctl-1 in trial 0"},
		},
		{
			"a fresh flag beside an intrinsic one catches it", cfg,
			[]Item{
				ctl("A", 0, true), ctl("A", 1, true), ctl("B", 1, true),
				ctlOn("B", "S01", 0, true), ctlOn("B", "S02", 0, true),
			},
			true, nil,
		},
		{"no control mutant", cfg, []Item{item("m", "context_loss", "intake->action", "A", "S01", 0, true)}, false, []string{NoControlReason}},
		{
			"a control mutant in the catalogue that never ran",
			Config{Designs: []string{"A", "B"}, Builds: []BuildInfo{{ID: "ctl-9", Class: "control", Location: "boundary"}}},
			[]Item{item("m", "context_loss", "intake->action", "A", "S01", 0, true)},
			false, []string{"control mutant ctl-9 has no suite runs", "cannot be validated"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := aggregate(tt.cfg, append(slices.Clone(base), tt.items...)...)
			if r.Validity.Valid != tt.valid {
				t.Fatalf("valid = %v (%s), want %v", r.Validity.Valid, r.Validity.Reason, tt.valid)
			}
			for _, s := range tt.reason {
				if !strings.Contains(r.Validity.Reason, s) {
					t.Errorf("reason %q does not name %q", r.Validity.Reason, s)
				}
			}
			err := r.Err()
			var de *DiscardedError
			if tt.valid != (err == nil) || (!tt.valid && (!errors.Is(err, ErrDiscarded) || !errors.As(err, &de) || de.Reason != r.Validity.Reason)) {
				t.Errorf("Err() = %v, want a DiscardedError wrapping ErrDiscarded exactly when invalid", err)
			}
			if !tt.valid && !errors.Is(err, ExitDiscarded) {
				t.Errorf("Err() = %v does not match the deprecated ExitDiscarded", err)
			}
			if !tt.valid {
				for _, h := range r.Hypotheses {
					if h.Verdict != Inconclusive || !strings.Contains(h.Why, "discarded") {
						t.Errorf("%s on a discarded run: %s (%s), want inconclusive saying discarded", h.ID, h.Verdict, h.Why)
					}
				}
			}
		})
	}
}

func TestMutantStatus(t *testing.T) {
	r := synthResults()
	got := map[string]string{}
	for _, m := range r.Mutants {
		got[m.ID] = m.Status
	}
	// From the synthetic stream's construction: ctx-1, ctx-2 and ctl-1
	// are detected and do harm; esc-1 is detected (by B) but never changes
	// an end state; drift-1 changes traces unseen, never an end state;
	// esc-2 reaches its seam without changing a trace; dup-1 never reaches
	// it.
	want := map[string]string{
		"ctx-1": StatusKilled, "ctx-2": StatusKilled, "esc-1": StatusFlaggedBenign, "ctl-1": StatusKilled,
		"drift-1": StatusBenign, "esc-2": StatusEquivalent, "dup-1": StatusNoCoverage,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mutant status (-want +got):\n%s", diff)
	}
	t.Run("no observation runs", func(t *testing.T) {
		r := aggregate(Config{}, item("m", "context_loss", "intake->action", "A", "S01", 0, false))
		if s := r.Mutants[0].Status; s != StatusNotObserved {
			t.Errorf("status = %s, want %s", s, StatusNotObserved)
		}
	})
}

func TestFalseAlarmsAndEmptyCells(t *testing.T) {
	cfg := Config{Designs: []string{"A", "B"}, Builds: []BuildInfo{{ID: "m", Class: "context_loss", Location: "intake->action"}}}
	slip := item("clean", "", "", "A", "S01", 0, true, "intake")
	slip.Slipped = true
	fault := item("clean", "", "", "A", "S01", 1, true, "intake")
	fault.Faulted = true
	r := aggregate(cfg, slip, fault, item("clean", "", "", "A", "S01", 2, true, "x"), item("clean", "", "", "A", "S01", 3, false))
	want := []FalseAlarmRow{
		{Design: "A", Flagged: 3, N: 4, Rate: 0.75, CI95: wilsonCI(3, 4), ExplainedBySlip: 1, ExplainedByFault: 1, Unexplained: 1, UnexplainedRate: 0.25, UnexplainedCI95: wilsonCI(1, 4)},
		{Design: "B", N: 0, CI95: CI{0, 1}, UnexplainedCI95: CI{0, 1}},
	}
	if diff := cmp.Diff(want, r.FalseAlarms); diff != "" {
		t.Errorf("false alarms (-want +got):\n%s", diff)
	}
	// The configured mutant has no items: its cells are reported empty.
	if len(r.Detection) != 2 || r.Detection[1].Design != "B" || r.Detection[1].N != 0 || r.Detection[1].Mutants != 1 {
		t.Errorf("detection rows = %+v, want an empty row per design for the configured class", r.Detection)
	}
}

func TestWarnings(t *testing.T) {
	r := aggregate(Config{},
		item("m", "context_loss", "intake->action", "A", "S01", 0, true),
		item("clean", "", "", "A", "S01", 0, true),
	)
	if len(r.Warnings) != 2 {
		t.Errorf("warnings = %q, want one for the missing twin and one for the late clean item", r.Warnings)
	}
}

func renderAll(tb testing.TB, r *Results) map[string][]byte {
	tb.Helper()
	files, err := Render(r)
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

func TestDeterministic(t *testing.T) {
	want := renderAll(t, synthResults())
	t.Run("same items, same bytes", func(t *testing.T) {
		got := renderAll(t, synthResults())
		for name := range want {
			if !bytes.Equal(want[name], got[name]) {
				t.Errorf("%s differs between two renderings of the same items", name)
			}
		}
	})
	t.Run("arrival order within each phase does not matter", func(t *testing.T) {
		items := synthItems()
		split := slices.IndexFunc(items, func(it Item) bool { return it.Build != CleanBuild })
		rng := rand.New(rand.NewPCG(1, 2))
		clean, mutated := items[:split], items[split:]
		rng.Shuffle(len(clean), func(i, j int) { clean[i], clean[j] = clean[j], clean[i] })
		rng.Shuffle(len(mutated), func(i, j int) { mutated[i], mutated[j] = mutated[j], mutated[i] })
		cfg := synthConfig()
		slices.Reverse(cfg.Builds)
		got := renderAll(t, aggregate(cfg, items...))
		for name := range want {
			if !bytes.Equal(want[name], got[name]) {
				t.Errorf("%s differs after shuffling items and config order\n%s", name, firstDiff(want[name], got[name]))
			}
		}
	})
	t.Run("a Results keeps its suite runs when more items come", func(t *testing.T) {
		a := NewAggregator(synthConfig())
		for _, it := range synthItems() {
			a.Add(it)
		}
		r := a.Results()
		want, _ := Tables(r)[len(Tables(r))-1].CSV()
		// ctx-1's suite run of design A in trial 3 flags a new scenario.
		a.Add(Item{Build: "ctx-1", Class: "context_loss", Location: "intake->action", Design: "A", Scenario: "S04", Category: "typical",
			Trial: 3, Flagged: true, Blame: []string{"intake->action"}})
		got, _ := Tables(r)[len(Tables(r))-1].CSV()
		if !bytes.Equal(want, got) {
			t.Errorf("suite_runs.csv of a Results changed after an Add\n%s", firstDiff(want, got))
		}
		later, _ := Tables(a.Results())[len(Tables(r))-1].CSV()
		if !bytes.Contains(later, []byte("A,ctx-1,context_loss,3,4,true,true,S04,S04,intake->action,intake->action,true,true,false,false,3")) {
			t.Errorf("suite_runs.csv of the next Results lacks the new flag:\n%s", later)
		}
	})
	t.Run("Results does not change the aggregation", func(t *testing.T) {
		a := NewAggregator(synthConfig())
		for _, it := range synthItems() {
			a.Add(it)
		}
		first, second := renderAll(t, a.Results()), renderAll(t, a.Results())
		if !bytes.Equal(first["results.json"], second["results.json"]) {
			t.Error("second Results differs from the first")
		}
	})
}

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	r := synthResults()
	if err := WriteAll(dir, r); err != nil {
		t.Fatal(err)
	}
	back, err := LoadResults(dir + "/results.json")
	if err != nil {
		t.Fatal(err)
	}
	// Re-rendering what was read, with the wall-clock times results.json
	// leaves out handed back, gives the same bytes: results.json is a
	// complete record of the reports, the suite runs apart.
	wall := map[string]int64{}
	for _, c := range r.Cost {
		wall[c.Design] = c.WallMS
	}
	back.SetWall(wall)
	want, got := renderAll(t, r), renderAll(t, back)
	for name := range want {
		if name == "suite_runs.csv" {
			continue
		}
		if !bytes.Equal(want[name], got[name]) {
			t.Errorf("%s differs after a round trip through results.json\n%s", name, firstDiff(want[name], got[name]))
		}
	}
	t.Run("suite runs stay out of results.json", func(t *testing.T) {
		if back.HasSuiteRuns() {
			t.Error("a Results read back from results.json carries suite runs")
		}
		if _, ok := got["suite_runs.csv"]; ok {
			t.Error("rendering a Results read back writes a suite_runs.csv without its rows")
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(want["results.json"], &doc); err != nil {
			t.Fatal(err)
		}
		if _, ok := doc["suite_runs"]; ok {
			t.Error("results.json has a suite_runs section")
		}
		lines := bytes.Count(want["suite_runs.csv"], []byte("\n"))
		if n := len(r.suites.order); n != 3*8*4 || lines != n+1 {
			t.Errorf("suite_runs.csv has %d lines for %d suite runs, want a header and 3 designs × 8 builds × 4 trials", lines, n)
		}
	})
	t.Run("re-rendering leaves suite_runs.csv", func(t *testing.T) {
		before, _ := os.ReadFile(filepath.Join(dir, "suite_runs.csv"))
		if err := WriteAll(dir, back); err != nil {
			t.Fatal(err)
		}
		after, err := os.ReadFile(filepath.Join(dir, "suite_runs.csv"))
		if err != nil || !bytes.Equal(before, after) {
			t.Errorf("suite_runs.csv after re-rendering from results.json: %v, unchanged %v", err, bytes.Equal(before, after))
		}
		if tmp, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(tmp) > 0 {
			t.Errorf("temporary files left behind: %v", tmp)
		}
	})
}

func BenchmarkAggregatorAdd(b *testing.B) {
	cfg := synthConfig()
	items := synthItems()
	split := slices.IndexFunc(items, func(it Item) bool { return it.Build != CleanBuild })
	clean, mutated := items[:split], items[split:]
	a := NewAggregator(cfg)
	for _, it := range clean {
		a.Add(it)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		it := mutated[i%len(mutated)]
		a.Add(it)
	}
}

func TestExamples(t *testing.T) {
	r := synthResults()
	var got []SuiteExample
	perKey := map[string]int{}
	for _, ex := range r.Examples {
		perKey[ex.Design+"/"+ex.Build]++
		if ex.Design == "B" && ex.Build == "ctx-1" || ex.Design == "A" && ex.Build == "dup-1" {
			got = append(got, ex)
		}
	}
	// B flags ctx-1 on S01 and S02 in trials 0-2; its clean twin flags S02
	// in trial 1 only. Trial 0 is the first detected, trial 3 the first
	// missed (nothing flagged).
	// A never detects dup-1; its first missed run that flagged anything is
	// trial 2, where A flags S01 as its clean twin does.
	want := []SuiteExample{
		{Design: "A", Build: "dup-1", Class: "duplicate_action", Trial: 2, Raw: true, Location: "action->boundary",
			Items: []ExampleItem{{"S01", "dup-1/A/S01/2", false}}},
		{Design: "B", Build: "ctx-1", Class: "context_loss", Trial: 0, Detected: true, Raw: true, TopBlame: "boundary", Location: "intake->action",
			Items: []ExampleItem{{"S01", "ctx-1/B/S01/0", true}, {"S02", "ctx-1/B/S02/0", true}}},
		{Design: "B", Build: "ctx-1", Class: "context_loss", Trial: 3, Location: "intake->action", Items: []ExampleItem{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("A's examples of dup-1 and B's of ctx-1 (-want +got):\n%s", diff)
	}
	for k, n := range perKey {
		if n > 2 {
			t.Errorf("%s has %d examples, want at most one detected and one missed", k, n)
		}
	}
	if len(perKey) != 3*7 {
		t.Errorf("examples for %d design × mutant pairs, want 21", len(perKey))
	}
	t.Run("items are capped", func(t *testing.T) {
		var items []Item
		for i := range 9 {
			sc := fmt.Sprintf("S%02d", i+1)
			items = append(items, item("clean", "", "", "A", sc, 1, false), item("m", "context_loss", "intake->action", "A", sc, 1, true, "intake"))
		}
		ex := aggregate(Config{}, items...).Examples
		if len(ex) != 1 || len(ex[0].Items) != maxExampleItems || ex[0].MoreItems != 9-maxExampleItems || ex[0].Items[0].Scenario != "S01" {
			t.Errorf("examples = %+v, want one with the first %d of 9 items and %d more", ex, maxExampleItems, 9-maxExampleItems)
		}
	})
}

// TestBenignNeverCountsAsDetected pins the harmful view: a design that
// flags a mutant in a trial where its end state equals the clean twin's
// caught a violation, not a failure, and the harmful rates never count it.
func TestBenignNeverCountsAsDetected(t *testing.T) {
	const m, cls, loc = "m1", "context_loss", "intake->action"
	cfg := Config{Designs: []string{"A"}, Builds: []BuildInfo{{ID: m, Class: cls, Location: loc}}}
	obs := func(build string, trial int, end string) Item {
		return Item{Build: build, Class: cls, Location: loc, Scenario: "S01", Category: "typical", Trial: trial,
			TraceHash: build + end, EndHash: end, Reached: 1}
	}
	clean := func(trial int) Item {
		it := obs("clean", trial, "e")
		it.Class, it.Location, it.Reached = "", "", 0
		return it
	}
	items := []Item{
		clean(0), clean(1), clean(2),
		obs(m, 0, "harm"), obs(m, 1, "e"), obs(m, 2, "e"), // harm in trial 0 only
		item("clean", "", "", "A", "S01", 0, false), item("clean", "", "", "A", "S01", 1, false), item("clean", "", "", "A", "S01", 2, false),
		item(m, cls, loc, "A", "S01", 0, false), // the harmful trial: missed
		item(m, cls, loc, "A", "S01", 1, true),  // benign trials: flagged
		item(m, cls, loc, "A", "S01", 2, true),
	}
	r := aggregate(cfg, items...)
	got := r.DetectionByMutantHarmful
	want := []MutantHarm{{Design: "A", Build: m, Class: cls, Harmful: 1, Detected: 0, Rate: 0, CI95: wilsonCI(0, 1), Benign: 2, BenignDetected: 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("harmful view per mutant (-want +got):\n%s", diff)
	}
	if s := r.Mutants[0].Status; s != StatusSurvived {
		t.Errorf("status = %s, want %s (its harmful trial was missed; flags on its benign trials do not kill it)", s, StatusSurvived)
	}
}
