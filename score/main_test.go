package score

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// noEnv is an environment without any BATON_JUDGE_* variable.
func noEnv(string) string { return "" }

// golden compares got with testdata/name, rewriting it with -update.
func golden(tb testing.TB, name, got string) {
	tb.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run go test ./score -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		tb.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestMainNoJudgeGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		json bool
	}{{"runs.txt.golden", false}, {"runs.json.golden", true}} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := Main(context.Background(), "testdata/runs.jsonl", Options{JSON: tt.json, NoJudge: true, Stdout: &out, Env: noEnv})
			if err != nil {
				t.Fatalf("--no-judge: %v", err)
			}
			golden(t, tt.name, out.String())
		})
	}
}

func TestMainJSONKeys(t *testing.T) {
	var out bytes.Buffer
	if err := Main(context.Background(), "testdata/runs.jsonl", Options{JSON: true, NoJudge: true, Stdout: &out, Env: noEnv}); err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := json.Unmarshal(out.Bytes(), &top); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for k, v := range top {
		got[k] = nil
		if m, ok := v.(map[string]any); ok {
			got[k] = slices.Sorted(maps.Keys(m))
		}
	}
	want := map[string][]string{
		"tool_call_accuracy": {"exact", "n", "name_only", "order_ignored"},
		"output_accuracy":    {"accuracy", "correct", "incorrect", "unscoreable"},
		"judge":              nil, "judge_validation": nil, "headline": nil, "not_measured": nil, "runs": nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON keys (-want +got):\n%s", diff)
	}
	// With a judge, its objects have exactly the keys too.
	raw, err := json.Marshal(struct {
		J JudgeVerdict
		V JudgeValidation
	}{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"J":{"run":"","verdict":"","why":""},"V":{"labelled_n":0,"agreement":null,"false_pass":0,"false_fail":0}}`; string(raw) != want {
		t.Errorf("judge JSON = %s, want %s", raw, want)
	}
}

func TestMainNeedsJudge(t *testing.T) {
	var out bytes.Buffer
	err := Main(context.Background(), "testdata/runs.jsonl", Options{Stdout: &out, Env: noEnv})
	var need *NeedJudgeError
	if !errors.As(err, &need) {
		t.Fatalf("err = %v (%T), want a *NeedJudgeError", err, err)
	}
	if need.Unscoreable != 2 {
		t.Errorf("Unscoreable = %d, want 2", need.Unscoreable)
	}
	for _, v := range []string{EnvJudgeBaseURL, EnvJudgeModel, "--no-judge"} {
		if !strings.Contains(err.Error(), v) {
			t.Errorf("error %q does not say to set %s", err, v)
		}
	}
	// The deterministic part is printed all the same.
	var noJudge bytes.Buffer
	if err := Main(context.Background(), "testdata/runs.jsonl", Options{NoJudge: true, Stdout: &noJudge, Env: noEnv}); err != nil {
		t.Fatal(err)
	}
	cut := func(s string) string { return s[:strings.Index(s, "\njudge")] }
	if diff := cmp.Diff(cut(noJudge.String()), cut(out.String())); diff != "" {
		t.Errorf("deterministic part differs without endpoint (-no-judge +no endpoint):\n%s", diff)
	}
	// Only the model missing still refuses, and names just that.
	err = Main(context.Background(), "testdata/runs.jsonl", Options{Stdout: &bytes.Buffer{}, Env: func(k string) string {
		return map[string]string{EnvJudgeBaseURL: "http://localhost:1/v1"}[k]
	}})
	if !errors.As(err, &need) || !cmp.Equal(need.Missing, []string{EnvJudgeModel}) {
		t.Errorf("err = %v, want a NeedJudgeError missing only %s", err, EnvJudgeModel)
	}
}

func TestMainNoUnscoreableNeedsNoJudge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	writeFile(t, path, `{"run":"A","expected_answer":"x","answer":"x"}`+"\n")
	var out bytes.Buffer
	if err := Main(context.Background(), path, Options{Stdout: &out, Env: noEnv}); err != nil {
		t.Fatalf("no unscoreable runs, no endpoint: %v", err)
	}
	if !strings.Contains(out.String(), "judge not needed (no unscoreable runs)") {
		t.Errorf("output does not say the judge was not needed:\n%s", out.String())
	}
}

func TestMainWithJudge(t *testing.T) {
	f := sometimesWrongJudge(t)
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	var lines []string
	for _, r := range judgeRuns() {
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(raw))
	}
	writeFile(t, path, strings.Join(lines, "\n")+"\n")
	rubric := filepath.Join(t.TempDir(), "rubric.txt")
	writeFile(t, rubric, "RUBRIC-MARKER\n")
	cfg := f.config()
	env := map[string]string{EnvJudgeBaseURL: cfg.BaseURL, EnvJudgeModel: cfg.Model, EnvJudgeAPIKey: testKey}
	flags := JudgeConfig{InitialInterval: cfg.InitialInterval, MaxInterval: cfg.MaxInterval, MaxElapsed: cfg.MaxElapsed}

	var out bytes.Buffer
	err := Main(context.Background(), path, Options{Stdout: &out, Env: func(k string) string { return env[k] }, Judge: flags, Rubric: rubric})
	if err != nil {
		t.Fatal(err)
	}
	s := out.String()
	iv, ij := strings.Index(s, "judge validation (model fake-judge-1"), strings.Index(s, "judge verdicts (model fake-judge-1")
	if iv < 0 || ij < 0 || iv > ij {
		t.Errorf("want validation printed before verdicts, both naming the model:\n%s", s)
	}
	if !strings.Contains(s, "5           0.400      1           1           1") {
		t.Errorf("validation row missing:\n%s", s)
	}
	if strings.Contains(s, testKey) {
		t.Errorf("output leaks the key")
	}
	if !strings.Contains(f.requests[0].Messages[0].Content, "RUBRIC-MARKER") {
		t.Errorf("rubric file not sent")
	}
	if f.auth[0] != "Bearer "+testKey {
		t.Errorf("key from env not sent")
	}
}

func TestMainKeyEchoedByJudgeIsRedacted(t *testing.T) {
	f := newFakeEndpoint(t, func(int, chatRequest) (int, string) {
		return contentReply(`{"verdict":"fail","reason":"your key is ` + testKey + `"}`)
	})
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	writeFile(t, path, `{"run":"U","answer":"x"}`+"\n")
	for _, asJSON := range []bool{false, true} {
		var out bytes.Buffer
		if err := Main(context.Background(), path, Options{JSON: asJSON, Stdout: &out, Env: noEnv, Judge: f.config()}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), testKey) || !strings.Contains(out.String(), "your key is [REDACTED]") {
			t.Errorf("json=%v: key not redacted:\n%s", asJSON, out.String())
		}
	}
}

func TestMainJudgeFails(t *testing.T) {
	f := newFakeEndpoint(t, func(int, chatRequest) (int, string) { return 503, "down" })
	var out bytes.Buffer
	err := Main(context.Background(), "testdata/runs.jsonl", Options{Stdout: &out, Env: noEnv, Judge: f.config()})
	if err == nil || !strings.Contains(err.Error(), "judge run R1: chat completions: status 503: down") {
		t.Errorf("err = %v, want the judge failure naming the run", err)
	}
	if !strings.Contains(out.String(), "judge failed (see error)") || !strings.Contains(out.String(), "R6   yes") {
		t.Errorf("deterministic part not printed:\n%s", out.String())
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("error leaks the key")
	}
}

func TestMainBadInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.jsonl")
	writeFile(t, path, `{"run":"A"}`+"\n"+`{"run":"A"}`+"\n"+`{"run":"B","expected_answer":"x","answer":"x"}`+"\n")
	err := Main(context.Background(), path, Options{Stdout: &bytes.Buffer{}, Env: noEnv, NoJudge: true})
	if !errors.Is(err, ErrDuplicateID) || !strings.Contains(err.Error(), path+":2: run: duplicate run id") {
		t.Errorf("err = %v, want a duplicate id on line 2", err)
	}
	var out bytes.Buffer
	if err := Main(context.Background(), path, Options{Stdout: &out, Env: noEnv, NoJudge: true, KeepGoing: true}); err != nil {
		t.Fatalf("keep going: %v", err)
	}
	if !strings.Contains(out.String(), "; 1 bad line skipped") {
		t.Errorf("skipped lines not reported:\n%s", out.String())
	}
	empty := filepath.Join(dir, "empty.jsonl")
	writeFile(t, empty, "not json\n")
	if err := Main(context.Background(), empty, Options{Stdout: &bytes.Buffer{}, Env: noEnv, KeepGoing: true}); !errors.Is(err, ErrNoRuns) {
		t.Errorf("err = %v, want ErrNoRuns", err)
	}
	if err := Main(context.Background(), filepath.Join(dir, "missing.jsonl"), Options{Stdout: &bytes.Buffer{}, Env: noEnv}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want not exist", err)
	}
}

func writeFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// TestMainKeyWithHTMLCharactersNeverLeaks: a key with <, > and & is
// escaped as \u003c... in --json output; it is redacted in that form too,
// whether the judge echoes it or the input holds it (issue 23 item 1).
func TestMainKeyWithHTMLCharactersNeverLeaks(t *testing.T) {
	const key = `sk-<live>&key-0123456789-<&>`
	f := newFakeEndpoint(t, func(int, chatRequest) (int, string) {
		return contentReply(`{"verdict":"fail","reason":"your key is ` + key + ` or ` + key[:20] + `"}`)
	})
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	id, _ := json.Marshal("run " + key)
	writeFile(t, path, `{"run":`+string(id)+`,"answer":"x"}`+"\n")
	cfg := f.config()
	cfg.APIKey = key
	escaped, _ := json.Marshal(key)
	for _, asJSON := range []bool{false, true} {
		var out bytes.Buffer
		if err := Main(context.Background(), path, Options{JSON: asJSON, Stdout: &out, Env: noEnv, Judge: cfg}); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		for _, form := range []string{key, strings.Trim(string(escaped), `"`), key[:8], `sk-\u003cl`} {
			if strings.Contains(s, form) {
				t.Errorf("json=%v: output holds %q:\n%s", asJSON, form, s)
			}
		}
		if !strings.Contains(s, "your key is [REDACTED] or [REDACTED]") {
			t.Errorf("json=%v: reason not redacted:\n%s", asJSON, s)
		}
	}
}
