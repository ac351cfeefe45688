package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	cmd.AddCommand(list, newMutantsGenerateCmd(g))
	return cmd
}

func newMutantsGenerateCmd(g *globals) *cobra.Command {
	var name, out string
	var perClass int
	var seed uint64
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Generate the mutant space: every operator at every site of the mission, as a catalogue file",
		Long: "Generate applies every operator at every site of the mission where it applies (each edge × payload field, " +
			"each write tool, each edge and escalation hand-off, each tool argument, each decision) and writes the " +
			"mutants as a catalogue file in the format users write, ids readable as operator and site. " +
			"A protocol uses the same space with mutants: {space: generated}.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, _, err := lookupMission(name)
			if err != nil {
				return err
			}
			cat, data, err := mutants.Space(m.Spec())
			if err != nil {
				return err
			}
			if perClass > 0 {
				cat = cat.Sample(perClass, seed)
				data = mutants.Encode(cat.Mutants, mutants.SpaceHeader(m.Spec())+
					fmt.Sprintf("\nSampled: %d per class, seed %d.", perClass, seed))
			}
			if out == "" {
				_, err = g.stdout.Write(data)
				return err
			}
			if err := writeFileAtomic(out, data); err != nil {
				return fmt.Errorf("mutants generate: %w", err)
			}
			var counts []string
			for _, cl := range cat.Classes() {
				counts = append(counts, fmt.Sprintf("%s %d", cl, len(cat.ByClass(cl))))
			}
			fmt.Fprintf(g.stderr, "wrote %d mutants of mission %s to %s (%s)\n", len(cat.Mutants), m.Spec().Name, out, strings.Join(counts, ", "))
			return nil
		},
	}
	missionFlag(cmd, &name)
	cmd.Flags().StringVar(&out, "out", "", "write the catalogue to this file instead of stdout")
	cmd.Flags().IntVar(&perClass, "per-class", 0, "keep a seeded sample of this many mutants per class (0: all)")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "the sample's seed, with --per-class")
	return cmd
}

// writeFileAtomic writes data to path through a temporary file in the same
// folder renamed into place, so a reader never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
