package distributed

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mission/modelcore"
	"github.com/baton-lab/baton/model"
	"github.com/baton-lab/baton/reports"
)

// scriptedModel serves the invoice mission's player, as `baton model
// serve --mission invoice` does, on a test server whose calls it counts.
func scriptedModel(tb testing.TB, latency time.Duration) (*model.Server, string) {
	tb.Helper()
	m := invoice.New()
	p, err := experiment.MissionProtocol(m)
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := model.NewServer(map[string]model.Player{modelcore.PlayerModel("invoice"): modelcore.NewPlayer(m, p.Profile)})
	if err != nil {
		tb.Fatal(err)
	}
	srv.Latency = latency
	hs := httptest.NewServer(srv)
	tb.Cleanup(hs.Close)
	return srv, hs.URL + "/v1"
}

// modelProtocol is protocol with every core a model at endpoint.
func modelProtocol(protocol, endpoint string) string {
	return protocol + "cores:\n  \"*\":\n    core: model\n    model: invoice-policy\n    endpoint: " + endpoint + "\n"
}

// modelWorkers starts a worker per endpoint ("" the protocol's), each on
// its own connection, until ctx ends; wait waits for them.
func modelWorkers(ctx context.Context, tb testing.TB, js func() jetstream.JetStream, endpoints ...string) (wait func()) {
	tb.Helper()
	var ws []*Worker
	for _, e := range endpoints {
		ws = append(ws, &Worker{JS: js(), Stack: stack(tb), Dir: tb.TempDir(), Models: experiment.JobModels{Endpoint: e}, Logger: zerolog.Nop()})
	}
	return runWorkers(ctx, tb, ws)
}

// calls are the model calls (made or served) and tokens of each design
// in dir/run's manifest: what made and what served depends on the caches.
func calls(tb testing.TB, dir string) map[string]reports.ModelUse {
	tb.Helper()
	man, err := experiment.ReadManifest(filepath.Join(dir, "run"))
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]reports.ModelUse{}
	for d, u := range man.ModelUse {
		out[d] = reports.ModelUse{Served: u.Made + u.Served, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	}
	return out
}

