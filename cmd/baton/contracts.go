package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/mission"
)

func newContractsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "contracts", Short: "Work with hand-off contracts"}
	var files []string
	var level, edge, name string
	var asJSON bool
	check := &cobra.Command{
		Use:   "check FILE",
		Short: "Check a hand-off message (JSON), or a JSON array of one item's messages, against the contracts",
		Long: `Check a hand-off message against the contract of its edge and print the violations.
FILE holds one message (a JSON object), or a JSON array or JSON Lines of messages
for one item on one edge, which are also checked as a sequence (stable idempotency key, one owner,
no second action). The edge is read from each message's "edge" field unless --edge
is given. Each violation names the file and line of its message (AT, "at" in
--json). Messages are read strictly: a key given twice, invalid UTF-8, a byte
order mark, a key that is not an envelope key or a number beyond float64 is an
error naming file, line and column. Exits 1 when there are violations.`,
		Args: exactArgs(1, "one FILE (a JSON hand-off message)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			lv, err := contracts.ParseLevel(level)
			if err != nil {
				return &usageError{err}
			}
			m, _, err := lookupMission(name)
			if err != nil {
				return err
			}
			spec := m.Spec()
			set, err := contracts.LoadFS(spec.Contracts, "mission/"+spec.Name+"/contracts")
			if err != nil {
				return err
			}
			if len(files) > 0 {
				user, err := contracts.LoadContext(cmd.Context(), files...)
				if err != nil {
					return interrupted(cmd, err)
				}
				set = set.Merge(user)
			}
			data, err := input.ReadFile(args[0], contracts.MaxMessagesBytes, "a file of messages")
			if err != nil {
				return fmt.Errorf("read message: %w", err)
			}
			msgs, err := contracts.ReadMessages(args[0], data)
			if err != nil {
				return err
			}
			viols, err := checkMessages(set, args[0], edge, msgs, lv)
			if err != nil {
				return err
			}
			if err := printViolations(g, viols, len(msgs), lv, asJSON); err != nil {
				return err
			}
			if len(viols) > 0 {
				return fmt.Errorf("%s: %d contract violation(s)", args[0], len(viols))
			}
			return nil
		},
	}
	check.Flags().StringArrayVar(&files, "contracts", nil, "contract YAML files or folders; their edges replace the default contracts' (repeatable)")
	check.Flags().StringVar(&level, "level", "semantic", "contract strength: schema, ownership or semantic")
	check.Flags().StringVar(&edge, "edge", "", "the edge (from->to) to check against; default: each message's edge field")
	check.Flags().BoolVar(&asJSON, "json", false, "print violations as JSON")
	missionFlag(check, &name)
	cmd.AddCommand(check)
	return cmd
}

// located is a violation with where its message was written.
type located struct {
	At string `json:"at"`
	contracts.Violation
}

// checkMessages checks each message, then the sequence when there are
// several. A violation names the file and line of its message.
func checkMessages(set *contracts.Set, file, edge string, msgs []contracts.Input, lv contracts.Level) ([]located, error) {
	var out []located
	at := func(m contracts.Input) string { return fmt.Sprintf("%s:%d", file, m.Line) }
	raws := make([][]byte, len(msgs))
	for i, m := range msgs {
		raws[i] = m.Raw
		e := edge
		if e == "" {
			if e = edgeOf(m.Raw); e == "" {
				return nil, fmt.Errorf("%s: message %d has no edge field; name the edge with --edge from->to", at(m), i+1)
			}
		}
		for _, v := range set.Check(e, m.Raw, lv) {
			out = append(out, located{at(m), v})
		}
	}
	if len(msgs) > 1 {
		e := edge
		if e == "" {
			e = edgeOf(msgs[0].Raw)
		}
		for _, v := range set.CheckSequence(e, raws, lv) {
			where := file
			if v.Seq >= 1 && v.Seq <= len(msgs) {
				where = at(msgs[v.Seq-1])
			}
			out = append(out, located{where, v})
		}
	}
	return out, nil
}

// printViolations writes the violations as a table, or as JSON.
func printViolations(g *globals, viols []located, n int, lv contracts.Level, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if viols == nil {
			viols = []located{}
		}
		return enc.Encode(viols)
	}
	if len(viols) == 0 {
		fmt.Fprintf(g.stdout, "ok: %d message(s), no violations at level %s\n", n, lv)
		return nil
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AT\tEDGE\tRULE\tLEVEL\tFIELD\tEXPECTED\tGOT\tMESSAGE")
	for _, v := range viols {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.At, v.Edge, v.Rule, v.Level, v.Field, v.Expected, v.Got, v.Message)
	}
	return tw.Flush()
}

// edgeOf returns a message's edge, "" when it names none readable.
func edgeOf(msg []byte) string {
	e, _ := mission.EnvelopeEdgeName(msg)
	return e
}

// interrupted says "interrupted" for an error that Ctrl-C caused.
func interrupted(cmd *cobra.Command, err error) error {
	if cmd.Context().Err() != nil && errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted while loading: %w", err)
	}
	return err
}
