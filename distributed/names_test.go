package distributed

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// lateLookup lets between run after a worker consumer look-up that found
// none, before the caller acts on it.
type lateLookup struct {
	jetstream.JetStream
	between func()
}

func (l *lateLookup) Consumer(ctx context.Context, stream, name string) (jetstream.Consumer, error) {
	c, err := l.JetStream.Consumer(ctx, stream, name)
	if errors.Is(err, jetstream.ErrConsumerNotFound) && l.between != nil {
		between := l.between
		l.between = nil
		between()
	}
	return c, err
}

// TestWorkerKeepsPolicy: whatever the order in which a worker and a
// coordinator set up, the worker consumer ends with the coordinator's
// policy, even when the coordinator sets it between the worker's look-up
// and its creation (TestPoisonedUnit then saw 3 deliveries, the default,
// for MaxDeliver 2).
func TestWorkerKeepsPolicy(t *testing.T) {
	policy := Config{AckWait: time.Second, MaxDeliver: 2}
	for _, order := range []string{"coordinator first", "worker first", "coordinator between look-up and creation"} {
		t.Run(order, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			js := connect(t)
			coordinator := func() {
				if _, err := setup(ctx, js(), &policy); err != nil {
					t.Error(err)
				}
			}
			worker := &lateLookup{JetStream: js()}
			switch order {
			case "coordinator first":
				coordinator()
			case "coordinator between look-up and creation":
				worker.between = coordinator
			}
			if _, err := setup(ctx, worker, nil); err != nil {
				t.Fatal(err)
			}
			if order == "worker first" {
				coordinator()
			}
			if worker.between != nil {
				t.Fatal("the worker found a consumer before the coordinator made one")
			}
			cons, err := js().Consumer(ctx, UnitStream, WorkerConsumer)
			if err != nil {
				t.Fatal(err)
			}
			info, err := cons.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := Config{AckWait: info.Config.AckWait, MaxDeliver: info.Config.MaxDeliver}
			if d := cmp.Diff(policy, got); d != "" {
				t.Errorf("worker consumer policy (-coordinator's +got):\n%s", d)
			}
		})
	}
}

// TestWorkerStoppedWhileStarting: a worker whose context ends while it
// sets up (TestCoordinatorRestart once stopped one there) has stopped, as
// Run promises, and returns nil; setting up against a closed connection
// is still an error.
func TestWorkerStoppedWhileStarting(t *testing.T) {
	js := connect(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := &Worker{JS: js(), Stack: stack(t), Dir: t.TempDir(), Logger: zerolog.Nop()}
	if err := w.Run(ctx); err != nil {
		t.Errorf("Run with its context ended = %v, want nil", err)
	}
	closed := js()
	closed.Conn().Close()
	w = &Worker{JS: closed, Stack: stack(t), Dir: t.TempDir(), Logger: zerolog.Nop()}
	if err := w.Run(context.Background()); err == nil {
		t.Error("Run on a closed connection = nil, want an error")
	}
}
