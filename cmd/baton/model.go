package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/mission/modelcore"
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

// servedPlayers returns the models `baton model serve` plays: the test
// player "echo" and, with a mission, the player of its policy cores under
// the slips of a protocol (the mission's default protocol when path is "").
func servedPlayers(name, path string) (map[string]model.Player, error) {
	players := map[string]model.Player{"echo": model.Echo{}}
	if name == "" && path == "" {
		return players, nil
	}
	m, reg, err := lookupMission(name)
	if err != nil {
		return nil, err
	}
	var p *experiment.Protocol
	if path == "" {
		p, err = experiment.MissionProtocol(m)
	} else {
		p, err = experiment.LoadProtocol(path, reg)
	}
	if err != nil {
		return nil, err
	}
	if name == "" {
		m, _ = reg.Lookup(p.Mission.Name)
	} else if p.Mission.Name != m.Spec().Name {
		return nil, &usageError{fmt.Errorf("--protocol %s is a protocol of mission %s, not %s", path, p.Mission.Name, name)}
	}
	players[modelcore.PlayerModel(m.Spec().Name)] = modelcore.NewPlayer(m, p.Profile)
	return players, nil
}

func newModelServeCmd(g *globals) *cobra.Command {
	var addr, mission, protocol string
	var latency time.Duration
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a scripted OpenAI-compatible chat-completions endpoint on 127.0.0.1",
		Long: `Serve a scripted OpenAI-compatible endpoint on a loopback address:
POST /v1/chat/completions and GET /v1/models. baton prints the base URL (for
BATON_JUDGE_BASE_URL or a protocol's endpoint) on stdout and serves until
Ctrl-C.

With --mission M (or --protocol P, whose mission it takes) it serves model
"M-policy", which plays mission M's policy cores with the slip rates of the
protocol's profile (the mission's default protocol unless --protocol names
one): point a protocol's model cores at it (endpoint: the printed URL, model:
M-policy) and the run gives the policy run's results, over HTTP. For each
request it reads the turn (agent, item, day, input) from the user message and
the trial seed from the request's "seed" field, replays the agent's policy
against the tool results already in the conversation, draws its slips from the
keyed dice of that seed, and answers with the policy's next tool call or its
result.

It always serves the test player, model "echo": it calls no tool and answers
at once with {"echo": <the last user message>, "seed": <the request's seed>,
"tools": [<the tools offered>]}.

Answers depend on the request alone, never on a clock. Usage is estimated at 4
bytes a token. --latency D makes each answer wait D first (wall clock, on the
server alone: answers are the same bytes), for a model-bound demo or benchmark.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			players, err := servedPlayers(mission, protocol)
			if err != nil {
				return err
			}
			if latency < 0 {
				return &usageError{fmt.Errorf("--latency %s: want 0 or more", latency)}
			}
			srv, err := model.NewServer(players)
			if err != nil {
				return err
			}
			srv.Latency = latency
			ln, err := model.Listen(addr)
			if err != nil {
				return &usageError{err}
			}
			if _, err := fmt.Fprintln(g.stdout, model.BaseURL(ln)); err != nil {
				ln.Close()
				return err
			}
			log.Info().Strs("models", srv.Models()).Str("url", model.BaseURL(ln)).Dur("latency", latency).Msg("serving; Ctrl-C to stop")
			return srv.Serve(cmd.Context(), ln)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "loopback address to listen on (port 0 picks a free one)")
	cmd.Flags().StringVar(&mission, "mission", "", "mission whose policy cores model <mission>-policy plays")
	cmd.Flags().DurationVar(&latency, "latency", 0, "wait this long before each answer (wall clock; answers do not change)")
	cmd.Flags().StringVar(&protocol, "protocol", "", "protocol whose slip rates the mission's player plays (default: the mission's default protocol)")
	return cmd
}
