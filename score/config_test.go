package score

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/model"
)

func TestJudgeConfigWithEnv(t *testing.T) {
	env := map[string]string{EnvJudgeBaseURL: "http://env/v1", EnvJudgeModel: " env-model ", EnvJudgeAPIKey: "env-key"}
	got := JudgeConfig{Model: "flag-model"}.WithEnv(func(k string) string { return env[k] })
	want := JudgeConfig{BaseURL: "http://env/v1", Model: "flag-model", APIKey: "env-key"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flags must win over env (-want +got):\n%s", diff)
	}
}

func TestNewJudgeClientConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     JudgeConfig
		wantErr string
	}{
		{"missing both", JudgeConfig{APIKey: testKey}, "missing BATON_JUDGE_BASE_URL, BATON_JUDGE_MODEL"},
		{"not http", JudgeConfig{BaseURL: "ftp://host/v1", Model: "m"}, `want http(s)://host/..., got "ftp://host/v1"`},
		{"credentials stripped", JudgeConfig{BaseURL: "file://u:hunter2@/x", Model: "m"}, `got "file:///x"`},
		// Issue 23 item 13: the old defaults, a 120 s request in a 60 s budget.
		{"timeout beyond the budget", JudgeConfig{BaseURL: "http://localhost:1/v1", Model: "m", RequestTimeout: 2 * time.Minute, MaxElapsed: time.Minute},
			"request timeout 2m0s is not shorter than the retry budget 1m0s"},
		{"defaults fit", JudgeConfig{BaseURL: "http://localhost:1/v1", Model: "m"}, ""},
		{"a small budget gets a smaller timeout", JudgeConfig{BaseURL: "http://localhost:1/v1", Model: "m", MaxElapsed: 3 * time.Second}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewJudgeClient(tt.cfg, nil)
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("err = %v", err)
				} else {
					c.Close()
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
	mc := JudgeConfig{MaxElapsed: 3 * time.Second}.ModelConfig()
	if mc.RequestTimeout != time.Second {
		t.Errorf("request timeout %v for a 3s budget, want 1s", mc.RequestTimeout)
	}
	if mc := (JudgeConfig{}).ModelConfig(); mc.RequestTimeout >= mc.MaxElapsed {
		t.Errorf("default timeout %v does not fit the default budget %v", mc.RequestTimeout, mc.MaxElapsed)
	}
}

func TestJudgeConfigNeverShowsKey(t *testing.T) {
	cfg := JudgeConfig{BaseURL: "http://u:pw-secret@host/v1", Model: "m", APIKey: testKey}
	for _, s := range []string{cfg.String(), fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg)} {
		if strings.Contains(s, testKey) || strings.Contains(s, "5ecret") || strings.Contains(s, "pw-secret") {
			t.Errorf("leaks: %s", s)
		}
	}
	if _, err := NewJudgeClient(JudgeConfig{}, nil); errors.Is(err, model.ErrConfig) {
		t.Errorf("a missing endpoint is reported as missing, not as a bad config")
	}
}
