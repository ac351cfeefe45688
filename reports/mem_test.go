package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-lab/baton/mission"
)

// defaultShape is a synthetic stream shaped like the default protocol:
// the clean build and 24 mutants (4 per class), 3 designs, 64 scenarios.
type defaultShape struct {
	builds    []BuildInfo
	scenarios []ScenarioInfo
	trials    int
}

func newDefaultShape(trials int) defaultShape {
	s := defaultShape{trials: trials, builds: []BuildInfo{{ID: CleanBuild}}}
	locs := map[string][]string{
		"context_loss":        {"intake->action", "action->boundary", "intake->action", "boundary->monitor"},
		"ambiguous_ownership": {"intake->action", "action->boundary", "boundary->monitor", "action->monitor"},
		"duplicate_action":    {"intake->action", "action->boundary", "action->boundary", "boundary->monitor"},
		"escalation_gap":      {"intake->action", "action->boundary", "boundary->monitor", "action->boundary"},
		"contract_drift":      {"intake->action", "action->boundary", "intake->action", "action->boundary"},
		"control":             {"boundary", "intake", "action", "boundary"},
	}
	for _, class := range []string{"context_loss", "ambiguous_ownership", "duplicate_action", "escalation_gap", "contract_drift", "control"} {
		for i, loc := range locs[class] {
			s.builds = append(s.builds, BuildInfo{ID: fmt.Sprintf("%s-%d", class, i), Class: class, Location: loc, Operator: "op"})
		}
	}
	cats := []string{"typical", "edge", "adversarial", "fault"}
	for i := range 64 {
		s.scenarios = append(s.scenarios, ScenarioInfo{ID: fmt.Sprintf("S%02d", i+1), Category: cats[i%len(cats)]})
	}
	return s
}

func (s defaultShape) config() Config {
	cfg := synthConfig()
	cfg.Protocol.Trials = s.trials
	cfg.Builds, cfg.Scenarios = s.builds, s.scenarios
	return cfg
}

// mix is a cheap deterministic hash of a few integers (splitmix64 steps).
func mix(xs ...uint64) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, x := range xs {
		h ^= x + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
		h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9
		h = (h ^ (h >> 27)) * 0x94d049bb133111eb
		h ^= h >> 31
	}
	return h
}

// each streams every item, clean build first, with fresh strings per item
// as a store scan gives them.
func (s defaultShape) each(fn func(Item)) {
	for bi, b := range s.builds {
		for si, sc := range s.scenarios {
			for trial := 1; trial <= s.trials; trial++ {
				for di, d := range []string{"A", "B", "C"} {
					h := mix(uint64(bi), uint64(si), uint64(trial), uint64(di))
					p := h % 100
					flagged := p < 3 // intrinsic false alarms
					switch {
					case isControl(b.Class):
						flagged = flagged || p < 80 // every design catches the control
					case b.ID != CleanBuild && si%4 == bi%4:
						flagged = flagged || p < uint64(20+30*di)
					}
					it := Item{
						Build: strings.Clone(b.ID), Class: b.Class, Location: b.Location, Design: strings.Clone(d),
						Scenario: strings.Clone(sc.ID), Category: sc.Category, Trial: trial, Seed: h,
						Flagged: flagged, Slipped: flagged && h&1 == 0, Faulted: flagged && h&2 == 0,
						Cost: mission.Cost{ModelCalls: 4 + di, ToolCalls: 6, Tokens: 900, EnvironmentResets: 1}, WallNS: 100_000,
						Reached: int(h>>8) % 3,
					}
					if flagged {
						it.Blame = []string{[]string{b.Location, "intake", "action->boundary"}[h>>16%3], "monitor"}
						it.Findings = 1
					}
					fn(it)
				}
				h := mix(uint64(bi), uint64(si), uint64(trial), 9)
				fn(Item{
					Build: strings.Clone(b.ID), Class: b.Class, Location: b.Location, Scenario: strings.Clone(sc.ID), Category: sc.Category,
					Trial: trial, Seed: h, Success: h%10 != 0, Reached: int(h>>8) % 3,
					TraceHash: fmt.Sprintf("%064x", mix(uint64(si), uint64(trial), uint64(bi%7))),
				})
			}
		}
	}
}

// memFigures is what one aggregation and WriteAll cost in heap.
type memFigures struct {
	items, suiteRuns int
	// Live heap (after a GC): the Aggregator and its Results; and the most seen
	// while rendering the files, with a GC every 256 KiB written. These
	// are deterministic.
	liveAdded, liveWrite uint64
	// HeapAlloc (garbage included, so with the GC's pacing) sampled every
	// millisecond: the peak, and the peak while adding items.
	peak, peakAdd uint64
	total         uint64 // TotalAlloc during aggregation and WriteAll
	elapsed       time.Duration
	sizes         map[string]int64 // bytes of each file written
}

func (f memFigures) String() string {
	return fmt.Sprintf("%d items, %d suite runs: live heap (Aggregator + Results) %.1f MB, at most %.1f MB while rendering; peak HeapAlloc %.1f MB (%.1f MB while adding); TotalAlloc %.1f MB; %v",
		f.items, f.suiteRuns, mb(f.liveAdded), mb(f.liveWrite), mb(f.peak), mb(f.peakAdd), mb(f.total), f.elapsed.Round(time.Millisecond))
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }

