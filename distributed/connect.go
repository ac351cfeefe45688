package distributed

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/baton-lab/baton/model"
)

// Conn is a connection to a NATS server with JetStream.
type Conn struct {
	JS jetstream.JetStream
	// Server is the URL without credentials, fit for a log.
	Server string
}

// Close closes the connection.
func (c *Conn) Close() { c.JS.Conn().Close() }

// Connect connects to the servers of rawURL (comma-separated URLs, which
// may carry a user and password or a token): its errors and Server never
// show the credentials.
func Connect(rawURL, name string) (*Conn, error) {
	red := model.NewRedactor(urlSecrets(rawURL)...)
	server := stripURLs(rawURL)
	nc, err := nats.Connect(rawURL, nats.Name(name), nats.MaxReconnects(-1))
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", server, red.Error(err))
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("connect to %s: jetstream: %w", server, red.Error(err))
	}
	return &Conn{JS: js, Server: server}, nil
}

// urlSecrets are the user names, passwords and query values of the URLs.
func urlSecrets(raw string) []string {
	var s []string
	for _, one := range strings.Split(raw, ",") {
		u, err := url.Parse(strings.TrimSpace(one))
		if err != nil {
			continue
		}
		if u.User != nil {
			s = append(s, u.User.Username())
			if p, ok := u.User.Password(); ok {
				s = append(s, p)
			}
		}
		for _, vs := range u.Query() {
			s = append(s, vs...)
		}
	}
	return s
}

// stripURLs is raw with each URL stripped of its credentials.
func stripURLs(raw string) string {
	parts := strings.Split(raw, ",")
	for i, p := range parts {
		parts[i] = model.StripURL(strings.TrimSpace(p))
	}
	return strings.Join(parts, ",")
}
