package xxh64

import (
	"fmt"
	"testing"
)

// The reference values are those of the reference implementation's xxhsum
// (xxhsum -H64, seed 0); the first three are also in xxHash's README.
func TestSum64(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
	}{
		{"", 0xef46db3751d8e999},
		{"a", 0xd24ec4f1a98c6e5b},
		{"abc", 0x44bc2cf5ad770999},
		{"message digest", 0x066ed728fceeb3be}, // an 8-byte lane, a 4-byte word, 2 bytes
		{"abcdefghijklmnopqrstuvwxyz", 0xcfe1f278fa89835c},
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 0xaaa46907d3047814}, // one stripe, three lanes, a word, 2 bytes
		{"12345678901234567890123456789012345678901234567890123456789012345678901234567890", 0xe04a477f19ee145d},
		{"The quick brown fox jumps over the lazy dog", 0x0b242d361fda71bc}, // one stripe, a lane, 3 bytes
	}
	for _, tt := range tests {
		if got := Sum64([]byte(tt.in)); got != tt.want {
			t.Errorf("Sum64(%q) = %#016x, want %#016x", tt.in, got, tt.want)
		}
	}
}

func BenchmarkSum64(b *testing.B) {
	for _, n := range []int{64, 4 << 10, 64 << 10} {
		buf := make([]byte, n)
		for i := range buf {
			buf[i] = byte(i)
		}
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				Sum64(buf)
			}
		})
	}
}

// BenchmarkDigest is Sum64's work through a Digest, written 2 KB at a
// time as a trace's compact encoding is.
func BenchmarkDigest(b *testing.B) {
	buf := make([]byte, 64<<10)
	for i := range buf {
		buf[i] = byte(i)
	}
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		var d Digest
		d.Reset()
		for p := buf; len(p) > 0; p = p[min(len(p), 2000):] {
			d.Write(p[:min(len(p), 2000)])
		}
		d.Sum64()
	}
}
