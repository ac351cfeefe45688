package score

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func newTestClient(tb testing.TB, f *fakeEndpoint) *Client {
	tb.Helper()
	c, err := NewClient(f.config(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestClientToolCallArguments(t *testing.T) {
	wantCalls := []ToolCall{
		{ID: "c1", Name: "get_booking", Args: map[string]any{"id": "B7"}},
		{ID: "c2", Name: "refund", Args: map[string]any{"booking": "B7", "amount": 140.0}},
		{ID: "c3", Name: "ping"},
	}
	tests := []struct {
		name      string
		arguments [3]string // raw JSON of function.arguments for each call
	}{
		{"as JSON strings (OpenAI)", [3]string{`"{\"id\":\"B7\"}"`, `"{\"booking\":\"B7\",\"amount\":140}"`, `"{}"`}},
		{"as objects", [3]string{`{"id":"B7"}`, `{"amount":140.0,"booking":"B7"}`, `{}`}},
		{"mixed, empty string and null", [3]string{`{"id":"B7"}`, `"{\"amount\":1.4e2,\"booking\":\"B7\"}"`, `""`}},
		{"null arguments", [3]string{`"{\"id\":\"B7\"}"`, `{"booking":"B7","amount":140}`, `null`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEndpoint(t, func(int, chatRequest) (int, string) {
				return http.StatusOK, fmt.Sprintf(`{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[
					{"id":"c1","type":"function","function":{"name":"get_booking","arguments":%s}},
					{"id":"c2","type":"function","function":{"name":"refund","arguments":%s}},
					{"id":"c3","type":"function","function":{"name":"ping","arguments":%s}}]},"finish_reason":"tool_calls"}]}`,
					tt.arguments[0], tt.arguments[1], tt.arguments[2])
			})
			resp, err := newTestClient(t, f).Chat(context.Background(), ChatRequest{
				Messages: []Message{{Role: "user", Content: "refund B7"}},
				Tools:    []Tool{{Name: "get_booking", Parameters: map[string]any{"type": "object"}}},
			})
			if err != nil {
				t.Fatal(err)
			}
			// nil and empty args are the same call; compare as Match too.
			for i := range resp.ToolCalls {
				if len(resp.ToolCalls[i].Args) == 0 {
					resp.ToolCalls[i].Args = nil
				}
			}
			if diff := cmp.Diff(ChatResponse{ToolCalls: wantCalls, FinishReason: "tool_calls"}, resp); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			req := f.requests[0]
			if req.Model != "fake-judge-1" || len(req.Tools) != 1 || req.Tools[0].Type != "function" || req.Tools[0].Function.Name != "get_booking" {
				t.Errorf("request = %+v, want model fake-judge-1 and one function tool", req)
			}
			if f.auth[0] != "Bearer "+testKey {
				t.Errorf("Authorization header not sent as Bearer key")
			}
		})
	}
}

func TestClientBadArguments(t *testing.T) {
	f := newFakeEndpoint(t, func(int, chatRequest) (int, string) {
		return http.StatusOK, `{"choices":[{"message":{"tool_calls":[{"function":{"name":"a","arguments":"[1,2]"}}]}}]}`
	})
	_, err := newTestClient(t, f).Chat(context.Background(), ChatRequest{})
	if err == nil || !strings.Contains(err.Error(), "tool_calls[0].function.arguments: want a JSON object") {
		t.Errorf("err = %v, want one naming the arguments", err)
	}
	if f.count() != 1 {
		t.Errorf("a malformed 200 was retried: %d requests", f.count())
	}
}

func TestClientContent(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"string", `"hello"`, "hello"},
		{"null", `null`, ""},
		{"parts", `[{"type":"text","text":"hel"},{"type":"image_url"},{"type":"text","text":"lo"}]`, "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEndpoint(t, func(int, chatRequest) (int, string) {
				return http.StatusOK, `{"choices":[{"message":{"content":` + tt.content + `}}]}`
			})
			resp, err := newTestClient(t, f).Chat(context.Background(), ChatRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Content != tt.want {
				t.Errorf("content = %q, want %q", resp.Content, tt.want)
			}
		})
	}
}

