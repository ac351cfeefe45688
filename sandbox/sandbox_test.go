package sandbox

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPermissions(t *testing.T) {
	agents := []string{"intake", "action", "boundary", "monitor", "stranger"}
	tools := append(slices.Clone(toolNames[:]), "drop_database")
	for _, agent := range agents {
		for _, tool := range tools {
			t.Run(agent+"/"+tool, func(t *testing.T) {
				s := newSandbox(t, nil)
				before := s.Snapshot()
				_, err := s.Call(agent, tool, "E1", Args{}, "k", 0)
				e, _ := AsError(err)
				if Permitted(agent, tool) {
					if e != nil && e.Kind == ErrForbidden {
						t.Fatalf("permitted call refused: %v", err)
					}
					return
				}
				if e == nil {
					t.Fatalf("forbidden call answered without error")
				}
				if diff := cmp.Diff(Error{Kind: ErrForbidden, Code: CodeForbidden, Message: "agent " + agent + " may not call " + tool}, *e); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				want := LogEntry{Seq: 1, At: 20, Agent: agent, Tool: tool, Item: "E1", Key: "k", Outcome: OutcomeForbidden, Code: CodeForbidden}
				if diff := cmp.Diff(want, lastLog(t, s)); diff != "" {
					t.Errorf("log (-want +got):\n%s", diff)
				}
				after := s.Snapshot()
				after.Log = nil
				if diff := cmp.Diff(before, after); diff != "" {
					t.Errorf("a forbidden call changed the state (-before +after):\n%s", diff)
				}
			})
		}
	}
}

func TestForbiddenBeforeFaults(t *testing.T) {
	s := newSandbox(t, allFaults(1))
	e := mustFail(t, s, "monitor", SchedulePayment, "E1", Args{}, "", 0)
	if e.Kind != ErrForbidden {
		t.Errorf("kind = %s, want %s: a fault masked the violation", e.Kind, ErrForbidden)
	}
	if n := len(s.Fired()); n != 0 {
		t.Errorf("%d faults fired on a forbidden call, want 0", n)
	}
}

func TestWriter(t *testing.T) {
	got := map[string]string{}
	for _, kind := range Writes {
		got[kind] = Writer(kind)
	}
	want := map[string]string{
		"invoice": "intake", "match": "action", "approval": "boundary", "ledger": "boundary",
		"payment": "boundary", "escalation": "boundary", "rejection": "boundary", "closure": "boundary",
		"report": "monitor",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Writer (-want +got):\n%s", diff)
	}
}

// writeCase is one write tool with two different argument sets; second
// would change the state if it were applied.
type writeCase struct {
	tool, agent   string
	first, second func(inv string) Args
}

func writeCases() []writeCase {
	decision := func(reason string) func(string) Args {
		return func(string) Args { return Args{"item": "E1", "reason": reason} }
	}
	return []writeCase{
		{RegisterInvoice, "intake",
			func(string) Args { return invoiceArgs("B-1", 50) },
			func(string) Args { return invoiceArgs("B-2", 60) }},
		{RecordMatch, "action",
			func(inv string) Args {
				return Args{"invoice_id": inv, "po_number": "PO-100", "status": "matched", "variance": 0.0}
			},
			func(inv string) Args { return Args{"invoice_id": inv, "po_number": "PO-100", "status": "no_po"} }},
		{ApproveInvoice, "boundary",
			func(inv string) Args { return Args{"invoice_id": inv, "amount_eur": 100.0} },
			func(inv string) Args { return Args{"invoice_id": inv, "amount_eur": 200.0} }},
		{PostLedger, "boundary",
			func(inv string) Args {
				return Args{"invoice_id": inv, "account": "2000-AP", "amount": 100.0, "currency": "EUR"}
			},
			func(inv string) Args {
				return Args{"invoice_id": inv, "account": "6000-EXP", "amount": 100.0, "currency": "EUR"}
			}},
		{SchedulePayment, "boundary",
			func(inv string) Args {
				return Args{"invoice_id": inv, "supplier_id": "S1", "amount": 100.0, "currency": "EUR", "due_date": "2026-02-04", "bank_account": "DE-222"}
			},
			func(inv string) Args {
				return Args{"invoice_id": inv, "supplier_id": "S1", "amount": 100.0, "currency": "EUR", "due_date": "2026-02-04", "bank_account": "XX-999"}
			}},
		{Escalate, "boundary", decision("above_threshold"), decision("bank_account_changed")},
		{RejectInvoice, "boundary", decision("duplicate_invoice"), decision("tool_refused")},
		{CloseItem, "boundary", decision("out_of_scope"), decision("statement")},
		{PublishReport, "monitor",
			func(string) Args { return Args{"day": "2026-01-05", "entries": []any{}} },
			func(string) Args {
				return Args{"day": "2026-01-05", "entries": []any{map[string]any{"item": "E1", "kind": "escalation", "reason": "x"}}}
			}},
	}
}

