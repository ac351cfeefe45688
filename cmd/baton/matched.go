package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/internal/folder"
	"github.com/baton-lab/baton/reports"
)

func newMatchedCmd(g *globals) *cobra.Command {
	var (
		protocolPath, missionName, out string
		trials                         int
	)
	cmd := &cobra.Command{
		Use:   "matched",
		Short: "Compare the mission's multi-agent build with its single-agent build under a matched total budget",
		Long: `Run every scenario and trial of a protocol through the mission's multi-agent
clean build and through its single-agent build (one agent holding every tool and
playing every role's core in hand-off order, without emitters, transport or
parsers), with the protocol's cores, slip profile, faults and trial seeds: the
single agent once at its own needs (unmatched) and once under the multi-agent
build's total budget (matched). The protocol's matched section says what the
budget is counted in (unit: model_calls or tokens), what the multi-agent total
is averaged over (per: scenario or task) and what the single agent does with
budget beyond its needs (surplus: none, or revote: re-ask each decision and take
the majority, at most max_votes times, stopping at the budget). A single-agent
run that goes over its budget stops and fails.

The report gives per system success with its Wilson interval, pass^k (scenarios
all of whose trials succeeded), cost per task (model calls, tokens, tool calls),
the coordination dimensions (those that judge what passes between agents do not
apply to one agent, and say why), and what can be attributed to orchestration:
CompareBudgets' verdict and the paired difference by scenario × trial.

With no --protocol, the mission's default protocol runs (--mission picks the
mission). matched.json, matched.md, manifest.json and the protocol's copy go to
a new folder under --out; the folder's path is printed.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMatched(cmd.Context(), g, protocolPath, missionName, out, trials)
		},
	}
	cmd.Flags().StringVar(&protocolPath, "protocol", "", "protocol YAML file (default: the mission's own)")
	missionFlag(cmd, &missionName)
	cmd.Flags().StringVar(&out, "out", "out", "folder in which to make the comparison's folder")
	cmd.Flags().IntVar(&trials, "trials", 0, "trials per scenario (default: the protocol's)")
	return cmd
}

// runMatched runs baton matched: load the protocol, run the comparison
// into a new folder, print where it is and its attribution.
func runMatched(ctx context.Context, g *globals, protocolPath, missionName, out string, trials int) error {
	if trials < 0 {
		return &usageError{fmt.Errorf("--trials %d: want at least 1", trials)}
	}
	m, reg, err := lookupMission(missionName)
	if err != nil {
		return err
	}
	var p *experiment.Protocol
	if protocolPath == "" {
		p, err = experiment.MissionProtocol(m)
	} else {
		if missionName != "" {
			return &usageError{errors.New("--mission and --protocol: the protocol names its mission")}
		}
		p, err = experiment.LoadProtocol(protocolPath, reg)
	}
	if err != nil {
		return err
	}
	dir, err := matchedFolder(out, p.Name, p.Seed)
	if err != nil {
		return err
	}
	res, err := experiment.RunMatched(ctx, p, experiment.NewStack(reg), dir, trials)
	if err != nil {
		return err
	}
	printMatched(g, res)
	fmt.Fprintf(g.stdout, "report: %s\n", filepath.Join(dir, experiment.MatchedMarkdownFile))
	return nil
}

// printMatched prints each arm's success and cost and each comparison's
// attribution.
func printMatched(g *globals, res *reports.Matched) {
	for _, a := range res.Arms {
		fmt.Fprintf(g.stdout, "%-22s success %d/%d, pass^k %d/%d, %.1f model calls, %.1f tokens, %.1f tool calls per task\n",
			a.Name, a.Successes, a.Runs, a.PassAll, len(res.Scenarios), a.ModelCalls, a.Tokens, a.ToolCalls)
	}
	for _, c := range res.Comparisons {
		fmt.Fprintf(g.stdout, "%s: %s; paired difference %v points, 95%% CI [%v, %v]\n",
			c.Name, c.Budget.Attribution, c.Paired.Points, c.Paired.CI95Points[0], c.Paired.CI95Points[1])
	}
}

// matchedFolder makes a new folder under out for a comparison:
// <protocol>-<seed>-matched, then -2, -3, ... if taken.
func matchedFolder(out, protocol string, seed uint64) (string, error) {
	return folder.New(out, protocol+"-"+strconv.FormatUint(seed, 10)+"-matched")
}
