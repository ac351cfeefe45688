package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/reports"
)

func newReportCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "report RUN_DIR",
		Short: "Re-render a run folder's reports and print one",
		Long: `Check that the run folder still stands for the protocol it ran (its protocol copy
and its input copies must hash to what the run recorded: a changed copy is
refused; an original file changed since the run started is only noted, on stderr,
since the run used its copies), then re-render report.md, report.html and the CSV
tables from results.json, with reviewer agreement when labels have been imported,
and print the report.

` + exitHelp,
		Args: exactArgs(1, "one RUN_DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			switch format {
			case "md", "json", "summary":
			default:
				return &usageError{fmt.Errorf("--format %q: want md, json or summary", format)}
			}
			release, err := experiment.LockRun(dir)
			if err != nil {
				return err
			}
			defer release()
			man, err := experiment.VerifyRun(dir)
			if err != nil {
				return err
			}
			if notes := experiment.OriginalChanges(man); len(notes) > 0 {
				log, err := g.logger()
				if err != nil {
					return err
				}
				for _, n := range notes {
					log.Warn().Str("run", dir).Msg(n)
				}
			}
			r, err := rerender(dir, man)
			if err != nil {
				return err
			}
			switch format {
			case "md":
				_, err = g.stdout.Write(reports.Markdown(r))
			case "json":
				var data []byte
				if data, err = os.ReadFile(filepath.Join(dir, "results.json")); err == nil {
					_, err = g.stdout.Write(data)
				}
			case "summary":
				printSummary(g.stdout, dir, r)
			}
			if err != nil {
				return err
			}
			return r.Err()
		},
	}
	cmd.Flags().StringVar(&format, "format", "md", "what to print: md (report.md), json (results.json) or summary")
	return cmd
}

// rerender renders a run folder's reports again from its results.json,
// with what results.json leaves out (wall times and the baton that ran it,
// from the manifest) and reviewer agreement when labels have been
// imported.
func rerender(dir string, man *experiment.Manifest) (*reports.Results, error) {
	r, err := reports.LoadResults(filepath.Join(dir, "results.json"))
	if err != nil {
		return nil, err
	}
	r.SetWall(man.WallMS)
	r.SetModelUse(man.ModelUse)
	r.SetSelection(man.Selection)
	r.SetBaton(man.Baton)
	reg, err := missions()
	if err != nil {
		return nil, err
	}
	if err := experiment.ReportFindings(reg, dir, r); err != nil {
		return nil, err
	}
	switch rows, err := reports.Agreement(dir); {
	case err == nil:
		r.SetAgreement(rows)
	case errors.Is(err, fs.ErrNotExist):
		// No review exported yet: no agreement to show.
	default:
		return nil, err
	}
	if err := reports.WriteAll(dir, r); err != nil {
		return nil, err
	}
	return r, nil
}
