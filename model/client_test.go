package model

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestChatToolCallArguments(t *testing.T) {
	want := []ToolCall{
		{ID: "c1", Name: "get_booking", Arguments: `{"id":"B7"}`},
		{ID: "c2", Name: "refund", Arguments: `{"amount":140,"booking":"B7"}`},
		{ID: "c3", Name: "ping", Arguments: ""},
	}
	tests := []struct {
		name string
		args [3]string // raw JSON of function.arguments per call
	}{
		{"as JSON strings (OpenAI)", [3]string{`"{\"id\":\"B7\"}"`, `"{\"amount\":140,\"booking\":\"B7\"}"`, `""`}},
		{"as objects", [3]string{`{"id":"B7"}`, `{"amount":140,"booking":"B7"}`, `null`}},
		{"mixed, with white space", [3]string{` {"id":"B7"} `, `"{\"amount\":140,\"booking\":\"B7\"}"`, ``}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, func(int, string, http.ResponseWriter) (int, string) {
				calls := ""
				for i, name := range []string{"get_booking", "refund", "ping"} {
					if i > 0 {
						calls += ","
					}
					args := tt.args[i]
					if args == "" {
						calls += fmt.Sprintf(`{"id":"c%d","type":"function","function":{"name":%q}}`, i+1, name)
						continue
					}
					calls += fmt.Sprintf(`{"id":"c%d","type":"function","function":{"name":%q,"arguments":%s}}`, i+1, name, args)
				}
				return reply("", "["+calls+"]")
			})
			resp, err := newTestClient(t, f.config()).Chat(background(), Request{Messages: []Message{{Role: RoleUser, Content: "refund B7"}}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, resp.ToolCalls); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}
			if resp.Usage != (Usage{11, 7}) || resp.Model != "fake-1-2026-01-01" {
				t.Errorf("usage %+v, model %q: want {11 7} and the reported id", resp.Usage, resp.Model)
			}
		})
	}
}

