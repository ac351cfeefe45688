package contracts

import (
	"reflect"
	"slices"
	"strconv"
)

// CheckSequence checks, at level, what lies between the messages one item
// produced on edge, in the order sent (retries and redeliveries included).
// It checks only the sequence; check each message with [Set.Check] too, or
// use [Set.CheckMessages] for both.
//
// The rules (all at the ownership level): every message is for the same
// item (sequence-item); on an edge with per_item "one", every message
// carries the first one's idempotency key (idempotency-stable); messages
// under one key name the same owner (owner-stable) and are the same message
// (single-action). Messages that differ only in their id are a re-send of
// one action, and an exact redelivery is never a violation.
//
// A violation's Seq is the 1-based position in msgs of the offending
// message. Messages that are not JSON objects are skipped here (Check
// reports them).
func (s *Set) CheckSequence(edge string, msgs [][]byte, level Level) []Violation {
	c, bad := s.lookup(edge)
	if bad != nil {
		return []Violation{*bad}
	}
	if level < LevelOwnership {
		return nil
	}
	ds := make([]*decoded, len(msgs))
	for i, raw := range msgs {
		ds[i], _ = decode(raw)
	}
	return c.checkSequence(ds, msgs, nil)
}

// checkSequence checks decoded messages (nil entries skipped); seqs, when
// not nil, gives each message's trace sequence number.
func (c *Contract) checkSequence(ds []*decoded, raws [][]byte, seqs []int) []Violation {
	var out []Violation
	lvl := LevelOwnership.String()
	seq := func(i int) int {
		if seqs != nil {
			return seqs[i]
		}
		return i + 1
	}
	first := -1
	firstByKey := map[string]int{}
	for i, m := range ds {
		if m == nil {
			continue
		}
		if first < 0 {
			first = i
			firstByKey[m.str("idempotency_key")] = i
			continue
		}
		f := ds[first]
		item, key := m.str("item"), m.str("idempotency_key")
		if item != f.str("item") {
			out = append(out, Violation{Edge: c.Edge, Rule: "sequence-item", Level: lvl, Field: "item",
				Expected: strconv.Quote(f.str("item")), Got: strconv.Quote(item), Seq: seq(i),
				Message: "a sequence checked together must concern one item"})
			continue
		}
		if c.PerItem == "one" && key != f.str("idempotency_key") {
			out = append(out, Violation{Edge: c.Edge, Rule: "idempotency-stable", Level: lvl, Field: "idempotency_key",
				Expected: strconv.Quote(f.str("idempotency_key")), Got: strconv.Quote(key), Seq: seq(i),
				Message: "the item's idempotency key changed between sends: the consumer cannot de-duplicate"})
			continue
		}
		j, seen := firstByKey[key]
		if !seen {
			firstByKey[key] = i
			continue
		}
		ref := ds[j]
		if !slices.Equal(m.owners, ref.owners) || m.ownersOK != ref.ownersOK {
			out = append(out, Violation{Edge: c.Edge, Rule: "owner-stable", Level: lvl, Field: "next_owner",
				Expected: render(ref.doc["next_owner"]), Got: render(m.doc["next_owner"]), Seq: seq(i),
				Message: "a re-send of the item names another owner"})
			continue
		}
		if string(raws[i]) != string(raws[j]) && !sameAction(ref, m) {
			out = append(out, Violation{Edge: c.Edge, Rule: "single-action", Level: lvl, Field: "payload",
				Expected: "a redelivery identical to message " + strconv.Itoa(seq(j)), Got: "a different message under key " + strconv.Quote(key), Seq: seq(i),
				Message: "a second, different action for the same item"})
		}
	}
	return out
}

// sameAction reports whether two messages are equal but for their id.
func sameAction(a, b *decoded) bool {
	if len(a.doc) != len(b.doc) {
		return false
	}
	for k, v := range a.doc {
		if k == "id" {
			continue
		}
		w, ok := b.doc[k]
		if !ok || !reflect.DeepEqual(v, w) {
			return false
		}
	}
	return true
}

// Message is one hand-off as a trace records it: the event's sequence
// number, the edge and the wire bytes.
type Message struct {
	Seq  int
	Edge string
	Raw  []byte
}

// CheckMessages checks every message at level and, per edge and item, their
// sequence; each violation's Seq is its message's. Violations come in
// message order.
func (s *Set) CheckMessages(msgs []Message, level Level) []Violation {
	type group struct {
		c    *Contract
		ds   []*decoded
		raws [][]byte
		seqs []int
	}
	var out []Violation
	groups := map[[2]string]*group{}
	var order [][2]string
	for _, msg := range msgs {
		c, bad := s.lookup(msg.Edge)
		if bad != nil {
			bad.Seq = msg.Seq
			out = append(out, *bad)
			continue
		}
		m, why := decode(msg.Raw)
		if m == nil {
			v := jsonViolation(msg.Edge, why)
			v.Seq = msg.Seq
			out = append(out, v)
			continue
		}
		for _, v := range c.check(m, level) {
			v.Seq = msg.Seq
			out = append(out, v)
		}
		k := [2]string{msg.Edge, m.str("item")}
		g, ok := groups[k]
		if !ok {
			g = &group{c: c}
			groups[k] = g
			order = append(order, k)
		}
		g.ds = append(g.ds, m)
		g.raws = append(g.raws, msg.Raw)
		g.seqs = append(g.seqs, msg.Seq)
	}
	if level >= LevelOwnership {
		for _, k := range order {
			g := groups[k]
			out = append(out, g.c.checkSequence(g.ds, g.raws, g.seqs)...)
		}
	}
	slices.SortStableFunc(out, func(a, b Violation) int { return a.Seq - b.Seq })
	return out
}
