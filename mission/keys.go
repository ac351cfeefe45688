package mission

import (
	"sync"

	"github.com/baton-lab/baton/sandbox"
)

// A write's idempotency key is item + ":" + tool. The items recur: every
// run of every build and trial writes for the same scenario items, so the
// mission keeps each item's keys, one per write tool, in a bounded memo
// safe for concurrent use, and a runner keeps the row of the item it last
// wrote for. The keys are the same strings, shared: what the RetryKey
// seam, the sandbox and the trace see has the same bytes.

// keyMemoMax bounds the memo (items); a full memo starts again.
const keyMemoMax = 1 << 12

type keyMemo struct {
	mu sync.RWMutex
	m  map[string][]string // item -> key per tool index ("" for a read)
}

// row returns item's keys by tool index.
func (c *keyMemo) row(item string, tools *sandbox.Registry) []string {
	c.mu.RLock()
	row, ok := c.m[item]
	c.mu.RUnlock()
	if ok {
		return row
	}
	all := tools.Tools()
	row = make([]string, len(all))
	for i := range all {
		if all[i].Access == sandbox.Write {
			row[i] = item + ":" + all[i].Name
		}
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= keyMemoMax {
		c.m = make(map[string][]string)
	}
	c.m[item] = row
	c.mu.Unlock()
	return row
}

// writeKey returns the idempotency key of a write of tool (at index idx
// of the mission's tools) for item.
func (r *runner) writeKey(item string, idx int) string {
	if r.keyRow == nil || r.keyItem != item {
		r.keyItem, r.keyRow = item, r.e.keys.row(item, r.e.spec.Tools)
	}
	return r.keyRow[idx]
}
