package score

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// Environment variables read by [JudgeConfig.WithEnv].
const (
	EnvJudgeBaseURL = "BATON_JUDGE_BASE_URL"
	EnvJudgeModel   = "BATON_JUDGE_MODEL"
	EnvJudgeAPIKey  = "BATON_JUDGE_API_KEY"
)

// Retry defaults of [JudgeConfig].
const (
	DefaultInitialInterval = 500 * time.Millisecond
	DefaultMaxInterval     = 10 * time.Second
	DefaultMaxElapsed      = time.Minute
	DefaultMaxAttempts     = 6
)

// Client errors.
var (
	ErrNoChoices = errors.New("chat completions: response has no choices")
	errRedacted  = errors.New("redacted")
)

// JudgeConfig says how to reach an OpenAI-compatible chat-completions
// endpoint. Its String and GoString never show the API key, and the
// client's errors and [Main]'s output have it replaced by "[REDACTED]"
// (keys shorter than 8 characters only after "Bearer ").
type JudgeConfig struct {
	BaseURL string // e.g. "https://api.openai.com/v1"; the client POSTs to BaseURL + "/chat/completions"
	Model   string
	APIKey  string // sent as "Authorization: Bearer ..."; optional

	// Retries on 408, 429, 5xx and network errors, with exponential
	// back-off (no jitter) from InitialInterval up to MaxInterval, at most
	// MaxAttempts attempts within MaxElapsed. Zero values take the Default*
	// constants.
	InitialInterval time.Duration
	MaxInterval     time.Duration
	MaxElapsed      time.Duration
	MaxAttempts     int
}

// WithEnv returns c with its empty BaseURL, Model and APIKey filled from
// the BATON_JUDGE_* variables through getenv: flags win over environment.
func (c JudgeConfig) WithEnv(getenv func(string) string) JudgeConfig {
	if getenv == nil {
		return c
	}
	fill := func(v *string, name string) {
		if *v == "" {
			*v = strings.TrimSpace(getenv(name))
		}
	}
	fill(&c.BaseURL, EnvJudgeBaseURL)
	fill(&c.Model, EnvJudgeModel)
	fill(&c.APIKey, EnvJudgeAPIKey)
	return c
}

// Missing lists the environment variables for the settings a judge needs
// but c lacks (base URL and model; the key is optional).
func (c JudgeConfig) Missing() []string {
	var m []string
	if c.BaseURL == "" {
		m = append(m, EnvJudgeBaseURL)
	}
	if c.Model == "" {
		m = append(m, EnvJudgeModel)
	}
	return m
}

// String describes c with the API key redacted.
func (c JudgeConfig) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("judge %s at %s (api key %s)", c.Model, c.BaseURL, key)
}

// GoString is String, so that %#v does not show the key either.
func (c JudgeConfig) GoString() string { return c.String() }

// Client is a small chat-completions client. It is safe for concurrent use.
type Client struct {
	cfg      JudgeConfig
	endpoint string
	http     *http.Client
	// onWait, if set, sees every back-off wait the client asks for (tests
	// assert the waits requested rather than time elapsed).
	onWait func(time.Duration)
}

