package experiment

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/reports"
)

// cpuTime returns the process's user and system CPU time so far: on a
// shared machine it is a steadier measure than wall time.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var sweepTrials = flag.Int("sweep.trials", 2, "trials per scenario in BenchmarkSweep (the default protocol has 20)")

// benchFindings returns the two findings of each item of the store's
// writer benchmarks.
func benchFindings() []designs.Finding {
	return []designs.Finding{
		{Rule: "contract.required", Message: "payload.currency: required field missing", Location: "intake->action",
			Evidence: designs.Evidence{Run: "emit:intake->action:E1", Item: "E1", Field: "currency"}},
		{Rule: "trajectory.exact", Message: "boundary E1: tool call 3 differs from golden", Location: "boundary",
			Evidence: designs.Evidence{Run: "core:boundary:E1", Seq: 12, Item: "E1"}},
	}
}

// BenchmarkStoreWriter measures the run store's writer per item: one row
// with two findings (a real sweep averages under half a finding per item),
// committed in batches of 4000. Each row is sealed first, as a worker
// does (the JSON of blame and evidence, the checksums), so cpu-ns/op is
// the store's whole cost per item, the writer's and the workers' share.
func BenchmarkStoreWriter(b *testing.B) { benchStoreWriter(b, nil) }

// BenchmarkStoreWriterKept is BenchmarkStoreWriter's item naming a kept
// trace, as half the executed items of the default run with designs A, B
// and C do: a new hash every 6 items (18,452 over 122,880), its bytes on
// one new hash in 10, the others named again by the items that follow.
func BenchmarkStoreWriterKept(b *testing.B) {
	gz := []byte(strings.Repeat("gzipped trace bytes ", 130))
	benchStoreWriter(b, func(i int, r *row) {
		h := i / 6
		r.traceSHA, r.traceLen = fmt.Sprintf("%064x", uint64(h)*0x9e3779b97f4a7c15), 8000
		if i%6 == 0 && h%10 == 0 {
			r.traceGZ = gz
		}
	})
}

