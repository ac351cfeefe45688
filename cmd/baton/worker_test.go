package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/distributed"
	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/reports"
)

// stallWorker is a worker process that takes one unit, says so on stdout
// and never finishes it: the test kills it mid-unit.
func stallWorker() {
	conn, err := distributed.Connect(os.Getenv(natsEnv), "stalled worker")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := &distributed.Worker{JS: conn.JS, Dir: os.TempDir(), Logger: zerolog.Nop(),
		Open: func(context.Context, string, *experiment.Job, func(context.Context, experiment.JobFile) ([]byte, error)) (distributed.Executor, error) {
			return stall{}, nil
		}}
	_ = w.Run(context.Background())
}

type stall struct{}

func (stall) Execute(ctx context.Context, unit string) ([]byte, error) {
	fmt.Println("holding " + unit)
	<-ctx.Done()
	return nil, ctx.Err()
}

const distProtocol = `name: dist
trials: 3
seed: 3
scenarios:
  ids: [S01, S14, S25]
mutants:
  ids: [ctl-boundary-payment-currency, cl-intake-action-currency, da-boundary-payment-fresh-key]
`

// runDist runs distProtocol in dir with remote (nil: locally).
func runDist(ctx context.Context, tb testing.TB, dir string, remote experiment.Remote) error {
	tb.Helper()
	return runProtocol(ctx, tb, dir, distProtocol, remote)
}

// runProtocol runs protocol in dir with remote (nil: locally).
func runProtocol(ctx context.Context, tb testing.TB, dir, protocol string, remote experiment.Remote) error {
	tb.Helper()
	reg, err := missions()
	if err != nil {
		tb.Fatal(err)
	}
	pf := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(pf, []byte(protocol), 0o644); err != nil {
		tb.Fatal(err)
	}
	_, err = experiment.Run(ctx, experiment.Options{ProtocolPath: pf, RunDir: filepath.Join(dir, "run"), Missions: reg,
		Logger: zerolog.Nop(), Workers: 1, Remote: remote})
	if errors.Is(err, reports.ErrDiscarded) {
		err = nil
	}
	return err
}

// TestWorkerProcessKilled: three worker processes on an embedded server,
// one killed -9 mid-sweep while it holds a unit, give the local run's
// results.json byte for byte: the killed worker's unit is delivered
// again to one of the two "baton worker"s.
func TestWorkerProcessKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	localDir := t.TempDir()
	if err := runDist(ctx, t, localDir, nil); err != nil {
		t.Fatal(err)
	}
	c := startCoordinator(ctx, t, t.TempDir(), distProtocol)
	stalled := exec.CommandContext(ctx, "stall")
	stalled.Env = append(os.Environ(), c.env)
	out, err := stalled.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := stalled.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "holding ") {
		t.Fatalf("stalled worker said %q (%v), want the unit it holds", line, err)
	}
	var workers []*exec.Cmd
	for range 2 {
		workers = append(workers, workerProcess(ctx, t, os.Stderr, []string{c.env}, "--quiet"))
	}
	// Mid-sweep: the two others are at work.
	st := c.finish(t, stalled, workers, localDir)
	t.Logf("killed the worker holding %s; stats %+v", strings.TrimSpace(strings.TrimPrefix(line, "holding ")), st)
}

// coordinator is a distributed run on an embedded server, in this
// process, under way.
type coordinator struct {
	dir    string // the run's folder: dir/run
	store  string // the server's store
	env    string // the server's URL, as a worker's environment has it
	remote *distributed.Remote
	ran    chan error
}

// startCoordinator starts protocol's distributed run in dir on a new
// embedded server storing in a folder of the test's, and waits until
// it has published its units.
func startCoordinator(ctx context.Context, tb testing.TB, dir, protocol string) *coordinator {
	tb.Helper()
	store := tb.TempDir()
	srv, err := distributed.StartEmbedded(store)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(srv.Close)
	conn, err := distributed.Connect(srv.URL(), "test coordinator")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(conn.Close)
	c := &coordinator{dir: dir, store: store, env: natsEnv + "=" + srv.URL(), ran: make(chan error, 1),
		remote: &distributed.Remote{JS: conn.JS, Config: distributed.Config{AckWait: time.Second, MaxDeliver: 5}, Logger: zerolog.Nop()}}
	go func() { c.ran <- runProtocol(ctx, tb, dir, protocol, c.remote) }()
	waitForUnits(ctx, tb, conn.JS)
	return c
}

// finish kills killed (-9), waits for the run, stops workers, and fails
// unless the run's results.json is the local run's in localDir byte for
// byte, the killed worker's unit redelivered and none given up.
func (c *coordinator) finish(tb testing.TB, killed *exec.Cmd, workers []*exec.Cmd, localDir string) distributed.Stats {
	tb.Helper()
	if err := killed.Process.Kill(); err != nil {
		tb.Fatal(err)
	}
	_ = killed.Wait()
	err := <-c.ran
	for _, w := range workers {
		_ = w.Process.Signal(os.Interrupt)
		if werr := w.Wait(); werr != nil {
			tb.Errorf("worker process: %v", werr)
		}
	}
	if err != nil {
		tb.Fatalf("distributed run: %v", err)
	}
	local := readAll(tb, filepath.Join(localDir, "run", experiment.ResultsFile))
	dist := readAll(tb, filepath.Join(c.dir, "run", experiment.ResultsFile))
	if !bytes.Equal(local, dist) {
		tb.Errorf("results.json differs between the local and the distributed run:\n%s", cmp.Diff(string(local), string(dist)))
	}
	st := c.remote.Stats()
	if st.Redelivered < 1 || st.GivenUp != 0 {
		tb.Errorf("stats %+v: want the killed worker's unit redelivered, none given up", st)
	}
	return st
}

// workerProcess starts "baton worker" with env added to the test's.
func workerProcess(ctx context.Context, tb testing.TB, stderr io.Writer, env []string, args ...string) *exec.Cmd {
	tb.Helper()
	w := exec.CommandContext(ctx, "baton", append([]string{"worker"}, args...)...)
	w.Env = append(os.Environ(), env...)
	w.Stderr = stderr
	w.Cancel = func() error { return w.Process.Signal(os.Interrupt) }
	if err := w.Start(); err != nil {
		tb.Fatal(err)
	}
	return w
}

// waitForUnits waits until the coordinator has published units.
func waitForUnits(ctx context.Context, tb testing.TB, js jetstream.JetStream) {
	tb.Helper()
	for {
		if s, err := js.Stream(ctx, distributed.UnitStream); err == nil {
			if info, err := s.Info(ctx); err == nil && info.State.Msgs > 0 {
				return
			}
		}
		select {
		case <-ctx.Done():
			tb.Fatal("the coordinator published no units")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func readAll(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
