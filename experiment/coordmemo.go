package experiment

import (
	"bytes"
	"slices"
	"sync"
	"unsafe"

	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/mission"
)

// verdictMemo remembers the coordination verdicts of recent observation
// runs. A run's verdicts are a function of its trace, scenario, cost and
// success alone (its item and build only name the record), and many
// trials of a scenario in a build run alike: on the first mission's
// default protocol with designs A, B and C, 11,489 of 22,778 executed
// observation runs have a distinct run hash, 13,661 within their build
// and scenario.
//
// A run is remembered the second time its hash comes (the first only
// marks the hash seen): most runs come once, and copying every run's
// events would cost more than the derivations the memo saves. The run
// hash only finds a candidate: a candidate is used when its scenario,
// cost, success and events (field by field, raw JSON byte by byte) are
// the run's, so a verdict from the memo is the one derivation gives. On
// that protocol the memo finds 7,157 runs (31%); remembering every run at
// first sight finds 8,849 but copies the events of all 13,929 others.
// The memo holds at most verdictMemoBytes of events, forgetting
// everything when full; what recurs is recent (a unit's trials are
// consecutive). Safe for concurrent use; the zero value is empty and
// ready.
type verdictMemo struct {
	mu   sync.Mutex
	m    map[string]*verdictEntry
	held int // bytes of the entries in m
}

// verdictMemoBytes bounds what a verdictMemo holds: its entries stay live
// until it forgets them, and the sweep's collector multiplies what is
// live (DefaultGCPercent).
const verdictMemoBytes = 1 << 20

// verdictEntry is one remembered run: what its verdicts depend on, and
// them.
type verdictEntry struct {
	sc       *mission.Scenario
	cost     mission.Cost
	success  bool
	events   []mission.Event // the memo's own copy: its raw JSON too
	size     int
	verdicts []coordination.Verdict
}

// verdicts returns the coordination verdicts of run, an observation run of
// scenario sc with run hash hash, from vm when it remembers the same run,
// else derived with score, which vm then remembers. A nil vm remembers
// nothing.
func (vm *verdictMemo) verdicts(hash string, sc *mission.Scenario, run *mission.Run, success bool, score func() ([]coordination.Verdict, error)) ([]coordination.Verdict, error) {
	if vm == nil {
		return score()
	}
	vm.mu.Lock()
	e := vm.m[hash]
	vm.mu.Unlock()
	if e != nil && e.events != nil && e.sc == sc && e.cost == run.Cost && e.success == success && sameEvents(e.events, run.Trace.Events) {
		return slices.Clone(e.verdicts), nil
	}
	vs, err := score()
	if err != nil {
		return nil, err
	}
	switch {
	case e == nil:
		// Most runs are seen once: remember only that the hash was seen,
		// and copy a run's events the second time its hash comes.
		vm.keep(hash, &verdictEntry{size: len(hash) + int(unsafe.Sizeof(verdictEntry{}))})
	case e.events == nil:
		events, size := ownEvents(run.Trace.Events)
		vm.keep(hash, &verdictEntry{sc: sc, cost: run.Cost, success: success, events: events, size: size, verdicts: slices.Clone(vs)})
	}
	return vs, nil
}

// keep remembers e under hash, forgetting everything first when the memo
// is full.
func (vm *verdictMemo) keep(hash string, e *verdictEntry) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if old := vm.m[hash]; old != nil {
		vm.held -= old.size
	}
	if vm.m == nil || vm.held+e.size > verdictMemoBytes {
		vm.m, vm.held = map[string]*verdictEntry{}, 0
	}
	vm.m[hash] = e
	vm.held += e.size
}

// ownEvents returns a copy of events whose raw JSON lives in one buffer of
// its own (a trace's strings are immutable; its raw JSON is only promised
// to stay valid), and the bytes the copy holds live.
func ownEvents(events []mission.Event) ([]mission.Event, int) {
	raw, size := 0, len(events)*int(unsafe.Sizeof(mission.Event{}))
	for i := range events {
		e := &events[i]
		raw += len(e.Args) + len(e.Output) + len(e.Parsed)
		size += len(e.Agent) + len(e.Item) + len(e.Decision) + len(e.Choice) + len(e.Tool) + len(e.Error) +
			len(e.Key) + len(e.Effect) + len(e.Edge) + len(e.Raw) + len(e.Reason)
	}
	out := slices.Clone(events)
	buf := make([]byte, 0, raw)
	own := func(b []byte) []byte {
		if b == nil {
			return nil
		}
		start := len(buf)
		buf = append(buf, b...)
		return buf[start:len(buf):len(buf)]
	}
	for i := range out {
		e := &out[i]
		e.Args, e.Output, e.Parsed = own(e.Args), own(e.Output), own(e.Parsed)
		e.To = slices.Clone(e.To)
	}
	return out, size + raw
}

// sameEvents reports whether a and b hold the same events.
func sameEvents(a, b []mission.Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameEvent(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

// sameEvent reports whether a and b are the same event, every field
// (TestSameEventEveryField checks it compares each).
func sameEvent(a, b *mission.Event) bool {
	return a.Seq == b.Seq && a.At == b.At && a.Kind == b.Kind && a.Agent == b.Agent && a.Item == b.Item &&
		a.Decision == b.Decision && a.Choice == b.Choice && a.TokensIn == b.TokensIn && a.TokensOut == b.TokensOut &&
		a.Tool == b.Tool && sameRaw(a.Args, b.Args) && sameRaw(a.Output, b.Output) && a.Error == b.Error &&
		a.Key == b.Key && a.Attempt == b.Attempt && a.Effect == b.Effect && a.Edge == b.Edge && a.Raw == b.Raw &&
		sameRaw(a.Parsed, b.Parsed) && slices.Equal(a.To, b.To) && a.Reason == b.Reason
}

// sameRaw reports whether two raw JSON fields hold the same bytes, nil
// apart from empty.
func sameRaw(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }
