package distributed

import (
	"net"
	"strings"
	"testing"
)

// TestConnectHidesCredentials: a failed connection's error names the
// server without the user, password or token the URL carries.
func TestConnectHidesCredentials(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	for _, tc := range []struct {
		url     string
		secrets []string
	}{
		{"nats://alice:s3cretpassw0rd@" + addr, []string{"s3cretpassw0rd"}},
		{"nats://t0kenvalue12345@" + addr, []string{"t0kenvalue12345"}},
		{"nats://127.0.0.1:1,nats://bob:an0therpassword@" + addr, []string{"an0therpassword", "bob:"}},
	} {
		_, err := Connect(tc.url, "test")
		if err == nil {
			t.Fatalf("Connect(%q) succeeded with nothing listening", tc.url)
		}
		if !strings.Contains(err.Error(), addr) {
			t.Errorf("Connect error %q does not name the server %s", err, addr)
		}
		for _, s := range tc.secrets {
			if strings.Contains(err.Error(), s) {
				t.Errorf("Connect error %q shows %q", err, s)
			}
		}
	}
}
