package distributed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/experiment"
)

// Executor executes the units of one job ([experiment.JobRunner]).
type Executor interface {
	Execute(ctx context.Context, unit string) ([]byte, error)
}

var _ Executor = (*experiment.JobRunner)(nil)

// Worker pulls units from the server and executes them.
type Worker struct {
	JS jetstream.JetStream
	// Stack opens jobs: Open, when nil, is Stack.OpenJob.
	Stack *experiment.Stack
	Open  func(ctx context.Context, dir string, job *experiment.Job, fetch func(context.Context, experiment.JobFile) ([]byte, error)) (Executor, error)
	// Dir is where the worker writes the jobs' files, a folder per run.
	Dir string
	// Workers is how many units run at once (0: 1).
	Workers int
	// Models say how model-backed cores reach their models on this
	// worker: its own endpoint and key (else the protocol's). Their
	// answers are shared with every worker through the server's cache
	// bucket ([CacheBucket]); Models.Shared is set by Run.
	Models experiment.JobModels
	Logger zerolog.Logger

	mu        sync.Mutex
	jobs      map[string]*openJob
	wait      time.Duration // the consumer's ack wait
	waitAsked time.Time
}

// openJob is a run's job, opened once it opens without error.
type openJob struct {
	mu   sync.Mutex
	exec Executor
}

// Run executes units until ctx ends; it returns nil then.
func (w *Worker) Run(ctx context.Context) error {
	sh, err := setup(ctx, w.JS, nil)
	if err != nil {
		return startErr(ctx, err)
	}
	if w.Models.Shared == nil {
		if w.Models.Shared, err = OpenCache(ctx, w.JS); err != nil {
			return startErr(ctx, err)
		}
	}
	defer w.closeJobs()
	n := max(w.Workers, 1)
	errs := make(chan error, n)
	for range n {
		go func() { errs <- w.loop(ctx, sh) }()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// startErr is what Run returns when starting failed with err: nil when
// ctx ended meanwhile (a worker stopped while it started has stopped, as
// Run promises), else err.
func startErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("worker: %w", err)
}

// loop pulls one unit at a time until ctx ends.
func (w *Worker) loop(ctx context.Context, sh *shared) error {
	for ctx.Err() == nil {
		pull, cancel := context.WithTimeout(ctx, 5*time.Second)
		m, err := sh.units.Next(jetstream.FetchContext(pull))
		cancel()
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, nats.ErrTimeout), errors.Is(err, context.DeadlineExceeded), errors.Is(err, jetstream.ErrNoMessages):
			continue
		case errors.Is(err, nats.ErrConnectionClosed):
			return fmt.Errorf("worker: %w", err)
		case err != nil:
			w.Logger.Warn().Err(err).Msg("pull unit")
			continue
		}
		if err := w.unit(ctx, sh, m); err != nil && ctx.Err() == nil {
			w.Logger.Warn().Err(err).Str("subject", m.Subject()).Msg("unit")
		}
	}
	return nil
}

// unit executes one unit and publishes its answer, or the reason it
// failed; the unit is then acked, or nakked to be delivered again.
func (w *Worker) unit(ctx context.Context, sh *shared, m jetstream.Msg) error {
	md, err := m.Metadata()
	if err != nil {
		return m.Term()
	}
	run, err := runOf(m.Subject(), unitPrefix)
	if err != nil {
		return m.Term() // not a unit: never deliverable
	}
	key := string(m.Data())
	stop := heartbeat(m, w.ackWait(ctx, sh))
	data, err := w.execute(ctx, sh, run, key)
	stop()
	switch {
	case ctx.Err() != nil:
		return m.Nak() // interrupted: another worker takes it now
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return m.Term() // the run has no job: it is finished, or gone
	}
	msg := &nats.Msg{Subject: resultPrefix + run, Header: nats.Header{}, Data: data}
	msg.Header.Set(hdrUnit, key)
	msg.Header.Set(hdrDeliveries, strconv.FormatUint(md.NumDelivered, 10))
	if err != nil {
		msg.Header.Set(hdrError, firstLine(err.Error()))
		msg.Data = nil
	}
	if _, perr := sh.js.PublishMsg(ctx, msg); perr != nil {
		return errors.Join(perr, m.Nak())
	}
	if err != nil {
		return errors.Join(err, m.NakWithDelay(time.Second))
	}
	return m.Ack()
}

