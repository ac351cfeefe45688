package modelcore_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mission/modelcore"
	"github.com/baton-lab/baton/model"
)

// handlerTransport serves requests with a handler in process: no socket.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// recorder is a Chatter that keeps every request it passes on.
type recorder struct {
	next model.Chatter
	mu   sync.Mutex
	reqs []model.Request
}

func (r *recorder) Chat(ctx context.Context, req model.Request) (model.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.next.Chat(ctx, req)
}

// benchMission is the invoice mission, one scenario and the player of
// its policies with the default protocol's slips.
type benchMission struct {
	m      mission.Mission
	sc     *mission.Scenario
	player *modelcore.Player
	env    mission.Env
}

func newBenchMission(tb testing.TB) *benchMission {
	tb.Helper()
	m := invoice.New()
	scs, _, err := m.Scenarios()
	if err != nil {
		tb.Fatal(err)
	}
	prof := mission.Profile{invoice.Intake: {invoice.Misread: 0.001}}
	return &benchMission{m: m, sc: scs[0], player: modelcore.NewPlayer(m, prof), env: mission.Env{Profile: prof}}
}

// cores returns env with every core a model asking chat.
func (bm *benchMission) cores(tb testing.TB, chat model.Chatter) mission.Env {
	tb.Helper()
	env := bm.env
	env.Cores = map[mission.Agent]mission.Core{}
	for _, a := range bm.m.Spec().AgentNames() {
		c, err := modelcore.New(bm.m.Spec(), modelcore.Config{Agent: a, Instructions: "play " + string(a), Chat: chat, Model: "p"})
		if err != nil {
			tb.Fatal(err)
		}
		env.Cores[a] = c
	}
	return env
}

// run runs the scenario once and returns its model calls.
func (bm *benchMission) run(tb testing.TB, env mission.Env) int64 {
	u := &modelcore.Use{}
	if _, err := bm.m.Run(modelcore.WithUse(context.Background(), u), mission.Clean(), bm.sc, 1, env); err != nil {
		tb.Fatal(err)
	}
	return u.Counts().Made + u.Counts().Served
}

func (bm *benchMission) inproc(tb testing.TB) *model.Client {
	tb.Helper()
	srv, err := model.NewServer(map[string]model.Player{"p": bm.player})
	if err != nil {
		tb.Fatal(err)
	}
	c, err := model.NewClient(model.Config{BaseURL: "http://inproc/v1", Model: "p"},
		model.WithHTTPClient(&http.Client{Transport: handlerTransport{srv}}))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	return c
}

// BenchmarkMissionModelCall is the cost of one model call in a mission
// run (the invoice mission's first scenario, every core a model played by
// the scripted mission player): ns/call is the run's time over its model
// calls. The harness's own overhead per call is a case's ns/call less
// "player=alone" (the scripted model's share: it replays the policy on
// the conversation) and less "cores=policy" (the mission's own work, as
// ns per call of the model run).
func BenchmarkMissionModelCall(b *testing.B) {
	bm := newBenchMission(b)
	perCall := func(b *testing.B, env mission.Env) {
		calls := bm.run(b, env)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			bm.run(b, env)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*calls), "ns/call")
		b.ReportMetric(float64(calls), "calls/run")
	}
	rec := &recorder{next: direct{bm.player}}
	calls := bm.run(b, bm.cores(b, rec))

	b.Run("cores=policy", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			bm.run(b, bm.env)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*calls), "ns/call")
	})
	b.Run("player=alone", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			for _, req := range rec.reqs {
				if _, err := bm.player.Play(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rec.reqs)), "ns/call")
	})
	b.Run("transport=none/cache=none", func(b *testing.B) { perCall(b, bm.cores(b, direct{bm.player})) })
	b.Run("transport=inproc/cache=none", func(b *testing.B) { perCall(b, bm.cores(b, bm.inproc(b))) })
	b.Run("transport=inproc/cache=dir-hit", func(b *testing.B) {
		st, err := model.OpenDir(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		fill, err := model.NewCache(bm.inproc(b), model.CacheOptions{}, st)
		if err != nil {
			b.Fatal(err)
		}
		bm.run(b, bm.cores(b, fill))
		off, err := model.NewCache(nil, model.CacheOptions{Offline: true, Model: "p"}, st)
		if err != nil {
			b.Fatal(err)
		}
		perCall(b, bm.cores(b, off))
	})
}

// BenchmarkMissionThroughput is model calls a second of mission runs
// against the scripted mission server on loopback, through one client,
// at 1, 8 and 64 runs (so requests) in flight.
func BenchmarkMissionThroughput(b *testing.B) {
	bm := newBenchMission(b)
	srv, err := model.NewServer(map[string]model.Player{"p": bm.player})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	for _, conc := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("concurrent=%d", conc), func(b *testing.B) {
			c, err := model.NewClient(model.Config{BaseURL: hs.URL + "/v1", Model: "p", Concurrency: conc})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			env := bm.cores(b, c)
			var left, calls atomic.Int64
			left.Store(int64(b.N))
			var wg sync.WaitGroup
			b.ResetTimer()
			for range conc {
				wg.Go(func() {
					for left.Add(-1) >= 0 {
						calls.Add(bm.run(b, env))
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(calls.Load())/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