// benchStoreWriter runs BenchmarkStoreWriter, keep (if not nil) adding
// item i's kept trace to its row.
func benchStoreWriter(b *testing.B, keep func(i int, r *row)) {
	pl := benchPlan(b.N/80 + 1)
	s, err := createStore(filepath.Join(b.TempDir(), StoreFile), pl)
	if err != nil {
		b.Fatal(err)
	}
	defer s.db.Close()
	findings := benchFindings()
	w := s.startWriter(4000, nil, nil)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime(b)
	ids := []string{"", "A", "B", "C"}
	var scratch []byte
	for i := range b.N {
		// Items arrive roughly in plan order: a unit's four items together,
		// units by scenario then trial.
		design, trial, scenario := ids[i%4], i/4%20+1, "S"+strconv.Itoa(i/80)
		it := reports.Item{Build: "cl-intake-action-currency", Design: design, Scenario: scenario,
			Trial: trial, Seed: uint64(i) * 0x9e3779b97f4a7c15, Flagged: true, Blame: []string{"intake->action", "boundary"},
			Findings: 2, Cost: mission.Cost{ModelCalls: 12, ToolCalls: 20, Tokens: 4000, FixtureResets: 4}, WallNS: 120000}
		r := row{ord: i, id: ItemID(it.Build, design, scenario, trial), item: it, findings: findings}
		if design == "" {
			r.item.TraceHash = "0b67e8184f6f3491430672b52c5ea93affa3c7da376d56d799fbd8552c1b2ddf"
		}
		if keep != nil {
			keep(i, &r)
		}
		r.seal(pl.unitAt(i/4), &scratch)
		w.send([]row{r})
	}
	if err := w.close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkStoreWriterTaken is BenchmarkStoreWriter's item taken from its
// clean twin instead of executed (its twins stored first, untimed, as in
// a sweep by the same writer): a reference to the twin's row, its
// findings not copied. Before runs.db v9 a taken item was stored as an
// executed one is.
func BenchmarkStoreWriterTaken(b *testing.B) {
	pl := benchPlan(b.N/80 + 1)
	pl.builds = append(pl.builds, BuildSpec{Info: reports.BuildInfo{ID: "cl-action-boundary-amount", Class: "context_loss", Location: "action->boundary"}})
	s, err := createStore(filepath.Join(b.TempDir(), StoreFile), pl)
	if err != nil {
		b.Fatal(err)
	}
	defer s.db.Close()
	perBuild := len(pl.scenarios) * pl.trials * pl.slots()
	findings := benchFindings()
	var scratch []byte
	item := func(ord int, taken bool) row {
		u := pl.unitAt(ord / 4)
		b, sc := pl.builds[u.build].Info, pl.scenarios[u.scenario]
		design := []string{"", "A", "B", "C"}[ord%4]
		it := reports.Item{Build: b.ID, Design: design, Scenario: sc.ID,
			Trial: u.trial, Seed: uint64(ord) * 0x9e3779b97f4a7c15, Flagged: true, Blame: []string{"intake->action", "boundary"},
			Findings: 2, Cost: mission.Cost{ModelCalls: 12, ToolCalls: 20, Tokens: 4000, FixtureResets: 4}, WallNS: 120000}
		r := row{ord: ord, id: ItemID(it.Build, design, sc.ID, u.trial), item: it, findings: findings, fromTwin: taken, twin: ord % perBuild}
		if design == "" {
			r.item.TraceHash = "0b67e8184f6f3491"
		}
		r.seal(u, &scratch)
		return r
	}
	w := s.startWriter(4000, nil, nil)
	for ord := range b.N {
		w.send([]row{item(ord, false)})
	}
	if err := w.close(); err != nil {
		b.Fatal(err)
	}
	w = s.startWriter(4000, nil, nil)
	for ord := range b.N {
		w.executed.mark(ord) // as a sweep's writer knows the twins it stored (the first send orders this before the writer reads it)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime(b)
	for i := range b.N {
		w.send([]row{item(perBuild+i, true)})
	}
	if err := w.close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// benchPlan is a plan of one build, the given number of scenarios, 20
// trials and designs A, B and C, for benchmarking the store.
func benchPlan(scenarios int) *plan {
	pl := &plan{proto: &Protocol{SHA256: strings.Repeat("0", 64)}, trials: 20, seed: 7,
		builds: []BuildSpec{{Info: reports.BuildInfo{ID: "cl-intake-action-currency", Class: "context_loss", Location: "intake->action"}}}}
	for i := range scenarios {
		pl.scenarios = append(pl.scenarios, &mission.Scenario{ID: "S" + strconv.Itoa(i), Category: "typical"})
	}
	for _, id := range []string{"A", "B", "C"} {
		pl.designs = append(pl.designs, designs.Design{ID: id, Name: id})
	}
	return pl
}

// BenchmarkSweep runs the default protocol (with -sweep.trials trials) end
// to end, from loading to results.json, on the real stack. It reports
// items/s and cpu-ns/item (user+system CPU of the process, steadier than
// wall time on a shared machine). Run sets the collector's target to
// DefaultGCPercent unless GOGC is set, so GOGC compares settings, e.g.
//
//	GOGC=400 go test ./experiment -run '^$' -bench Sweep -benchtime 1x -sweep.trials 20
func BenchmarkSweep(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			st := realStack(b)
			items := 0
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			for range b.N {
				b.StopTimer()
				freshHeap()
				b.StartTimer()
				items += sweepOnce(b, st, workers).Items
			}
			b.ReportMetric(float64(items)/b.Elapsed().Seconds(), "items/s")
			b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(items), "cpu-ns/item")
			b.ReportMetric(float64(items)/float64(b.N), "items/op")
		})
	}
}

