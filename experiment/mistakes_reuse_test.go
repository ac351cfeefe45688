package experiment

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/reports"
)

// slipProtocol is the small protocol with agents that slip often, so
// that misroutes and wrong decisions are counted.
const slipProtocol = smallProtocol + `profile:
  intake: {misclassify: 0.3, misread: 0.3, misroute: 0.3}
  action: {misroute: 0.3}
  boundary: {skip_lookup: 0.3, misroute: 0.3}
`

// noted is what a run's debug log says the mistakes took from the
// sweep's clean runs.
type noted struct {
	Runs  int `json:"integrated_runs"`
	Cores int `json:"core_runs"`
	Left  int `json:"core_runs_left"`
}

// notedIn reads the mistakes' debug line from a run's JSON log.
func notedIn(tb testing.TB, log *bytes.Buffer) noted {
	tb.Helper()
	sc := bufio.NewScanner(log)
	for sc.Scan() {
		var line struct {
			Msg string `json:"message"`
			noted
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err == nil && line.Msg == "mistakes counted on the sweep's clean runs" {
			return line.noted
		}
	}
	tb.Fatal("no debug line on the mistakes counted in the log")
	return noted{}
}

// TestMistakesFromTheSweep: the mistakes a run reports, counted on the
// clean runs its sweep executed where it holds them, are every field those
// counted by executing every run again (a plan whose sweep ran nothing):
// fresh at one and three workers, resumed (the clean units stored before
// executed again), distributed with selection (the coordinator executes
// the clean units) and without (the workers do, and none is held here).
func TestMistakesFromTheSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the small protocol five times")
	}
	st := realStack(t)
	pl := preparedPlan(t, slipProtocol)
	counts, err := pl.observeMistakes(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	want := &reports.Results{}
	want.SetMistakes(counts, pl.configuredSlips())
	kinds := map[string]int{}
	for _, c := range counts {
		kinds[c.Mistake] += c.Count
	}
	if kinds[mistakeMisroute] == 0 || kinds["wrong classify"] == 0 {
		t.Fatalf("mistakes counted %v: want misroutes and wrong decisions, or the comparison shows little", kinds)
	}
	units := len(pl.scenarios) * pl.trials

	for _, tc := range []struct {
		name     string
		protocol string
		opt      func(t *testing.T) Options
		runs     func(n int) bool // the integrated runs taken from the sweep
	}{
		{"fresh, 1 worker", slipProtocol, func(*testing.T) Options { return Options{Workers: 1} }, func(n int) bool { return n == units }},
		{"fresh, 3 workers", slipProtocol, func(*testing.T) Options { return Options{Workers: 3} }, func(n int) bool { return n == units }},
		{"resumed", slipProtocol, func(t *testing.T) Options {
			// The clean build is 8 units of 3 design items: half of them.
			return interruptedRun(t, st, slipProtocol, 1, 5, 12)
		}, func(n int) bool { return n > 0 && n < units }},
		{"distributed", slipProtocol, func(t *testing.T) Options {
			return Options{Remote: &loopRemote{st: st, workers: 2, dir: t.TempDir()}}
		}, func(n int) bool { return n == units }},
		{"distributed, selection off", slipProtocol + "selection: off\n", func(t *testing.T) Options {
			return Options{Remote: &loopRemote{st: st, workers: 2, dir: t.TempDir()}}
		}, func(n int) bool { return n == 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt(t)
			if opt.RunDir == "" {
				dir := t.TempDir()
				opt.ProtocolPath, opt.RunDir = filepath.Join(dir, "p.yaml"), filepath.Join(dir, "run")
				writeFile(t, opt.ProtocolPath, tc.protocol)
			}
			var log bytes.Buffer
			opt.Stack, opt.Logger = st, zerolog.New(&log).Level(zerolog.DebugLevel)
			sum, err := Run(context.Background(), opt)
			finished(t, err)
			n := notedIn(t, &log)
			if !tc.runs(n.Runs) || n.Runs > 0 && n.Cores == 0 {
				t.Errorf("taken from the sweep: %+v of %d clean units", n, units)
			}
			if d := cmp.Diff(want.Mistakes, sum.Results.Mistakes); d != "" {
				t.Errorf("mistakes (-every run executed again +from the sweep):\n%s", d)
			}
		})
	}
}
