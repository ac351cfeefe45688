package contracts

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The memo is invisible: every answer equals the uncached check's, for
// clean and broken messages at every level, asked once or many times.
func TestCheckMemoAnswersLikeCheck(t *testing.T) {
	s := defaults(t)
	bad := invoiceExtracted()
	delete(payload(bad), "currency")
	bad["next_owner"] = []any{"action", "boundary"}
	payload(bad)["gross"] = 20000.0
	msgs := []struct {
		name, edge string
		raw        []byte
	}{
		{"clean", "intake->action", marshal(t, invoiceExtracted())},
		{"broken", "intake->action", marshal(t, bad)},
		{"other edge", "action->boundary", marshal(t, matchPrepared())},
		{"not json", "intake->action", []byte(`{"payload":`)},
		{"no contract", "nowhere", marshal(t, invoiceExtracted())},
	}
	for _, m := range msgs {
		for _, l := range AllLevels {
			t.Run(m.name+"/"+l.String(), func(t *testing.T) {
				var want []Violation
				if c, ok := s.Contract(m.edge); ok {
					want = s.check(c, m.edge, m.raw, l)
				} else {
					want = s.Check(m.edge, m.raw, l)
				}
				for i := range 3 {
					if diff := cmp.Diff(want, s.Check(m.edge, m.raw, l)); diff != "" {
						t.Fatalf("call %d (-want +got):\n%s", i+1, diff)
					}
				}
			})
		}
	}
}

// What a caller does with an answer or with its bytes afterwards does not
// change later answers.
func TestCheckMemoIsolation(t *testing.T) {
	s := defaults(t)
	bad := invoiceExtracted()
	delete(payload(bad), "currency")
	raw := marshal(t, bad)
	first := s.Check("intake->action", raw, LevelSemantic)
	if len(first) == 0 {
		t.Fatal("a message without currency keeps the contract")
	}
	want := append([]Violation(nil), first...)
	first[0].Rule = "changed by the caller"

	clean := marshal(t, invoiceExtracted())
	buf := append([]byte(nil), raw...)
	if diff := cmp.Diff(want, s.Check("intake->action", buf, LevelSemantic)); diff != "" {
		t.Errorf("after the caller changed an answer (-want +got):\n%s", diff)
	}
	// The same buffer now holds another message: it gets its own answer.
	buf = append(buf[:0], clean...)
	if got := s.Check("intake->action", buf, LevelSemantic); len(got) != 0 {
		t.Errorf("clean message in a reused buffer: %+v", got)
	}
	if diff := cmp.Diff(want, s.Check("intake->action", raw, LevelSemantic)); diff != "" {
		t.Errorf("after the buffer was reused (-want +got):\n%s", diff)
	}
}

// The memo stays within its bounds: a full memo starts again.
func TestCheckMemoBounded(t *testing.T) {
	m := newCheckMemo()
	raw := []byte(`{"id":"0000000"}`)
	for i := range memoMaxEntries + 10 {
		b := append([]byte(nil), raw...)
		for j, k := 13, i; j > 6; j, k = j-1, k/10 {
			b[j] = byte('0' + k%10)
		}
		m.put("intake->action", LevelSchema, b, nil)
		if m.entries > memoMaxEntries || m.bytes > memoMaxBytes {
			t.Fatalf("after %d puts: %d entries, %d bytes", i+1, m.entries, m.bytes)
		}
	}
	if m.entries != 10 {
		t.Errorf("entries = %d, want 10 (emptied when full, then refilled)", m.entries)
	}
	if _, ok := m.get("intake->action", LevelSchema, []byte(`{"id":"0000000"}`)); ok {
		t.Error("the first entry survived a full memo")
	}
}
