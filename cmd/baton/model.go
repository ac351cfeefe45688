package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/model"
)

func newModelCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Model endpoints: a scripted OpenAI-compatible server for tests and demos",
		Args:  noArgs,
	}
	cmd.AddCommand(newModelServeCmd(g))
	return cmd
}

// servedPlayers returns the models `baton model serve` plays for a mission.
func servedPlayers(mission string) (map[string]model.Player, error) {
	switch mission {
	case "":
		return map[string]model.Player{"echo": model.Echo{}}, nil
	}
	return nil, &usageError{fmt.Errorf("--mission %q: no mission player yet; only the test player (no --mission) is served", mission)}
}

func newModelServeCmd(g *globals) *cobra.Command {
	var addr, mission string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a scripted OpenAI-compatible chat-completions endpoint on 127.0.0.1",
		Long: `Serve a scripted OpenAI-compatible endpoint on a loopback address:
POST /v1/chat/completions and GET /v1/models. baton prints the base URL (for
BATON_JUDGE_BASE_URL or a protocol's endpoint) on stdout and serves until
Ctrl-C.

For now it serves only the test player, model "echo": it calls no tool and
answers at once with {"echo": <the last user message>, "seed": <the request's
seed>, "tools": [<the tools offered>]}. The mission players, which play each
mission's policy cores with the protocol's slips, come later; --mission names
one and is refused until then.

Answers depend on the request alone, never on a clock: the sample index travels
in the request's "seed" field. Usage is estimated at 4 bytes a token.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			players, err := servedPlayers(mission)
			if err != nil {
				return err
			}
			srv, err := model.NewServer(players)
			if err != nil {
				return err
			}
			ln, err := model.Listen(addr)
			if err != nil {
				return &usageError{err}
			}
			if _, err := fmt.Fprintln(g.stdout, model.BaseURL(ln)); err != nil {
				ln.Close()
				return err
			}
			log.Info().Strs("models", srv.Models()).Str("url", model.BaseURL(ln)).Msg("serving; Ctrl-C to stop")
			return srv.Serve(cmd.Context(), ln)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "loopback address to listen on (port 0 picks a free one)")
	cmd.Flags().StringVar(&mission, "mission", "", "mission whose policy cores the model plays (none yet: the test player only)")
	return cmd
}
