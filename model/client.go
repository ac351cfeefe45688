package model

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/cenkalti/backoff/v4"
)

// maxBody bounds a response body read by the client.
const maxBody = 16 << 20

// Client is an OpenAI-compatible chat-completions client for one
// endpoint: a bound on requests in flight, retries with jittered
// exponential back-off that honours Retry-After, a per-attempt timeout
// inside a retry budget, and typed errors ([*Error]) that never hold the
// API key. Response bodies are redacted before they are decoded, so a
// model that echoes the key cannot carry it into a transcript or a cache.
// It is safe for concurrent use.
type Client struct {
	cfg       Config
	chatURL   string
	modelsURL string
	endpoint  string // the base URL without credentials
	hc        *http.Client
	own       *http.Transport // the transport the client made, closed by Close
	sem       chan struct{}
	red       *Redactor
	onRetry   func(Retry)

	// now is the clock and newTimer makes the back-off timer of one
	// request (nil: a real one); tests replace them.
	now      func() time.Time
	newTimer func() backoffTimer

	mu       sync.Mutex
	rng      *rand.Rand          // jitter
	reported map[string]struct{} // model ids the endpoint reported

	requests, attempts, retries, failures atomic.Int64
	prompt, completion, latency           atomic.Int64
}

// Retry describes one retry the client is about to make, for logs.
type Retry struct {
	Attempt int           // the attempt that failed, from 1
	Wait    time.Duration // the wait before the next
	Err     error         // why it failed, redacted
}

// An Option changes a [Client].
type Option func(*Client)

// WithHTTPClient makes the client send its requests through hc (its
// Timeout, if any, applies on top of the per-attempt timeout).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.hc, c.own = hc, nil
		}
	}
}

// WithRetryHook has f called before every retry, e.g. to log it.
func WithRetryHook(f func(Retry)) Option { return func(c *Client) { c.onRetry = f } }

// NewClient validates cfg (see [Config.Validate]) and returns a client.
func NewClient(cfg Config, opts ...Option) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = cfg.Concurrency
	c := &Client{
		cfg:       cfg,
		chatURL:   withQuery(cfg.BaseURL, "/chat/completions"),
		modelsURL: withQuery(cfg.BaseURL, "/models"),
		endpoint:  strings.TrimRight(StripURL(cfg.BaseURL), "/"),
		hc:        &http.Client{Transport: t},
		own:       t,
		sem:       make(chan struct{}, cfg.Concurrency),
		red:       cfg.Redactor(),
		now:       time.Now,
		rng:       rand.New(rand.NewPCG(cfg.JitterSeed, 0x6261746f6e)),
		reported:  map[string]struct{}{},
	}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// withQuery appends route to the path of base, keeping base's query.
func withQuery(base, route string) string {
	u, err := url.Parse(base)
	if err != nil {
		return strings.TrimRight(base, "/") + route
	}
	u.Path = strings.TrimRight(u.Path, "/") + route
	u.RawPath = ""
	return u.String()
}

// Model returns the model asked for when a request names none.
func (c *Client) Model() string { return c.cfg.Model }

// Endpoint returns the base URL without credentials.
func (c *Client) Endpoint() string { return c.endpoint }

// Redactor returns the redactor of the client's secrets, for everything
// else that shows endpoint text.
func (c *Client) Redactor() *Redactor { return c.red }

// Close releases the idle connections of the client's own transport.
func (c *Client) Close() {
	if c.own != nil {
		c.own.CloseIdleConnections()
	}
}

// Chat sends req (req.Model "" means the client's model), retrying 408,
// 429, 5xx, timeouts and network errors within the retry budget. Every
// error is a [*Error].
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	if req.Model == "" {
		req.Model = c.cfg.Model
	}
	c.requests.Add(1)
	body, err := encodeRequest(req)
	if err != nil {
		c.failures.Add(1)
		return Response{}, c.fail(req.Model, ErrRejected, 0, 0, err.Error())
	}
	r := c.newRetrier()
	attempts := 0
	notify := func(err error, wait time.Duration) {
		c.retries.Add(1)
		if c.onRetry != nil {
			c.onRetry(Retry{Attempt: attempts, Wait: wait, Err: c.asError(ctx, err, req.Model, attempts, r)})
		}
	}
	var timer backoff.Timer
	if c.newTimer != nil {
		timer = c.newTimer()
	}
	resp, err := backoff.RetryNotifyWithTimerAndData(func() (Response, error) {
		attempts++
		c.attempts.Add(1)
		return c.attempt(ctx, body, r)
	}, backoff.WithContext(backoff.WithMaxRetries(r, uint64(c.cfg.MaxAttempts-1)), ctx), notify, timer)
	if err != nil {
		c.failures.Add(1)
		return Response{}, c.asError(ctx, err, req.Model, attempts, r)
	}
	c.record(resp)
	return resp, nil
}

