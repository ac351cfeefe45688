package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/distributed"
	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/model"
)

// natsEnv names the environment variable a NATS URL may come from, so
// its credentials need not be on a command line.
const natsEnv = "BATON_NATS_URL"

// A worker's own model endpoint and its API key (only ever from the
// environment, never a flag: a command line is visible to every user).
const (
	modelEndpointEnv = "BATON_MODEL_ENDPOINT"
	modelKeyEnv      = "BATON_MODEL_API_KEY"
)

func newWorkerCmd(g *globals) *cobra.Command {
	var url, dir, endpoint string
	var workers int
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Execute the work units of distributed runs (baton run --nats) until stopped",
		Long: `Pull work units from a NATS JetStream server, execute them with the run's
inputs (fetched from the server and checked against the run's input hashes)
and publish the answers, until Ctrl-C or SIGTERM. Start any number of workers
on any number of machines; each serves every run on the server. A worker must
be the same baton build as the coordinator: a job from another is refused.

The URL (--nats, or $` + natsEnv + `) may carry credentials; they are never logged.

Model-backed cores ask the worker's own endpoint (--model-endpoint, or
$` + modelEndpointEnv + `) with the API key in $` + modelKeyEnv + ` (none if unset);
without one they ask the protocol's endpoint with the key its api_key_env
names, read from the worker's environment. Keys are never logged or written.
Every answer goes to the server's shared cache, so a request one worker paid
for is answered from there on every other, and the coordinator copies the
answers its run used into the run folder's model-cache/.

` + exitHelp,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			if url == "" {
				url = os.Getenv(natsEnv)
			}
			if url == "" {
				return &usageError{fmt.Errorf("baton worker wants --nats URL (or $%s)", natsEnv)}
			}
			if workers < 1 {
				return &usageError{fmt.Errorf("--workers %d: want 1 or more", workers)}
			}
			if endpoint == "" {
				endpoint = os.Getenv(modelEndpointEnv)
			}
			models := experiment.JobModels{Endpoint: endpoint, APIKey: os.Getenv(modelKeyEnv)}
			if err := models.Check(); err != nil {
				return &usageError{err}
			}
			return runWorker(cmd.Context(), log, url, dir, workers, models)
		},
	}
	f := cmd.Flags()
	f.StringVar(&endpoint, "model-endpoint", "", "base URL model-backed cores ask on this worker instead of the protocol's endpoint (default $"+modelEndpointEnv+"; the API key comes from $"+modelKeyEnv+")")
	f.StringVar(&url, "nats", "", "NATS server URL (default $"+natsEnv+")")
	f.IntVar(&workers, "workers", 1, "units to execute at once")
	f.StringVar(&dir, "dir", "", "folder for the runs' input files (default: a temporary folder, removed on exit)")
	return cmd
}

// runWorker serves units until ctx ends.
func runWorker(ctx context.Context, log zerolog.Logger, url, dir string, workers int, models experiment.JobModels) error {
	reg, err := missions()
	if err != nil {
		return err
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "baton-worker-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	id := uuid.NewString()
	conn, err := distributed.Connect(url, "baton worker "+id)
	if err != nil {
		return err
	}
	defer conn.Close()
	log = log.With().Str("worker", id).Logger()
	ev := log.Info().Str("nats", conn.Server).Int("workers", workers).Bool("model_key", models.APIKey != "")
	if models.Endpoint != "" {
		ev = ev.Str("model_endpoint", model.StripURL(models.Endpoint))
	}
	ev.Msg("worker started")
	w := &distributed.Worker{JS: conn.JS, Stack: experiment.NewStack(reg), Dir: dir, Workers: workers, Models: models, Logger: log}
	err = w.Run(ctx)
	log.Info().Msg("worker stopped")
	return err
}

// natsFlags are baton run's flags for a distributed sweep.
type natsFlags struct {
	url          string
	localWorkers int
	policy       distributed.Config
}

func (n *natsFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&n.url, "nats", "", `run the units on "baton worker"s through this NATS JetStream server (default $`+natsEnv+`); "embedded" starts one in this process`)
	f.IntVar(&n.localWorkers, "local-workers", 0, "with --nats, start this many worker processes on this machine")
	f.DurationVar(&n.policy.AckWait, "ack-wait", 30*time.Second, "with --nats, how long a unit may go without a worker's heartbeat before it is delivered again")
	f.IntVar(&n.policy.MaxDeliver, "max-deliver", 3, "with --nats, deliveries of a unit before it is given up as an infrastructure failure")
}

