package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mission/triage"
	"github.com/baton-lab/baton/mutants"
)

// missions returns the missions this binary runs, the default first: the
// one place that lists them. Each command takes the registry from here and
// passes it down.
func missions() (*mission.Registry, error) {
	return mission.NewRegistry(invoice.New(), triage.New())
}

// lookupMission returns the mission called name ("" for the default) and
// the registry it is in.
func lookupMission(name string) (mission.Mission, *mission.Registry, error) {
	reg, err := missions()
	if err != nil {
		return nil, nil, err
	}
	if name == "" {
		return reg.Default(), reg, nil
	}
	m, ok := reg.Lookup(name)
	if !ok {
		return nil, nil, &usageError{fmt.Errorf("--mission %q: this baton runs %s", name, reg.Names())}
	}
	return m, reg, nil
}

// missionFlag adds --mission to cmd.
func missionFlag(cmd *cobra.Command, name *string) {
	cmd.Flags().StringVar(name, "mission", "", "the mission (default: the first of `baton missions list`)")
}

func newMissionsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "missions", Short: "Work with the missions this baton runs"}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the registered missions: name, version, agents, edges, scenarios and mutants",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg, err := missions()
			if err != nil {
				return err
			}
			rows, err := missionRows(reg)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tVERSION\tAGENTS\tEDGES\tSCENARIOS\tMUTANTS")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\n", r.Name, r.Version, strings.Join(r.Agents, ","), strings.Join(r.Edges, ","), r.Scenarios, r.Mutants)
			}
			return tw.Flush()
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	cmd.AddCommand(list)
	return cmd
}

// missionRow is one line of `baton missions list`.
type missionRow struct {
	Name      string   `json:"name"`
	Version   string   `json:"version"`
	Default   bool     `json:"default"`
	Agents    []string `json:"agents"`
	Edges     []string `json:"edges"`
	Scenarios int      `json:"scenarios"`
	Mutants   int      `json:"mutants"`
}

func missionRows(reg *mission.Registry) ([]missionRow, error) {
	var rows []missionRow
	for i, m := range reg.All() {
		spec := m.Spec()
		scs, _, err := m.Scenarios()
		if err != nil {
			return nil, err
		}
		cat, err := mutants.Default(spec)
		if err != nil {
			return nil, err
		}
		r := missionRow{Name: spec.Name, Version: spec.Version, Default: i == 0, Scenarios: len(scs), Mutants: len(cat.Mutants)}
		for _, a := range spec.AgentNames() {
			r.Agents = append(r.Agents, string(a))
		}
		for _, e := range spec.EdgeList() {
			r.Edges = append(r.Edges, e.String())
		}
		rows = append(rows, r)
	}
	return rows, nil
}