func (c *Client) record(resp Response) {
	c.prompt.Add(resp.Usage.PromptTokens)
	c.completion.Add(resp.Usage.CompletionTokens)
	if resp.Model != "" {
		c.mu.Lock()
		c.reported[resp.Model] = struct{}{}
		c.mu.Unlock()
	}
}

// attemptError is one failed attempt; detail is redacted.
type attemptError struct {
	err    error
	status int
	detail string
}

func (e *attemptError) Error() string {
	if e.status != 0 {
		return fmt.Sprintf("status %d: %s", e.status, e.detail)
	}
	return e.err.Error() + ": " + e.detail
}

// retryable and permanent make attempt errors.
func retryable(sentinel error, status int, detail string) error {
	return &attemptError{sentinel, status, detail}
}

func permanent(sentinel error, status int, detail string) error {
	return backoff.Permanent(&attemptError{sentinel, status, detail})
}

// attempt makes one request within the attempt timeout and the budget.
func (c *Client) attempt(ctx context.Context, body []byte, r *retrier) (Response, error) {
	left := r.deadline.Sub(c.now())
	if left <= 0 {
		return Response{}, permanent(ErrTimeout, 0, fmt.Sprintf("retry budget %v spent", c.cfg.MaxElapsed))
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return Response{}, backoff.Permanent(ctx.Err())
	}
	defer func() { <-c.sem }()
	timeout := min(c.cfg.RequestTimeout, left)
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, c.chatURL, bytes.NewReader(body))
	if err != nil {
		return Response{}, permanent(ErrRejected, 0, c.red.String(err.Error()))
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	start := time.Now()
	raw, hresp, err := c.roundTrip(hreq)
	if err != nil {
		return Response{}, c.transportError(ctx, actx, err, timeout, timeout < c.cfg.RequestTimeout)
	}
	c.latency.Add(int64(time.Since(start)))
	text := c.red.Bytes(raw) // before anything reads or cuts it
	if hresp.StatusCode/100 != 2 {
		return Response{}, c.statusError(hresp, text, r)
	}
	resp, err := decodeResponse(text)
	if err != nil {
		return Response{}, permanent(ErrBadResponse, 0, c.red.String(err.Error())+"; body: "+c.snippet(text))
	}
	return resp, nil
}

// roundTrip sends hreq and reads at most maxBody bytes of the answer.
func (c *Client) roundTrip(hreq *http.Request) ([]byte, *http.Response, error) {
	hresp, err := c.hc.Do(hreq)
	if err != nil {
		return nil, nil, err
	}
	defer hresp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(hresp.Body, maxBody+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read response: %w", err)
	}
	if len(raw) > maxBody {
		return nil, nil, errTooLarge
	}
	return raw, hresp, nil
}

var errTooLarge = fmt.Errorf("response larger than %d MiB", maxBody>>20)

// transportError classifies an error before or while reading an answer.
func (c *Client) transportError(ctx, actx context.Context, err error, timeout time.Duration, clipped bool) error {
	switch {
	case ctx.Err() != nil:
		return backoff.Permanent(ctx.Err())
	case actx.Err() != nil && clipped:
		return retryable(ErrTimeout, 0, fmt.Sprintf("no answer before the retry budget %v ran out", c.cfg.MaxElapsed))
	case actx.Err() != nil:
		return retryable(ErrTimeout, 0, fmt.Sprintf("no answer within %v", timeout))
	case errors.Is(err, errTooLarge):
		return permanent(ErrBadResponse, 0, err.Error())
	}
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return permanent(ErrUnreachable, 0, fmt.Sprintf("cannot resolve host %q: check the base URL", c.red.String(dns.Name)))
	case errors.As(err, &dns):
		return retryable(ErrUnreachable, 0, fmt.Sprintf("cannot look up host %q", c.red.String(dns.Name)))
	case errors.As(err, &cert):
		return permanent(ErrUnreachable, 0, "TLS: "+c.red.String(cert.Err.Error()))
	case errors.Is(err, syscall.ECONNREFUSED):
		return retryable(ErrUnreachable, 0, "connection refused: is the server running?")
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // drop "Post <url>:"
	}
	return retryable(ErrUnreachable, 0, c.red.String(err.Error()))
}