// remote sets opt.Remote when the flags ask for a distributed sweep and
// returns what stops it (the local workers, the connection, an embedded
// server).
func (n *natsFlags) remote(ctx context.Context, g *globals, log zerolog.Logger, opt *experiment.Options) (stop func(), err error) {
	if n.url == "" {
		n.url = os.Getenv(natsEnv)
	}
	switch {
	case n.url == "" && n.localWorkers > 0:
		return nil, &usageError{errors.New("--local-workers wants --nats URL or --nats embedded")}
	case n.url == "":
		return func() {}, nil
	case n.localWorkers < 0:
		return nil, &usageError{fmt.Errorf("--local-workers %d: want 0 or more", n.localWorkers)}
	case n.url == "embedded" && n.localWorkers == 0:
		return nil, &usageError{errors.New("--nats embedded wants --local-workers N (1 or more)")}
	case opt.ModelOffline:
		return nil, &usageError{errors.New("--model-offline runs on this machine alone: a distributed sweep's workers ask their endpoints (rerun without --nats)")}
	case n.policy.AckWait <= 0 || n.policy.MaxDeliver < 1:
		return nil, &usageError{fmt.Errorf("--ack-wait %s, --max-deliver %d: want a positive wait and at least 1 delivery", n.policy.AckWait, n.policy.MaxDeliver)}
	}
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	url := n.url
	if url == "embedded" {
		dir, err := os.MkdirTemp("", "baton-nats-")
		if err != nil {
			return nil, err
		}
		srv, err := distributed.StartEmbedded(dir)
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		stops = append(stops, func() { srv.Close(); os.RemoveAll(dir) })
		url = srv.URL()
	}
	conn, err := distributed.Connect(url, "baton run")
	if err != nil {
		stop()
		return nil, err
	}
	stops = append(stops, conn.Close)
	log.Info().Str("nats", conn.Server).Msg("distributed sweep")
	opt.Remote = &distributed.Remote{JS: conn.JS, Config: n.policy, Logger: log}
	if n.localWorkers > 0 {
		wait, err := startLocalWorkers(ctx, g, url, n.localWorkers)
		if err != nil {
			stop()
			return nil, err
		}
		stops = append(stops, wait)
	}
	return stop, nil
}

// startLocalWorkers starts n "baton worker" processes of this binary and
// returns what stops them (an interrupt, then a wait).
func startLocalWorkers(ctx context.Context, g *globals, url string, n int) (stop func(), err error) {
	self, err := selfPath()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	var cmds []*exec.Cmd
	stop = func() {
		cancel()
		for _, c := range cmds {
			_ = c.Wait()
		}
	}
	for range n {
		c := exec.CommandContext(ctx, self, "worker", "--log-level", "warn", "--workers", "1")
		c.Env = append(os.Environ(), natsEnv+"="+url) // not on a command line
		c.Stdout, c.Stderr = g.stderr, g.stderr
		c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
		c.WaitDelay = 30 * time.Second
		if err := c.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("start worker %d: %w", len(cmds)+1, err)
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}

// selfPath is this program's path as it was started (a test binary
// dispatches on its name), else the executable's.
func selfPath() (string, error) {
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		return filepath.Abs(p)
	}
	return os.Executable()
}

// natsResumeArgs is --nats as the resume command repeats it: a URL, which
// may carry credentials, by its environment variable.
func natsResumeArgs(cmd *cobra.Command) []string {
	f := cmd.Flags().Lookup("nats")
	switch {
	case f == nil || !f.Changed:
		return nil
	case f.Value.String() == "embedded":
		return []string{"--nats", "embedded"}
	}
	return []string{"--nats", `"$` + natsEnv + `"`}
}
