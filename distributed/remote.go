package distributed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/model"
)

// Remote is a sweep's coordinator on a NATS server: it publishes the job
// and the units, and takes the workers' answers.
type Remote struct {
	JS     jetstream.JetStream
	Config Config
	Logger zerolog.Logger

	stats Stats
}

var _ experiment.ModelRemote = (*Remote)(nil)

// ModelStore opens the workers' shared model cache ([CacheBucket]).
func (r *Remote) ModelStore(ctx context.Context) (model.Store, error) { return OpenCache(ctx, r.JS) }

// Stats counts what the last sweep received.
type Stats struct {
	Units       int // units published
	Answers     int // answers received
	Duplicates  int // answers that stored nothing (a unit answered twice)
	Redelivered int // answers to a unit delivered more than once
	Failures    int // failed attempts workers reported
	GivenUp     int // units that reached MaxDeliver
}

// Stats returns what the last sweep received.
func (r *Remote) Stats() Stats { return r.stats }

// maxDeliveries is the server's advisory of a unit that reached
// MaxDeliver.
type maxDeliveries struct {
	Stream     string `json:"stream"`
	Consumer   string `json:"consumer"`
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries int    `json:"deliveries"`
}

// Sweep publishes sw's job, files and units and passes the answers to
// sw.Sink until it is done or ctx ends. An interrupted sweep leaves its
// units queued and its answers in the result stream, for a resume.
func (r *Remote) Sweep(ctx context.Context, sw *experiment.RemoteSweep) error {
	r.stats = Stats{}
	sh, err := setup(ctx, r.JS, &r.Config)
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if err := publishJob(ctx, sh, sw); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	results, err := r.JS.CreateOrUpdateConsumer(ctx, ResultStream, jetstream.ConsumerConfig{
		Durable: "results-" + sw.Run, FilterSubject: resultPrefix + sw.Run, AckPolicy: jetstream.AckExplicitPolicy,
	})
	if err != nil {
		return fmt.Errorf("sweep: result consumer: %w", err)
	}
	answers, stop := make(chan jetstream.Msg), make(chan struct{})
	cc, err := results.Consume(func(m jetstream.Msg) {
		select {
		case answers <- m:
		case <-stop:
		}
	}, jetstream.PullMaxMessages(16)) // answers wait in the stream, not in memory
	if err != nil {
		return fmt.Errorf("sweep: consume results: %w", err)
	}
	defer func() { close(stop); cc.Stop(); <-cc.Closed() }()
	advisories := make(chan *nats.Msg, 64)
	sub, err := r.JS.Conn().ChanSubscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+UnitStream+"."+WorkerConsumer, advisories)
	if err != nil {
		return fmt.Errorf("sweep: advisories: %w", err)
	}
	defer sub.Unsubscribe()
	if err := r.publishUnits(ctx, sw); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	r.Logger.Info().Str("run", sw.Run).Int("units", len(sw.Units)).Msg("units published")
	done, err := r.collect(ctx, sh, sw, answers, advisories)
	if err != nil || !done {
		return err
	}
	// Every unit is accounted for: the run's answers and job go.
	_ = r.JS.DeleteConsumer(ctx, ResultStream, "results-"+sw.Run)
	if s, err := r.JS.Stream(ctx, ResultStream); err == nil {
		_ = s.Purge(ctx, jetstream.WithPurgeSubject(resultPrefix+sw.Run))
	}
	_ = sh.jobs.Purge(ctx, sw.Run)
	return nil
}

