package xxh64

import (
	"encoding/binary"
	"math/bits"
)

// Digest computes XXH64 (seed 0) of what is written to it, piece by
// piece: the same hash as [Sum64] of the pieces joined, without joining
// them. The zero value is not ready: start one with [Digest.Reset]. A
// copy of a Digest carries on independently, so the hash of a prefix can
// be taken on the way.
type Digest struct {
	v1, v2, v3, v4 uint64
	total          uint64
	mem            [32]byte // the bytes of an unfinished stripe
	n              int      // how many of mem hold them
}

// Reset starts d over, as a digest of nothing.
func (d *Digest) Reset() {
	p1, p2 := prime1, prime2 // variables: the sums wrap around
	d.v1, d.v2, d.v3, d.v4 = p1+p2, p2, 0, -p1
	d.total, d.n = 0, 0
}

// Write adds b to the digested bytes.
func (d *Digest) Write(b []byte) {
	d.total += uint64(len(b))
	if d.n+len(b) < 32 {
		d.n += copy(d.mem[d.n:], b)
		return
	}
	if d.n > 0 {
		c := copy(d.mem[d.n:], b)
		d.stripes(d.mem[:])
		b = b[c:]
		d.n = 0
	}
	b = d.stripes(b)
	d.n = copy(d.mem[:], b)
}

// stripes digests b's whole stripes of 32 bytes and returns the rest.
func (d *Digest) stripes(b []byte) []byte {
	if len(b) < 32 {
		return b
	}
	v1, v2, v3, v4 := d.v1, d.v2, d.v3, d.v4
	for ; len(b) >= 32; b = b[32:] {
		v1 = round(v1, binary.LittleEndian.Uint64(b[0:8]))
		v2 = round(v2, binary.LittleEndian.Uint64(b[8:16]))
		v3 = round(v3, binary.LittleEndian.Uint64(b[16:24]))
		v4 = round(v4, binary.LittleEndian.Uint64(b[24:32]))
	}
	d.v1, d.v2, d.v3, d.v4 = v1, v2, v3, v4
	return b
}

// Len returns how many bytes were written since the last Reset.
func (d *Digest) Len() int { return int(d.total) }

// Sum64 returns the hash of the bytes written so far; d is unchanged.
func (d *Digest) Sum64() uint64 {
	var h uint64
	if d.total >= 32 {
		h = bits.RotateLeft64(d.v1, 1) + bits.RotateLeft64(d.v2, 7) + bits.RotateLeft64(d.v3, 12) + bits.RotateLeft64(d.v4, 18)
		h = merge(h, d.v1)
		h = merge(h, d.v2)
		h = merge(h, d.v3)
		h = merge(h, d.v4)
	} else {
		h = prime5
	}
	return finish(h+d.total, d.mem[:d.n])
}