// heartbeat tells the server every third of the ack wait that m is in
// progress, until the returned stop is called.
func heartbeat(m jetstream.Msg, wait time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(wait / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = m.InProgress()
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// ackWait is the worker consumer's ack wait, asked of the server at most
// every 10s (a coordinator may change it).
func (w *Worker) ackWait(ctx context.Context, sh *shared) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.wait == 0 || time.Since(w.waitAsked) > 10*time.Second {
		w.wait, w.waitAsked = 30*time.Second, time.Now()
		if info, err := sh.units.Info(ctx); err == nil && info.Config.AckWait > 0 {
			w.wait = info.Config.AckWait
		}
	}
	return w.wait
}

// execute runs a unit of run's job, opening the job the first time.
func (w *Worker) execute(ctx context.Context, sh *shared, run, key string) ([]byte, error) {
	w.mu.Lock()
	if w.jobs == nil {
		w.jobs = map[string]*openJob{}
	}
	j, ok := w.jobs[run]
	if !ok {
		w.forgetFinished(ctx, sh)
		j = &openJob{}
		w.jobs[run] = j
	}
	w.mu.Unlock()
	j.mu.Lock()
	if j.exec == nil {
		exec, err := w.openJob(ctx, sh, run)
		if err != nil {
			j.mu.Unlock()
			return nil, err
		}
		j.exec = exec
	}
	exec := j.exec
	j.mu.Unlock()
	return exec.Execute(ctx, key)
}

// forgetFinished drops the jobs of runs that are over (their job is
// gone from the bucket), when a new run comes; w.mu is held.
func (w *Worker) forgetFinished(ctx context.Context, sh *shared) {
	for run, j := range w.jobs {
		if _, err := sh.jobs.Get(ctx, run); errors.Is(err, jetstream.ErrKeyNotFound) {
			j.close()
			delete(w.jobs, run)
		}
	}
}

// closeJobs releases every job's executor (its endpoints' connections).
func (w *Worker) closeJobs() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for run, j := range w.jobs {
		j.close()
		delete(w.jobs, run)
	}
}

// close releases the job's executor if it holds connections.
func (j *openJob) close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if c, ok := j.exec.(interface{ Close() }); ok {
		c.Close()
	}
	j.exec = nil
}

// openJob reads run's job and fetches its files into the worker's folder.
func (w *Worker) openJob(ctx context.Context, sh *shared, run string) (Executor, error) {
	e, err := sh.jobs.Get(ctx, run)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", run, err)
	}
	var job experiment.Job
	if err := json.Unmarshal(e.Value(), &job); err != nil {
		return nil, fmt.Errorf("job %s: %w", run, err)
	}
	fetch := func(ctx context.Context, f experiment.JobFile) ([]byte, error) {
		return sh.files.GetBytes(ctx, f.SHA256)
	}
	dir := filepath.Join(w.Dir, run)
	if w.Open != nil {
		return w.Open(ctx, dir, &job, fetch)
	}
	r, err := w.Stack.OpenJob(ctx, dir, &job, fetch)
	if err != nil {
		return nil, err
	}
	if err := r.BindModels(ctx, w.Models); err != nil {
		r.Close()
		return nil, err
	}
	w.Logger.Info().Str("run", run).Msg("job opened")
	return r, nil
}

// firstLine is the first line of s, at most 300 bytes.
func firstLine(s string) string {
	for i := range len(s) {
		if s[i] == '\n' {
			s = s[:i]
			break
		}
	}
	if len(s) > 300 {
		s = strings.ToValidUTF8(s[:300], "")
	}
	return s
}
