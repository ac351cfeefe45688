package score

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-lab/baton/model"
)

const testKey = "sk-test-5ecret-do-not-print-0123456789"

// chatRequest is the part of a chat-completions request the fakes read.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// fakeEndpoint is an httptest chat-completions server. reply returns the
// status and raw body for the n-th request (0-based).
type fakeEndpoint struct {
	*httptest.Server
	mu       sync.Mutex
	requests []chatRequest
	auth     []string
}

func newFakeEndpoint(tb testing.TB, reply func(n int, req chatRequest) (int, string)) *fakeEndpoint {
	tb.Helper()
	f := &fakeEndpoint{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "wrong route "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		n := len(f.requests)
		f.requests = append(f.requests, req)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		status, body := reply(n, req)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	tb.Cleanup(f.Close)
	return f
}

// config returns a judge config for f with tiny retry intervals.
func (f *fakeEndpoint) config() JudgeConfig {
	return JudgeConfig{
		BaseURL: f.URL + "/v1/", Model: "fake-judge-1", APIKey: testKey,
		InitialInterval: time.Millisecond, MaxInterval: 2 * time.Millisecond,
		MaxElapsed: 2 * time.Second, MaxAttempts: 4,
	}
}

// contentReply is a 200 response whose message content is content.
func contentReply(content string) (int, string) {
	raw, _ := json.Marshal(content)
	return http.StatusOK, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":` +
		string(raw) + `},"finish_reason":"stop"}]}`
}

// recordOf extracts the run record a judge request carries.
func recordOf(tb testing.TB, req chatRequest) map[string]any {
	tb.Helper()
	for _, m := range req.Messages {
		if rest, ok := strings.CutPrefix(m.Content, "Record:\n"); ok && m.Role == "user" {
			var rec map[string]any
			if err := json.Unmarshal([]byte(rest), &rec); err != nil {
				tb.Errorf("record is not JSON: %v", err)
			}
			return rec
		}
	}
	tb.Errorf("request has no record")
	return nil
}

func newTestClient(tb testing.TB, f *fakeEndpoint) *model.Client {
	tb.Helper()
	c, err := NewJudgeClient(f.config(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	return c
}
