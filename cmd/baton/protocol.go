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
		Short: "Pre-register a protocol: write the hash tree of it and every file it names (FILE.sha256)",
		Long: `Pre-register a protocol by writing FILE.sha256: the SHA-256 of the protocol, of
every file it names (catalogue, scenario files, contracts; a folder file by file)
and of the inputs this baton embeds (scenarios, catalogue, contracts, mission),
as a hash tree whose root every run records. The file is in sha256sum's format
(the tree in comment lines), so sha256sum -c FILE.sha256 in the protocol's folder
checks every file too.

The protocol is checked first, exactly as a run would check it, and so is what
would only discard a run after all its work: a protocol that does not load, that
selects no scenario or no control mutant, or names an unknown design, is not
locked. A run of a locked protocol refuses to start when anything in the tree
changed, and refuses --trials and --seed unless --deviate gives the reason.`,
		Args: exactArgs(1, "one protocol FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := missions()
			if err != nil {
				return err
			}
			tree, err := experiment.Lock(args[0], experiment.LockOptions{Stack: experiment.NewStack(reg), Context: cmd.Context()})
			if err != nil {
				return err
			}
			for _, e := range tree.Entries {
				path := e.Path
				if e.Kind == experiment.KindProtocol {
					path = args[0]
				}
				if path == "" {
					path = "(" + e.Kind.String() + ")"
				}
				fmt.Fprintf(g.stdout, "%s  %s  %s\n", e.SHA256, path, e.Name)
			}
			fmt.Fprintf(g.stdout, "tree root %s\nlocked in %s\n", tree.Root, experiment.LockFile(args[0]))
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
			locked, lerr := experiment.CheckLock(args[0], experiment.LockOptions{Stack: experiment.NewStack(reg)})
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
