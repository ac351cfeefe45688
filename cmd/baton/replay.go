package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/experiment"
)

func newReplayCmd(g *globals) *cobra.Command {
	var showTrace, write bool
	cmd := &cobra.Command{
		Use:   "replay RUN_DIR ITEM_ID",
		Short: "Regenerate one work item exactly from its run folder and compare it with what was stored",
		Long: `Regenerate one work item (build/design/scenario/trial, as in runs.db's items.id,
e.g. clean/B/S01/3) from the run folder alone: the protocol copy, its input copies
and the item's key; the trial seed follows from the master seed. baton compares
the regenerated verdict, findings and trace with the stored ones and exits 1 when
they differ. --trace prints the regenerated trace (JSON Lines); --write keeps it
under traces/ when the run did not.`,
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
			if showTrace {
				if _, werr := g.stdout.Write(res.Trace); werr != nil {
					return werr
				}
			} else {
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
	cmd.Flags().BoolVar(&write, "write", false, "write the regenerated trace under traces/ when the run kept none")
	return cmd
}