// publishUnits publishes the units, 256 at a time awaiting the server's
// acks.
func (r *Remote) publishUnits(ctx context.Context, sw *experiment.RemoteSweep) error {
	var pending []jetstream.PubAckFuture
	for i, u := range sw.Units {
		f, err := r.JS.PublishAsync(unitPrefix+sw.Run, []byte(u), jetstream.WithMsgID(sw.Session+"/"+u))
		if err != nil {
			return fmt.Errorf("publish unit %s: %w", u, err)
		}
		if pending = append(pending, f); len(pending) < 256 && i < len(sw.Units)-1 {
			continue
		}
		for _, f := range pending {
			select {
			case <-f.Ok():
				r.stats.Units++
			case err := <-f.Err():
				return fmt.Errorf("publish unit %s: %w", f.Msg().Data, err)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		pending = pending[:0]
	}
	return nil
}

// collect passes answers and given-up units to the sink until it is done.
func (r *Remote) collect(ctx context.Context, sh *shared, sw *experiment.RemoteSweep, answers <-chan jetstream.Msg, advisories <-chan *nats.Msg) (bool, error) {
	lastErr := map[string]string{}
	for {
		var done bool
		var err error
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case m := <-answers:
			done, err = r.answer(m, sw, lastErr)
		case a := <-advisories:
			done, err = r.givenUp(ctx, sh, sw, a.Data, lastErr)
		}
		if err != nil || done {
			return done, err
		}
	}
}

// answer takes one result message.
func (r *Remote) answer(m jetstream.Msg, sw *experiment.RemoteSweep, lastErr map[string]string) (bool, error) {
	unit := m.Headers().Get(hdrUnit)
	if reason := m.Headers().Get(hdrError); reason != "" {
		r.stats.Failures++
		lastErr[unit] = reason
		return false, m.Ack()
	}
	r.stats.Answers++
	if n, _ := strconv.Atoi(m.Headers().Get(hdrDeliveries)); n > 1 {
		r.stats.Redelivered++
	}
	stored, done, err := sw.Sink.Result(unit, m.Data())
	if err != nil {
		return false, err
	}
	if stored == 0 {
		r.stats.Duplicates++
	}
	return done, m.Ack()
}

// givenUp takes the advisory of a unit that reached MaxDeliver: the
// unit, if it is this run's, is an infrastructure failure.
func (r *Remote) givenUp(ctx context.Context, sh *shared, sw *experiment.RemoteSweep, data []byte, lastErr map[string]string) (bool, error) {
	var a maxDeliveries
	if err := json.Unmarshal(data, &a); err != nil || a.Stream != UnitStream {
		return false, nil
	}
	s, err := r.JS.Stream(ctx, UnitStream)
	if err != nil {
		return false, fmt.Errorf("unit stream: %w", err)
	}
	m, err := s.GetMsg(ctx, a.StreamSeq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("given-up unit %d: %w", a.StreamSeq, err)
	}
	if run, err := runOf(m.Subject, unitPrefix); err != nil || run != sw.Run {
		return false, nil // another run's
	}
	unit := string(m.Data)
	reason, ok := lastErr[unit]
	if !ok {
		reason = "no worker answered within the ack wait (killed, disconnected or too slow)"
	}
	r.stats.GivenUp++
	r.Logger.Warn().Str("unit", unit).Int("deliveries", a.Deliveries).Str("reason", reason).Msg("unit given up")
	_ = s.DeleteMsg(ctx, a.StreamSeq)
	return sw.Sink.Failed(unit, a.Deliveries, reason)
}

// publishJob puts the job's files (by SHA-256, once) and the job.
func publishJob(ctx context.Context, sh *shared, sw *experiment.RemoteSweep) error {
	for _, f := range sw.Job.Files {
		if _, err := sh.files.GetInfo(ctx, f.SHA256); err == nil {
			continue
		} else if !errors.Is(err, jetstream.ErrObjectNotFound) {
			return fmt.Errorf("job file %s: %w", f.Path, err)
		}
		data, err := sw.ReadFile(f)
		if err != nil {
			return err
		}
		if _, err := sh.files.PutBytes(ctx, f.SHA256, data); err != nil {
			return fmt.Errorf("job file %s: %w", f.Path, err)
		}
	}
	data, err := json.Marshal(sw.Job)
	if err != nil {
		return fmt.Errorf("job: %w", err)
	}
	if _, err := sh.jobs.Put(ctx, sw.Run, data); err != nil {
		return fmt.Errorf("job: %w", err)
	}
	return nil
}
