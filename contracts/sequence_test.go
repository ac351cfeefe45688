package contracts

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckSequence(t *testing.T) {
	s := defaults(t)
	base := invoiceExtracted
	with := func(f func(m map[string]any)) map[string]any {
		m := base()
		f(m)
		return m
	}
	tests := []struct {
		name  string
		edge  string
		msgs  []map[string]any
		level Level
		want  []string
		seqs  []int
	}{
		{"one message", "intake->action", []map[string]any{base()}, LevelOwnership, nil, nil},
		{"redelivery of identical bytes", "intake->action", []map[string]any{base(), base(), base()}, LevelSemantic, nil, nil},
		{"re-send with a new message id", "intake->action", []map[string]any{base(), with(func(m map[string]any) { m["id"] = "m-E1-intake->action-2" })}, LevelOwnership, nil, nil},
		{"fresh key on re-send", "intake->action", []map[string]any{base(), with(func(m map[string]any) { m["idempotency_key"] = "E1:invoice.extracted#retry1" })}, LevelOwnership, []string{"idempotency-stable"}, []int{2}},
		{"second owner on re-send", "intake->action", []map[string]any{base(), with(func(m map[string]any) { m["next_owner"] = []any{"boundary"} })}, LevelOwnership, []string{"owner-stable"}, []int{2}},
		{"second, different action", "intake->action", []map[string]any{base(), base(), with(func(m map[string]any) { payload(m)["gross"] = 1300.0 })}, LevelOwnership, []string{"single-action"}, []int{3}},
		{"another item mixed in", "intake->action", []map[string]any{base(), with(func(m map[string]any) { m["item"] = "E2" })}, LevelOwnership, []string{"sequence-item"}, []int{2}},
		{"sequence rules are not schema rules", "intake->action", []map[string]any{base(), with(func(m map[string]any) { payload(m)["gross"] = 1300.0 })}, LevelSchema, nil, nil},
		{"many per item: distinct exceptions", "action->monitor", []map[string]any{
			with2(exceptionRaised("action"), func(m map[string]any) { m["idempotency_key"] = "E2:exception.raised:get_purchase_order" }),
			with2(exceptionRaised("action"), func(m map[string]any) {
				m["idempotency_key"] = "E2:exception.raised:record_match"
				payload(m)["tool"] = "record_match"
			}),
		}, LevelSemantic, nil, nil},
		{"many per item: two exceptions under one key", "action->monitor", []map[string]any{
			exceptionRaised("action"),
			with2(exceptionRaised("action"), func(m map[string]any) { payload(m)["tool"] = "record_match" }),
		}, LevelSemantic, []string{"single-action"}, []int{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raws [][]byte
			for _, m := range tt.msgs {
				raws = append(raws, marshal(t, m))
			}
			got := s.CheckSequence(tt.edge, raws, tt.level)
			if diff := cmp.Diff(tt.want, rules(got)); diff != "" {
				t.Fatalf("rules (-want +got):\n%s\n%+v", diff, got)
			}
			var seqs []int
			for _, v := range got {
				seqs = append(seqs, v.Seq)
			}
			if diff := cmp.Diff(tt.seqs, seqs); diff != "" {
				t.Errorf("seqs (-want +got):\n%s", diff)
			}
		})
	}
}

func with2(m map[string]any, f func(m map[string]any)) map[string]any {
	f(m)
	return m
}

func TestCheckSequenceSkipsBadMessages(t *testing.T) {
	s := defaults(t)
	got := s.CheckSequence("intake->action", [][]byte{[]byte("{"), marshal(t, invoiceExtracted()), nil}, LevelSemantic)
	if len(got) != 0 {
		t.Errorf("got %+v, want nothing (Check reports undecodable messages)", got)
	}
	got = s.CheckSequence("nowhere->else", nil, LevelSemantic)
	if diff := cmp.Diff([]string{"edge"}, rules(got)); diff != "" {
		t.Errorf("unknown edge (-want +got):\n%s", diff)
	}
}

func TestCheckMessages(t *testing.T) {
	s := defaults(t)
	clean := marshal(t, invoiceExtracted())
	cleared := invoiceExtracted()
	cleared["next_owner"] = []any{}
	changed := invoiceExtracted()
	payload(changed)["gross"] = 1300.0
	decision := marshal(t, decisionMade())
	msgs := []Message{
		{Seq: 4, Edge: "intake->action", Raw: clean},
		{Seq: 9, Edge: "intake->action", Raw: clean},                   // redelivery: fine
		{Seq: 12, Edge: "boundary->monitor", Raw: decision},            // another edge: its own sequence
		{Seq: 15, Edge: "intake->action", Raw: marshal(t, changed)},    // a second action, and gross no longer adds up
		{Seq: 20, Edge: "intake->action", Raw: []byte("not json")},     // json
		{Seq: 21, Edge: "intake->nowhere", Raw: clean},                 // edge
		{Seq: 22, Edge: "boundary->monitor", Raw: marshal(t, cleared)}, // wrong message on the edge
	}
	got := s.CheckMessages(msgs, LevelSemantic)
	type short struct {
		Seq  int
		Rule string
	}
	var gotShort []short
	for _, v := range got {
		gotShort = append(gotShort, short{v.Seq, v.Rule})
	}
	want := []short{
		{15, "amounts-add-up"},
		{15, "single-action"},
		{20, "json"},
		{21, "edge"},
		{22, "edge"}, {22, "kind"},
	}
	// The misplaced message on boundary->monitor also misses that
	// contract's payload fields and owner; check the head only.
	if len(gotShort) < len(want) {
		t.Fatalf("got %v, want at least %v", gotShort, want)
	}
	if diff := cmp.Diff(want, gotShort[:len(want)]); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