// statusError classifies a non-2xx answer; text is already redacted.
func (c *Client) statusError(hresp *http.Response, text []byte, r *retrier) error {
	code := hresp.StatusCode
	detail := c.snippet(text) + c.headerNotes(hresp.Header, r)
	switch {
	case code == http.StatusTooManyRequests:
		return retryable(ErrRateLimited, code, detail)
	case code == http.StatusRequestTimeout:
		return retryable(ErrTimeout, code, detail)
	case code >= 500:
		return retryable(ErrServer, code, detail)
	case mentionsUnknownModel(text):
		return permanent(ErrModelNotFound, code, detail+"; list the endpoint's models at "+c.endpoint+"/models")
	case code == http.StatusNotFound:
		return permanent(ErrRejected, code, detail+"; no chat-completions route at "+c.endpoint+"/chat/completions: check the base URL (it usually ends in /v1)")
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return permanent(ErrAuth, code, detail+"; check the API key")
	}
	return permanent(ErrRejected, code, detail)
}

// mentionsUnknownModel recognises the "unknown model" answers of OpenAI
// (code model_not_found), vLLM ("The model `x` does not exist") and
// Ollama ("model "x" not found").
func mentionsUnknownModel(text []byte) bool {
	s := strings.ToLower(string(text))
	return strings.Contains(s, "model_not_found") ||
		strings.Contains(s, "model") && (strings.Contains(s, "not found") || strings.Contains(s, "does not exist"))
}

// headerNotes reads Retry-After into r and names the request id, for
// the error message; header text is redacted like the body.
func (c *Client) headerNotes(h http.Header, r *retrier) string {
	var notes []string
	if ra := h.Get("Retry-After"); ra != "" {
		if d, ok := parseRetryAfter(ra, c.now()); ok {
			r.after = d
			notes = append(notes, fmt.Sprintf("retry after %v", d))
		} else {
			notes = append(notes, fmt.Sprintf("Retry-After %q not understood", c.red.String(ra)))
		}
	}
	if id := h.Get("X-Request-Id"); id != "" {
		notes = append(notes, "request id "+c.clip(c.red.String(id), 80))
	}
	if len(notes) == 0 {
		return ""
	}
	return " [" + strings.Join(notes, "; ") + "]"
}

// parseRetryAfter reads delay-seconds or an HTTP-date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	var secs int64
	if _, err := fmt.Sscanf(v, "%d", &secs); err == nil && fmt.Sprint(secs) == v {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(min(secs, 1<<31)) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// snippet is the start of a redacted body for an error message: redacted
// (again: the cut comes after), white space collapsed, at most 200 bytes.
func (c *Client) snippet(text []byte) string {
	s := strings.Join(strings.Fields(c.red.String(string(text))), " ")
	return c.clip(s, 200)
}

// clip cuts s to at most n bytes on a rune boundary, redacting what is
// left (a cut secret is still a secret).
func (c *Client) clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return c.red.String(s[:n]) + "..."
}

// asError turns the outcome of the retries into a [*Error].
func (c *Client) asError(ctx context.Context, err error, model string, attempts int, r *retrier) error {
	e := &Error{Attempts: attempts, Model: model, Endpoint: c.endpoint}
	var ae *attemptError
	switch {
	case errors.As(err, &ae):
		e.Err, e.Status, e.Detail = ae.err, ae.status, ae.detail
		if r.stopped != "" {
			e.Detail += "; gave up: " + r.stopped
		}
	case ctx.Err() != nil:
		e.Err = ctx.Err()
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		e.Err = err
	default:
		e.Err, e.Detail = ErrBadResponse, err.Error()
	}
	e.Detail = c.red.String(e.Detail)
	return e
}

