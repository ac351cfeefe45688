package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func newTestServer(tb testing.TB, players map[string]Player) (*httptest.Server, *Client) {
	tb.Helper()
	srv, err := NewServer(players)
	if err != nil {
		tb.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	tb.Cleanup(hs.Close)
	return hs, newTestClient(tb, Config{BaseURL: hs.URL + "/v1", Model: srv.Models()[0], MaxAttempts: 1})
}

func TestServerEcho(t *testing.T) {
	_, c := newTestServer(t, map[string]Player{"echo": Echo{}})
	seed := int64(4)
	resp, err := c.Chat(background(), Request{
		Messages: []Message{{Role: RoleSystem, Content: "s"}, {Role: RoleUser, Content: `{"invoice": "INV-1"}`}},
		Tools:    []Tool{{Name: "b"}, {Name: "a"}}, Seed: &seed,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"echo":{"invoice":"INV-1"},"seed":4,"tools":["b","a"]}`; resp.Content != want {
		t.Errorf("content %s, want %s", resp.Content, want)
	}
	if resp.Model != "echo" || resp.FinishReason != "stop" || resp.Usage.PromptTokens == 0 || resp.Usage.CompletionTokens == 0 {
		t.Errorf("response %+v: want the model, stop and estimated usage", resp)
	}
}

func TestServerIsDeterministic(t *testing.T) {
	hs, _ := newTestServer(t, map[string]Player{"echo": Echo{}})
	body := `{"model":"echo","messages":[{"role":"user","content":"hi"}],"seed":1}`
	var first []byte
	for i := range 3 {
		resp, err := http.Post(hs.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if i == 0 {
			first = raw
		} else if !bytes.Equal(first, raw) {
			t.Errorf("answer %d differs:\n%s\n%s", i, first, raw)
		}
	}
	if !bytes.Contains(first, []byte(`"created":0`)) || !bytes.Contains(first, []byte(`"id":"chatcmpl-`)) {
		t.Errorf("answer %s: want an id from the request and no clock", first)
	}
}

func TestServerModels(t *testing.T) {
	_, c := newTestServer(t, map[string]Player{"zeta": Echo{}, "alpha": Echo{}})
	got, err := c.Models(background())
	if err != nil || !cmp.Equal(got, []string{"alpha", "zeta"}) {
		t.Errorf("Models = %v, %v", got, err)
	}
}

func TestServerErrors(t *testing.T) {
	failing := PlayerFunc(func(context.Context, Request) (Response, error) {
		return Response{}, errors.New("no policy for this turn")
	})
	hs, c := newTestServer(t, map[string]Player{"echo": Echo{}, "failing": failing})
	if _, err := c.Chat(background(), Request{Model: "gpt-9"}); !errors.Is(err, ErrModelNotFound) || !strings.Contains(err.Error(), "this server serves echo, failing") {
		t.Errorf("unknown model: err = %v", err)
	}
	if _, err := c.Chat(background(), Request{Model: "failing"}); !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "player failing: no policy for this turn") {
		t.Errorf("failing player: err = %v", err)
	}
	for _, tt := range []struct {
		method, path, body string
		want               int
	}{
		{"POST", "/v1/chat/completions", `{"model":`, 400},
		{"POST", "/v1/chat/completions", `{"model":"echo","messages":[{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":7}}]}]}`, 200},
		{"POST", "/v1/chat/completions", `{"model":"echo","messages":[],"tool_choice":5}`, 400},
		{"GET", "/v1/chat/completions", ``, 405},
		{"GET", "/v2/other", ``, 404},
		{"GET", "/models", ``, 200},
	} {
		req, _ := http.NewRequest(tt.method, hs.URL+tt.path, strings.NewReader(tt.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want || (tt.want != 200 && !json.Valid(raw)) {
			t.Errorf("%s %s %s: %d %s, want %d with a JSON error", tt.method, tt.path, tt.body, resp.StatusCode, raw, tt.want)
		}
	}
}

func TestServeAndShutdown(t *testing.T) {
	srv, _ := NewServer(map[string]Player{"echo": Echo{}})
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	c := newTestClient(t, Config{BaseURL: BaseURL(ln), Model: "echo"})
	if _, err := c.Chat(background(), Request{Messages: []Message{{Role: RoleUser, Content: "x"}}}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve = %v, want nil after ctx is done", err)
	}
}

func TestListenLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:0", ":0", "example.com:80", "nonsense"} {
		if ln, err := Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) succeeded", addr)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		ln, err := Listen(addr)
		if err != nil {
			if addr == "[::1]:0" {
				continue // no IPv6 here
			}
			t.Errorf("Listen(%q): %v", addr, err)
			continue
		}
		ln.Close()
	}
}

func TestNewServerErrors(t *testing.T) {
	if _, err := NewServer(nil); err == nil {
		t.Errorf("a server of no model")
	}
	if _, err := NewServer(map[string]Player{" ": Echo{}}); err == nil {
		t.Errorf("a model without a name")
	}
}

func TestScriptExhausted(t *testing.T) {
	_, err := Script{{Content: "a"}}.Play(background(), Request{Messages: []Message{{Role: RoleAssistant}}})
	if err == nil || !strings.Contains(err.Error(), "script of 1 turns has no turn 1") {
		t.Errorf("err = %v", err)
	}
}

// FuzzWire: the decoders of what an endpoint or a client sends never
// panic, and a request the server reads encodes again.
func FuzzWire(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"message":{"content":"x","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]}}],"usage":{"prompt_tokens":1}}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"}]}],"tool_choice":{"function":{"name":"f"}}}`,
		`{"choices":[]}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		_, _ = decodeResponse(raw)
		req, err := decodeRequest(raw)
		if err != nil {
			return
		}
		for i := range req.Tools {
			if !json.Valid(req.Tools[i].Parameters) {
				req.Tools[i].Parameters = nil
			}
		}
		if _, err := encodeRequest(req); err != nil {
			t.Fatalf("decoded request does not encode: %v", err)
		}
	})
}

// TestServerLatency: an answer waits for the server's latency and is
// the same bytes as without it; a request given up meanwhile is not
// answered, nor counted.
func TestServerLatency(t *testing.T) {
	body := `{"model":"echo","messages":[{"role":"user","content":"hi"}],"seed":1}`
	post := func(ctx context.Context, url string) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		return io.ReadAll(resp.Body)
	}
	var answers [][]byte
	for _, latency := range []time.Duration{0, time.Millisecond} {
		srv, err := NewServer(map[string]Player{"echo": Echo{}})
		if err != nil {
			t.Fatal(err)
		}
		srv.Latency = latency
		hs := httptest.NewServer(srv)
		raw, err := post(context.Background(), hs.URL)
		hs.Close()
		if err != nil {
			t.Fatal(err)
		}
		if srv.Calls() != 1 {
			t.Errorf("latency %s: %d calls counted, want 1", latency, srv.Calls())
		}
		answers = append(answers, raw)
	}
	if d := cmp.Diff(string(answers[0]), string(answers[1])); d != "" {
		t.Errorf("latency changed the answer (-without +with):\n%s", d)
	}
	srv, err := NewServer(map[string]Player{"echo": Echo{}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Latency = time.Hour
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if raw, err := post(ctx, hs.URL); err == nil {
		t.Errorf("answered %s within the latency", raw)
	}
	if srv.Calls() != 0 {
		t.Errorf("%d calls counted, want 0", srv.Calls())
	}
}
