package mission

import "sync"

// The wire messages a sweep parses recur: the golden messages design C
// parses under every build, and the messages an integrated run sends,
// which most builds, seeds and trials leave alike. Decoding the bytes is a
// pure function of them, so the mission remembers what decodeObject read,
// keyed by every byte, in a bounded memo safe for concurrent use, and
// hands each parser its own deep copy: the Parse seam and the parser's
// defaults change the message in place.

// decodeMemoMax bounds the memo; a full memo starts again.
const decodeMemoMax = 1 << 10

type decodeMemo struct {
	mu sync.RWMutex
	m  map[string]decodedMsg
}

type decodedMsg struct {
	msg map[string]any
	err error
}

// decode returns decodeObject(raw), from the memo when it holds raw; the
// map is the caller's own. A nil memo decodes every time.
func (c *decodeMemo) decode(raw []byte) (map[string]any, error) {
	if c == nil {
		return decodeObject(raw)
	}
	c.mu.RLock()
	d, ok := c.m[string(raw)]
	c.mu.RUnlock()
	if !ok {
		d.msg, d.err = decodeObject(raw)
		c.mu.Lock()
		if c.m == nil || len(c.m) >= decodeMemoMax {
			c.m = make(map[string]decodedMsg)
		}
		c.m[string(raw)] = d
		c.mu.Unlock()
	}
	if d.err != nil || d.msg == nil {
		return nil, d.err
	}
	return cloneValue(d.msg).(map[string]any), nil
}
