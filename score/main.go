package score

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// Options are the settings of `baton score`.
type Options struct {
	Kind      Kind        // what the file records; "" means KindRuns
	JSON      bool        // print JSON instead of tables
	NoJudge   bool        // skip the judge; not an error
	KeepGoing bool        // skip and count bad input lines
	Judge     JudgeConfig // flags; empty fields are filled from Env
	Rubric    string      // path of the rubric file; "" means DefaultRubric

	Stdout     io.Writer           // nil means os.Stdout
	Env        func(string) string // nil means os.Getenv
	HTTPClient *http.Client        // nil means a default client
}

// NeedJudgeError is returned by [Main] when runs need a judge but no
// endpoint is configured. The deterministic part has been printed; the
// command exits 2.
type NeedJudgeError struct {
	Unscoreable int      // runs the judge would have judged
	Missing     []string // BATON_JUDGE_* variables to set
}

func (e *NeedJudgeError) Error() string {
	return fmt.Sprintf("%d unscoreable runs need a judge: set %s (and %s if the endpoint needs a key), or pass --no-judge",
		e.Unscoreable, strings.Join(e.Missing, " and "), EnvJudgeAPIKey)
}

// Main scores the runs in the JSON Lines file at path and prints the report;
// with another opt.Kind it scores that kind of observation instead (see
// [Kind]), without a judge.
//
// The judge runs only when some run is unscoreable. Without an endpoint the
// deterministic part is printed and a [*NeedJudgeError] returned, unless
// opt.NoJudge. If the judge fails, the deterministic part is printed and
// the error returned.
func Main(ctx context.Context, path string, opt Options) error {
	out := opt.Stdout
	if out == nil {
		out = os.Stdout
	}
	if opt.Kind != "" && opt.Kind != KindRuns {
		return mainObservations(path, opt, out)
	}
	env := opt.Env
	if env == nil {
		env = os.Getenv
	}
	runs, skipped, err := readFile(path, opt.KeepGoing)
	if err != nil {
		return err
	}
	rep := Score(runs)
	rep.Skipped = skipped

	cfg := opt.Judge.WithEnv(env)
	var judgeErr error
	switch {
	case opt.NoJudge:
		rep.JudgeNote = "skipped (--no-judge)"
	case rep.OutputAccuracy.Unscoreable == 0:
		rep.JudgeNote = "not needed (no unscoreable runs)"
	case len(cfg.Missing()) > 0:
		rep.JudgeNote = "not run (no endpoint configured)"
		judgeErr = &NeedJudgeError{Unscoreable: rep.OutputAccuracy.Unscoreable, Missing: cfg.Missing()}
	default:
		judgeErr = runJudge(ctx, rep, runs, cfg, opt)
		if judgeErr != nil && rep.JudgeModel == "" {
			rep.JudgeNote = "failed (see error)" // before any request
		}
	}
	rep.Headline = rep.headline()

	var buf bytes.Buffer
	if opt.JSON {
		err = WriteJSON(&buf, rep)
	} else {
		err = WriteText(&buf, rep)
	}
	if err == nil {
		// A judge's reason comes from a remote model: never let it echo
		// the key, raw or escaped (the client redacted its answers already).
		_, err = io.WriteString(out, cfg.ModelConfig().Redactor().String(buf.String()))
	}
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return judgeErr
}

func readFile(path string, keepGoing bool) ([]Run, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("read runs: %w", err)
	}
	defer f.Close()
	runs, skipped, err := ReadRuns(f, path, keepGoing)
	if err != nil {
		return nil, skipped, fmt.Errorf("read runs: %w", err)
	}
	if len(runs) == 0 {
		return nil, skipped, fmt.Errorf("read runs: %s: %w (%s skipped)", path, ErrNoRuns, plural(skipped, "bad line"))
	}
	return runs, skipped, nil
}

func runJudge(ctx context.Context, rep *Report, runs []Run, cfg JudgeConfig, opt Options) error {
	rubric := ""
	if opt.Rubric != "" {
		raw, err := os.ReadFile(opt.Rubric)
		if err != nil {
			return fmt.Errorf("read rubric: %w", err)
		}
		if strings.TrimSpace(string(raw)) == "" {
			return fmt.Errorf("read rubric: %s: empty", opt.Rubric)
		}
		rubric = string(raw)
	}
	client, err := NewJudgeClient(cfg, opt.HTTPClient)
	if err != nil {
		return err
	}
	defer client.Close()
	return rep.ApplyJudge(ctx, runs, &LLMJudge{Client: client, Rubric: rubric}, cfg.Model)
}

// WriteJSON writes r as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
