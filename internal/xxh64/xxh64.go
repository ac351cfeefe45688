// Package xxh64 is the XXH64 hash (Yann Collet's xxHash, 64-bit, seed 0):
// a fast, non-cryptographic hash, for identities of data that nobody
// crafts to collide (a run's trace), where SHA-256 would cost ten times as
// much. It follows the reference specification, xxhash_spec.md.
package xxh64

import (
	"encoding/binary"
	"math/bits"
)

const (
	prime1 uint64 = 11400714785074694791
	prime2 uint64 = 14029467366897019727
	prime3 uint64 = 1609587929392839161
	prime4 uint64 = 9650029242287828579
	prime5 uint64 = 2870177450012600261
)

// Sum64 returns the XXH64 hash of b with seed 0.
func Sum64(b []byte) uint64 {
	n := len(b)
	var h uint64
	if n >= 32 {
		p1, p2 := prime1, prime2 // variables: the sums wrap around
		v1 := p1 + p2
		v2 := p2
		v3 := uint64(0)
		v4 := -p1
		for len(b) >= 32 {
			v1 = round(v1, binary.LittleEndian.Uint64(b[0:8]))
			v2 = round(v2, binary.LittleEndian.Uint64(b[8:16]))
			v3 = round(v3, binary.LittleEndian.Uint64(b[16:24]))
			v4 = round(v4, binary.LittleEndian.Uint64(b[24:32]))
			b = b[32:]
		}
		h = bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
		h = merge(h, v1)
		h = merge(h, v2)
		h = merge(h, v3)
		h = merge(h, v4)
	} else {
		h = prime5
	}
	return finish(h+uint64(n), b)
}

// finish mixes the last bytes (fewer than 32) into h, the hash of the
// stripes before them and the total length, and avalanches it.
func finish(h uint64, b []byte) uint64 {
	for ; len(b) >= 8; b = b[8:] {
		h ^= round(0, binary.LittleEndian.Uint64(b[:8]))
		h = bits.RotateLeft64(h, 27)*prime1 + prime4
	}
	if len(b) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(b[:4])) * prime1
		h = bits.RotateLeft64(h, 23)*prime2 + prime3
		b = b[4:]
	}
	for _, c := range b {
		h ^= uint64(c) * prime5
		h = bits.RotateLeft64(h, 11) * prime1
	}
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	h ^= h >> 32
	return h
}

func round(acc, lane uint64) uint64 {
	acc += lane * prime2
	acc = bits.RotateLeft64(acc, 31)
	return acc * prime1
}

func merge(h, v uint64) uint64 {
	h ^= round(0, v)
	return h*prime1 + prime4
}
