package mission

import (
	"strconv"
	"sync"

	"github.com/baton-lab/baton/sandbox"
)

// A write's idempotency key is item + ":" + tool, a message's is item +
// ":" + kind and its id "m-" + item + "-" + edge + "-" + seq. The items
// recur: every run of every build and trial writes and sends for the same
// scenario items, so the mission keeps each item's keys and first ids in
// a bounded memo safe for concurrent use, and a runner keeps the row of
// the item it last used. The keys are the same strings, shared (boxed
// once for the envelope): what the RetryKey and Emit seams, the sandbox,
// the transport and the trace see has the same bytes.

// keyMemoMax bounds the memo (items); a full memo starts again.
const keyMemoMax = 1 << 12

// idSeqs is how many of an item's messages on one edge have their ids
// remembered; later ones are made afresh.
const idSeqs = 2

type keyMemo struct {
	mu sync.RWMutex
	m  map[string]*itemKeys
}

// itemKeys are one item's keys, immutable.
type itemKeys struct {
	item  any           // the item, boxed for the envelope
	tools []string      // per tool index: the write's key ("" for a read)
	edges []any         // per edge: the envelope's idempotency_key
	ids   [][idSeqs]any // per edge: the envelope's id, for seq 1, 2, ...
}

// row returns item's keys.
func (c *keyMemo) row(item string, t *tables, tools *sandbox.Registry) *itemKeys {
	c.mu.RLock()
	row := c.m[item]
	c.mu.RUnlock()
	if row != nil {
		return row
	}
	row = newItemKeys(item, t, tools)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= keyMemoMax {
		c.m = make(map[string]*itemKeys)
	}
	c.m[item] = row
	c.mu.Unlock()
	return row
}

func newItemKeys(item string, t *tables, tools *sandbox.Registry) *itemKeys {
	all := tools.Tools()
	row := &itemKeys{item: item, tools: make([]string, len(all)), edges: make([]any, len(t.edges)), ids: make([][idSeqs]any, len(t.edges))}
	for i := range all {
		if all[i].Access == sandbox.Write {
			row.tools[i] = item + ":" + all[i].Name
		}
	}
	for k := range t.edges {
		row.edges[k] = envelopeKey(item, t.edges[k].Kind)
		for s := range idSeqs {
			row.ids[k][s] = messageID(item, t.names[t.from[k]][t.to[k]], s+1)
		}
	}
	return row
}

// envelopeKey is the idempotency key of item's messages of kind.
func envelopeKey(item, kind string) string { return item + ":" + kind }

// messageID is the id of item's seq-th message on the edge named edge.
func messageID(item, edge string, seq int) string {
	return "m-" + item + "-" + edge + "-" + strconv.Itoa(seq)
}

// keys returns item's row of the memo.
func (r *runner) keys(item string) *itemKeys {
	if r.keyRow == nil || r.keyItem != item {
		r.keyItem, r.keyRow = item, r.e.keys.row(item, r.t, r.e.spec.Tools)
	}
	return r.keyRow
}

// writeKey returns the idempotency key of a write of tool (at index idx
// of the mission's tools) for item.
func (r *runner) writeKey(item string, idx int) string { return r.keys(item).tools[idx] }

// envelopeKeys returns the id and idempotency key of item's seq-th
// message on edge k, boxed.
func (r *runner) envelopeKeys(k int, item string, seq int) (id, key any) {
	row := r.keys(item)
	if seq >= 1 && seq <= idSeqs {
		return row.ids[k][seq-1], row.edges[k]
	}
	return messageID(item, r.t.names[r.t.from[k]][r.t.to[k]], seq), row.edges[k]
}
