package distributed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/reports"
)

// TestMain fails the tests when a goroutine outlives them by more than
// leakGrace. nats.go ends a JetStream publisher's reconnect watcher
// (resetPendingAcksOnReconnect) only when the closed connection's status
// reaches it, which under load took longer than goleak's own retries
// (about half a second): a goroutine still there after leakGrace is a leak.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if err := findLeaks(leakGrace); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// findLeaks waits for a goroutine that ends late, and reports one that
// does not end.
func TestFindLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	release := make(chan struct{})
	go func() { <-release }()
	if err := findLeaks(300*time.Millisecond, ignore); err == nil {
		t.Fatal("a goroutine blocked for good: no leak reported")
	}
	go func() { time.Sleep(time.Second); close(release) }()
	if err := findLeaks(leakGrace, ignore); err != nil {
		t.Fatalf("goroutines that ended within the grace reported: %v", err)
	}
}

// leakGrace is how long the goroutines a test started have to end.
const leakGrace = 10 * time.Second

// findLeaks returns goleak's report of the goroutines still running after
// grace, nil when they all ended before.
func findLeaks(grace time.Duration, opts ...goleak.Option) error {
	deadline := time.Now().Add(grace)
	for {
		err := goleak.Find(opts...)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// smallProtocol runs the invoice mission on a few scenarios and mutants.
const smallProtocol = `name: small
trials: 2
seed: 3
scenarios:
  ids: [S01, S14, S25]
mutants:
  ids: [ctl-boundary-payment-currency, cl-intake-action-currency]
`

// everyUnit is smallProtocol with every unit handed out: without
// selection, the coordinator executes no clean unit itself.
const everyUnit = smallProtocol + "selection: off\n"

// testPolicy redelivers fast, so a killed worker's unit comes back soon.
var testPolicy = Config{AckWait: time.Second, MaxDeliver: 3}

func stack(tb testing.TB) *experiment.Stack {
	tb.Helper()
	reg, err := mission.NewRegistry(invoice.New())
	if err != nil {
		tb.Fatal(err)
	}
	return experiment.NewStack(reg)
}

// run runs smallProtocol in a new folder with remote (nil: locally).
func run(ctx context.Context, tb testing.TB, remote experiment.Remote) (string, error) {
	tb.Helper()
	dir := tb.TempDir()
	return filepath.Join(dir, "run"), runIn(ctx, tb, dir, smallProtocol, remote, false)
}

// runIn runs protocol in dir/run, or resumes it there.
func runIn(ctx context.Context, tb testing.TB, dir, protocol string, remote experiment.Remote, resume bool) error {
	tb.Helper()
	pf := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(pf, []byte(protocol), 0o644); err != nil {
		tb.Fatal(err)
	}
	opt := experiment.Options{ProtocolPath: pf, RunDir: filepath.Join(dir, "run"), Stack: stack(tb), Logger: zerolog.Nop(), Workers: 1, Remote: remote, Resume: resume}
	_, err := experiment.Run(ctx, opt)
	var de *reports.DiscardedError
	if errors.As(err, &de) {
		err = nil // a verdict, not a failure of the sweep
	}
	return err
}

// connect starts an embedded server and returns a connection maker.
func connect(tb testing.TB) func() jetstream.JetStream {
	tb.Helper()
	srv, err := StartEmbedded(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	var mu sync.Mutex
	var conns []*nats.Conn
	tb.Cleanup(func() {
		for _, nc := range conns {
			nc.Close()
		}
		srv.Close()
	})
	return func() jetstream.JetStream {
		nc, err := nats.Connect(srv.URL())
		if err != nil {
			tb.Fatal(err)
		}
		mu.Lock()
		conns = append(conns, nc)
		mu.Unlock()
		js, err := jetstream.New(nc)
		if err != nil {
			tb.Fatal(err)
		}
		return js
	}
}

// startWorkers starts n workers, each on its own connection, until ctx
// ends; wait waits for them.
func startWorkers(ctx context.Context, tb testing.TB, js func() jetstream.JetStream, n int, open func(*experiment.Stack) func(context.Context, string, *experiment.Job, func(context.Context, experiment.JobFile) ([]byte, error)) (Executor, error)) (wait func()) {
	tb.Helper()
	var ws []*Worker
	for range n {
		st := stack(tb)
		w := &Worker{JS: js(), Stack: st, Dir: tb.TempDir(), Logger: zerolog.Nop()}
		if open != nil {
			w.Open = open(st)
		}
		ws = append(ws, w)
	}
	return runWorkers(ctx, tb, ws)
}

// runWorkers runs ws until ctx ends; wait waits for them.
func runWorkers(ctx context.Context, tb testing.TB, ws []*Worker) (wait func()) {
	tb.Helper()
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(ctx); err != nil {
				tb.Errorf("worker: %v", err)
			}
		}()
	}
	return wg.Wait
}

// TestSweepMatchesLocal: two workers, after a third took a unit and died
// with it, give the local run's results.json byte for byte.
func TestSweepMatchesLocal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	localDir, err := run(ctx, t, nil)
	if err != nil {
		t.Fatal(err)
	}
	js := connect(t)

	// The killed worker: it takes the first unit and its connection
	// closes before it answers.
	killerJS := js()
	sh, err := setup(ctx, killerJS, &testPolicy)
	if err != nil {
		t.Fatal(err)
	}
	killed := make(chan string, 1)
	go func() {
		defer killerJS.Conn().Close()
		m, err := sh.units.Next(jetstream.FetchMaxWait(time.Minute))
		if err != nil {
			t.Errorf("killed worker: %v", err)
			killed <- ""
			return
		}
		killed <- string(m.Data())
	}()

	remote := &Remote{JS: js(), Config: testPolicy, Logger: zerolog.Nop()}
	type outcome struct {
		dir string
		err error
	}
	ran := make(chan outcome, 1)
	go func() {
		dir, err := run(ctx, t, remote)
		ran <- outcome{dir, err}
	}()
	unit := <-killed
	wctx, stop := context.WithCancel(ctx)
	wait := startWorkers(wctx, t, js, 2, nil)
	o := <-ran
	stop()
	wait()
	if o.err != nil {
		t.Fatalf("distributed run: %v", o.err)
	}
	sameResults(t, localDir, o.dir)
	sameSelection(t, localDir, o.dir)
	st := remote.Stats()
	t.Logf("killed worker took unit %s; stats %+v", unit, st)
	if unit == "" || st.Redelivered < 1 || st.Answers < st.Units || st.GivenUp != 0 {
		t.Errorf("stats %+v: want every unit answered, the killed worker's unit %q redelivered, none given up", st, unit)
	}
}

