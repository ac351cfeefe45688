package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/score"
)

func newScoreCmd(g *globals) *cobra.Command {
	var opt score.Options
	cmd := &cobra.Command{
		Use:   "score FILE.jsonl",
		Short: "Score recorded agent runs: three trajectory matchers, output accuracy, a validated judge",
		Long: `Score recorded runs of any agent, one JSON object per line:

  {"run": "R1", "expected_calls": [{"name": "get_booking", "args": {"id": "B7"}}],
   "calls": [{"name": "get_booking", "args": {"id": "B7"}}],
   "expected_answer": "Refund of 140 EUR issued", "answer": "Refund of 140 EUR issued"}

Tool-call accuracy is shown under three matchers side by side (exact, name-only,
order-ignored) with each weaker matcher's gap to exact and the runs it forgives.
Output accuracy counts runs without a recorded truth as unscoreable, never in the
denominator. Unscoreable runs go to a judge behind an OpenAI-compatible
chat-completions endpoint, validated first on the runs that do have a truth.

The endpoint comes from --judge-url/--judge-model or BATON_JUDGE_BASE_URL,
BATON_JUDGE_MODEL and BATON_JUDGE_API_KEY (the key only from the environment).
Without one, baton prints the deterministic part and exits 2; --no-judge prints
the same and exits 0.`,
		Args: exactArgs(1, "one FILE.jsonl of recorded runs"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt.Stdout = g.stdout
			err := score.Main(cmd.Context(), args[0], opt)
			var need *score.NeedJudgeError
			if errors.As(err, &need) {
				return &usageError{err}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opt.JSON, "json", false, "print JSON instead of tables")
	f.BoolVar(&opt.NoJudge, "no-judge", false, "do not judge unscoreable runs; exit 0")
	f.BoolVar(&opt.KeepGoing, "keep-going", false, "skip and count bad lines instead of stopping at the first")
	f.StringVar(&opt.Judge.BaseURL, "judge-url", "", "judge endpoint base URL (POSTs to URL/chat/completions); default $BATON_JUDGE_BASE_URL")
	f.StringVar(&opt.Judge.Model, "judge-model", "", "judging model name; default $BATON_JUDGE_MODEL")
	f.StringVar(&opt.Rubric, "rubric", "", "rubric file for the judge (yes/no questions); default: a built-in rubric")
	return cmd
}
