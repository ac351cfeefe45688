package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/contracts"
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
is given. Exits 1 when there are violations.`,
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
				user, err := contracts.Load(files...)
				if err != nil {
					return err
				}
				set = set.Merge(user)
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return fmt.Errorf("read message: %w", err)
			}
			msgs, err := splitMessages(args[0], data)
			if err != nil {
				return err
			}
			var viols []contracts.Violation
			for i, m := range msgs {
				e := edge
				if e == "" {
					if e = edgeOf(m); e == "" {
						return fmt.Errorf("%s: message %d has no edge field; name the edge with --edge from->to", args[0], i+1)
					}
				}
				viols = append(viols, set.Check(e, m, lv)...)
			}
			if len(msgs) > 1 {
				e := edge
				if e == "" {
					e = edgeOf(msgs[0])
				}
				viols = append(viols, set.CheckSequence(e, msgs, lv)...)
			}
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				if viols == nil {
					viols = []contracts.Violation{}
				}
				if err := enc.Encode(viols); err != nil {
					return err
				}
			} else if len(viols) == 0 {
				fmt.Fprintf(g.stdout, "ok: %d message(s), no violations at level %s\n", len(msgs), lv)
			} else {
				tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "EDGE\tRULE\tLEVEL\tFIELD\tEXPECTED\tGOT\tMESSAGE")
				for _, v := range viols {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.Edge, v.Rule, v.Level, v.Field, v.Expected, v.Got, v.Message)
				}
				if err := tw.Flush(); err != nil {
					return err
				}
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

// splitMessages reads one JSON message, a JSON array of messages, or JSON
// Lines, one message per line. Anything that is not a JSON object is an
// error naming the file and the line (or array element).
func splitMessages(name string, data []byte) ([][]byte, error) {
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		return nil, fmt.Errorf("%s: empty file, want a JSON hand-off message", name)
	case trimmed[0] == '[':
		var raw []json.RawMessage
		if err := json.Unmarshal(trimmed, &raw); err != nil {
			return nil, fmt.Errorf("%s: not a JSON array of messages: %w", name, err)
		}
		out := make([][]byte, len(raw))
		for i, r := range raw {
			if !isObject(r) {
				return nil, fmt.Errorf("%s: element %d: not a JSON object", name, i+1)
			}
			out[i] = r
		}
		return out, nil
	case json.Valid(trimmed) && isObject(trimmed):
		return [][]byte{trimmed}, nil
	}
	var out [][]byte
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) || !isObject(line) {
			return nil, fmt.Errorf("%s:%d: not a JSON object (want one message, a JSON array, or one message per line)", name, i+1)
		}
		out = append(out, line)
	}
	return out, nil
}

func isObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{'
}

// edgeOf reads a message's edge field, "" when it has none.
// edgeOf returns a message's edge, "" when it names none readable.
func edgeOf(msg []byte) string {
	e, _ := mission.EnvelopeEdgeName(msg)
	return e
}
