package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/model"
)

// endpoint is a scripted model server playing the invoice mission's
// policy cores, as `baton model serve --mission invoice` does.
type endpoint struct {
	srv *model.Server
	url string
	// key, when set, is the bearer key every request must carry;
	// refused counts the requests that did not.
	key     string
	refused atomic.Int64
	// hold, when not nil, holds every chat request until it is closed
	// or the request is given up; held is closed at the first.
	hold, held chan struct{}
	once       sync.Once
}

func newEndpoint(tb testing.TB, key string, hold bool) *endpoint {
	tb.Helper()
	players, err := servedPlayers("invoice", "")
	if err != nil {
		tb.Fatal(err)
	}
	e := &endpoint{key: key}
	if e.srv, err = model.NewServer(players); err != nil {
		tb.Fatal(err)
	}
	if hold {
		e.hold, e.held = make(chan struct{}), make(chan struct{})
	}
	hs := httptest.NewServer(e)
	tb.Cleanup(func() {
		if e.hold != nil {
			close(e.hold)
		}
		hs.Close()
	})
	e.url = hs.URL + "/v1"
	return e
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if e.key != "" && r.Header.Get("Authorization") != "Bearer "+e.key {
		e.refused.Add(1)
		http.Error(w, `{"error":{"message":"bad key","type":"invalid_request_error"}}`, http.StatusUnauthorized)
		return
	}
	if e.hold != nil && strings.HasSuffix(r.URL.Path, "/chat/completions") {
		e.once.Do(func() { close(e.held) })
		select {
		case <-e.hold:
		case <-r.Context().Done():
			return
		}
	}
	e.srv.ServeHTTP(w, r)
}

// TestModelWorkerProcesses: three "baton worker" processes play a
// model-backed protocol, one of them killed -9 while its endpoint holds
// a model call, and give the local run's results.json byte for byte:
// one worker on its own endpoint with its own API key, one on the
// protocol's endpoint. The coordinator's model-cache/ ends with every
// answer, and the key is in no log, run folder, worker folder or stream.
func TestModelWorkerProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const secret = "sk-test-9f8e7d6c5b4a"
	proto, own, held := newEndpoint(t, "", false), newEndpoint(t, secret, false), newEndpoint(t, "", true)
	protocol := distProtocol + "cores:\n  \"*\":\n    core: model\n    model: invoice-policy\n    endpoint: " + proto.url + "\n"
	localDir := t.TempDir()
	if err := runProtocol(ctx, t, localDir, protocol, nil); err != nil {
		t.Fatal(err)
	}
	paid := proto.srv.Calls()

	distDir := t.TempDir()
	c := startCoordinator(ctx, t, distDir, protocol)
	var logs [3]bytes.Buffer
	dirs := [3]string{t.TempDir(), t.TempDir(), t.TempDir()}
	killed := workerProcess(ctx, t, &logs[0], []string{c.env}, "--model-endpoint", held.url, "--dir", dirs[0])
	select {
	case <-held.held: // it holds a unit, mid-call
	case <-ctx.Done():
		t.Fatal("the worker to kill never called its endpoint")
	}
	workers := []*exec.Cmd{
		workerProcess(ctx, t, &logs[1], []string{c.env, modelEndpointEnv + "=" + own.url, modelKeyEnv + "=" + secret}, "--log-level", "debug", "--dir", dirs[1]),
		workerProcess(ctx, t, &logs[2], []string{c.env, modelEndpointEnv + "=", modelKeyEnv + "="}, "--log-level", "debug", "--dir", dirs[2]),
	}
	st := c.finish(t, killed, workers, localDir)
	t.Logf("stats %+v; calls: protocol's endpoint %d (local run %d), own endpoint %d", st, proto.srv.Calls(), paid, own.srv.Calls())
	if own.srv.Calls() == 0 || own.refused.Load() != 0 {
		t.Errorf("own endpoint: %d calls, %d refused: want calls, each with the worker's key", own.srv.Calls(), own.refused.Load())
	}
	if n, want := countFiles(t, filepath.Join(distDir, "run", experiment.ModelCacheDir)), countFiles(t, filepath.Join(localDir, "run", experiment.ModelCacheDir)); n != want {
		t.Errorf("the coordinator's model-cache/ holds %d answers, the local run's %d", n, want)
	}
	// The manifest names the endpoints the workers asked, without
	// credentials.
	var man experiment.Manifest
	if err := json.Unmarshal(readAll(t, filepath.Join(distDir, "run", "manifest.json")), &man); err != nil {
		t.Fatal(err)
	}
	for _, mp := range man.Models {
		if !slices.Contains(mp.WorkerEndpoints, own.url) || !slices.Contains(mp.WorkerEndpoints, proto.url) {
			t.Errorf("agent %s: worker endpoints %v, want %s and %s among them", mp.Agent, mp.WorkerEndpoints, own.url, proto.url)
		}
	}

	// The run folder holds every answer: a replay (offline) matches.
	out, err := exec.CommandContext(ctx, "baton", "replay", filepath.Join(distDir, "run"), "cl-intake-action-currency/C/S14/2").CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte(`"match": true`)) {
		t.Errorf("replay of the distributed run: %v\n%s", err, out)
	}
	for i := range logs {
		if bytes.Contains(logs[i].Bytes(), []byte(secret)) {
			t.Errorf("worker %d's log holds the API key", i)
		}
	}
	for _, dir := range []string{distDir, dirs[0], dirs[1], dirs[2], c.store} {
		noSecret(t, dir, secret)
	}
}

// countFiles counts the files under dir.
func countFiles(tb testing.TB, dir string) int {
	tb.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// noSecret fails if a file under dir holds secret.
func noSecret(tb testing.TB, dir, secret string) {
	tb.Helper()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(secret)) {
			tb.Errorf("%s holds the API key", path)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}
