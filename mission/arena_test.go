package mission

import (
	"bytes"
	"fmt"
	"testing"
)

// The arena's copies equal what was copied, whatever their sizes, and
// stay so when the copied bytes change, when more is copied and when a
// copy is appended to.
func TestArenaCopies(t *testing.T) {
	var a arena
	var srcs, copies [][]byte
	for i := range 200 {
		src := bytes.Repeat([]byte(fmt.Sprint(i%10)), (i*37)%(arenaMax+100))
		c := a.copy(src)
		srcs, copies = append(srcs, bytes.Clone(src)), append(copies, c)
		clear(src)
		if i > 0 {
			_ = append(copies[i-1], 'x')
		}
	}
	for i, c := range copies {
		if !bytes.Equal(c, srcs[i]) {
			t.Errorf("copy %d of %d bytes changed", i, len(srcs[i]))
		}
	}
}
