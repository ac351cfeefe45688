package distributed

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Embedded is a NATS server with JetStream running in this process, for
// a demo on one machine and for tests.
type Embedded struct {
	srv *server.Server
}

// StartEmbedded starts a server with JetStream storing in dir, on a free
// port of 127.0.0.1.
func StartEmbedded(dir string) (*Embedded, error) {
	srv, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: dir,
		NoLog: true, NoSigs: true, MaxPayload: 8 << 20,
	})
	if err != nil {
		return nil, fmt.Errorf("embedded server: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, errors.New("embedded server: not ready after 10s")
	}
	return &Embedded{srv: srv}, nil
}

// URL is the server's client URL.
func (e *Embedded) URL() string { return e.srv.ClientURL() }

// Close stops the server and waits until it has stopped.
func (e *Embedded) Close() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}
