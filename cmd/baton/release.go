package main

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/internal/version"
	"github.com/baton-lab/baton/mission/triage"
	"github.com/baton-lab/baton/release"
)

const releaseExitHelp = `Exit codes:
  0  ship: every clause of the rule holds over its whole interval
  1  error (bad input, unreadable files, a failed run)
  2  usage (unknown flag, wrong arguments)
  4  hold: a clause of the rule fails over its whole interval
  5  inconclusive: no clause fails, but an interval straddles its bound`

func newReleaseCmd(g *globals) *cobra.Command {
	var (
		protocolPath string
		out          string
		asJSON       bool
		opt          release.Options
	)
	cmd := &cobra.Command{
		Use:   "release",
		Short: "Decide whether a candidate version of a mission may replace the baseline: ship, hold or inconclusive",
		Long: `Run a baseline and a candidate version of a mission on the same scenarios with the
same trial seeds (common random numbers: trial t of scenario s has the same seed
for both, as in baton run), and decide by the rule the release protocol wrote
down before the run: ship, hold or inconclusive, with the figures that decided.

A version is a model profile: per agent, the rate of each slip. The report shows,
side by side: outcome (end state correct) with Wilson intervals and the interval
of the paired difference (Newcombe 1998, method 10, paired by scenario × trial);
hard trajectory violations, those in runs whose outcome was right anyway
included; the average model calls; the per-case breakdown; and where failures
cluster. Rule metrics: hard_violations, outcome, outcome_difference, model_calls,
model_calls_ratio; each clause has min and/or max.

--until-decided adds rounds of the protocol's trials until no clause's interval
straddles its bound (or --max-trials is reached) and reports how many runs it
took; every look's intervals are then at the Bonferroni-corrected level for the
planned number of looks.

With no --protocol, the embedded default (seed 003: v1 with misroute 0.10 and
skip_lookup 0.30 against v2 with 0.03 and 0.00, 20 trials on the triage
mission's five seed cases) runs. The table goes to stdout (--json: the results
as JSON); results.json, report.md and report.html go to a new folder under --out.

` + releaseExitHelp,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRelease(cmd.Context(), g, protocolPath, out, asJSON, opt, cmd.Flags().Changed("max-trials"))
		},
	}
	cmd.Flags().StringVar(&protocolPath, "protocol", "", "release protocol YAML file (default: the embedded seed 003 protocol, "+triage.ReleaseName+")")
	cmd.Flags().StringVar(&out, "out", "out", "folder in which to make the release's run folder")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the results as JSON instead of tables")
	cmd.Flags().BoolVar(&opt.UntilDecided, "until-decided", false, "add rounds of trials until the verdict no longer depends on an interval")
	cmd.Flags().IntVar(&opt.MaxTrials, "max-trials", 0, "with --until-decided: at most this many trials per scenario")
	return cmd
}

// runRelease runs baton release: parse and resolve the protocol, decide,
// write the run folder, print the table or JSON; the verdict's error
// gives hold and inconclusive their exit codes.
func runRelease(ctx context.Context, g *globals, protocolPath, out string, asJSON bool, opt release.Options, maxChanged bool) error {
	if opt.UntilDecided && opt.MaxTrials < 1 {
		return &usageError{fmt.Errorf("--until-decided needs --max-trials N")}
	}
	if !opt.UntilDecided && maxChanged {
		return &usageError{fmt.Errorf("--max-trials needs --until-decided")}
	}
	name, data := triage.ReleaseName, triage.ReleaseProtocol().Data
	if protocolPath != "" {
		b, err := os.ReadFile(protocolPath)
		if err != nil {
			return fmt.Errorf("release: %w", err)
		}
		name, data = protocolPath, b
	}
	p, err := release.Parse(name, data)
	if err != nil {
		return err
	}
	reg, err := missions()
	if err != nil {
		return err
	}
	pl, err := p.Resolve(reg)
	if err != nil {
		return err
	}
	res, err := release.Decide(ctx, pl, opt)
	if err != nil {
		return err
	}
	dir, err := release.NewFolder(out, p.Name, p.Seed)
	if err != nil {
		return err
	}
	_, suite, err := pl.Mission.Scenarios()
	if err != nil {
		return err
	}
	man := release.Manifest{Baton: version.String(), Go: runtime.Version(), SuiteSHA256: suite}
	if err := release.WriteFolder(dir, data, man, res); err != nil {
		return err
	}
	if asJSON {
		js, err := res.JSON()
		if err != nil {
			return err
		}
		if _, err := g.stdout.Write(js); err != nil {
			return err
		}
	} else {
		if err := release.WriteText(g.stdout, res); err != nil {
			return err
		}
		fmt.Fprintf(g.stdout, "\nfull report: %s (and report.html, results.json)\n", dir+"/report.md")
	}
	return res.Err()
}
