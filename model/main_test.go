package model

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testKey is a key long enough to be redacted anywhere.
const testKey = "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2W3"

// fake is an httptest chat-completions endpoint whose handler is given.
type fake struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
	auth   []string
}

// newFake serves reply(n, body) for the n-th request (0-based): status,
// headers and body.
func newFake(tb testing.TB, reply func(n int, body string, w http.ResponseWriter) (int, string)) *fake {
	tb.Helper()
	f := &fake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		n := len(f.bodies)
		f.bodies = append(f.bodies, string(raw))
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		status, body := reply(n, string(raw), w)
		if status == 0 {
			return // the handler wrote (or hung up) itself
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	tb.Cleanup(f.Close)
	return f
}

func (f *fake) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

// config is a config for f with tiny retry intervals.
func (f *fake) config() Config {
	return Config{
		BaseURL: f.URL + "/v1", Model: "fake-1", APIKey: testKey,
		RequestTimeout: 2 * time.Second, InitialInterval: time.Millisecond, MaxInterval: 4 * time.Millisecond,
		MaxElapsed: 5 * time.Second, MaxAttempts: 4, JitterSeed: 1,
	}
}

func newTestClient(tb testing.TB, cfg Config, opts ...Option) *Client {
	tb.Helper()
	c, err := NewClient(cfg, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	return c
}

// reply is a 200 answer with message content, tool calls (raw JSON of the
// array, "" for none) and usage.
func reply(content, toolCalls string) (int, string) {
	c, _ := json.Marshal(content)
	msg := `{"role":"assistant","content":` + string(c)
	if toolCalls != "" {
		msg += `,"tool_calls":` + toolCalls
	}
	return http.StatusOK, `{"id":"x","object":"chat.completion","model":"fake-1-2026-01-01","choices":[{"index":0,"message":` + msg +
		`},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`
}

// hang blocks until the client gives up on the request (the server sees
// a closed connection only once the body is read).
func hang(r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

// waits records the back-off waits a client asks for, without waiting.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) install(c *Client) {
	c.newTimer = func() backoffTimer { return &instantTimer{w: w} }
}

func (w *waits) list() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

// instantTimer fires at once and records the duration asked for.
type instantTimer struct {
	w *waits
	c chan time.Time
}

func (t *instantTimer) Start(d time.Duration) {
	t.w.mu.Lock()
	t.w.d = append(t.w.d, d)
	t.w.mu.Unlock()
	t.c = make(chan time.Time, 1)
	t.c <- time.Time{}
}
func (t *instantTimer) Stop()               {}
func (t *instantTimer) C() <-chan time.Time { return t.c }

func background() context.Context { return context.Background() }

func runtimeGosched() { time.Sleep(time.Millisecond) }

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
