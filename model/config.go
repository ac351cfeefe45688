package model

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Defaults of [Config].
const (
	DefaultConcurrency     = 4
	DefaultRequestTimeout  = 30 * time.Second
	DefaultInitialInterval = 500 * time.Millisecond
	DefaultMaxInterval     = 10 * time.Second
	DefaultMaxElapsed      = 90 * time.Second
	DefaultMaxAttempts     = 6
	DefaultJitter          = 0.5
)

// ErrConfig marks a configuration error.
var ErrConfig = errors.New("model config")

// Config says how to reach an OpenAI-compatible chat-completions endpoint
// and how hard to try. Its String and GoString never show the API key.
type Config struct {
	// BaseURL is e.g. "https://api.openai.com/v1" or
	// "http://127.0.0.1:8000/v1"; the client POSTs to BaseURL +
	// "/chat/completions".
	BaseURL string
	// Model is the model asked for when a request names none.
	Model string
	// APIKey is sent as "Authorization: Bearer ..."; optional. It is
	// redacted from everything the client returns.
	APIKey string

	// Concurrency bounds the requests in flight to the endpoint (0:
	// DefaultConcurrency). Share one client per endpoint to share the
	// bound.
	Concurrency int
	// RequestTimeout bounds one attempt; it must be shorter than
	// MaxElapsed, so that a request that hangs is retried.
	RequestTimeout time.Duration
	// Retries on 408, 429, 5xx, timeouts and network errors: exponential
	// back-off from InitialInterval up to MaxInterval, each wait drawn
	// with ±Jitter (a fraction; negative for none) from a source seeded
	// with JitterSeed, never shorter than a Retry-After; at most
	// MaxAttempts attempts, all within MaxElapsed (the retry budget).
	// Zero values take the Default* constants.
	InitialInterval time.Duration
	MaxInterval     time.Duration
	MaxElapsed      time.Duration
	MaxAttempts     int
	Jitter          float64
	JitterSeed      uint64
}

// withDefaults fills the zero settings.
func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.RequestTimeout, DefaultRequestTimeout)
	def(&c.InitialInterval, DefaultInitialInterval)
	def(&c.MaxInterval, DefaultMaxInterval)
	def(&c.MaxElapsed, DefaultMaxElapsed)
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	switch {
	case c.Jitter == 0:
		c.Jitter = DefaultJitter
	case c.Jitter < 0:
		c.Jitter = 0
	}
	return c
}

// Validate checks c after defaults are applied, saying what to change.
func (c Config) Validate() error {
	if err := validateBaseURL(c.BaseURL); err != nil {
		return err
	}
	if strings.TrimSpace(c.Model) == "" {
		return fmt.Errorf("%w: no model named", ErrConfig)
	}
	return c.withDefaults().validateLimits()
}

func (c Config) validateLimits() error {
	var problems []string
	if c.Concurrency < 0 {
		problems = append(problems, fmt.Sprintf("concurrency %d: want at least 1", c.Concurrency))
	}
	if c.MaxAttempts < 0 {
		problems = append(problems, fmt.Sprintf("max attempts %d: want at least 1", c.MaxAttempts))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"request timeout", c.RequestTimeout}, {"initial interval", c.InitialInterval}, {"max interval", c.MaxInterval}, {"retry budget", c.MaxElapsed}} {
		if d.v < 0 {
			problems = append(problems, fmt.Sprintf("%s %v: want a positive duration", d.name, d.v))
		}
	}
	if c.RequestTimeout >= c.MaxElapsed {
		problems = append(problems, fmt.Sprintf(
			"request timeout %v is not shorter than the retry budget %v: a request that hangs would spend the whole budget and never be retried; lower the timeout or raise the budget",
			c.RequestTimeout, c.MaxElapsed))
	}
	if c.MaxInterval < c.InitialInterval {
		problems = append(problems, fmt.Sprintf("max interval %v is below the initial interval %v", c.MaxInterval, c.InitialInterval))
	}
	if c.Jitter > 1 {
		problems = append(problems, fmt.Sprintf("jitter %v: want a fraction from 0 to 1", c.Jitter))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrConfig, strings.Join(problems, "; "))
	}
	return nil
}

func validateBaseURL(raw string) error {
	if strings.TrimSpace(raw) == "" {
		return fmt.Errorf("%w: no base URL", ErrConfig)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: base URL: not a URL", ErrConfig)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: base URL: want http(s)://host/..., got %q", ErrConfig, StripURL(raw))
	}
	return nil
}

// Redactor returns the redactor of c's secrets: what a client of c, and
// anything that prints what it returned, must redact.
func (c Config) Redactor() *Redactor { return NewRedactor(c.secrets()...) }

// secrets lists what a client must never show: the key, and any password
// or query value (an "api-key" parameter) in the base URL.
func (c Config) secrets() []string {
	s := []string{c.APIKey}
	if u, err := url.Parse(c.BaseURL); err == nil {
		if p, ok := u.User.Password(); ok {
			s = append(s, p)
		}
		for _, vs := range u.Query() {
			s = append(s, vs...)
		}
	}
	return s
}

// String describes c without the key or URL credentials.
func (c Config) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("model %s at %s (api key %s)", c.Model, StripURL(c.BaseURL), key)
}

// GoString is String, so that %#v does not show the key either.
func (c Config) GoString() string { return c.String() }

// StripURL returns the URL raw without user name, password, query and
// fragment: the form of an endpoint fit for a log, a manifest or a
// report. Text that does not parse as a URL becomes "(invalid URL)".
func StripURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "(invalid URL)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}
