package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/mission"
)

func newScenariosCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "scenarios", Short: "Work with the scenario library"}
	var files []string
	var name string
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List scenarios: ids, categories, inputs (emails, tickets), tags",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, _, err := lookupMission(name)
			if err != nil {
				return err
			}
			scs, err := loading(cmd.Context(), func() ([]*mission.Scenario, error) {
				scs, _, err := m.Scenarios()
				if err != nil || len(files) == 0 {
					return scs, err
				}
				return m.LoadScenarios(files...)
			})
			if err != nil {
				return err
			}
			if asJSON {
				type row struct {
					ID       string   `json:"id"`
					Title    string   `json:"title"`
					Category string   `json:"category"`
					Inputs   int      `json:"inputs"`
					Tags     []string `json:"tags"`
				}
				rows := make([]row, len(scs))
				for i, sc := range scs {
					rows[i] = row{sc.ID, sc.Title, string(sc.Category), len(sc.Inputs), sc.Tags}
				}
				enc := json.NewEncoder(g.stdout)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tCATEGORY\tINPUTS\tTAGS\tTITLE")
			for _, sc := range scs {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", sc.ID, sc.Category, len(sc.Inputs), strings.Join(sc.Tags, ","), sc.Title)
			}
			return tw.Flush()
		},
	}
	list.Flags().StringArrayVar(&files, "file", nil, "scenario YAML files or folders to list instead of the default library (repeatable)")
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	missionFlag(list, &name)
	cmd.AddCommand(list)
	return cmd
}
