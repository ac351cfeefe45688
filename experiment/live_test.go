package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/reports"
)

// TestLiveAggregateAnyArrivalOrder feeds a real run's stored items to the
// live aggregation in shuffled batches, mutated items overtaking clean
// ones, and wants the results the read-back in plan order gives.
func TestLiveAggregateAnyArrivalOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real stack")
	}
	st := realStack(t)
	_, dir, err := runProtocol(t, st, smallProtocol, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	pl, _, err := openRun(dir, st)
	if err != nil {
		t.Fatal(err)
	}
	s, err := openStoreIn(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.db.Close()
	back, err := readBack(pl, s, pl.total())
	if err != nil {
		t.Fatal(err)
	}
	var rows []row
	if err := s.stream(func(it reports.Item) error {
		rows = append(rows, row{item: it})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := resultsJSON(t, back)

	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 1))
		shuffled := append([]row(nil), rows...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if seed == 0 { // the worst case: every mutated item first
			shuffled = shuffled[:0]
			for _, clean := range []bool{false, true} {
				for _, r := range rows {
					if (r.item.Build == reports.CleanBuild) == clean {
						shuffled = append(shuffled, r)
					}
				}
			}
		}
		live := newAggregation(pl)
		for len(shuffled) > 0 {
			n := min(len(shuffled), 1+rng.IntN(9))
			live.observe(shuffled[:n])
			shuffled = shuffled[n:]
		}
		if !live.complete(pl.total()) {
			t.Fatalf("seed %d: added %d of %d items, %d waiting", seed, live.added, pl.total(), len(live.early))
		}
		if d := cmp.Diff(want, resultsJSON(t, live)); d != "" {
			t.Errorf("seed %d: live results differ from the read-back (-read back +live):\n%s", seed, d)
		}
		if d := cmp.Diff(back.wall, live.wall); d != "" {
			t.Errorf("seed %d: wall time per design differs:\n%s", seed, d)
		}
	}

	t.Run("incomplete", func(t *testing.T) {
		live := newAggregation(pl)
		live.observe(rows[len(rows)-1:]) // a mutated item, no clean one yet
		if live.complete(1) {
			t.Error("a mutated item waiting for the clean build counts as aggregated")
		}
		live.observe(rows[:len(rows)-1])
		if !live.complete(len(rows)) {
			t.Errorf("after every item: added %d of %d, %d waiting", live.added, len(rows), len(live.early))
		}
	})
}

func resultsJSON(t *testing.T, l *aggregation) string {
	t.Helper()
	b, err := json.MarshalIndent(l.agg.Results(), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInterruptedSweepLeavesNoSpool: the kept lines of a build an
// interrupted sweep never finished are spooled in traces/; the spool goes
// when the sweep stops, and a resume writes the build's file from the
// store.
func TestInterruptedSweepLeavesNoSpool(t *testing.T) {
	dir := t.TempDir()
	pf := filepath.Join(dir, "p.yaml")
	writeFile(t, pf, fakeProtocol)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var spooled atomic.Bool
	st := interrupting(fakeStack(), 60, cancel)
	opt := Options{ProtocolPath: pf, RunDir: filepath.Join(dir, "run"), Workers: 1, Batch: 5, TraceSample: 1,
		Stack: st, Logger: zerolog.Nop(), Progress: func(done, total int) {
			if s, _ := filepath.Glob(filepath.Join(dir, "run", TracesDir, ".*.spool.*")); len(s) > 0 {
				spooled.Store(true)
			}
		}}
	if _, err := Run(ctx, opt); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Run = %v, want context.Canceled", err)
	}
	if !spooled.Load() {
		t.Fatal("no spool seen during the interrupted sweep: the test does not test anything")
	}
	if left, _ := filepath.Glob(filepath.Join(opt.RunDir, TracesDir, ".*")); len(left) > 0 {
		t.Errorf("the interrupted sweep left temporary files: %q", left)
	}
	opt.Resume, opt.Stack, opt.Progress = true, fakeStack(), nil
	_, err := Run(context.Background(), opt)
	finished(t, err)
	_, full, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 1, TraceSample: 1})
	finished(t, err)
	if d := cmp.Diff(traceFiles(t, full), traceFiles(t, opt.RunDir)); d != "" {
		t.Errorf("kept traces differ after resume (-uninterrupted +resumed):\n%s", d)
	}
}
