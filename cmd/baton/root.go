package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/release"
	"github.com/baton-lab/baton/reports"
)

// Exit codes, documented in --help and the README.
const (
	exitOK        = 0 // success
	exitError     = 1 // an error: bad input, a failed run, an unreadable folder
	exitUsage     = 2 // bad usage: unknown command or flag, missing argument, a judge endpoint not set
	exitDiscarded = 3 // the run was discarded by the validity gate
	exitHold      = 4 // baton release: the rule holds the candidate
	exitUndecided = 5 // baton release: the rule's verdict is inconclusive
)

const exitHelp = `Exit codes:
  0  success
  1  error (bad input, unreadable files or run folders, a failed run)
  2  usage (unknown command or flag, wrong arguments; baton score without a judge endpoint)
  3  the run was discarded by the validity gate (a design missed the control class)`

// usageError marks an error as bad usage (exit 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// globals are the flags every subcommand shares.
type globals struct {
	logLevel  string
	logFormat string
	quiet     bool
	stdout    io.Writer
	stderr    io.Writer
}

// logger builds the zerolog logger the flags ask for, writing to stderr.
func (g *globals) logger() (zerolog.Logger, error) {
	level, err := zerolog.ParseLevel(g.logLevel)
	if err != nil || g.logLevel == "" {
		return zerolog.Nop(), &usageError{fmt.Errorf("--log-level %q: want trace, debug, info, warn or error", g.logLevel)}
	}
	if g.quiet {
		level = zerolog.WarnLevel
	}
	var w io.Writer
	switch g.logFormat {
	case "json":
		w = g.stderr
	case "console":
		w = zerolog.ConsoleWriter{Out: g.stderr, NoColor: !isTerminal(g.stderr), TimeFormat: "15:04:05"}
	default:
		return zerolog.Nop(), &usageError{fmt.Errorf("--log-format %q: want console or json", g.logFormat)}
	}
	return zerolog.New(w).Level(level).With().Timestamp().Logger(), nil
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Run runs the baton command line with args and returns the exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	g := &globals{stdout: stdout, stderr: stderr}
	root := newRoot(g)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "baton: "+firstLine(err.Error()))
	if errors.Is(err, reports.ErrDiscarded) {
		return exitDiscarded
	}
	if errors.Is(err, release.ErrHold) {
		return exitHold
	}
	if errors.Is(err, release.ErrInconclusive) {
		return exitUndecided
	}
	var ue *usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		return exitUsage
	}
	return exitError
}

// isCobraUsage recognises cobra's own usage errors, which carry no type.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires at most", "invalid argument", "flag needs an argument", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 && !strings.Contains(s[i:], ":") {
		return s[:i]
	}
	return s
}

func newRoot(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "baton",
		Short: "A seeded-defect mutation harness for multi-agent missions",
		Long: `baton plants known defects (mutants) into a multi-agent mission one at a time,
evaluates every build with several evaluation designs (A per-agent, B end-to-end,
C per-agent plus hand-off contracts), and reports detection, localisation, false
alarms, pass^k, agreement with human reviewers and cost, with intervals, and a
pre-registered verdict on the protocol's hypotheses.

` + exitHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&g.logLevel, "log-level", "info", "log level: trace, debug, info, warn, error")
	root.PersistentFlags().StringVar(&g.logFormat, "log-format", "console", "log format on stderr: console or json")
	root.PersistentFlags().BoolVarP(&g.quiet, "quiet", "q", false, "log warnings and errors only, no progress bar")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	root.AddCommand(
		newRunCmd(g),
		newWorkerCmd(g),
		newMissionsCmd(g),
		newReleaseCmd(g),
		newMatchedCmd(g),
		newReportCmd(g),
		newReplayCmd(g),
		newItemsCmd(g),
		newCompareCmd(g),
		newProtocolCmd(g),
		newMutantsCmd(g),
		newScenariosCmd(g),
		newContractsCmd(g),
		newReviewCmd(g),
		newScoreCmd(g),
		newModelCmd(g),
		newVersionCmd(g),
	)
	return root
}

// noArgs rejects positional arguments as a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return &usageError{fmt.Errorf("%s takes no arguments, got %q", cmd.CommandPath(), args[0])}
	}
	return nil
}

// exactArgs wants n positional arguments, as a usage error otherwise.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return &usageError{fmt.Errorf("%s wants %s", cmd.CommandPath(), what)}
		}
		return nil
	}
}