// approvedInvoice registers and approves an invoice for E1.
func approvedInvoice(tb testing.TB, s *Sandbox) string {
	tb.Helper()
	inv := mustCall(tb, s, "intake", RegisterInvoice, "E1", invoiceArgs("A-1", 100), "")["invoice_id"].(string)
	mustCall(tb, s, "boundary", ApproveInvoice, "E1", Args{"invoice_id": inv, "amount_eur": 100.0}, "")
	return inv
}

func TestIdempotency(t *testing.T) {
	if len(writeCases()) != len(Writes) {
		t.Fatalf("write cases cover %d tools, Writes has %d", len(writeCases()), len(Writes))
	}
	for _, tc := range writeCases() {
		kind := Writes[tc.tool]
		t.Run(tc.tool+"/same key replays", func(t *testing.T) {
			s := newSandbox(t, nil)
			inv := approvedInvoice(t, s)
			first := mustCall(t, s, tc.agent, tc.tool, "E1", tc.first(inv), "E1:"+tc.tool)
			before := s.Snapshot()
			second := mustCall(t, s, tc.agent, tc.tool, "E1", tc.second(inv), "E1:"+tc.tool)
			if diff := cmp.Diff(first, second); diff != "" {
				t.Errorf("replayed result (-first +second):\n%s", diff)
			}
			after := s.Snapshot()
			if diff := cmp.Diff(before, after, cmpIgnoreLog); diff != "" {
				t.Errorf("replay changed the state (-before +after):\n%s", diff)
			}
			effect := first[resultKeys[toolIndexMust(t, tc.tool)]].(string)
			want := LogEntry{Seq: 4, At: 80, Agent: tc.agent, Tool: tc.tool, Item: "E1", Key: "E1:" + tc.tool, Outcome: OutcomeReplayed, Effect: effect}
			if diff := cmp.Diff(want, lastLog(t, s)); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
		t.Run(tc.tool+"/empty key applies every time", func(t *testing.T) {
			s := newSandbox(t, nil)
			inv := approvedInvoice(t, s)
			n := records(s.Snapshot(), kind)
			first := mustCall(t, s, tc.agent, tc.tool, "E1", tc.first(inv), "")
			_, err := s.Call(tc.agent, tc.tool, "E1", tc.first(inv), "", 0)
			if tc.tool == RegisterInvoice {
				// Applied again, the same invoice is a duplicate.
				if e, _ := AsError(err); e == nil || e.Code != CodeDuplicate {
					t.Fatalf("second register without key: got %v, want %s", err, CodeDuplicate)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := records(s.Snapshot(), kind) - n; got != 2 {
				t.Errorf("%d %s records written by two keyless calls, want 2 (first %v)", got, kind, first)
			}
		})
	}
}

var cmpIgnoreLog = cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Log" }, cmp.Ignore())

func toolIndexMust(tb testing.TB, tool string) toolID {
	tb.Helper()
	t, ok := toolIndex(tool)
	if !ok {
		tb.Fatalf("unknown tool %s", tool)
	}
	return t
}

func TestIdempotencyKeysArePerTool(t *testing.T) {
	s := newSandbox(t, nil)
	mustCall(t, s, "boundary", Escalate, "E1", Args{"item": "E1", "reason": "above_threshold"}, "k")
	mustCall(t, s, "boundary", RejectInvoice, "E1", Args{"item": "E1", "reason": "duplicate_invoice"}, "k")
	st := s.Snapshot()
	if len(st.Escalations) != 1 || len(st.Rejections) != 1 {
		t.Errorf("escalations %d, rejections %d; want 1 and 1", len(st.Escalations), len(st.Rejections))
	}
}

func TestFailedWriteIsNotRemembered(t *testing.T) {
	s := newSandbox(t, nil)
	inv := mustCall(t, s, "intake", RegisterInvoice, "E1", invoiceArgs("A-1", 100), "")["invoice_id"].(string)
	pay := Args{"invoice_id": inv, "supplier_id": "S1", "amount": 100.0, "currency": "EUR", "due_date": "2026-02-04", "bank_account": "DE-222"}
	if e := mustFail(t, s, "boundary", SchedulePayment, "E1", pay, "E1:pay", 0); e.Code != CodeNoApproval {
		t.Fatalf("code = %s, want %s", e.Code, CodeNoApproval)
	}
	mustCall(t, s, "boundary", ApproveInvoice, "E1", Args{"invoice_id": inv, "amount_eur": 100.0}, "")
	got := mustCall(t, s, "boundary", SchedulePayment, "E1", pay, "E1:pay")
	if diff := cmp.Diff(Result{"payment_id": "PAY-0004"}, got); diff != "" {
		t.Errorf("payment after approval (-want +got):\n%s", diff)
	}
}

func TestIDs(t *testing.T) {
	s := newSandbox(t, nil)
	var got []string
	for _, n := range []string{"A-1", "A-2"} {
		got = append(got, mustCall(t, s, "intake", RegisterInvoice, "E1", invoiceArgs(n, 10), "")["invoice_id"].(string))
	}
	got = append(got, pay(t, s, "E2", payment{}))
	got = append(got, s.Snapshot().Payments[1].ID)
	decide(t, s, Escalate, "E3", "above_threshold")
	got = append(got, s.Snapshot().Escalations[0].ID)
	s.next[kReport] = 12344
	publish(t, s)
	got = append(got, s.Snapshot().Reports[0].ID)
	// The fixture holds INV-0007 and PAY-0003: issued ids continue after them.
	want := []string{"INV-0008", "INV-0009", "INV-0010", "PAY-0004", "ESC-0001", "REP-12345"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

func TestClock(t *testing.T) {
	for _, tc := range []struct {
		name    string
		latency time.Duration
		want    int64
	}{
		{"default", 0, 60},
		{"configured", 7 * time.Millisecond, 21},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewClock(Epoch)
			s := New(fixture(), Config{Latency: tc.latency}, NewDice(1), clock)
			s.Call("intake", LookupSupplier, "E1", Args{"supplier_id": "S1"}, "", 0)
			s.Call("intake", LookupSupplier, "E1", Args{}, "", 0)  // invalid
			s.Call("monitor", LookupSupplier, "E1", Args{}, "", 0) // forbidden
			if got := clock.Elapsed(); got != tc.want {
				t.Errorf("elapsed %dms after three calls, want %d", got, tc.want)
			}
			if s.Clock() != clock {
				t.Errorf("Clock() is not the clock given to New")
			}
		})
	}
}

func TestSnapshotSortedAndDeep(t *testing.T) {
	s := newSandbox(t, nil)
	pay(t, s, "E1", payment{})
	publish(t, s, ReportEntry{Item: "E1", Kind: "escalation", Reason: "x"})
	snap := s.Snapshot()
	var ids []string
	for _, sp := range snap.Suppliers {
		ids = append(ids, sp.ID)
	}
	for _, po := range snap.PurchaseOrders {
		ids = append(ids, po.Number)
	}
	for _, g := range snap.GoodsReceipts {
		ids = append(ids, g.ID)
	}
	for _, inv := range snap.Invoices {
		ids = append(ids, inv.ID)
	}
	for _, p := range snap.Payments {
		ids = append(ids, p.ID)
	}
	want := []string{"S1", "S2", "PO-050", "PO-100", "GR-1", "GR-2", "INV-0007", "INV-0008", "PAY-0003", "PAY-0004"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("snapshot order (-want +got):\n%s", diff)
	}

	// Mutating a snapshot reaches neither the sandbox nor a later snapshot.
	snap.PurchaseOrders[0].Lines[0].Qty = 999
	snap.Reports[0].Entries[0].Reason = "tampered"
	snap.Log[0].Outcome = "tampered"
	again := s.Snapshot()
	if diff := cmp.Diff(s.Snapshot(), again); diff != "" || again.PurchaseOrders[0].Lines[0].Qty == 999 ||
		again.Reports[0].Entries[0].Reason == "tampered" || again.Log[0].Outcome == "tampered" {
		t.Errorf("snapshot shares memory with the sandbox")
	}

	a, _ := json.Marshal(again)
	b, _ := json.Marshal(s.Snapshot())
	if string(a) != string(b) {
		t.Errorf("two snapshots of one state marshal differently")
	}
}

func TestNewCopiesInitial(t *testing.T) {
	initial := fixture()
	initial.Invoices = append(initial.Invoices, Invoice{ID: "INV-0001", EmailID: "E9", SupplierID: "S2", Number: "G-1", Status: "registered"})
	s := New(initial, Config{}, NewDice(1), nil)
	mustCall(t, s, "action", RecordMatch, "E9", Args{"invoice_id": "INV-0001", "status": "matched"}, "")
	mustCall(t, s, "intake", RegisterInvoice, "E1", invoiceArgs("A-1", 10), "")
	if got := initial.Invoices[1].Status; got != "registered" {
		t.Errorf("initial invoice status = %q after a match in the sandbox, want registered", got)
	}
	if len(initial.Invoices) != 2 {
		t.Errorf("initial has %d invoices, want 2", len(initial.Invoices))
	}
	initial.PurchaseOrders[0].Lines[0].UnitPrice = 1
	initial.Suppliers[1].BankAccount = "EVIL"
	got := mustCall(t, s, "boundary", LookupSupplier, "E1", Args{"supplier_id": "S1"}, "")
	if got["bank_account"] != "DE-222" {
		t.Errorf("sandbox sees a change made to initial after New: %v", got)
	}
	po := mustCall(t, s, "action", GetPurchaseOrder, "E1", Args{"po_number": "PO-100"}, "")
	if line := po["lines"].([]any)[0].(map[string]any); line["unit_price"] != 25.0 {
		t.Errorf("sandbox sees a change to initial's order lines: %v", line)
	}
}

func TestNewNil(t *testing.T) {
	s := New(nil, Config{}, NewDice(1), nil)
	e := mustFail(t, s, "intake", LookupSupplier, "E1", Args{"supplier_id": "S1"}, "", 0)
	if e.Kind != ErrNotFound {
		t.Errorf("kind %s, want not_found", e.Kind)
	}
	if got := s.Clock().Now(); !got.Equal(Epoch.Add(DefaultLatency)) {
		t.Errorf("clock at %v, want Epoch+20ms", got)
	}
}
