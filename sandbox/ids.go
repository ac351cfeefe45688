package sandbox

import (
	"strconv"
	"strings"
)

// newID issues the next id of record kind k: its prefix, a dash, and a
// per-kind counter of four digits at least.
func (s *Sandbox) newID(k int) string {
	s.next[k]++
	var buf [24]byte
	b := append(buf[:0], s.reg.kinds[k].Prefix...)
	b = append(b, '-')
	n := s.next[k]
	for w := 1000; w > 1 && n < w; w /= 10 {
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, int64(n), 10)
	return string(b)
}

// initCounters starts each counter after the highest id of its kind already
// in the initial state, so issued ids never collide with authored ones.
func (s *Sandbox) initCounters() {
	s.st.Records.IDs(s.seenFn)
}

func (s *Sandbox) seen(k int, id string) {
	if k < 0 || k >= len(s.next) {
		return
	}
	rest, ok := strings.CutPrefix(id, s.reg.kinds[k].Prefix)
	if !ok {
		return
	}
	rest, ok = strings.CutPrefix(rest, "-")
	if !ok {
		return
	}
	if n, err := strconv.Atoi(rest); err == nil && n > s.next[k] {
		s.next[k] = n
	}
}
