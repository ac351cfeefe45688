package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/reports"
)

func newRunCmd(g *globals) *cobra.Command {
	var opt experiment.Options
	var seed uint64
	var memoryLimit int64
	var dist natsFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run an experiment protocol and write a run folder with the reports",
		Long: `Run an experiment protocol: every (build, design, scenario, trial) work item, the
clean build first, on a worker pool, each outcome stored in runs.db; then the
aggregates, results.json, report.md, report.html and CSV tables.

With no flags, baton runs the embedded default protocol (the default mutant
catalogue, every scenario, designs A, A.wire, A.recorded, B, C, C.schema and D, 20 trials, semantic contracts)
and writes a new run folder under ./out/. It prints the folder's path, the
validity gate, the hypotheses and the detection table.

A locked protocol (baton protocol lock) runs as registered: the run refuses to
start when the protocol or any file it names changed since it was locked, and
refuses --trials and --seed overrides unless --deviate gives the reason, which
the manifest and every report then show first.

Each run lands in a new folder under --out: <protocol>-<seed>-<hash>, then
-2, -3, … when that exists; --run-dir names the folder instead. A run folder
is locked while a run, resume, report or review writes it: a second process
is refused, naming the first one's pid.

An interrupted run (Ctrl-C) keeps everything finished and prints the command
that continues it (--run-dir FOLDER --resume), ending with the same
results.json as an uninterrupted run. --resume without --run-dir continues the
newest folder of the protocol under --out.

With --nats URL the units run on "baton worker" processes on any machines,
through a NATS JetStream server, with the same results.json; --nats embedded
--local-workers N starts a server and N workers here. A unit that fails on
every delivery is reported as an infrastructure failure, and the run ends
incomplete by its items until --resume executes them.

` + exitHelp,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			opt.Logger = log
			if opt.Missions, err = missions(); err != nil {
				return err
			}
			if cmd.Flags().Changed("seed") {
				opt.Seed = &seed
			}
			if opt.Workers < 0 {
				return &usageError{fmt.Errorf("--workers %d: want 0 (one per CPU) or more", opt.Workers)}
			}
			if cmd.Flags().Changed("trials") && opt.Trials < 1 {
				return &usageError{fmt.Errorf("--trials %d: want at least 1", opt.Trials)}
			}
			if memoryLimit < 0 || memoryLimit > math.MaxInt64>>20 {
				return &usageError{fmt.Errorf("--memory-limit %d: want 0 (none) or a size in MiB", memoryLimit)}
			}
			opt.MemoryLimit = memoryLimit << 20
			var bar *progressBar
			if !g.quiet && isTerminal(g.stderr) {
				bar = newProgressBar(g.stderr)
				opt.Progress = bar.update
			}
			stopRemote, err := dist.remote(cmd.Context(), g, log, &opt)
			if err != nil {
				return err
			}
			start := time.Now()
			sum, err := experiment.Run(cmd.Context(), opt)
			stopRemote()
			if bar != nil {
				bar.finish(err == nil || errors.Is(err, reports.ErrDiscarded))
			}
			var ie *experiment.InterruptedError
			if errors.As(err, &ie) {
				return fmt.Errorf("interrupted; every finished item is stored in %s; continue with: %s", ie.RunDir, resumeCommand(cmd, ie.RunDir))
			}
			var inc *experiment.IncompleteError
			if errors.As(err, &inc) {
				err = fmt.Errorf("%w; continue with: %s", err, resumeCommand(cmd, inc.RunDir))
			}
			if sum != nil {
				log.Info().Str("run", sum.RunDir).Int("items", sum.Items).Int("resumed", sum.Skipped).
					Dur("wall", time.Since(start).Round(time.Millisecond)).Msg("run finished")
				printSummary(g.stdout, sum.RunDir, sum.Results)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&opt.ProtocolPath, "protocol", "", "protocol YAML file (default: the default mission's default protocol)")
	f.StringVar(&opt.OutDir, "out", "out", "folder in which to make the run folder")
	f.StringVar(&opt.RunDir, "run-dir", "", "use exactly this run folder instead of a new one under --out")
	f.IntVar(&opt.Workers, "workers", 0, "worker pool size (0: one per CPU); results do not depend on it")
	f.Uint64Var(&seed, "seed", 0, "master seed, overriding the protocol's")
	f.IntVar(&opt.Trials, "trials", 0, "trials per scenario, overriding the protocol's")
	f.BoolVar(&opt.Resume, "resume", false, "continue an interrupted run in its run folder, skipping stored items")
	dist.add(cmd)
	f.StringVar(&opt.Deviate, "deviate", "", "the reason to override a setting of a locked protocol (--trials, --seed); recorded in the manifest and every report")
	f.StringVar(&opt.ModelCache, "model-cache", "", "a directory of model answers shared between runs, searched after the run folder's model-cache/ (overrides the protocol's model_cache)")
	f.BoolVar(&opt.ModelOffline, "model-offline", false, "answer model cores from the model caches alone, never calling an endpoint (a request they do not hold is an error)")
	f.Int64Var(&memoryLimit, "memory-limit", 0, "soft limit in MiB on the memory the sweep's Go runtime uses (0: GOMEMLIMIT's, or none): a lower peak for some CPU; results do not depend on it")
	return cmd
}