// fail builds a [*Error] outside the retry loop.
func (c *Client) fail(model string, sentinel error, status, attempts int, detail string) error {
	return &Error{Err: sentinel, Status: status, Detail: c.red.String(detail), Attempts: attempts, Model: model, Endpoint: c.endpoint}
}

// jitter spreads d by ±Jitter.
func (c *Client) jitter(d time.Duration) time.Duration {
	if c.cfg.Jitter == 0 || d <= 0 {
		return d
	}
	c.mu.Lock()
	u := c.rng.Float64()
	c.mu.Unlock()
	return time.Duration(float64(d) * (1 + c.cfg.Jitter*(2*u-1)))
}

// retrier is the back-off of one request: exponential, jittered, never
// shorter than the last Retry-After, and within the budget.
type retrier struct {
	c        *Client
	eb       *backoff.ExponentialBackOff
	deadline time.Time
	after    time.Duration // the last answer's Retry-After
	stopped  string        // why the retries stopped before MaxAttempts
}

func (c *Client) newRetrier() *retrier {
	eb := &backoff.ExponentialBackOff{
		InitialInterval: c.cfg.InitialInterval,
		Multiplier:      2,
		MaxInterval:     c.cfg.MaxInterval,
		Stop:            backoff.Stop,
		Clock:           backoff.SystemClock,
		// RandomizationFactor 0: backoff/v4 jitters from the global
		// math/rand; the client jitters from its own seeded source.
	}
	return &retrier{c: c, eb: eb, deadline: c.now().Add(c.cfg.MaxElapsed)}
}

func (r *retrier) Reset() { r.eb.Reset() }

func (r *retrier) NextBackOff() time.Duration {
	next := r.c.jitter(r.eb.NextBackOff())
	after := r.after
	r.after = 0
	next = max(next, after)
	if left := r.deadline.Sub(r.c.now()); next >= left {
		if after > 0 && after >= left {
			r.stopped = fmt.Sprintf("the endpoint asks to wait %v, beyond what is left of the retry budget %v", after, r.c.cfg.MaxElapsed)
		} else {
			r.stopped = fmt.Sprintf("retry budget %v spent", r.c.cfg.MaxElapsed)
		}
		return backoff.Stop
	}
	return next
}

// ClientStats counts a client's work. Latency is wall-clock time, for
// benchmarks and operators: it belongs in no byte-stable result.
type ClientStats struct {
	Requests int64         // Chat calls
	Attempts int64         // HTTP requests sent
	Retries  int64         // attempts that were retried
	Failures int64         // Chat calls that returned an error
	Usage    Usage         // tokens of the answers received
	Latency  time.Duration // total time of the attempts that got an answer
}

// Stats returns the client's counters.
func (c *Client) Stats() ClientStats {
	return ClientStats{
		Requests: c.requests.Load(), Attempts: c.attempts.Load(), Retries: c.retries.Load(), Failures: c.failures.Load(),
		Usage:   Usage{PromptTokens: c.prompt.Load(), CompletionTokens: c.completion.Load()},
		Latency: time.Duration(c.latency.Load()),
	}
}

// ReportedModels returns the model ids the endpoint reported, sorted.
func (c *Client) ReportedModels() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := make([]string, 0, len(c.reported))
	for id := range c.reported {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Models lists the models the endpoint serves (GET BaseURL/models), in
// one attempt, sorted.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodGet, c.modelsURL, nil)
	if err != nil {
		return nil, c.fail(c.cfg.Model, ErrRejected, 0, 1, err.Error())
	}
	if c.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	r := c.newRetrier()
	raw, hresp, err := c.roundTrip(hreq)
	if err != nil {
		return nil, c.asError(ctx, c.transportError(ctx, actx, err, c.cfg.RequestTimeout, false), c.cfg.Model, 1, r)
	}
	text := c.red.Bytes(raw)
	if hresp.StatusCode/100 != 2 {
		return nil, c.asError(ctx, c.statusError(hresp, text, r), c.cfg.Model, 1, r)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(text, &list); err != nil {
		return nil, c.fail(c.cfg.Model, ErrBadResponse, 0, 1, "models: "+err.Error())
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	slices.Sort(ids)
	return ids, nil
}

// backoffTimer is backoff/v4's timer.
type backoffTimer = backoff.Timer