// entries counts the answers of a model cache folder.
func entries(tb testing.TB, dir string) int {
	tb.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(d.Name()) == ".json" {
			n++
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestSharedModelCache: a worker on its own endpoint gives the local
// model-backed run's results.json and pays for each request once; a
// second run's worker, on another endpoint, is answered from the shared
// cache alone, and the coordinator's model-cache/ ends with every answer:
// an offline rerun from it gives the same results.
func TestSharedModelCache(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	proto, protoURL := scriptedModel(t, 0)
	a, aURL := scriptedModel(t, 0)
	b, bURL := scriptedModel(t, 0)
	protocol := modelProtocol(smallProtocol, protoURL)
	localDir := t.TempDir()
	if err := runIn(ctx, t, localDir, protocol, nil, false); err != nil {
		t.Fatal(err)
	}
	paid := proto.Calls()
	if n := entries(t, filepath.Join(localDir, "run", experiment.ModelCacheDir)); paid == 0 || int64(n) != paid {
		t.Fatalf("local run: %d calls, %d cached answers: want as many, more than 0", paid, n)
	}

	js := connect(t)
	runOn := func(endpoint string) string {
		t.Helper()
		wctx, stop := context.WithCancel(ctx)
		wait := modelWorkers(wctx, t, js, endpoint)
		dir := t.TempDir()
		err := runIn(ctx, t, dir, protocol, &Remote{JS: js(), Config: testPolicy, Logger: zerolog.Nop()}, false)
		stop()
		wait()
		if err != nil {
			t.Fatalf("distributed run on %s: %v", endpoint, err)
		}
		sameResults(t, filepath.Join(localDir, "run"), filepath.Join(dir, "run"))
		if n := entries(t, filepath.Join(dir, "run", experiment.ModelCacheDir)); int64(n) != paid {
			t.Errorf("distributed run on %s: %d answers in model-cache/, want %d", endpoint, n, paid)
		}
		if d := cmp.Diff(calls(t, localDir), calls(t, dir)); d != "" {
			t.Errorf("distributed run on %s: model calls by design (-local +distributed):\n%s", endpoint, d)
		}
		return dir
	}
	runOn(aURL)
	if got := a.Calls(); got != paid {
		t.Errorf("first run: its worker's endpoint answered %d calls, want %d (the local run's)", got, paid)
	}
	second := runOn(bURL)
	if got := b.Calls(); got != 0 {
		t.Errorf("second run: its worker's endpoint answered %d calls, want 0 (all in the shared cache)", got)
	}
	if got := proto.Calls(); got != paid {
		t.Errorf("the protocol's endpoint answered %d calls past the local run's %d, want none: the coordinator asks no endpoint", got-paid, paid)
	}

	offDir := t.TempDir()
	pf := filepath.Join(offDir, "p.yaml")
	if err := os.WriteFile(pf, []byte(protocol), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := experiment.Run(ctx, experiment.Options{ProtocolPath: pf, RunDir: filepath.Join(offDir, "run"), Stack: stack(t), Logger: zerolog.Nop(),
		Workers: 1, ModelOffline: true, ModelCache: filepath.Join(second, "run", experiment.ModelCacheDir)})
	if de := (*reports.DiscardedError)(nil); err != nil && !errors.As(err, &de) {
		t.Fatalf("offline rerun from the distributed run's cache: %v", err)
	}
	sameResults(t, filepath.Join(localDir, "run"), filepath.Join(offDir, "run"))
}

// TestModelUnitHeartbeats: units whose model calls take longer than the
// ack wait are kept by InProgress heartbeats: none is delivered twice.
func TestModelUnitHeartbeats(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// A heartbeat every third of the ack wait leaves two thirds of it
	// (667 ms) for a late one: at 300 ms of ack wait, a busy machine (load
	// 10) once made one late enough for a redelivery.
	const latency, ackWait = 300 * time.Millisecond, time.Second
	const protocol = "name: slow\ntrials: 1\nseed: 3\nscenarios:\n  ids: [S01]\nmutants:\n  ids: [ctl-boundary-payment-currency]\n"
	srv, url := scriptedModel(t, latency)
	js := connect(t)
	wctx, stop := context.WithCancel(ctx)
	wait := modelWorkers(wctx, t, js, "", "")
	remote := &Remote{JS: js(), Config: Config{AckWait: ackWait, MaxDeliver: 5}, Logger: zerolog.Nop()}
	err := runIn(ctx, t, t.TempDir(), modelProtocol(protocol, url), remote, false)
	stop()
	wait()
	if err != nil {
		t.Fatal(err)
	}
	st := remote.Stats()
	// 2 units: one of them made at least half the calls, each waiting
	// the latency, so it ran longer than the ack wait.
	if calls := srv.Calls(); time.Duration(calls/2)*latency <= ackWait {
		t.Fatalf("%d model calls of %s: too few to outlast the ack wait of %s", calls, latency, ackWait)
	}
	if st.Units != 2 || st.Redelivered != 0 || st.Duplicates != 0 {
		t.Errorf("stats %+v: want 2 units, each delivered once", st)
	}
}

// TestUnboundModelCores: a job with model cores opened but not bound to
// an endpoint executes no unit (it never falls back to the mission's
// policy cores): every unit is an infrastructure failure saying why.
func TestUnboundModelCores(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const protocol = "name: unbound\ntrials: 1\nseed: 3\nscenarios:\n  ids: [S01]\nmutants:\n  ids: [ctl-boundary-payment-currency]\n"
	_, url := scriptedModel(t, 0)
	js := connect(t)
	open := func(st *experiment.Stack) func(context.Context, string, *experiment.Job, func(context.Context, experiment.JobFile) ([]byte, error)) (Executor, error) {
		return func(ctx context.Context, dir string, job *experiment.Job, fetch func(context.Context, experiment.JobFile) ([]byte, error)) (Executor, error) {
			return st.OpenJob(ctx, dir, job, fetch)
		}
	}
	wctx, stop := context.WithCancel(ctx)
	wait := startWorkers(wctx, t, js, 1, open)
	err := runIn(ctx, t, t.TempDir(), modelProtocol(protocol, url), &Remote{JS: js(), Config: Config{AckWait: time.Second, MaxDeliver: 1}, Logger: zerolog.Nop()}, false)
	stop()
	wait()
	var ie *experiment.IncompleteError
	if !errors.As(err, &ie) || ie.Units != 2 {
		t.Fatalf("Run = %v, want an *experiment.IncompleteError of 2 units", err)
	}
}