// NewClient checks cfg and returns a client; hc nil means a client with a
// two-minute timeout per request.
func NewClient(cfg JudgeConfig, hc *http.Client) (*Client, error) {
	if m := cfg.Missing(); len(m) > 0 {
		return nil, fmt.Errorf("judge config: missing %s", strings.Join(m, ", "))
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, errors.New("judge config: base URL: not a URL")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("judge config: base URL: want http(s)://host/..., got %q", u.Redacted())
	}
	if hc == nil {
		hc = &http.Client{Timeout: 2 * time.Minute}
	}
	if cfg.InitialInterval <= 0 {
		cfg.InitialInterval = DefaultInitialInterval
	}
	if cfg.MaxInterval <= 0 {
		cfg.MaxInterval = DefaultMaxInterval
	}
	if cfg.MaxElapsed <= 0 {
		cfg.MaxElapsed = DefaultMaxElapsed
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	return &Client{cfg: cfg, endpoint: strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions", http: hc}, nil
}

// Model returns the model the client asks.
func (c *Client) Model() string { return c.cfg.Model }

// Message is one chat message.
type Message struct {
	Role       string     // system, user, assistant, tool
	Content    string     //
	ToolCalls  []ToolCall // assistant messages that call tools
	ToolCallID string     // tool messages: the call answered
}

// ToolCall is a tool call requested by the model.
type ToolCall struct {
	ID   string
	Name string
	Args map[string]any
}

// Call returns the call without its id.
func (t ToolCall) Call() Call { return Call{Name: t.Name, Args: t.Args} }

// Tool is a function the model may call; Parameters is a JSON Schema.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// ChatRequest is one chat-completions request; the model comes from the
// client's config.
type ChatRequest struct {
	Messages    []Message
	Tools       []Tool
	Temperature *float64 // nil: the endpoint's default
}

// ChatResponse is the first choice of a response.
type ChatResponse struct {
	Content      string
	ToolCalls    []ToolCall
	FinishReason string
}

// Chat sends req, retrying 408, 429, 5xx and network errors with back-off.
// Errors never contain the API key.
func (c *Client) Chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	body, err := c.encode(req)
	if err != nil {
		return ChatResponse{}, c.redact(fmt.Errorf("chat completions: encode request: %w", err))
	}
	eb := &backoff.ExponentialBackOff{
		InitialInterval:     c.cfg.InitialInterval,
		RandomizationFactor: 0, // backoff/v4 jitter draws from the global math/rand
		Multiplier:          2,
		MaxInterval:         c.cfg.MaxInterval,
		MaxElapsedTime:      c.cfg.MaxElapsed,
		Stop:                backoff.Stop,
		Clock:               backoff.SystemClock,
	}
	eb.Reset()
	ra := &retryAfter{BackOff: eb, max: c.cfg.MaxInterval, onWait: c.onWait}
	b := backoff.WithContext(backoff.WithMaxRetries(ra, uint64(c.cfg.MaxAttempts-1)), ctx)
	resp, err := backoff.RetryWithData(func() (ChatResponse, error) {
		return c.attempt(ctx, body, ra)
	}, b)
	if err != nil {
		return ChatResponse{}, c.redact(fmt.Errorf("chat completions: %w", err))
	}
	return resp, nil
}

// attempt makes one request. Errors that must not be retried are wrapped
// in backoff.Permanent.
func (c *Client) attempt(ctx context.Context, body []byte, ra *retryAfter) (ChatResponse, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return ChatResponse{}, backoff.Permanent(err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	hresp, err := c.http.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return ChatResponse{}, backoff.Permanent(ctx.Err())
		}
		return ChatResponse{}, err // network error: retry
	}
	defer hresp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(hresp.Body, 16<<20))
	if err != nil {
		return ChatResponse{}, fmt.Errorf("read response: %w", err)
	}
	if hresp.StatusCode/100 != 2 {
		serr := &StatusError{Code: hresp.StatusCode, Body: snippet(raw)}
		switch {
		case hresp.StatusCode == http.StatusTooManyRequests:
			ra.set(hresp.Header.Get("Retry-After"))
			return ChatResponse{}, serr
		case hresp.StatusCode == http.StatusRequestTimeout, hresp.StatusCode >= 500:
			return ChatResponse{}, serr
		}
		return ChatResponse{}, backoff.Permanent(serr)
	}
	resp, err := decodeResponse(raw)
	if err != nil {
		return ChatResponse{}, backoff.Permanent(err)
	}
	return resp, nil
}

// StatusError is a non-2xx answer of the endpoint.
type StatusError struct {
	Code int
	Body string // the start of the response body
}

func (e *StatusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("status %d", e.Code)
	}
	return fmt.Sprintf("status %d: %s", e.Code, e.Body)
}

// snippet returns the start of a response body for an error message.
func snippet(raw []byte) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// redact removes the API key from err's message. Only context errors stay
// reachable through errors.Is; nothing else that might hold the key is.
func (c *Client) redact(err error) error {
	if err == nil {
		return nil
	}
	re := &redactedError{msg: redactKey(err.Error(), c.cfg.APIKey), cause: errRedacted}
	switch {
	case errors.Is(err, context.Canceled):
		re.cause = context.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		re.cause = context.DeadlineExceeded
	}
	return re
}

// minRedactLen is the shortest key redacted wherever it occurs. A shorter
// "key" (local endpoints take "x" or "none") would mangle ordinary words
// and protects nothing; it is still redacted after "Bearer ".
const minRedactLen = 8

// redactKey replaces the key in s.
func redactKey(s, key string) string {
	if key == "" {
		return s
	}
	if len(key) >= minRedactLen {
		return strings.ReplaceAll(s, key, "[REDACTED]")
	}
	return strings.ReplaceAll(s, "Bearer "+key, "Bearer [REDACTED]")
}

// redactedError is an error whose message has been scrubbed of the key.
type redactedError struct {
	msg   string
	cause error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.cause }

// retryAfter stretches the next back-off to a 429's Retry-After seconds,
// capped at max.
type retryAfter struct {
	backoff.BackOff
	max    time.Duration
	after  time.Duration
	onWait func(time.Duration)
}

func (r *retryAfter) set(h string) {
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s > 0 {
		r.after = min(time.Duration(s)*time.Second, r.max)
	}
}

func (r *retryAfter) NextBackOff() time.Duration {
	next := r.BackOff.NextBackOff()
	if next != backoff.Stop && r.after > next {
		next = r.after
	}
	r.after = 0
	if r.onWait != nil && next != backoff.Stop {
		r.onWait(next)
	}
	return next
}