// heapAbove returns the heap now above base.
func heapAbove(base uint64, gc bool) uint64 {
	if gc {
		runtime.GC()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc - min(m.HeapAlloc, base)
}

// liveProbe is a writer that measures the live heap every 256 KiB.
type liveProbe struct {
	base    uint64
	n, next int
	peak    uint64
}

func (p *liveProbe) Write(b []byte) (int, error) {
	p.n += len(b)
	if p.n >= p.next {
		p.next = p.n + 256<<10
		p.peak = max(p.peak, heapAbove(p.base, true))
	}
	return len(b), nil
}

// measure aggregates a default-shaped stream of trials and writes every
// report into dir while sampling HeapAlloc every millisecond; then renders
// every file again into a probe of the live heap.
func measure(tb testing.TB, trials int, dir string) memFigures {
	tb.Helper()
	s := newDefaultShape(trials)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	base := before.HeapAlloc
	var (
		mu   sync.Mutex
		peak uint64
		stop = make(chan struct{})
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			h := heapAbove(base, false)
			mu.Lock()
			peak = max(peak, h)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	f := memFigures{items: 0}
	start := time.Now()
	a := NewAggregator(s.config())
	s.each(func(it Item) { a.Add(it); f.items++ })
	mu.Lock()
	f.peakAdd = peak
	mu.Unlock()
	r := a.Results()
	if err := WriteAll(dir, r); err != nil {
		tb.Fatal(err)
	}
	f.elapsed = time.Since(start)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	close(stop)
	<-done
	f.peak = max(peak, after.HeapAlloc-min(after.HeapAlloc, base))
	f.total = after.TotalAlloc - before.TotalAlloc

	// The deterministic figures, the same Aggregator and Results.
	f.liveAdded = heapAbove(base, true)
	f.sizes = map[string]int64{}
	for _, file := range Files(r) {
		p := &liveProbe{base: base}
		if err := file.Write(p); err != nil {
			tb.Fatal(err)
		}
		f.liveWrite = max(f.liveWrite, p.peak, heapAbove(base, true))
		st, err := os.Stat(filepath.Join(dir, file.Name))
		if err != nil {
			tb.Fatal(err)
		}
		f.sizes[file.Name] = st.Size()
	}
	f.suiteRuns = len(r.suites.order)
	runtime.KeepAlive(a)
	runtime.KeepAlive(r)
	return f
}

// TestMemoryDoesNotGrowWithTrials aggregates and writes a run shaped like
// the default protocol at 20 and at 200 trials (issue 10: the process's
// peak at 200 within 1.5× of that at 20). Reports keep a compact record per
// suite run and nothing per item: the live heap may grow by at most 300
// bytes per added suite run, and the sampled peak by at most 16 MB (it grew
// by 145 MB when results.json carried every suite run and every file was
// rendered in memory).
func TestMemoryDoesNotGrowWithTrials(t *testing.T) {
	if testing.Short() {
		t.Skip("aggregates 1.4 million items")
	}
	dir := os.Getenv("BATON_MEM_DIR") // to inspect the files
	if dir == "" {
		dir = t.TempDir()
	}
	small := measure(t, 20, filepath.Join(dir, "20"))
	large := measure(t, 200, filepath.Join(dir, "200"))
	t.Logf("20 trials:  %s", small)
	t.Logf("200 trials: %s", large)
	added := large.suiteRuns - small.suiteRuns
	if added != 75*180 {
		t.Fatalf("%d more suite runs at 200 trials, want 3 designs × 25 builds × 180 trials", added)
	}
	for _, x := range []struct {
		what         string
		small, large uint64
	}{{"once added", small.liveAdded, large.liveAdded}, {"while rendering", small.liveWrite, large.liveWrite}} {
		if per := float64(x.large-min(x.large, x.small)) / float64(added); per > 300 {
			t.Errorf("live heap %s grows by %.0f bytes per added suite run (%.1f MB to %.1f MB), want at most 300",
				x.what, per, mb(x.small), mb(x.large))
		}
	}
	if grow := large.peak - min(large.peak, small.peak); grow > 16<<20 {
		t.Errorf("peak HeapAlloc grows by %.1f MB from 20 to 200 trials (%.1f MB to %.1f MB), want at most 16 MB", mb(grow), mb(small.peak), mb(large.peak))
	}
	// Only the per-trial tables grow with the trials; results.json and the
	// reports are bounded by designs × builds × scenarios: more trials only
	// fill in cells (a scenario flagged at all) and lengthen numbers.
	for name, n := range large.sizes {
		switch name {
		case "suite_runs.csv", "pass_k.csv", "pass_k_by_category.csv":
			if n < 5*small.sizes[name] {
				t.Errorf("%s: %d bytes at 200 trials, %d at 20: want every row at both", name, n, small.sizes[name])
			}
			continue
		}
		if float64(n) > 1.5*float64(small.sizes[name]) {
			t.Errorf("%s grows from %d bytes at 20 trials to %d at 200, want within 1.5×", name, small.sizes[name], n)
		}
	}
	t.Logf("results.json %d → %d bytes, report.html %d → %d bytes", small.sizes["results.json"], large.sizes["results.json"],
		small.sizes["report.html"], large.sizes["report.html"])
}

// BenchmarkAggregateAndWrite aggregates and writes a default-shaped run of
// 20 trials; -benchmem gives its allocations.
func BenchmarkAggregateAndWrite(b *testing.B) {
	s := newDefaultShape(20)
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		a := NewAggregator(s.config())
		s.each(a.Add)
		if err := WriteAll(dir, a.Results()); err != nil {
			b.Fatal(err)
		}
	}
}
