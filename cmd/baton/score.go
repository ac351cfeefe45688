package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/score"
)

func newScoreCmd(g *globals) *cobra.Command {
	var opt score.Options
	var kind string
	cmd := &cobra.Command{
		Use:   "score [--kind KIND] FILE",
		Short: "Score recorded agent runs, or recorded skill, voice, knowledge or coordination observations",
		Long: `Score recorded runs of any agent (--kind runs, the default), one JSON object per line:

  {"run": "R1", "expected_calls": [{"name": "get_booking", "args": {"id": "B7"}}],
   "calls": [{"name": "get_booking", "args": {"id": "B7"}}],
   "expected_answer": "Booking B7 cancelled", "answer": "Booking B7 cancelled"}

Tool-call accuracy is shown under three matchers side by side (exact, name-only,
order-ignored) with each weaker matcher's gap to exact and the runs it forgives.
Output accuracy counts runs without a recorded truth as unscoreable, never in the
denominator. Unscoreable runs go to a judge behind an OpenAI-compatible
chat-completions endpoint, validated first on the runs that do have a truth.

The endpoint comes from --judge-url/--judge-model or BATON_JUDGE_BASE_URL,
BATON_JUDGE_MODEL and BATON_JUDGE_API_KEY (the key only from the environment).
Without one, baton prints the deterministic part and exits 2; --no-judge prints
the same and exits 0.

Other kinds score observations from systems baton does not run (formats in the
README and in score/testdata):

  --kind skills        JSON Lines, a request a line: selection precision and recall,
                       correct non-activation, version, execution, complete success
  --kind voice         one JSON document: ordering constraints over event timelines
                       with timestamp bounds: satisfied, violated or indeterminate
  --kind knowledge     JSON Lines, a case under an interface a line: the stage each
                       knowledge-to-action attempt failed at, per interface
  --kind coordination  JSON Lines, a coordination record a line: eight dimensions,
                       each a rate with n and interval, every failure with its events

Every rate shows its count, n and 95% Wilson interval. Input is strict: an
unknown or repeated key, invalid UTF-8, a byte order mark or a number out of
range is an error naming the file, line and field.`,
		Args: exactArgs(1, "one FILE of recorded runs or observations"),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := score.ParseKind(kind)
			if err != nil {
				return &usageError{fmt.Errorf("--%w", err)}
			}
			opt.Kind = k
			if k != score.KindRuns {
				for _, name := range []string{"no-judge", "keep-going", "judge-url", "judge-model", "rubric"} {
					if cmd.Flags().Changed(name) {
						return &usageError{fmt.Errorf("--%s applies only to --kind runs", name)}
					}
				}
			}
			opt.Stdout = g.stdout
			err = score.Main(cmd.Context(), args[0], opt)
			var need *score.NeedJudgeError
			if errors.As(err, &need) {
				return &usageError{err}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&kind, "kind", string(score.KindRuns), "what FILE records: runs, skills, voice, knowledge or coordination")
	f.BoolVar(&opt.JSON, "json", false, "print JSON instead of tables")
	f.BoolVar(&opt.NoJudge, "no-judge", false, "do not judge unscoreable runs; exit 0")
	f.BoolVar(&opt.KeepGoing, "keep-going", false, "skip and count bad lines instead of stopping at the first")
	f.StringVar(&opt.Judge.BaseURL, "judge-url", "", "judge endpoint base URL (POSTs to URL/chat/completions); default $BATON_JUDGE_BASE_URL")
	f.StringVar(&opt.Judge.Model, "judge-model", "", "judging model name; default $BATON_JUDGE_MODEL")
	f.StringVar(&opt.Rubric, "rubric", "", "rubric file for the judge (yes/no questions); default: a built-in rubric")
	return cmd
}
