package reports

import (
	"bytes"
	"errors"
	"math/rand/v2"
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
	for _, s := range r.SuiteRuns {
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
	base := []Item{
		item("clean", "", "", "A", "S01", 0, false),
		item("clean", "", "", "B", "S01", 0, false),
		item("clean", "", "", "A", "S01", 1, false),
		item("clean", "", "", "B", "S01", 1, false),
	}
	ctl := func(design string, trial int, flagged bool) Item {
		return item("ctl-1", "control", "boundary", design, "S01", trial, flagged, "boundary")
	}
	tests := []struct {
		name   string
		items  []Item
		valid  bool
		reason []string // substrings of the reason
	}{
		{"every design flags every trial", []Item{ctl("A", 0, true), ctl("B", 0, true), ctl("A", 1, true), ctl("B", 1, true)}, true, nil},
		{"B misses trial 1", []Item{ctl("A", 0, true), ctl("B", 0, true), ctl("A", 1, true), ctl("B", 1, false)}, false, []string{"design B", "ctl-1", "trial 1"}},
		{"A has no suite run in trial 1", []Item{ctl("A", 0, true), ctl("B", 0, true), ctl("B", 1, true)}, false, []string{"design A", "trial 1"}},
		{"no control mutant", []Item{item("m", "context_loss", "intake->action", "A", "S01", 0, false)}, true, []string{"not exercised"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := aggregate(cfg, append(slices.Clone(base), tt.items...)...)
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
			if tt.valid != (err == nil) || (!tt.valid && (!errors.Is(err, ExitDiscarded) || !errors.As(err, &de) || de.Reason != r.Validity.Reason)) {
				t.Errorf("Err() = %v, want a DiscardedError wrapping ExitDiscarded exactly when invalid", err)
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
	// From the synthetic stream's construction: ctx-1, ctx-2, esc-1 and
	// ctl-1 are detected; drift-1 changes traces unseen; esc-2 reaches its
	// seam without changing a trace; dup-1 never reaches it.
	want := map[string]string{
		"ctx-1": StatusKilled, "ctx-2": StatusKilled, "esc-1": StatusKilled, "ctl-1": StatusKilled,
		"drift-1": StatusSurvived, "esc-2": StatusEquivalent, "dup-1": StatusNoCoverage,
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
	// complete record of the reports.
	wall := map[string]int64{}
	for _, c := range r.Cost {
		wall[c.Design] = c.WallMS
	}
	back.SetWall(wall)
	want, got := renderAll(t, r), renderAll(t, back)
	for name := range want {
		if !bytes.Equal(want[name], got[name]) {
			t.Errorf("%s differs after a round trip through results.json\n%s", name, firstDiff(want[name], got[name]))
		}
	}
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