func TestClientRetries(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int // per attempt; the last repeats
		wantOK   bool
		wantN    int
	}{
		{"500 then success", []int{500, 500, 200}, true, 3},
		{"429 then success", []int{429, 200}, true, 2},
		{"408 then success", []int{408, 200}, true, 2},
		{"gives up after max attempts", []int{503}, false, 4},
		{"400 is not retried", []int{400}, false, 1},
		{"401 is not retried", []int{401}, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEndpoint(t, func(n int, _ chatRequest) (int, string) {
				s := tt.statuses[min(n, len(tt.statuses)-1)]
				if s == 200 {
					return contentReply("ok")
				}
				return s, `{"error":{"message":"try later"}}`
			})
			resp, err := newTestClient(t, f).Chat(context.Background(), ChatRequest{})
			if tt.wantOK && (err != nil || resp.Content != "ok") {
				t.Errorf("Chat = %q, %v; want ok", resp.Content, err)
			}
			if !tt.wantOK {
				want := fmt.Sprintf("status %d: {\"error\":{\"message\":\"try later\"}}", tt.statuses[len(tt.statuses)-1])
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v, want it to contain %q", err, want)
				}
			}
			if f.count() != tt.wantN {
				t.Errorf("%d requests, want %d", f.count(), tt.wantN)
			}
		})
	}
}

func TestClientRetriesNetworkErrors(t *testing.T) {
	f := newFakeEndpoint(t, func(int, chatRequest) (int, string) { return contentReply("ok") })
	cfg := f.config()
	f.Close() // nothing listens any more
	c, err := NewClient(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	c.onWait = func(d time.Duration) { waits = append(waits, d) }
	_, err = c.Chat(context.Background(), ChatRequest{})
	if err == nil {
		t.Fatal("Chat to a closed server succeeded")
	}
	// The client retried (network errors are retryable) and asked for at
	// most MaxAttempts-1 waits, none above MaxInterval.
	if len(waits) == 0 || len(waits) > cfg.MaxAttempts-1 {
		t.Errorf("%d back-off waits, want 1..%d", len(waits), cfg.MaxAttempts-1)
	}
	for _, w := range waits {
		if w > cfg.MaxInterval {
			t.Errorf("asked to wait %v, above MaxInterval %v", w, cfg.MaxInterval)
		}
	}
}

func TestClientRetryAfterIsCapped(t *testing.T) {
	f := newFakeEndpoint(t, nil)
	f.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		n := len(f.requests)
		f.requests = append(f.requests, chatRequest{})
		f.mu.Unlock()
		if n == 0 {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, body := contentReply("ok")
		_, _ = w.Write([]byte(body))
	})
	c := newTestClient(t, f)
	var waits []time.Duration
	c.onWait = func(d time.Duration) { waits = append(waits, d) }
	if _, err := c.Chat(context.Background(), ChatRequest{}); err != nil {
		t.Fatal(err)
	}
	if len(waits) != 1 || waits[0] > c.cfg.MaxInterval || waits[0] <= 0 {
		t.Errorf("waits %v for Retry-After 3600: want one wait capped at MaxInterval %v", waits, c.cfg.MaxInterval)
	}
}

func TestClientContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := newFakeEndpoint(t, func(n int, _ chatRequest) (int, string) {
		if n == 1 {
			cancel()
		}
		return http.StatusServiceUnavailable, ""
	})
	cfg := f.config()
	cfg.MaxAttempts, cfg.MaxElapsed = 1000, time.Minute
	c, err := NewClient(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(ctx, ChatRequest{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if f.count() > 3 {
		t.Errorf("%d requests after cancel", f.count())
	}
}

func TestClientKeyNeverLeaks(t *testing.T) {
	// A hostile or broken endpoint that echoes the Authorization header.
	f := newFakeEndpoint(t, nil)
	f.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad credentials: "+r.Header.Get("Authorization"), http.StatusUnauthorized)
	})
	cfg := f.config()
	c, err := NewClient(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), ChatRequest{})
	if err == nil {
		t.Fatal("want an error")
	}
	texts := map[string]string{
		"error":         err.Error(),
		"error %+v":     fmt.Sprintf("%+v", err),
		"config %v":     fmt.Sprintf("%v", cfg),
		"config %+v":    fmt.Sprintf("%+v", cfg),
		"config %#v":    fmt.Sprintf("%#v", cfg),
		"config String": cfg.String(),
	}
	for what, s := range texts {
		if strings.Contains(s, testKey) || strings.Contains(s, "5ecret") {
			t.Errorf("%s leaks the key: %s", what, s)
		}
	}
	if !strings.Contains(err.Error(), "status 401: bad credentials: Bearer [REDACTED]") {
		t.Errorf("err = %v, want the redacted body", err)
	}
	for e := error(err); e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), testKey) {
			t.Errorf("wrapped error leaks the key: %v", e)
		}
	}
}

func TestNewClientConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     JudgeConfig
		wantErr string
	}{
		{"missing both", JudgeConfig{APIKey: testKey}, "missing BATON_JUDGE_BASE_URL, BATON_JUDGE_MODEL"},
		{"not http", JudgeConfig{BaseURL: "ftp://host/v1", Model: "m"}, `want http(s)://host/..., got "ftp://host/v1"`},
		{"password redacted", JudgeConfig{BaseURL: "file://u:hunter2@/x", Model: "m"}, `got "file://u:xxxxx@/x"`},
		{"ok", JudgeConfig{BaseURL: "http://localhost:1/v1", Model: "m"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewClient(tt.cfg, nil)
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("err = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestJudgeConfigWithEnv(t *testing.T) {
	env := map[string]string{EnvJudgeBaseURL: "http://env/v1", EnvJudgeModel: " env-model ", EnvJudgeAPIKey: "env-key"}
	got := JudgeConfig{Model: "flag-model"}.WithEnv(func(k string) string { return env[k] })
	want := JudgeConfig{BaseURL: "http://env/v1", Model: "flag-model", APIKey: "env-key"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flags must win over env (-want +got):\n%s", diff)
	}
}

func TestClientEncodesToolHistory(t *testing.T) {
	var body string
	f := newFakeEndpoint(t, nil)
	f.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		body = string(raw)
		_, b := contentReply("done")
		_, _ = w.Write([]byte(b))
	})
	_, err := newTestClient(t, f).Chat(context.Background(), ChatRequest{Messages: []Message{
		{Role: "user", Content: "refund B7"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Name: "get_booking", Args: map[string]any{"id": "B7"}}}},
		{Role: "tool", ToolCallID: "c1", Content: `{"status":"paid"}`},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"fake-judge-1","messages":[` +
		`{"role":"user","content":"refund B7"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_booking","arguments":"{\"id\":\"B7\"}"}}]},` +
		`{"role":"tool","content":"{\"status\":\"paid\"}","tool_call_id":"c1"}]}`
	if diff := cmp.Diff(want, body); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
}

func TestRedactKey(t *testing.T) {
	tests := []struct{ name, s, key, want string }{
		{"long key anywhere", "a " + testKey + " b", testKey, "a [REDACTED] b"},
		{"short key leaves words alone", "the task, Bearer k", "k", "the task, Bearer [REDACTED]"},
		{"no key", "task", "", "task"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := redactKey(tt.s, tt.key); got != tt.want {
				t.Errorf("redactKey = %q, want %q", got, tt.want)
			}
		})
	}
}
