package experiment

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// preparedPlan is the plan of a protocol on the real stack, its goldens
// recorded.
func preparedPlan(tb testing.TB, protocol string) *plan {
	tb.Helper()
	p, err := ParseProtocol([]byte(protocol), "p.yaml", "", testMissions())
	if err != nil {
		tb.Fatal(err)
	}
	pl, err := resolve(p, realStack(tb), p.Path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := pl.prepare(); err != nil {
		tb.Fatal(err)
	}
	return pl
}

// mistakesPlan is the default protocol's plan at the given trials.
func mistakesPlan(tb testing.TB, trials int) *plan {
	tb.Helper()
	return preparedPlan(tb, fmt.Sprintf("name: mistakes\ntrials: %d\n", trials))
}

// TestMistakesWhateverTheWorkers: the mistakes observed are the same
// counted by one goroutine or shared among several, and some are counted.
func TestMistakesWhateverTheWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real stack")
	}
	pl := mistakesPlan(t, 3)
	want, err := pl.observeMistakes(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	counted := 0
	for _, c := range want {
		counted += c.Count
	}
	if counted == 0 {
		t.Fatal("no mistake counted: the comparison shows nothing")
	}
	for _, workers := range []int{2, 3, 1000} {
		got, err := pl.observeMistakes(context.Background(), workers)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%d workers (-1 worker +%d):\n%s", workers, workers, d)
		}
	}
}

// TestMistakesCancelled: a cancelled observation returns its error, not
// counts of the trials it reached.
func TestMistakesCancelled(t *testing.T) {
	pl := mistakesPlan(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if counts, err := pl.observeMistakes(ctx, 2); err == nil {
		t.Errorf("cancelled: %d counts and no error", len(counts))
	}
}

// BenchmarkObserveMistakes measures the end of a run's mistake
// observation on the default protocol at 20 trials, by one goroutine and
// shared between two (the sweep's workers, idle by then).
func BenchmarkObserveMistakes(b *testing.B) {
	pl := mistakesPlan(b, 20)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := pl.observeMistakes(context.Background(), workers); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
