package invoice

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/sandbox"
)

// TestRecycle: a sandbox given back with Recycle and taken again by sandbox.New
// behaves as a new one, and nothing the recycled one returned changes.
func TestRecycle(t *testing.T) {
	// day runs every write tool twice under one idempotency key (the
	// second call replays the first), plus reads, with faults on, and
	// returns the results and the end state.
	day := func(s *sandbox.Sandbox) (results []sandbox.Result, end []byte) {
		inv := approvedInvoice(t, s)
		for _, wc := range writeCases() {
			for range 2 {
				res, err := s.Call(wc.agent, wc.tool, "E1", wc.first(inv), "key-"+wc.tool, 0)
				if err == nil {
					results = append(results, res)
				}
			}
		}
		results = append(results,
			mustCall(t, s, "action", GetPurchaseOrder, "E1", sandbox.Args{"po_number": "PO-050"}, ""),
			mustCall(t, s, "action", GetGoodsReceipts, "E1", sandbox.Args{"po_number": "PO-100"}, ""))
		b, err := json.Marshal(s.Snapshot())
		if err != nil {
			t.Fatal(err)
		}
		return results, b
	}
	rates := sandbox.FaultRates{"*": {sandbox.TimeoutAfterCommit: 0.2, sandbox.Refusal: 0.1}}
	fresh := func() *sandbox.Sandbox {
		return sandbox.New(spec().Tools, fixtureState(), sandbox.Config{Faults: rates}, sandbox.NewDice(7), sandbox.NewClock(sandbox.Epoch))
	}

	want, wantEnd := day(fresh())
	first := fresh()
	got, gotEnd := day(first)
	kept := append([]sandbox.Result(nil), got...)
	keptJSON, _ := json.Marshal(kept)
	snap := first.Snapshot()
	snapJSON, _ := json.Marshal(snap)
	first.Recycle()
	first.Recycle() // once more, as a careless caller might: still one sandbox in the pool
	(*sandbox.Sandbox)(nil).Recycle()
	if a, b := fresh(), fresh(); a == b {
		t.Fatal("a sandbox recycled twice was handed out twice")
	}

	for round := range 3 {
		s := fresh() // likely the recycled one
		again, againEnd := day(s)
		if d := cmp.Diff(want, again); d != "" {
			t.Errorf("round %d: results differ from a new sandbox's (-new +recycled):\n%s", round, d)
		}
		if string(againEnd) != string(wantEnd) {
			t.Errorf("round %d: end state differs from a new sandbox's:\n%s\n%s", round, wantEnd, againEnd)
		}
		s.Recycle()
	}
	if string(gotEnd) != string(wantEnd) {
		t.Error("the first sandbox's end state differs from a new one's")
	}
	if b, _ := json.Marshal(kept); string(b) != string(keptJSON) {
		t.Error("results returned before Recycle changed when the sandbox was reused")
	}
	if b, _ := json.Marshal(snap); string(b) != string(snapJSON) {
		t.Error("a snapshot taken before Recycle changed when the sandbox was reused")
	}

	// A recycled sandbox over no initial state is empty.
	s := sandbox.New(spec().Tools, nil, sandbox.Config{}, sandbox.NewDice(1), nil)
	if b, _ := json.Marshal(s.Snapshot()); string(b) != string(mustJSON(t, sandbox.New(spec().Tools, nil, sandbox.Config{}, sandbox.NewDice(1), nil).Snapshot())) || s.Calls() != 0 {
		t.Errorf("a sandbox over nil after recycling holds %s", b)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
