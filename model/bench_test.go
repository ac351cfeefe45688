package model

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// handlerTransport serves requests with a handler in process: no socket,
// so what is measured is the harness (and the scripted server's handler).
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// benchScript is a two-call conversation: one tool call, then the answer.
var benchScript = Script{
	{ToolCalls: []ToolCall{{ID: "c1", Name: "lookup_po", Arguments: `{"po":"PO-1"}`}}, Usage: Usage{120, 12}},
	{Content: `{"decision":"approve","amount":1200}`, Usage: Usage{160, 14}},
}

func benchServer(tb testing.TB) *Server {
	srv, err := NewServer(map[string]Player{"scripted": benchScript})
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

func benchTool(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{"po":"PO-1","total":1200,"lines":[{"sku":"A","qty":3}]}`), nil
}

// BenchmarkModelCall is the cost of one model call through the harness
// against the scripted server: client (encode, HTTP, decode, redact),
// cache (key, store) and loop (checks, transcript). ns/call is the figure;
// inproc leaves sockets out, loopback adds them, server alone is the
// scripted server's own share, to subtract.
func BenchmarkModelCall(b *testing.B) {
	input := json.RawMessage(`{"invoice":"INV-1","supplier":"ACME","total":1200}`)
	loop := newTestLoop(b, nil)
	run := func(b *testing.B, c Chatter, sample func(i int) int) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			out, err := loop.Run(background(), c, input, sample(i), benchTool)
			if err != nil || !out.OK() {
				b.Fatalf("%v %+v", err, out.Error)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchScript)), "ns/call")
	}
	inproc := func(b *testing.B) *Client {
		hc := &http.Client{Transport: handlerTransport{benchServer(b)}}
		return newTestClient(b, Config{BaseURL: "http://inproc/v1", Model: "scripted", APIKey: testKey}, WithHTTPClient(hc))
	}
	b.Run("server=alone", func(b *testing.B) {
		srv := benchServer(b)
		body, _ := encodeRequest(Request{Model: "scripted", Messages: []Message{{Role: RoleUser, Content: string(input)}}, Tools: []Tool{lookupTool}})
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytesReader(body))
			srv.ServeHTTP(httptest.NewRecorder(), req)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/call")
	})
	b.Run("transport=inproc/cache=none", func(b *testing.B) { run(b, inproc(b), func(int) int { return 0 }) })
	b.Run("transport=inproc/cache=miss", func(b *testing.B) {
		c, _ := NewCache(inproc(b), CacheOptions{}, NewMemStore())
		run(b, c, func(i int) int { return i })
	})
	b.Run("transport=inproc/cache=dir-miss", func(b *testing.B) {
		c, _ := NewCache(inproc(b), CacheOptions{}, openDir(b, b.TempDir()))
		run(b, c, func(i int) int { return i })
	})
	b.Run("cache=dir-hit", func(b *testing.B) {
		dir := b.TempDir()
		fill, _ := NewCache(inproc(b), CacheOptions{}, openDir(b, dir))
		if _, err := loop.Run(background(), fill, input, 0, benchTool); err != nil {
			b.Fatal(err)
		}
		off, _ := NewCache(nil, CacheOptions{Model: "scripted"}, openDir(b, dir))
		run(b, off, func(int) int { return 0 })
	})
	b.Run("transport=loopback/cache=none", func(b *testing.B) {
		hs := httptest.NewServer(benchServer(b))
		defer hs.Close()
		run(b, newTestClient(b, Config{BaseURL: hs.URL + "/v1", Model: "scripted", APIKey: testKey}), func(int) int { return 0 })
	})
}

// BenchmarkThroughput is requests a second through one client against the
// scripted server on loopback, at 1, 8 and 64 requests in flight.
func BenchmarkThroughput(b *testing.B) {
	for _, conc := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("concurrent=%d", conc), func(b *testing.B) {
			hs := httptest.NewServer(benchServer(b))
			defer hs.Close()
			c := newTestClient(b, Config{BaseURL: hs.URL + "/v1", Model: "scripted", Concurrency: conc,
				RequestTimeout: 10 * time.Second, MaxElapsed: time.Minute})
			req := Request{Messages: []Message{{Role: RoleSystem, Content: "s"}, {Role: RoleUser, Content: `{"invoice":"INV-1"}`}}, Tools: []Tool{lookupTool}}
			var left atomic.Int64
			left.Store(int64(b.N))
			var wg sync.WaitGroup
			b.ResetTimer()
			for range conc {
				wg.Go(func() {
					for left.Add(-1) >= 0 {
						if _, err := c.Chat(background(), req); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}
