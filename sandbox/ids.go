package sandbox

import (
	"strconv"
	"strings"
)

// newID issues the next id of record kind k: its prefix, a dash, and a
// per-kind counter of four digits at least.
func (s *Sandbox) newID(k int) string {
	s.next[k]++
	n := s.next[k]
	if ids := s.reg.ids[k]; n <= len(ids) {
		return ids[n-1]
	}
	return formatID(s.reg.kinds[k].Prefix, n)
}

// keptIDs is how many ids of each kind a registry writes once, for every
// run to share: a run issues a few of each.
const keptIDs = 64

// firstIDs returns the first keptIDs ids of the kind with prefix.
func firstIDs(prefix string) []string {
	ids := make([]string, keptIDs)
	for i := range ids {
		ids[i] = formatID(prefix, i+1)
	}
	return ids
}

// formatID writes id n of the kind with prefix: the prefix, a dash, and n
// in four digits at least.
func formatID(prefix string, n int) string {
	var buf [24]byte
	b := append(buf[:0], prefix...)
	b = append(b, '-')
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
