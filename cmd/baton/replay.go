package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/reports"
)

func newReplayCmd(g *globals) *cobra.Command {
	var showTrace, write, showCoord bool
	var htmlOut string
	cmd := &cobra.Command{
		Use:   "replay RUN_DIR ITEM_ID",
		Short: "Regenerate one work item exactly from its run folder and compare it with what was stored",
		Long: `Regenerate one work item (build/design/scenario/trial, as in runs.db's items.id,
e.g. clean/B/S01/3) from the run folder alone: the protocol copy, its input copies
and the item's key; the trial seed follows from the master seed. baton compares
the regenerated verdict, findings and trace with the stored ones and exits 1 when
they differ. --trace prints the regenerated trace (JSON Lines); --write keeps it
under traces/ when the run did not; --html FILE writes the item as report.html's
trace viewer, a page of its own: one lane per agent, hand-offs sent beside parsed,
tool calls with their faults and retries, the findings at their events, and the
diff against the clean twin (the clean build's item of the same design, scenario
and trial, replayed too). --coordination prints an observation item's coordination
record, derived from the regenerated trace, as one line of the format
baton score --kind coordination reads.`,
		Args: exactArgs(2, "RUN_DIR and ITEM_ID (build/design/scenario/trial)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := missions()
			if err != nil {
				return err
			}
			res, err := experiment.Replay(reg, args[0], args[1])
			if res == nil {
				return err
			}
			switch {
			case showCoord:
				if res.Coordination == nil {
					return &usageError{fmt.Errorf("--coordination: %s is not an observation item (design %s)", args[1], experiment.ObservationDesign)}
				}
				enc := json.NewEncoder(g.stdout)
				enc.SetEscapeHTML(false)
				if werr := enc.Encode(res.Coordination); werr != nil {
					return werr
				}
			case showTrace:
				if _, werr := g.stdout.Write(res.Trace); werr != nil {
					return werr
				}
			default:
				out := struct {
					Item        string   `json:"item"`
					Flagged     bool     `json:"flagged"`
					Blame       []string `json:"blame,omitempty"`
					Findings    int      `json:"findings"`
					TraceBytes  int      `json:"trace_bytes"`
					StoredTrace bool     `json:"stored_trace"`
					Match       bool     `json:"match"`
					Differences []string `json:"differences,omitempty"`
				}{res.ItemID, res.Item.Flagged, res.Item.Blame, res.Item.Findings, len(res.Trace), res.StoredTrace != nil, res.Match(), res.Differences}
				enc := json.NewEncoder(g.stdout)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				if werr := enc.Encode(out); werr != nil {
					return werr
				}
			}
			if htmlOut != "" {
				if werr := writeTracePage(args[0], htmlOut, res); werr != nil {
					return werr
				}
				fmt.Fprintf(g.stderr, "trace viewer written to %s\n", htmlOut)
			}
			if write && res.StoredTrace == nil {
				path, werr := res.WriteTrace(args[0])
				if werr != nil {
					return werr
				}
				fmt.Fprintf(g.stderr, "trace written to %s\n", path)
			}
			if err != nil {
				return err
			}
			if !res.Match() {
				return errors.New("replay differs from the stored item")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&showTrace, "trace", false, "print the regenerated trace (JSON Lines) instead of the summary")
	cmd.Flags().StringVar(&htmlOut, "html", "", "write the item, beside its clean twin, as a trace viewer page to this file")
	cmd.Flags().BoolVar(&write, "write", false, "write the regenerated trace under traces/ when the run kept none")
	cmd.Flags().BoolVar(&showCoord, "coordination", false, "print an observation item's coordination record (JSON, the format of baton score --kind coordination)")
	return cmd
}

// writeTracePage writes a replayed item's trace viewer page to path.
func writeTracePage(runDir, path string, res *experiment.ReplayResult) error {
	reg, err := missions()
	if err != nil {
		return err
	}
	in, err := experiment.TraceInput(reg, runDir, res)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := reports.WriteTracePage(&b, in); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write trace page: %w", err)
	}
	return nil
}