// printSummary writes the run folder, the validity gate, the hypotheses
// and the detection table, with the harmful view beside it (detection of
// the harmful trials, and the benign mutants flagged anyway): what a
// researcher reads first.
func printSummary(w io.Writer, runDir string, r *reports.Results) {
	fmt.Fprintf(w, "run folder: %s\n", runDir)
	if r == nil {
		return
	}
	for _, d := range r.Protocol.Deviations {
		fmt.Fprintf(w, "DEVIATION:  %s locked %s, ran %s; reason: %s\n", d.Setting, d.Locked, d.Ran, d.Reason)
	}
	if r.Validity.Valid {
		fmt.Fprintln(w, "validity:   valid (every design caught the control class in every trial)")
	} else {
		fmt.Fprintf(w, "validity:   DISCARDED: %s\n", r.Validity.Reason)
	}
	fmt.Fprintln(w)
	for _, h := range r.Hypotheses {
		fmt.Fprintf(w, "%s %-12s %s\n", h.ID, h.Verdict, h.Why)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DESIGN\tCLASS\tDETECTION [95% CI] (MUTANTS)\tTRIAL LEVEL (k/n), CONDITIONAL ON THESE MUTANTS\tRAW\tOF HARM [95% CI] (HARMFUL MUTANTS)\tBENIGN FLAGGED")
	harm := map[[2]string]reports.HarmRow{}
	for _, h := range r.DetectionHarmful {
		harm[[2]string{h.Design, h.Class}] = h
	}
	for _, d := range r.Detection {
		h := harm[[2]string{d.Design, d.Class}]
		fmt.Fprintf(tw, "%s\t%s\t%.3f [%.3f-%.3f] (%d)\t%.3f [%.3f-%.3f] (%d/%d)\t%d/%d\t%.3f [%.3f-%.3f] (%d)\t%d/%d\n", d.Design, d.Class,
			float64(d.Rate), float64(d.CI95[0]), float64(d.CI95[1]), d.Units,
			float64(d.TrialRate), float64(d.TrialCI95[0]), float64(d.TrialCI95[1]), d.Detected, d.N, d.RawDetected, d.N,
			float64(h.Rate), float64(h.CI95[0]), float64(h.CI95[1]), h.Units, h.FlaggedBenign, h.BenignMutants)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nfull report: %s/report.md (and report.html)\n", runDir)
}

// progressBar shows work items done, rate and time left on a terminal.
type progressBar struct {
	p   *mpb.Progress
	bar *mpb.Bar
}

func newProgressBar(w io.Writer) *progressBar {
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(40), mpb.WithAutoRefresh())
	bar := p.AddBar(0,
		mpb.PrependDecorators(decor.Name("items "), decor.CountersNoUnit("%d/%d")),
		mpb.AppendDecorators(decor.AverageSpeed(0, " %.0f/s "), decor.Name(" left "), decor.AverageETA(decor.ET_STYLE_GO)),
	)
	return &progressBar{p: p, bar: bar}
}

func (b *progressBar) update(done, total int) {
	b.bar.SetTotal(int64(total), false)
	b.bar.SetCurrent(int64(done))
}

// finish completes the bar when the run is done; an interrupted or failed
// run leaves it where it stopped.
func (b *progressBar) finish(done bool) {
	if done {
		b.bar.SetTotal(-1, true)
	} else {
		b.bar.Abort(false)
	}
	b.p.Wait()
}

// resumeCommand is the command that continues an interrupted run: the
// flags that decide what runs, as given, and the run folder.
func resumeCommand(cmd *cobra.Command, runDir string) string {
	args := []string{"baton", "run"}
	for _, name := range []string{"protocol", "seed", "trials", "workers", "local-workers", "ack-wait", "max-deliver"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			args = append(args, "--"+name, shellQuote(f.Value.String()))
		}
	}
	args = append(args, natsResumeArgs(cmd)...)
	return strings.Join(append(args, "--run-dir", shellQuote(runDir), "--resume"), " ")
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=+-@%,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
