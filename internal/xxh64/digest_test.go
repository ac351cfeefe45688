package xxh64

import (
	"math/rand/v2"
	"testing"
)

// A digest of bytes written in pieces of every size
// around a stripe's, hashes as Sum64 of them joined; so does a copy taken
// on the way, of the prefix written until then.
func TestDigest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 300)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	for n := 0; n <= len(buf); n += 1 + n/16 {
		for trial := 0; trial < 20; trial++ {
			var d Digest
			d.Reset()
			for rest := buf[:n]; len(rest) > 0; {
				k := min(len(rest), rng.IntN(70))
				d.Write(rest[:k])
				rest = rest[k:]
				prefix := d // a copy goes on alone
				if got, want := prefix.Sum64(), Sum64(buf[:n-len(rest)]); got != want {
					t.Fatalf("prefix of %d bytes: %#x, want %#x", n-len(rest), got, want)
				}
			}
			if got, want := d.Sum64(), Sum64(buf[:n]); got != want {
				t.Fatalf("%d bytes in pieces: %#x, want %#x", n, got, want)
			}
		}
	}
}
