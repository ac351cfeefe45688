package mutants

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/sandbox"
)

// seamsOf switches m on and returns its seams and oracle.
func seamsOf(tb testing.TB, m *Mutant) (mission.Seams, *mission.Oracle) {
	tb.Helper()
	o := &mission.Oracle{}
	s, err := m.Seams(invoice.Spec(), o)
	if err != nil {
		tb.Fatalf("seams: %v", err)
	}
	return s, o
}

// message returns a fresh decoded hand-off as an emitter or parser sees it.
func message(tb testing.TB, edge mission.Edge, payload string) map[string]any {
	tb.Helper()
	raw := `{"id":"m-E1-` + edge.String() + `-1","edge":"` + edge.String() + `","kind":"` + invoice.Spec().Kind(edge) +
		`","schema_version":"1.0","idempotency_key":"E1:x","next_owner":["` + string(edge.To) +
		`"],"escalation":"requested","escalation_ref":"","item":"E1","payload":` + payload + `}`
	var msg map[string]any
	if err := json.Unmarshal([]byte(raw), &msg); err != nil {
		tb.Fatalf("message: %v", err)
	}
	return msg
}

// toMessage is msg as the emitter or the decoder hands it to a seam.
func toMessage(tb testing.TB, msg map[string]any) *mission.Message {
	tb.Helper()
	raw, err := json.Marshal(msg)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := mission.DecodeMessage(raw)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// fromMessage is m as encoding/json decodes its wire bytes.
func fromMessage(tb testing.TB, m *mission.Message) map[string]any {
	tb.Helper()
	raw, err := m.MarshalJSON()
	if err != nil {
		tb.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		tb.Fatal(err)
	}
	return out
}

// seamOn runs hook on a copy-on-write copy of msg, as a seam gets a
// decoded message other parsers share, and returns what it made of it;
// the shared message must stay unchanged.
func seamOn(tb testing.TB, msg map[string]any, hook func(*mission.Message)) map[string]any {
	tb.Helper()
	shared := toMessage(tb, msg)
	before := fromMessage(tb, shared)
	cp := shared.Clone()
	hook(cp)
	if diff := cmp.Diff(before, fromMessage(tb, shared)); diff != "" {
		tb.Errorf("the shared message changed (-want +got):\n%s", diff)
	}
	return fromMessage(tb, cp)
}

const extracted = `{"email_id":"E1","supplier_id":"S1","po_number":"PO-1","currency":"USD","net":1000,"tax":190.5,"gross":1190.5,"due_date":"2025-03-04","flags":[]}`

// TestEmitSeams checks each emit operator reached and changing the message,
// reached where it changes nothing, and not reached: a message on another
// edge, or one without the operator's field. (drop_field and rename_field
// always change a field they reach.)
func TestEmitSeams(t *testing.T) {
	ia, ab := invoice.IntakeToAction, invoice.ActionToBoundary
	noEscalation := func(msg map[string]any) { msg["escalation"] = "none" }
	tests := []struct {
		name    string
		m       *Mutant
		edge    mission.Edge
		payload string
		// setup edits the message before the seam sees it (and the want).
		setup func(msg map[string]any)
		// change edits a clean copy of the message into what the seam should
		// leave; nil means no change.
		change  func(msg, p map[string]any)
		reached int
	}{
		{
			name: "drop_field removes the field",
			m:    &Mutant{ID: "x", Class: ContextLoss, Operator: "drop_field", Edge: "intake->action", Field: "currency"},
			edge: ia, payload: extracted,
			change:  func(_, p map[string]any) { delete(p, "currency") },
			reached: 1,
		},
		{
			name: "drop_field: an absent field is not reached",
			m:    &Mutant{ID: "x", Class: ContextLoss, Operator: "drop_field", Edge: "intake->action", Field: "tax"},
			edge: ia, payload: `{"email_id":"E1","gross":10}`,
		},
		{
			name: "drop_field: other edges are not reached",
			m:    &Mutant{ID: "x", Class: ContextLoss, Operator: "drop_field", Edge: "intake->action", Field: "currency"},
			edge: ab, payload: extracted,
		},
		{
			name: "rename_field moves the value",
			m:    &Mutant{ID: "x", Class: ContractDrift, Operator: "rename_field", Edge: "intake->action", Field: "currency", To: "currency_code"},
			edge: ia, payload: extracted,
			change:  func(_, p map[string]any) { p["currency_code"] = "USD"; delete(p, "currency") },
			reached: 1,
		},
		{
			name: "rename_field: an absent field is not reached",
			m:    &Mutant{ID: "x", Class: ContractDrift, Operator: "rename_field", Edge: "intake->action", Field: "currency", To: "currency_code"},
			edge: ia, payload: `{"gross":10}`,
		},
		{
			name: "rename_field: other edges are not reached",
			m:    &Mutant{ID: "x", Class: ContractDrift, Operator: "rename_field", Edge: "intake->action", Field: "currency", To: "currency_code"},
			edge: ab, payload: extracted,
		},
		{
			name: "reformat cents",
			m:    &Mutant{ID: "x", Class: ContractDrift, Operator: "reformat_field", Edge: "intake->action", Field: "gross", Format: FormatCents},
			edge: ia, payload: extracted,
			change:  func(_, p map[string]any) { p["gross"] = 119050.0 },
			reached: 1,
		},
		{
			name: "reformat cents of zero is reached and changes nothing",
			m:    &Mutant{ID: "x", Class: ContractDrift, Operator: "reformat_field", Edge: "intake->action", Field: "tax", Format: FormatCents},
			edge: ia, payload: `{"tax":0}`,
			reached: 1,
		},
		{
			name: "reformat decimal comma",
			m:    &Mutant{ID: "x", Class: ContractDrift, Operator: "reformat_field", Edge: "intake->action", Field: "tax", Format: FormatDecimalComma},
			edge: ia, payload: extracted,
			change:  func(_, p map[string]any) { p["tax"] = "190,50" },
			reached: 1,
		},
		{
			name: "reformat date dmy",
			m:    &Mutant{ID: "x", Class: ContractDrift, Operator: "reformat_field", Edge: "intake->action", Field: "due_date", Format: FormatDateDMY},
			edge: ia, payload: extracted,
			change:  func(_, p map[string]any) { p["due_date"] = "04/03/2025" },
			reached: 1,
		},
		{
			name: "reformat date dmy of a non-date is reached and changes nothing",
			m:    &Mutant{ID: "x", Class: ContractDrift, Operator: "reformat_field", Edge: "intake->action", Field: "due_date", Format: FormatDateDMY},
			edge: ia, payload: `{"due_date":""}`,
			reached: 1,
		},
		{
			name: "reformat cents of a string is reached and changes nothing",
			m:    &Mutant{ID: "x", Class: ContractDrift, Operator: "reformat_field", Edge: "intake->action", Field: "gross", Format: FormatCents},
			edge: ia, payload: `{"gross":"12.00"}`,
			reached: 1,
		},
		{
			name: "reformat: an absent field is not reached",
			m:    &Mutant{ID: "x", Class: ContractDrift, Operator: "reformat_field", Edge: "intake->action", Field: "tax", Format: FormatCents},
			edge: ia, payload: `{"gross":10}`,
		},
		{
			name: "clear_owner empties next_owner",
			m:    &Mutant{ID: "x", Class: AmbiguousOwnership, Operator: "clear_owner", Edge: "action->boundary"},
			edge: ab, payload: `{}`,
			change:  func(msg, _ map[string]any) { msg["next_owner"] = []any{} },
			reached: 1,
		},
		{
			name: "clear_owner of an empty next_owner is reached and changes nothing",
			m:    &Mutant{ID: "x", Class: AmbiguousOwnership, Operator: "clear_owner", Edge: "action->boundary"},
			edge: ab, payload: `{}`,
			setup:   func(msg map[string]any) { msg["next_owner"] = []any{} },
			reached: 1,
		},
		{
			name: "clear_owner: a message without next_owner is not reached",
			m:    &Mutant{ID: "x", Class: AmbiguousOwnership, Operator: "clear_owner", Edge: "action->boundary"},
			edge: ab, payload: `{}`,
			setup: func(msg map[string]any) { delete(msg, "next_owner") },
		},
		{
			name: "clear_owner: other edges are not reached",
			m:    &Mutant{ID: "x", Class: AmbiguousOwnership, Operator: "clear_owner", Edge: "action->boundary"},
			edge: ia, payload: `{}`,
		},
		{
			name: "double_owner adds an owner",
			m:    &Mutant{ID: "x", Class: AmbiguousOwnership, Operator: "double_owner", Edge: "intake->action", Value: "boundary"},
			edge: ia, payload: `{}`,
			change:  func(msg, _ map[string]any) { msg["next_owner"] = []any{"action", "boundary"} },
			reached: 1,
		},
		{
			name: "double_owner of an owner already listed is reached and changes nothing",
			m:    &Mutant{ID: "x", Class: AmbiguousOwnership, Operator: "double_owner", Edge: "intake->action", Value: "boundary"},
			edge: ia, payload: `{}`,
			setup:   func(msg map[string]any) { msg["next_owner"] = []any{"action", "boundary"} },
			reached: 1,
		},
		{
			name: "double_owner with no first owner is reached and changes nothing",
			m:    &Mutant{ID: "x", Class: AmbiguousOwnership, Operator: "double_owner", Edge: "intake->action", Value: "boundary"},
			edge: ia, payload: `{}`,
			setup:   func(msg map[string]any) { msg["next_owner"] = []any{} },
			reached: 1,
		},
		{
			name: "double_owner: other edges are not reached",
			m:    &Mutant{ID: "x", Class: AmbiguousOwnership, Operator: "double_owner", Edge: "intake->action", Value: "monitor"},
			edge: ab, payload: `{}`,
		},
		{
			name: "assume_other_escalated rewrites requested",
			m:    &Mutant{ID: "x", Class: EscalationGap, Operator: "assume_other_escalated", Edge: "intake->action"},
			edge: ia, payload: `{}`,
			change:  func(msg, _ map[string]any) { msg["escalation"] = "escalated" },
			reached: 1,
		},
		{
			name: "assume_other_escalated of none is reached and changes nothing",
			m:    &Mutant{ID: "x", Class: EscalationGap, Operator: "assume_other_escalated", Edge: "intake->action"},
			edge: ia, payload: `{}`,
			setup:   noEscalation,
			reached: 1,
		},
		{
			name: "assume_other_escalated: a message without escalation is not reached",
			m:    &Mutant{ID: "x", Class: EscalationGap, Operator: "assume_other_escalated", Edge: "intake->action"},
			edge: ia, payload: `{}`,
			setup: func(msg map[string]any) { delete(msg, "escalation") },
		},
		{
			name: "assume_other_escalated: other edges are not reached",
			m:    &Mutant{ID: "x", Class: EscalationGap, Operator: "assume_other_escalated", Edge: "intake->action"},
			edge: ab, payload: `{}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, o := seamsOf(t, tt.m)
			fresh := func() map[string]any {
				msg := message(t, tt.edge, tt.payload)
				if tt.setup != nil {
					tt.setup(msg)
				}
				return msg
			}
			want := fresh()
			got := seamOn(t, fresh(), func(m *mission.Message) { s.Emit(tt.edge, m) })
			if tt.change != nil {
				tt.change(want, want["payload"].(map[string]any))
			}
			want = fromMessage(t, toMessage(t, want))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if o.Reached != tt.reached {
				t.Errorf("Reached = %d, want %d", o.Reached, tt.reached)
			}
			// The other hooks are the clean mission's.
			pm := seamOn(t, fresh(), func(m *mission.Message) { s.Parse(tt.edge, m) })
			if diff := cmp.Diff(fresh(), pm); diff != "" {
				t.Errorf("Parse changed the message (-want +got):\n%s", diff)
			}
			if o.Reached != tt.reached {
				t.Errorf("Parse reached: Reached = %d, want %d", o.Reached, tt.reached)
			}
		})
	}
}

func TestEmitSeamsOwnerForms(t *testing.T) {
	// A freshly built message may hold next_owner as []string or
	// []mission.Agent rather than []any.
	for _, owners := range []any{[]string{"action"}, []mission.Agent{"action"}, []any{"action"}} {
		m := &Mutant{ID: "x", Class: AmbiguousOwnership, Operator: "double_owner", Edge: "intake->action", Value: "monitor"}
		s, o := seamsOf(t, m)
		msg := toMessage(t, map[string]any{})
		msg.Set("next_owner", owners)
		s.Emit(invoice.IntakeToAction, msg)
		if diff := cmp.Diff([]any{"action", "monitor"}, get(msg, "next_owner")); diff != "" || o.Reached != 1 {
			t.Errorf("%T: next_owner (-want +got):\n%s, Reached %d", owners, diff, o.Reached)
		}
	}
	m := &Mutant{ID: "x", Class: AmbiguousOwnership, Operator: "clear_owner", Edge: "intake->action"}
	s, o := seamsOf(t, m)
	msg := toMessage(t, map[string]any{})
	msg.Set("next_owner", []string{})
	s.Emit(invoice.IntakeToAction, msg)
	if diff := cmp.Diff([]string{}, get(msg, "next_owner")); diff != "" || o.Reached != 1 {
		t.Errorf("clear_owner on an empty []string: next_owner (-want +got):\n%s, Reached %d, want 1", diff, o.Reached)
	}
}

func TestParseSeams(t *testing.T) {
	ab, ia := invoice.ActionToBoundary, invoice.IntakeToAction
	tests := []struct {
		name    string
		edge    mission.Edge
		in      any // the escalation value; nil leaves the key out
		want    any
		reached int
	}{
		{"requested read as escalated", ab, "requested", "escalated", 1},
		{"none is reached and stays", ab, "none", "none", 1},
		{"escalated is reached and stays", ab, "escalated", "escalated", 1},
		{"a message without escalation is not reached", ab, nil, nil, 0},
		{"other edges are not reached", ia, "requested", "requested", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &Mutant{ID: "x", Class: EscalationGap, Operator: "escalation_flag_meaning", Edge: "action->boundary"}
			s, o := seamsOf(t, m)
			fresh := func() map[string]any {
				msg := message(t, tt.edge, `{}`)
				delete(msg, "escalation")
				if tt.in != nil {
					msg["escalation"] = tt.in
				}
				return msg
			}
			em := seamOn(t, fresh(), func(m *mission.Message) { s.Emit(tt.edge, m) })
			if diff := cmp.Diff(fresh(), em); diff != "" || o.Reached != 0 {
				t.Fatalf("Emit acted: Reached %d, message (-want +got):\n%s", o.Reached, diff)
			}
			msg := seamOn(t, fresh(), func(m *mission.Message) { s.Parse(tt.edge, m) })
			if msg["escalation"] != tt.want || o.Reached != tt.reached {
				t.Errorf("after Parse: escalation %v, Reached %d; want %v, %d", msg["escalation"], o.Reached, tt.want, tt.reached)
			}
		})
	}
}

func TestRetryKeySeams(t *testing.T) {
	tests := []struct {
		name     string
		operator string
		agent    mission.Agent
		tool     string
		attempt  int
		want     string
		reached  int
	}{
		{"no key on a retry", "retry_without_key", "boundary", invoice.SchedulePayment, 1, "", 1},
		{"no key on the third retry", "retry_without_key", "boundary", invoice.SchedulePayment, 3, "", 1},
		{"first attempt keeps its key", "retry_without_key", "boundary", invoice.SchedulePayment, 0, "E1:schedule_payment", 0},
		{"other tool keeps its key", "retry_without_key", "boundary", invoice.PostLedger, 1, "E1:schedule_payment", 0},
		{"other agent keeps its key", "retry_without_key", "intake", invoice.SchedulePayment, 1, "E1:schedule_payment", 0},
		{"fresh key on a retry", "fresh_key_on_retry", "boundary", invoice.SchedulePayment, 2, "E1:schedule_payment#retry2", 1},
		{"fresh key: first attempt keeps its key", "fresh_key_on_retry", "boundary", invoice.SchedulePayment, 0, "E1:schedule_payment", 0},
		{"fresh key: other tool keeps its key", "fresh_key_on_retry", "boundary", invoice.PostLedger, 1, "E1:schedule_payment", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &Mutant{ID: "x", Class: DuplicateAction, Operator: tt.operator, Edge: "action->boundary", Agent: "boundary", Tool: invoice.SchedulePayment}
			s, o := seamsOf(t, m)
			got := s.RetryKey(tt.agent, tt.tool, "E1", "E1:schedule_payment", tt.attempt)
			if got != tt.want || o.Reached != tt.reached {
				t.Errorf("RetryKey = %q, Reached %d; want %q, %d", got, o.Reached, tt.want, tt.reached)
			}
		})
	}
}

func TestDedupSeam(t *testing.T) {
	m := &Mutant{ID: "x", Class: DuplicateAction, Operator: "redeliver_without_dedup", Edge: "boundary->monitor"}
	s, o := seamsOf(t, m)
	if !s.Dedup(invoice.ActionToBoundary) || o.Reached != 0 {
		t.Errorf("other edge: Dedup false or Reached %d", o.Reached)
	}
	if s.Dedup(invoice.BoundaryToMonitor) || o.Reached != 1 {
		t.Errorf("own edge: Dedup true or Reached %d, want false, 1", o.Reached)
	}
}

func TestToolArgsSeam(t *testing.T) {
	tests := []struct {
		name    string
		value   any
		agent   mission.Agent
		tool    string
		args    sandbox.Args
		want    sandbox.Args
		reached int
	}{
		{
			name: "replaces the argument", value: "DE00", agent: "boundary", tool: invoice.SchedulePayment,
			args: sandbox.Args{"bank_account": "DE89", "amount": 10.0}, want: sandbox.Args{"bank_account": "DE00", "amount": 10.0}, reached: 1,
		},
		{
			name: "adds a missing argument", value: "DE00", agent: "boundary", tool: invoice.SchedulePayment,
			args: sandbox.Args{"amount": 10.0}, want: sandbox.Args{"bank_account": "DE00", "amount": 10.0}, reached: 1,
		},
		{
			name: "same value is reached and no change", value: "DE00", agent: "boundary", tool: invoice.SchedulePayment,
			args: sandbox.Args{"bank_account": "DE00"}, want: sandbox.Args{"bank_account": "DE00"}, reached: 1,
		},
		{
			name: "numbers compare as JSON", value: 5.0, agent: "boundary", tool: invoice.SchedulePayment,
			args: sandbox.Args{"bank_account": 5}, want: sandbox.Args{"bank_account": 5}, reached: 1,
		},
		{
			name: "other tool", value: "DE00", agent: "boundary", tool: invoice.PostLedger,
			args: sandbox.Args{"bank_account": "DE89"}, want: sandbox.Args{"bank_account": "DE89"},
		},
		{
			name: "other agent", value: "DE00", agent: "intake", tool: invoice.SchedulePayment,
			args: sandbox.Args{"bank_account": "DE89"}, want: sandbox.Args{"bank_account": "DE89"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &Mutant{ID: "x", Class: Control, Operator: "wrong_tool_arg", Agent: "boundary", Tool: invoice.SchedulePayment, Arg: "bank_account", Value: tt.value}
			s, o := seamsOf(t, m)
			s.ToolArgs(tt.agent, tt.tool, "E1", tt.args)
			if diff := cmp.Diff(tt.want, tt.args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if o.Reached != tt.reached {
				t.Errorf("Reached = %d, want %d", o.Reached, tt.reached)
			}
		})
	}
}

func TestToolArgsSeamSharesNothing(t *testing.T) {
	m := &Mutant{ID: "x", Class: Control, Operator: "wrong_tool_arg", Agent: "monitor", Tool: invoice.PublishReport, Arg: "entries", Value: []any{"a"}}
	s, _ := seamsOf(t, m)
	a, b := sandbox.Args{}, sandbox.Args{}
	s.ToolArgs("monitor", invoice.PublishReport, "E1", a)
	a["entries"].([]any)[0] = "changed"
	s.ToolArgs("monitor", invoice.PublishReport, "E2", b)
	if diff := cmp.Diff([]any{"a"}, b["entries"]); diff != "" {
		t.Errorf("second call saw the first call's edit (-want +got):\n%s", diff)
	}
}

func TestDecideSeam(t *testing.T) {
	tests := []struct {
		name         string
		from         string
		kind, choice string
		want         string
		reached      int
	}{
		{"flips any choice", "", "decision", "approved", "escalated", 1},
		{"flips the named choice", "approved", "decision", "approved", "escalated", 1},
		{"reaches and keeps another choice", "approved", "decision", "rejected", "rejected", 1},
		{"reaches and keeps the target choice", "", "decision", "escalated", "escalated", 1},
		{"another decision kind is not reached", "", "route", "approved", "approved", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &Mutant{ID: "x", Class: Control, Operator: "flip_decision", Agent: "boundary", Decision: "decision", From: tt.from, To: "escalated"}
			s, o := seamsOf(t, m)
			got := s.Decide("boundary", tt.kind, "E1", tt.choice)
			if got != tt.want || o.Reached != tt.reached {
				t.Errorf("Decide = %q, Reached %d; want %q, %d", got, o.Reached, tt.want, tt.reached)
			}
			// Another agent's decision is never reached.
			if got := s.Decide("action", tt.kind, "E1", tt.choice); got != tt.choice || o.Reached != tt.reached {
				t.Errorf("action's Decide = %q, Reached %d; want %q, %d", got, o.Reached, tt.choice, tt.reached)
			}
		})
	}
}

func TestRouteSeam(t *testing.T) {
	m := &Mutant{ID: "x", Class: AmbiguousOwnership, Operator: "reroute", Edge: "action->boundary", Value: "monitor"}
	s, o := seamsOf(t, m)
	in := []mission.Agent{"boundary"}
	got := s.Route(invoice.ActionToBoundary, in)
	if diff := cmp.Diff([]mission.Agent{"monitor"}, got); diff != "" || o.Reached != 1 {
		t.Errorf("Route (-want +got):\n%s, Reached %d", diff, o.Reached)
	}
	if in[0] != "boundary" {
		t.Errorf("Route changed its input: %v", in)
	}
	if got := s.Route(invoice.ActionToBoundary, nil); len(got) != 0 || o.Reached != 2 {
		t.Errorf("Route of no owners = %v, Reached %d; want none, reached (2)", got, o.Reached)
	}
	if got := s.Route(invoice.ActionToBoundary, []mission.Agent{"monitor"}); len(got) != 1 || got[0] != "monitor" || o.Reached != 3 {
		t.Errorf("Route already to monitor = %v, Reached %d; want [monitor], reached (3)", got, o.Reached)
	}
	if got := s.Route(invoice.IntakeToAction, []mission.Agent{"action"}); got[0] != "action" || o.Reached != 3 {
		t.Errorf("Route on another edge = %v, Reached %d; want [action], not reached (3)", got, o.Reached)
	}
}

// TestSeamsNilOracle checks that seams switched on without an oracle act.
func TestSeamsNilOracle(t *testing.T) {
	m := &Mutant{ID: "x", Class: ContextLoss, Operator: "drop_field", Edge: "intake->action", Field: "currency"}
	s, err := m.Seams(invoice.Spec(), nil)
	if err != nil {
		t.Fatal(err)
	}
	msg := seamOn(t, message(t, invoice.IntakeToAction, extracted), func(m *mission.Message) { s.Emit(invoice.IntakeToAction, m) })
	if _, ok := msg["payload"].(map[string]any)["currency"]; ok {
		t.Error("currency still there")
	}
}

// TestSeamsConcurrent runs every default mutant's seams from several
// goroutines (meaningful under -race) and checks the reach count adds up.
func TestSeamsConcurrent(t *testing.T) {
	m := &Mutant{ID: "x", Class: ContextLoss, Operator: "drop_field", Edge: "intake->action", Field: "currency"}
	s, o := seamsOf(t, m)
	const n = 8
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			msg := toMessage(t, message(t, invoice.IntakeToAction, extracted))
			s.Emit(invoice.IntakeToAction, msg)
		})
	}
	wg.Wait()
	if o.Reached != n {
		t.Errorf("Reached = %d, want %d", o.Reached, n)
	}
}

func TestSwitch(t *testing.T) {
	m := &Mutant{ID: "x", Class: ContextLoss, Operator: "drop_field", Edge: "intake->action", Field: "currency"}
	_ = m.Switch(&mission.Oracle{}) // a valid mutant switches on
	defer func() {
		if recover() == nil {
			t.Error("Switch of an invalid mutant did not panic")
		}
	}()
	bad := &Mutant{ID: "x", Class: ContextLoss, Operator: "drop_field", Edge: "intake->action"} // no field
	_ = bad.Switch(nil)
}

func TestReformat(t *testing.T) {
	tests := []struct {
		in      any
		format  string
		want    any
		changed bool
	}{
		{1234.5, FormatCents, 123450.0, true},
		{0.1 + 0.2, FormatCents, 30.0, true},
		{12, FormatCents, 1200.0, true},
		{json.Number("7.25"), FormatCents, 725.0, true},
		{1234.5, FormatDecimalComma, "1234,50", true},
		{-3.0, FormatDecimalComma, "-3,00", true},
		{"2025-12-31", FormatDateDMY, "31/12/2025", true},
		{"31/12/2025", FormatDateDMY, "31/12/2025", false},
		{true, FormatCents, true, false},
		{"x", "unknown", "x", false},
	}
	for _, tt := range tests {
		got, changed := reformat(tt.in, tt.format)
		if diff := cmp.Diff(tt.want, got); diff != "" || changed != tt.changed {
			t.Errorf("reformat(%v, %s): changed %v (-want +got):\n%s", tt.in, tt.format, changed, diff)
		}
	}
}

func BenchmarkEmit(b *testing.B) {
	m := &Mutant{ID: "x", Class: ContractDrift, Operator: "reformat_field", Edge: "intake->action", Field: "gross", Format: FormatDecimalComma}
	s, _ := seamsOf(b, m)
	msg := toMessage(b, message(b, invoice.IntakeToAction, extracted))
	b.ReportAllocs()
	for b.Loop() {
		s.Emit(invoice.IntakeToAction, msg.Clone()) // a copy, as the decoded message a parser shares
	}
}

func BenchmarkToolArgs(b *testing.B) {
	m := &Mutant{ID: "x", Class: Control, Operator: "wrong_tool_arg", Agent: "boundary", Tool: invoice.SchedulePayment, Arg: "bank_account", Value: "DE00"}
	s, _ := seamsOf(b, m)
	args := sandbox.Args{"amount": 10.0}
	b.ReportAllocs()
	for b.Loop() {
		args["bank_account"] = "DE89"
		s.ToolArgs("boundary", invoice.SchedulePayment, "E1", args)
	}
}

// get reads a message's field, nil when it has none.
func get(msg *mission.Message, key string) any {
	v, _ := msg.Get(key)
	return v
}