func TestChatEncodesRequest(t *testing.T) {
	f := newFake(t, func(int, string, http.ResponseWriter) (int, string) { return reply("done", "") })
	c := newTestClient(t, f.config())
	temp, seed := 0.0, int64(3)
	_, err := c.Chat(background(), Request{
		Messages: []Message{
			{Role: RoleSystem, Content: "be <brief>"},
			{Role: RoleUser, Content: "refund B7"},
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "get_booking", Arguments: `{"id":"B7"}`}}},
			{Role: RoleTool, ToolCallID: "c1", Content: `{"status":"paid"}`},
		},
		Tools:      []Tool{{Name: "get_booking", Description: "look up", Parameters: []byte(`{"type": "object"}`)}},
		ToolChoice: "get_booking", Temperature: &temp, Seed: &seed, Sample: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"fake-1","messages":[` +
		`{"role":"system","content":"be <brief>"},` +
		`{"role":"user","content":"refund B7"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_booking","arguments":"{\"id\":\"B7\"}"}}]},` +
		`{"role":"tool","content":"{\"status\":\"paid\"}","tool_call_id":"c1"}],` +
		`"tools":[{"type":"function","function":{"name":"get_booking","description":"look up","parameters":{"type":"object"}}}],` +
		`"tool_choice":{"function":{"name":"get_booking"},"type":"function"},"temperature":0,"seed":3}`
	if diff := cmp.Diff(want, f.bodies[0]); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
	if f.auth[0] != "Bearer "+testKey {
		t.Errorf("Authorization = %q, want the bearer key", f.auth[0])
	}
}

func TestChatContent(t *testing.T) {
	for _, tt := range []struct{ name, content, want string }{
		{"string", `"hello"`, "hello"},
		{"null", `null`, ""},
		{"parts", `[{"type":"text","text":"hel"},{"type":"image_url"},{"type":"text","text":"lo"}]`, "hello"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, func(int, string, http.ResponseWriter) (int, string) {
				return http.StatusOK, `{"choices":[{"message":{"content":` + tt.content + `}}]}`
			})
			resp, err := newTestClient(t, f.config()).Chat(background(), Request{})
			if err != nil || resp.Content != tt.want {
				t.Errorf("Chat = %q, %v; want %q", resp.Content, err, tt.want)
			}
		})
	}
}

func TestChatRetries(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int // per attempt; the last repeats
		wantErr  error // nil: success
		wantN    int
	}{
		{"500 then success", []int{500, 502, 200}, nil, 3},
		{"429 then success", []int{429, 200}, nil, 2},
		{"408 then success", []int{408, 200}, nil, 2},
		{"5xx until max attempts", []int{503}, ErrServer, 4},
		{"429 until max attempts", []int{429}, ErrRateLimited, 4},
		{"400 is not retried", []int{400}, ErrRejected, 1},
		{"401 is not retried", []int{401}, ErrAuth, 1},
		{"403 is not retried", []int{403}, ErrAuth, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, func(n int, _ string, _ http.ResponseWriter) (int, string) {
				s := tt.statuses[min(n, len(tt.statuses)-1)]
				if s == 200 {
					return reply("ok", "")
				}
				return s, `{"error":{"message":"try later"}}`
			})
			c := newTestClient(t, f.config())
			var w waits
			w.install(c)
			resp, err := c.Chat(background(), Request{})
			if tt.wantErr == nil && (err != nil || resp.Content != "ok") {
				t.Errorf("Chat = %q, %v; want ok", resp.Content, err)
			}
			if tt.wantErr != nil {
				var e *Error
				if !errors.Is(err, tt.wantErr) || !errors.As(err, &e) || e.Attempts != tt.wantN {
					t.Fatalf("err = %v, want %v after %d attempts", err, tt.wantErr, tt.wantN)
				}
				want := fmt.Sprintf(`status %d: {"error":{"message":"try later"}}`, tt.statuses[len(tt.statuses)-1])
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v, want it to contain %s", err, want)
				}
			}
			if f.count() != tt.wantN || len(w.list()) != tt.wantN-1 {
				t.Errorf("%d requests and %d waits, want %d and %d", f.count(), len(w.list()), tt.wantN, tt.wantN-1)
			}
		})
	}
}

func TestChatBackoffJitterIsSeeded(t *testing.T) {
	run := func(seed uint64) []time.Duration {
		f := newFake(t, func(int, string, http.ResponseWriter) (int, string) { return 503, "busy" })
		cfg := f.config()
		cfg.JitterSeed, cfg.InitialInterval, cfg.MaxInterval, cfg.MaxAttempts = seed, 100*time.Millisecond, time.Second, 5
		c := newTestClient(t, cfg)
		var w waits
		w.install(c)
		if _, err := c.Chat(background(), Request{}); !errors.Is(err, ErrServer) {
			t.Fatalf("err = %v, want ErrServer", err)
		}
		return w.list()
	}
	a, b, other := run(7), run(7), run(8)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different waits (-first +second):\n%s", diff)
	}
	if cmp.Equal(a, other) {
		t.Errorf("seeds 7 and 8 drew the same waits %v", a)
	}
	// Exponential from 100ms, doubling, each within ±50%.
	base := 100 * time.Millisecond
	for i, d := range a {
		if d < base/2 || d > base*3/2 {
			t.Errorf("wait %d = %v, want %v ±50%%", i, d, base)
		}
		base = min(2*base, time.Second)
	}
}

func TestChatRetryAfter(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		header   string
		wantWait time.Duration
	}{
		{"seconds", "3", 3 * time.Second},
		{"HTTP-date", now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second},
		{"date in the past", now.Add(-time.Hour).Format(http.TimeFormat), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, func(n int, _ string, w http.ResponseWriter) (int, string) {
				if n == 0 {
					w.Header().Set("Retry-After", tt.header)
					return http.StatusTooManyRequests, `{"error":"slow down"}`
				}
				return reply("ok", "")
			})
			cfg := f.config()
			cfg.MaxElapsed, cfg.RequestTimeout = time.Minute, time.Second
			c := newTestClient(t, cfg)
			c.now = func() time.Time { return now }
			var w waits
			w.install(c)
			if _, err := c.Chat(background(), Request{}); err != nil {
				t.Fatal(err)
			}
			got := w.list()
			if len(got) != 1 || got[0] < tt.wantWait || got[0] > tt.wantWait+cfg.MaxInterval {
				t.Errorf("waits %v, want one of at least %v (and no more than the back-off above it)", got, tt.wantWait)
			}
		})
	}
}

func TestChatRetryAfterBeyondBudget(t *testing.T) {
	f := newFake(t, func(_ int, _ string, w http.ResponseWriter) (int, string) {
		w.Header().Set("Retry-After", "3600")
		return http.StatusTooManyRequests, "quota"
	})
	c := newTestClient(t, f.config())
	var w waits
	w.install(c)
	_, err := c.Chat(background(), Request{})
	if !errors.Is(err, ErrRateLimited) || !strings.Contains(err.Error(), "asks to wait 1h0m0s, beyond what is left of the retry budget") {
		t.Errorf("err = %v, want a rate-limit error saying the wait exceeds the budget", err)
	}
	if f.count() != 1 || len(w.list()) != 0 {
		t.Errorf("%d requests, waits %v: want one request and no wait (never retry before Retry-After)", f.count(), w.list())
	}
}

func TestChatTimeouts(t *testing.T) {
	t.Run("a hanging attempt is retried", func(t *testing.T) {
		f := newFake(t, func(int, string, http.ResponseWriter) (int, string) { return reply("ok", "") })
		f.Config.Handler = hangFirst(f.Config.Handler)
		cfg := f.config()
		cfg.RequestTimeout, cfg.MaxElapsed = 100*time.Millisecond, 5*time.Second
		resp, err := newTestClient(t, cfg).Chat(background(), Request{})
		if err != nil || resp.Content != "ok" {
			t.Errorf("Chat = %q, %v; want ok on the second attempt", resp.Content, err)
		}
	})
	t.Run("a server that always hangs fails within the budget", func(t *testing.T) {
		f := newFake(t, nil)
		f.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hang(r) })
		cfg := f.config()
		// Back-off waits are instant, so only the hanging attempts spend
		// the budget: about ten fit on an idle machine, and at least two
		// unless one attempt overruns its timeout by 400ms. Whether the
		// last attempt is cut short by the budget or the budget is gone
		// before it starts depends on the machine's load: both errors
		// name the budget.
		cfg.RequestTimeout, cfg.MaxElapsed, cfg.MaxAttempts = 100*time.Millisecond, time.Second, 100
		c := newTestClient(t, cfg)
		var w waits
		w.install(c)
		start := time.Now()
		_, err := c.Chat(background(), Request{})
		var e *Error
		if !errors.Is(err, ErrTimeout) || !errors.As(err, &e) || e.Attempts < 2 {
			t.Errorf("err = %v, want ErrTimeout after several attempts", err)
		}
		if msg := err.Error(); !strings.Contains(msg, "no answer before the retry budget 1s ran out") && !strings.Contains(msg, "retry budget 1s spent") {
			t.Errorf("err = %v, want it to name the retry budget", err)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("took %v for a 1s budget", el)
		}
	})
}

// hangFirst makes the first request hang until the client gives up.
func hangFirst(next http.Handler) http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			hang(r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestChatUnreachable(t *testing.T) {
	t.Run("connection refused", func(t *testing.T) {
		f := newFake(t, nil)
		cfg := f.config()
		f.Close() // nothing listens any more
		c := newTestClient(t, cfg)
		var w waits
		w.install(c)
		_, err := c.Chat(background(), Request{})
		if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "connection refused: is the server running?") {
			t.Errorf("err = %v, want ErrUnreachable saying connection refused", err)
		}
		if !strings.Contains(err.Error(), "(4 attempts, model fake-1 at "+cfg.BaseURL+")") {
			t.Errorf("err = %v, want the attempts, model and endpoint named", err)
		}
	})
	t.Run("unknown host", func(t *testing.T) {
		var dials atomic.Int64
		hc := &http.Client{Transport: &http.Transport{DialContext: func(_ context.Context, _, addr string) (net.Conn, error) {
			dials.Add(1)
			return nil, &net.DNSError{Err: "no such host", Name: "llm.invalid", IsNotFound: true}
		}}}
		c := newTestClient(t, Config{BaseURL: "http://llm.invalid/v1", Model: "m", MaxAttempts: 4}, WithHTTPClient(hc))
		_, err := c.Chat(background(), Request{})
		if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), `cannot resolve host "llm.invalid": check the base URL`) {
			t.Errorf("err = %v, want ErrUnreachable naming the host", err)
		}
		if dials.Load() != 1 {
			t.Errorf("%d dials: a host that does not exist is not retried", dials.Load())
		}
	})
}

func TestChatUnknownModel(t *testing.T) {
	tests := []struct {
		name, body string
		status     int
		want       error
	}{
		{"OpenAI", `{"error":{"message":"The model 'gpt-9' does not exist or you do not have access to it.","type":"invalid_request_error","code":"model_not_found"}}`, 404, ErrModelNotFound},
		{"vLLM", `{"object":"error","message":"The model ` + "`gpt-9`" + ` does not exist.","type":"NotFoundError","code":404}`, 404, ErrModelNotFound},
		{"Ollama", `{"error":{"message":"model \"gpt-9\" not found, try pulling it first","type":"api_error"}}`, 404, ErrModelNotFound},
		{"as a 400", `{"error":{"code":"model_not_found","message":"unknown"}}`, 400, ErrModelNotFound},
		{"no such route", `404 page not found`, 404, ErrRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, func(int, string, http.ResponseWriter) (int, string) { return tt.status, tt.body })
			_, err := newTestClient(t, f.config()).Chat(background(), Request{Model: "gpt-9"})
			if !errors.Is(err, tt.want) || f.count() != 1 {
				t.Fatalf("err = %v after %d requests, want %v at once", err, f.count(), tt.want)
			}
			hint := "list the endpoint's models at " + f.URL + "/v1/models"
			if tt.want == ErrRejected {
				hint = "check the base URL (it usually ends in /v1)"
			}
			if !strings.Contains(err.Error(), hint) || !strings.Contains(err.Error(), "model gpt-9 at") {
				t.Errorf("err = %v, want the model named and %q", err, hint)
			}
		})
	}
}

func TestChatBadResponse(t *testing.T) {
	for _, body := range []string{`not json`, `{"choices":[]}`, `{"choices":[{"message":{"content":7}}]}`} {
		f := newFake(t, func(int, string, http.ResponseWriter) (int, string) { return 200, body })
		_, err := newTestClient(t, f.config()).Chat(background(), Request{})
		if !errors.Is(err, ErrBadResponse) || f.count() != 1 {
			t.Errorf("body %s: err = %v after %d requests, want ErrBadResponse at once", body, err, f.count())
		}
	}
}

func TestChatCancellation(t *testing.T) {
	t.Run("in flight", func(t *testing.T) {
		f := newFake(t, nil)
		arrived := make(chan struct{})
		f.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { close(arrived); hang(r) })
		cfg := f.config()
		cfg.RequestTimeout, cfg.MaxElapsed = time.Minute, 2*time.Minute
		ctx, cancel := context.WithCancel(background())
		go func() { <-arrived; cancel() }()
		start := time.Now()
		_, err := newTestClient(t, cfg).Chat(ctx, Request{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if el := time.Since(start); el > time.Second {
			t.Errorf("cancellation took %v", el)
		}
	})
	t.Run("during a back-off wait", func(t *testing.T) {
		ctx, cancel := context.WithCancel(background())
		f := newFake(t, func(_ int, _ string, w http.ResponseWriter) (int, string) {
			w.Header().Set("Retry-After", "30")
			time.AfterFunc(20*time.Millisecond, cancel)
			return 503, "later"
		})
		cfg := f.config()
		cfg.RequestTimeout, cfg.MaxElapsed = time.Minute, 2*time.Minute
		start := time.Now()
		_, err := newTestClient(t, cfg).Chat(ctx, Request{})
		if !errors.Is(err, context.Canceled) || f.count() != 1 {
			t.Errorf("err = %v after %d requests, want context.Canceled after one", err, f.count())
		}
		if el := time.Since(start); el > time.Second {
			t.Errorf("cancellation took %v", el)
		}
	})
}

func TestChatConcurrencyLimit(t *testing.T) {
	var inFlight, peak atomic.Int64
	f := newFake(t, func(int, string, http.ResponseWriter) (int, string) {
		n := inFlight.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(5 * time.Millisecond)
		inFlight.Add(-1)
		return reply("ok", "")
	})
	cfg := f.config()
	cfg.Concurrency = 3
	c := newTestClient(t, cfg)
	var wg sync.WaitGroup
	for range 24 {
		wg.Go(func() {
			if _, err := c.Chat(background(), Request{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if peak.Load() != 3 {
		t.Errorf("peak %d requests in flight, want the limit 3", peak.Load())
	}
	if s := c.Stats(); s.Requests != 24 || s.Attempts != 24 || s.Usage != (Usage{24 * 11, 24 * 7}) {
		t.Errorf("stats %+v", s)
	}
}

func TestConfigValidate(t *testing.T) {
	ok := Config{BaseURL: "http://localhost:1/v1", Model: "m"}
	with := func(f func(*Config)) Config { c := ok; f(&c); return c }
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"defaults", ok, ""},
		{"no base URL", with(func(c *Config) { c.BaseURL = "" }), "no base URL"},
		{"no model", with(func(c *Config) { c.Model = " " }), "no model named"},
		{"not http", with(func(c *Config) { c.BaseURL = "ftp://host/v1" }), `want http(s)://host/..., got "ftp://host/v1"`},
		{"credentials stripped", with(func(c *Config) { c.BaseURL = "file://u:hunter2@/x?key=s3cretvalue" }), `got "file:///x"`},
		{"the judge's old timeout", with(func(c *Config) { c.RequestTimeout, c.MaxElapsed = 2*time.Minute, time.Minute }),
			"request timeout 2m0s is not shorter than the retry budget 1m0s: a request that hangs would spend the whole budget and never be retried"},
		{"timeout equal to budget", with(func(c *Config) { c.RequestTimeout, c.MaxElapsed = time.Minute, time.Minute }), "not shorter than the retry budget"},
		{"default timeout, small budget", with(func(c *Config) { c.MaxElapsed = 10 * time.Second }), "request timeout 30s is not shorter than the retry budget 10s"},
		{"intervals", with(func(c *Config) { c.InitialInterval, c.MaxInterval = time.Second, time.Millisecond }), "max interval 1ms is below the initial interval 1s"},
		{"jitter", with(func(c *Config) { c.Jitter = 2 }), "jitter 2: want a fraction"},
		{"concurrency", with(func(c *Config) { c.Concurrency = -1 }), "concurrency -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewClient(tt.cfg)
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("err = %v", err)
				}
				return
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want ErrConfig with %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "s3cretvalue") {
				t.Errorf("err leaks URL credentials: %v", err)
			}
		})
	}
}

func TestModels(t *testing.T) {
	f := newFake(t, func(int, string, http.ResponseWriter) (int, string) {
		return 200, `{"object":"list","data":[{"id":"b"},{"id":"a"}]}`
	})
	got, err := newTestClient(t, f.config()).Models(background())
	if err != nil || !cmp.Equal(got, []string{"a", "b"}) {
		t.Errorf("Models = %v, %v; want [a b]", got, err)
	}
}
