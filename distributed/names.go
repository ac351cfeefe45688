package distributed

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// What the coordinators and workers of every run share on a server.
const (
	// UnitStream is the work-queue stream of units, on subjects
	// baton.units.<run>.
	UnitStream = "BATON_UNITS"
	// ResultStream holds the workers' answers, on subjects
	// baton.results.<run>.
	ResultStream = "BATON_RESULTS"
	// WorkerConsumer is the durable pull consumer every worker pulls
	// units from.
	WorkerConsumer = "baton-workers"
	// JobBucket is the key-value bucket of jobs, keyed by run.
	JobBucket = "baton_jobs"
	// FileBucket is the object store of job files, named by SHA-256.
	FileBucket = "baton_files"

	unitPrefix   = "baton.units."
	resultPrefix = "baton.results."

	// Headers of a result message.
	hdrUnit       = "Baton-Unit"
	hdrError      = "Baton-Error"
	hdrDeliveries = "Baton-Deliveries"
)

// Config is the delivery policy of the units. Every run on a server
// shares the worker consumer: the coordinator that starts last sets the
// policy for all, and a worker never changes it (it makes the consumer,
// with the defaults, only when no coordinator has).
type Config struct {
	// AckWait is how long a unit may go without an ack or a heartbeat
	// before it is redelivered (0: 30s). A worker sends heartbeats every
	// AckWait/3 while it executes a unit.
	AckWait time.Duration
	// MaxDeliver is how often a unit is handed to a worker before it is
	// given up as an infrastructure failure (0: 3).
	MaxDeliver int
}

func (c Config) ackWait() time.Duration {
	if c.AckWait <= 0 {
		return 30 * time.Second
	}
	return c.AckWait
}

func (c Config) maxDeliver() int {
	if c.MaxDeliver <= 0 {
		return 3
	}
	return c.MaxDeliver
}

// setup creates (or updates) the streams and buckets; policy, when not
// nil, sets the worker consumer's delivery policy (the coordinator's),
// else the consumer is made with the default one if it is missing.
func setup(ctx context.Context, js jetstream.JetStream, policy *Config) (*shared, error) {
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: UnitStream, Subjects: []string{unitPrefix + ">"}, Retention: jetstream.WorkQueuePolicy,
	}); err != nil {
		return nil, fmt.Errorf("unit stream: %w", err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: ResultStream, Subjects: []string{resultPrefix + ">"}, MaxAge: 7 * 24 * time.Hour,
	}); err != nil {
		return nil, fmt.Errorf("result stream: %w", err)
	}
	var cfg Config
	if policy != nil {
		cfg = *policy
	}
	cc := jetstream.ConsumerConfig{
		Durable: WorkerConsumer, AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: cfg.ackWait(), MaxDeliver: cfg.maxDeliver(), MaxAckPending: -1,
	}
	var cons jetstream.Consumer
	var err error
	if policy != nil {
		cons, err = js.CreateOrUpdateConsumer(ctx, UnitStream, cc)
	} else {
		cons, err = workerConsumer(ctx, js, cc)
	}
	if err != nil {
		return nil, fmt.Errorf("worker consumer: %w", err)
	}
	jobs, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: JobBucket})
	if err != nil {
		return nil, fmt.Errorf("job bucket: %w", err)
	}
	files, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: FileBucket})
	if err != nil {
		return nil, fmt.Errorf("file bucket: %w", err)
	}
	return &shared{js: js, units: cons, jobs: jobs, files: files}, nil
}

// workerConsumer is the worker consumer as it is, made with cc (the
// default policy) only if it is missing. It never updates one: a
// coordinator that set its policy between the look-up and the creation
// keeps it (before, a worker starting with a coordinator could put
// MaxDeliver and AckWait back to the defaults).
func workerConsumer(ctx context.Context, js jetstream.JetStream, cc jetstream.ConsumerConfig) (jetstream.Consumer, error) {
	cons, err := js.Consumer(ctx, UnitStream, WorkerConsumer)
	if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return cons, err
	}
	cons, err = js.CreateConsumer(ctx, UnitStream, cc)
	if errors.Is(err, jetstream.ErrConsumerExists) {
		return js.Consumer(ctx, UnitStream, WorkerConsumer)
	}
	return cons, err
}

// shared is what setup made.
type shared struct {
	js    jetstream.JetStream
	units jetstream.Consumer
	jobs  jetstream.KeyValue
	files jetstream.ObjectStore
}

// runOf is the run of a unit or result subject.
func runOf(subject, prefix string) (string, error) {
	run, ok := strings.CutPrefix(subject, prefix)
	if !ok || run == "" || strings.ContainsAny(run, ".*> ") {
		return "", fmt.Errorf("subject %q: want %s<run>", subject, prefix)
	}
	return run, nil
}
