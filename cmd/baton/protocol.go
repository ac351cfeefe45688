package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/experiment"
)

func newProtocolCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "protocol",
		Short: "Pre-register and inspect experiment protocols",
	}
	lock := &cobra.Command{
		Use:   "lock FILE",
		Short: "Pre-register a protocol: write its SHA-256 beside it (FILE.sha256)",
		Long: `Pre-register a protocol by writing its SHA-256 to FILE.sha256. A run refuses to
start when a lock exists and does not match the protocol, and every run records
the hash. The protocol is checked first: a protocol that does not load is not
locked: it is checked against the scenarios, mutants and contracts exactly as
a run would check it.`,
		Args: exactArgs(1, "one protocol FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := missions()
			if err != nil {
				return err
			}
			if _, err := experiment.Validate(reg, args[0]); err != nil {
				return err
			}
			sum, err := experiment.Lock(args[0], reg)
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "%s  %s\nlocked in %s\n", sum, args[0], experiment.LockFile(args[0]))
			return nil
		},
	}
	show := &cobra.Command{
		Use:   "show [FILE]",
		Short: "Print a protocol (default: the default mission's default protocol) and its lock state",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return &usageError{fmt.Errorf("%s takes at most one FILE", cmd.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := missions()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				p, err := experiment.DefaultProtocol(reg)
				if err != nil {
					return err
				}
				fmt.Fprintf(g.stdout, "# embedded default protocol, sha256 %s (mission %s)\n", p.SHA256, p.Mission.Name)
				_, err = g.stdout.Write(p.Raw)
				return err
			}
			if _, err := experiment.LoadProtocol(args[0], reg); err != nil {
				return err
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			locked, lerr := experiment.CheckLock(args[0])
			state := "not locked"
			switch {
			case lerr != nil:
				state = "LOCK MISMATCH: " + lerr.Error()
			case locked:
				state = "locked in " + experiment.LockFile(args[0])
			}
			fmt.Fprintf(g.stdout, "# %s, sha256 %s, %s\n", args[0], experiment.HashBytes(data), state)
			_, err = g.stdout.Write(data)
			return err
		},
	}
	cmd.AddCommand(lock, show)
	return cmd
}