// failing fails one unit on every delivery.
type failing struct {
	Executor
	unit string
}

func (f failing) Execute(ctx context.Context, unit string) ([]byte, error) {
	if unit == f.unit {
		return nil, errors.New("disk full\nstack trace")
	}
	return f.Executor.Execute(ctx, unit)
}

// TestPoisonedUnit: a unit that fails on every delivery is given up after
// MaxDeliver and reported as an infrastructure failure; the run completes
// every other item and says it is incomplete.
func TestPoisonedUnit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	js := connect(t)
	policy := Config{AckWait: time.Second, MaxDeliver: 2}
	remote := &Remote{JS: js(), Config: policy, Logger: zerolog.Nop()}
	const poisoned = "clean/S14/2"
	open := func(st *experiment.Stack) func(context.Context, string, *experiment.Job, func(context.Context, experiment.JobFile) ([]byte, error)) (Executor, error) {
		return func(ctx context.Context, dir string, job *experiment.Job, fetch func(context.Context, experiment.JobFile) ([]byte, error)) (Executor, error) {
			r, err := st.OpenJob(ctx, dir, job, fetch)
			if err != nil {
				return nil, err
			}
			return failing{r, poisoned}, nil
		}
	}
	wctx, stop := context.WithCancel(ctx)
	wait := startWorkers(wctx, t, js, 2, open)
	parent := t.TempDir()
	err := runIn(ctx, t, parent, everyUnit, remote, false)
	dir := filepath.Join(parent, "run")
	stop()
	wait()
	var ie *experiment.IncompleteError
	if !errors.As(err, &ie) || ie.Units != 1 {
		t.Fatalf("Run = %v, want an *experiment.IncompleteError of 1 unit", err)
	}
	var res struct {
		Infrastructure []reports.InfraFailure `json:"infrastructure_failures"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, experiment.ResultsFile)), &res); err != nil {
		t.Fatal(err)
	}
	want := []reports.InfraFailure{{Unit: poisoned, Build: "clean", Scenario: "S14", Trial: 2, Items: ie.Items, Deliveries: 2, Reason: "disk full"}}
	if d := cmp.Diff(want, res.Infrastructure); d != "" {
		t.Errorf("infrastructure_failures (-want +got):\n%s", d)
	}
	// The advisory may overtake the second attempt's failure note.
	if st := remote.Stats(); st.GivenUp != 1 || st.Failures < 1 {
		t.Errorf("stats %+v: want 1 unit given up after failed attempts", st)
	}
}

// sameResults fails unless the run folders' results.json are equal byte
// for byte.
func sameResults(tb testing.TB, localDir, distDir string) {
	tb.Helper()
	local, dist := readFile(tb, filepath.Join(localDir, experiment.ResultsFile)), readFile(tb, filepath.Join(distDir, experiment.ResultsFile))
	if !bytes.Equal(local, dist) {
		tb.Errorf("results.json differs between the local and the distributed run (-local +distributed):\n%s", cmp.Diff(string(local), string(dist)))
	}
}

// sameSelection compares the manifests' selection blocks: what was
// executed and taken is the local run's, and the workers, which hold no
// twin's runs, executed the runs the local run served from twins too.
func sameSelection(tb testing.TB, localDir, distDir string) {
	tb.Helper()
	local, err := experiment.ReadManifest(localDir)
	if err != nil {
		tb.Fatal(err)
	}
	dist, err := experiment.ReadManifest(distDir)
	if err != nil {
		tb.Fatal(err)
	}
	if local.Selection == nil || dist.Selection == nil || local.Selection.RunsExecuted == 0 {
		tb.Fatalf("selection: local %+v, distributed %+v; want both, with runs executed", local.Selection, dist.Selection)
	}
	want := *local.Selection
	want.RunsExecuted, want.RunsServed, want.RunsFromTrials = want.RunsExecuted+want.RunsServed+want.RunsFromTrials, 0, 0
	want.Note = dist.Selection.Note
	if d := cmp.Diff(want, *dist.Selection); d != "" {
		tb.Errorf("manifest selection (-local, its served runs executed +distributed):\n%s", d)
	}
}

func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestCoordinatorRestart: a coordinator stopped after publishing its
// units, while workers answer them with nobody listening, is resumed: the
// new session, with no worker left, takes the answers the stream kept
// and ends with the local run's results.json.
func TestCoordinatorRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	local := t.TempDir()
	if err := runIn(ctx, t, local, everyUnit, nil, false); err != nil {
		t.Fatal(err)
	}
	localDir := filepath.Join(local, "run")
	js := connect(t)
	probe := js()
	cctx, stopCoordinator := context.WithCancel(ctx)
	dir := t.TempDir()
	ran := make(chan error, 1)
	go func() {
		ran <- runIn(cctx, t, dir, everyUnit, &Remote{JS: js(), Config: testPolicy, Logger: zerolog.Nop()}, false)
	}()
	const units = 18 // 3 builds x 3 scenarios x 2 trials
	waitFor(ctx, t, probe, UnitStream, units)
	stopCoordinator()
	var ie *experiment.InterruptedError
	if err := <-ran; !errors.As(err, &ie) {
		t.Fatalf("stopped coordinator: Run = %v, want interrupted", err)
	}
	wctx, stop := context.WithCancel(ctx)
	wait := startWorkers(wctx, t, js, 2, nil)
	waitFor(ctx, t, probe, ResultStream, units)
	stop() // the resumed coordinator has only the kept answers
	wait()

	remote := &Remote{JS: js(), Config: testPolicy, Logger: zerolog.Nop()}
	if err := runIn(ctx, t, dir, everyUnit, remote, true); err != nil {
		t.Fatalf("resumed coordinator: %v", err)
	}
	sameResults(t, localDir, filepath.Join(dir, "run"))
	if st := remote.Stats(); st.Answers < units {
		t.Errorf("stats %+v: want the %d answers the stream kept", st, units)
	}
}

// waitFor waits until stream holds n messages.
func waitFor(ctx context.Context, tb testing.TB, js jetstream.JetStream, stream string, n uint64) {
	tb.Helper()
	for {
		s, err := js.Stream(ctx, stream)
		if err == nil {
			if info, err := s.Info(ctx); err == nil && info.State.Msgs >= n {
				return
			}
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("stream %s never held %d messages", stream, n)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