// BenchmarkSweepSpeedup measures the 1 → 2 worker speed-up of the same
// sweep as BenchmarkSweep on a machine whose speed drifts over minutes
// (a shared virtual machine): each iteration runs it with 1 and with 2
// workers back to back, in alternating order, each on a new stack and a
// heap handed back to the system (as `baton run` starts), and the speed-up
// reported is the median of the per-pair ratios of wall time, e.g.
//
//	go test ./experiment -run '^$' -bench SweepSpeedup -benchtime 8x -sweep.trials 20
func BenchmarkSweepSpeedup(b *testing.B) {
	run := func(workers int) float64 {
		st := realStack(b)
		freshHeap()
		start := time.Now()
		sweepOnce(b, st, workers)
		return time.Since(start).Seconds()
	}
	var ratios, one, two []float64
	for i := range b.N {
		var w1, w2 float64
		if i%2 == 0 {
			w1, w2 = run(1), run(2)
		} else {
			w2, w1 = run(2), run(1)
		}
		ratios, one, two = append(ratios, w1/w2), append(one, w1), append(two, w2)
	}
	b.ReportMetric(median(ratios), "speedup")
	b.ReportMetric(median(one), "s-workers=1")
	b.ReportMetric(median(two), "s-workers=2")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// sweepOnce runs the default protocol with -sweep.trials trials on st
// into a new run folder.
func sweepOnce(b *testing.B, st *Stack, workers int) *Summary {
	opt := Options{RunDir: filepath.Join(b.TempDir(), "run"), Workers: workers, Trials: *sweepTrials,
		Stack: st, Logger: zerolog.Nop()}
	sum, err := Run(context.Background(), opt)
	if err != nil {
		b.Fatal(err)
	}
	return sum
}

// freshHeap collects and hands the heap's free memory back to the system,
// so that a sweep in a benchmark starts as one in a new process does: the
// pages its heap grows into are new to it, not left by the sweep before.
func freshHeap() {
	runtime.GC()
	debug.FreeOSMemory()
}

// BenchmarkSweepGenerated runs the default protocol over the invoice
// mission's whole generated space (with the catalogue's controls) at 2
// trials a scenario: where the time of a generated-space sweep goes
// (-cpuprofile), per work item as BenchmarkSweep's.
func BenchmarkSweepGenerated(b *testing.B) {
	dir := b.TempDir()
	pf := filepath.Join(dir, "generated.yaml")
	writeFile(b, pf, "name: generated\ntrials: 2\nmutants:\n  space: generated\n")
	st := realStack(b)
	items := 0
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	for i := range b.N {
		opt := Options{ProtocolPath: pf, RunDir: filepath.Join(dir, "run"+strconv.Itoa(i)), Workers: 2, Stack: st, Logger: zerolog.Nop()}
		sum, err := Run(context.Background(), opt)
		finished(b, err)
		items += sum.Items
	}
	b.ReportMetric(float64(items)/b.Elapsed().Seconds(), "items/s")
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(items), "cpu-ns/item")
	b.ReportMetric(float64(items)/float64(b.N), "items/op")
}

// BenchmarkStoreItem measures reading one item back, checked, from a store
// with 20,000 items and 30,000 distinct findings, as replay and the
// report's example items do: the cost should not grow with the store's
// dictionaries, of which an item uses a few rows.
func BenchmarkStoreItem(b *testing.B) {
	pl := benchPlan(250)
	s, err := createStore(filepath.Join(b.TempDir(), StoreFile), pl)
	if err != nil {
		b.Fatal(err)
	}
	defer s.close()
	w := s.startWriter(4000, nil, nil)
	var scratch []byte
	ids := make([]string, pl.total())
	for i := range pl.total() {
		u := pl.unitAt(i / pl.slots())
		design := []string{"", "A", "B", "C"}[i%pl.slots()]
		it := reports.Item{Build: pl.builds[0].Info.ID, Design: design, Scenario: pl.scenarios[u.scenario].ID, Trial: u.trial,
			Seed: uint64(i), Flagged: design != "", Blame: []string{"intake->action"}, Cost: mission.Cost{ToolCalls: 20}}
		r := row{ord: i, id: ItemID(it.Build, design, it.Scenario, it.Trial), item: it}
		if design == "" {
			it.TraceHash, it.EndHash = fmt.Sprintf("%064x", i), fmt.Sprintf("%064x", i%97)
			r.item = it
		} else {
			r.findings = []designs.Finding{
				{Rule: "trajectory.exact", Message: fmt.Sprintf("boundary E1: tool call %d differs from golden", i), Location: "boundary",
					Evidence: designs.Evidence{Run: "core:boundary:E1", Seq: i, Item: "E1"}},
			}
			r.item.Findings = 1
		}
		ids[i] = r.id
		r.seal(u, &scratch)
		w.send([]row{r})
	}
	if err := w.close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		ord := (n * 7919) % len(ids)
		it, err := s.item(ord, ids[ord])
		if err != nil || it == nil {
			b.Fatalf("item %d: %v %v", ord, it, err)
		}
		n++
	}
}
