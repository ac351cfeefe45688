package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/mutants"
)

func newMutantsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "mutants", Short: "Work with the seeded-defect catalogue"}
	var file, mode, name string
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the mutant catalogue: ids, classes, operators, ground-truth locations",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, _, err := lookupMission(name)
			if err != nil {
				return err
			}
			cat, err := loading(cmd.Context(), func() (*mutants.Catalogue, error) {
				cat, err := mutants.Default(m.Spec())
				if err != nil || file == "" {
					return cat, err
				}
				return mutants.Load(file, cat, mode, m.Spec())
			})
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				type row struct {
					*mutants.Mutant
					Location string `json:"location"`
				}
				rows := make([]row, len(cat.Mutants))
				for i, m := range cat.Mutants {
					rows[i] = row{m, string(m.Location())}
				}
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tCLASS\tOPERATOR\tLOCATION\tDESCRIPTION")
			for _, m := range cat.Mutants {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.ID, m.Class, m.Operator, m.Location(), m.Description)
			}
			return tw.Flush()
		},
	}
	list.Flags().StringVar(&file, "catalogue", "", "a catalogue YAML file to load over the default")
	list.Flags().StringVar(&mode, "mode", "replace", "how --catalogue combines with the default: replace (the file alone, as in a protocol) or extend")
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	missionFlag(list, &name)
	cmd.AddCommand(list)
	return cmd
}
