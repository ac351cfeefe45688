package score

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/baton-lab/baton/model"
)

// Environment variables read by [JudgeConfig.WithEnv].
const (
	EnvJudgeBaseURL = "BATON_JUDGE_BASE_URL"
	EnvJudgeModel   = "BATON_JUDGE_MODEL"
	EnvJudgeAPIKey  = "BATON_JUDGE_API_KEY"
)

// JudgeConfig says how to reach the judge's OpenAI-compatible
// chat-completions endpoint. Its String and GoString never show the API
// key, and nothing [Main] prints holds it (see [model.Redactor]).
type JudgeConfig struct {
	BaseURL string // e.g. "https://api.openai.com/v1"; the client POSTs to BaseURL + "/chat/completions"
	Model   string
	APIKey  string // sent as "Authorization: Bearer ..."; optional

	// RequestTimeout bounds one attempt; zero means a third of the retry
	// budget, at most [model.DefaultRequestTimeout], so that a request
	// that hangs is retried within the budget. Set, it must be shorter
	// than MaxElapsed.
	RequestTimeout time.Duration
	// Retries: see [model.Config]; zero values take the model.Default*
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

// ModelConfig returns the client configuration of c.
func (c JudgeConfig) ModelConfig() model.Config {
	budget := c.MaxElapsed
	if budget == 0 {
		budget = model.DefaultMaxElapsed
	}
	timeout := c.RequestTimeout
	if timeout == 0 {
		timeout = min(model.DefaultRequestTimeout, budget/3)
	}
	return model.Config{
		BaseURL: c.BaseURL, Model: c.Model, APIKey: c.APIKey, Concurrency: 1,
		RequestTimeout: timeout, InitialInterval: c.InitialInterval, MaxInterval: c.MaxInterval,
		MaxElapsed: budget, MaxAttempts: c.MaxAttempts,
	}
}

// String describes c with the API key redacted.
func (c JudgeConfig) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("judge %s at %s (api key %s)", c.Model, model.StripURL(c.BaseURL), key)
}

// GoString is String, so that %#v does not show the key either.
func (c JudgeConfig) GoString() string { return c.String() }

// NewJudgeClient checks cfg and returns a client for the judge; hc nil
// means the client's own transport.
func NewJudgeClient(cfg JudgeConfig, hc *http.Client) (*model.Client, error) {
	if m := cfg.Missing(); len(m) > 0 {
		return nil, fmt.Errorf("judge config: missing %s", strings.Join(m, ", "))
	}
	c, err := model.NewClient(cfg.ModelConfig(), model.WithHTTPClient(hc))
	if err != nil {
		return nil, fmt.Errorf("judge config: %w", err)
	}
	return c, nil
}
