package model

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// A Player is the "model" of a [Server]: given a request (its messages,
// tools and seed), it returns the next assistant message — tool calls or
// a final answer — and what it cost. A Player must be deterministic: the
// same request gives the same answer. It reads the trial's sample index
// from req.Seed (nil when the client sent no seed), never from a clock.
// Usage left zero is estimated by the server from the bytes (4 a token).
type Player interface {
	Play(ctx context.Context, req Request) (Response, error)
}

// PlayerFunc adapts a function to [Player].
type PlayerFunc func(ctx context.Context, req Request) (Response, error)

// Play calls f.
func (f PlayerFunc) Play(ctx context.Context, req Request) (Response, error) { return f(ctx, req) }

var (
	_ Player       = PlayerFunc(nil)
	_ Player       = Script(nil)
	_ Player       = Echo{}
	_ http.Handler = (*Server)(nil)
)

// Server is a scripted OpenAI-compatible chat-completions server: POST
// /v1/chat/completions and GET /v1/models, each model played by a
// [Player]. An unknown model gets OpenAI's 404 model_not_found. It keeps
// no state between requests and reads no clock: answers, ids and usage
// depend on the request alone.
type Server struct {
	// Latency, when set, is slept (wall clock) before each chat answer:
	// a model-bound demo or benchmark. It never changes an answer.
	Latency time.Duration

	players map[string]Player
	names   []string
	calls   atomic.Int64
}

// NewServer serves players by model name.
func NewServer(players map[string]Player) (*Server, error) {
	if len(players) == 0 {
		return nil, errors.New("model server: no model to serve")
	}
	s := &Server{players: players}
	for name := range players {
		if strings.TrimSpace(name) == "" {
			return nil, errors.New("model server: a model without a name")
		}
		s.names = append(s.names, name)
	}
	slices.Sort(s.names)
	return s, nil
}

// Calls returns how many chat requests the server has answered.
func (s *Server) Calls() int64 { return s.calls.Load() }

// Models returns the served model names, sorted.
func (s *Server) Models() []string { return slices.Clone(s.names) }

// ServeHTTP answers the two routes, under /v1 or at the root.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/v1")
	switch {
	case path == "/chat/completions" && r.Method == http.MethodPost:
		s.chat(w, r)
	case path == "/models" && r.Method == http.MethodGet:
		s.models(w)
	case path == "/chat/completions" || path == "/models":
		writeAPIError(w, http.StatusMethodNotAllowed, "invalid_request_error", "", "method "+r.Method+" not allowed on "+r.URL.Path)
	default:
		writeAPIError(w, http.StatusNotFound, "invalid_request_error", "", "no route "+r.URL.Path+": the routes are /v1/chat/completions and /v1/models")
	}
}

func (s *Server) models(w http.ResponseWriter) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, n := range s.names {
		list.Data = append(list.Data, model{ID: n, Object: "model", OwnedBy: "baton"})
	}
	raw, _ := marshal(list)
	writeJSON(w, http.StatusOK, raw)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(raw) > maxBody {
		writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "", "request body unreadable or larger than 16 MiB")
		return
	}
	req, err := decodeRequest(raw)
	if err != nil {
		writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "", err.Error())
		return
	}
	p, ok := s.players[req.Model]
	if !ok {
		writeAPIError(w, http.StatusNotFound, "invalid_request_error", "model_not_found",
			fmt.Sprintf("The model `%s` does not exist; this server serves %s", clipText(req.Model, 100), strings.Join(s.names, ", ")))
		return
	}
	if s.Latency > 0 {
		t := time.NewTimer(s.Latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	resp, err := p.Play(r.Context(), req)
	if err != nil {
		writeAPIError(w, http.StatusInternalServerError, "server_error", "", "player "+req.Model+": "+err.Error())
		return
	}
	if resp.Usage == (Usage{}) {
		out, _ := marshal(resp)
		resp.Usage = Usage{PromptTokens: tokens(len(raw)), CompletionTokens: tokens(len(out))}
	}
	sum := sha256.Sum256(raw)
	body, err := encodeResponse("chatcmpl-"+hex.EncodeToString(sum[:12]), req.Model, resp)
	if err != nil {
		writeAPIError(w, http.StatusInternalServerError, "server_error", "", "encode response: "+err.Error())
		return
	}
	s.calls.Add(1)
	writeJSON(w, http.StatusOK, body)
}

// tokens estimates the tokens of n bytes.
func tokens(n int) int64 { return int64((n + 3) / 4) }

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeAPIError writes an error in OpenAI's shape.
func writeAPIError(w http.ResponseWriter, status int, typ, code, msg string) {
	var e struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	e.Error.Message, e.Error.Type = msg, typ
	if code != "" {
		e.Error.Code = &code
	}
	raw, _ := marshal(e)
	writeJSON(w, status, raw)
}

// Listen listens on addr (host:port; port 0 picks one), which must be a
// loopback address: the scripted server is for this machine only.
func Listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("model server: address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("model server: address %q: want a loopback address such as 127.0.0.1:0", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("model server: %w", err)
	}
	return ln, nil
}

// BaseURL returns the base URL of a server listening on ln, with /v1.
func BaseURL(ln net.Listener) string { return "http://" + ln.Addr().String() + "/v1" }

// Serve serves s on ln until ctx is done, then shuts down, letting
// requests in flight finish for up to five seconds.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("model server: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("model server: shut down: %w", err)
	}
	return nil
}

// Script is a test player that answers turn k of a conversation (k
// assistant messages so far) with Script[k], and fails past the end.
type Script []Response

// Play returns the scripted answer for the conversation's turn.
func (s Script) Play(_ context.Context, req Request) (Response, error) {
	k := 0
	for _, m := range req.Messages {
		if m.Role == RoleAssistant {
			k++
		}
	}
	if k >= len(s) {
		return Response{}, fmt.Errorf("script of %d turns has no turn %d", len(s), k)
	}
	return s[k], nil
}

// Echo is the test player of `baton model serve`: it calls no tool and
// answers at once with a JSON object echoing what it was given:
// {"echo": <the last user message, as JSON if it is JSON>, "seed": <the
// request's seed or null>, "tools": [<the names of the tools offered>]}.
type Echo struct{}

// Play echoes the request.
func (Echo) Play(_ context.Context, req Request) (Response, error) {
	var last json.RawMessage = jsonNull
	for _, m := range req.Messages {
		if m.Role == RoleUser {
			last = jsonString(m.Content)
			if json.Valid([]byte(m.Content)) {
				last = json.RawMessage(m.Content)
			}
		}
	}
	tools := []string{}
	for _, t := range req.Tools {
		tools = append(tools, t.Name)
	}
	raw, err := marshal(struct {
		Echo  json.RawMessage `json:"echo"`
		Seed  *int64          `json:"seed"`
		Tools []string        `json:"tools"`
	}{last, req.Seed, tools})
	if err != nil {
		return Response{}, err
	}
	return Response{Content: string(raw)}, nil
}
