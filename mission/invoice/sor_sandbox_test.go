package invoice

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/sandbox"
)

func TestPermissions(t *testing.T) {
	agents := []string{"intake", "action", "boundary", "monitor", "stranger"}
	tools := append(slices.Clone(toolNames[:]), "drop_database")
	for _, agent := range agents {
		for _, tool := range tools {
			t.Run(agent+"/"+tool, func(t *testing.T) {
				s := newSandbox(t, nil)
				before := s.Snapshot()
				_, err := s.Call(agent, tool, "E1", sandbox.Args{}, "k", 0)
				e, _ := sandbox.AsError(err)
				if spec().Tools.Permitted(agent, tool) {
					if e != nil && e.Kind == sandbox.ErrForbidden {
						t.Fatalf("permitted call refused: %v", err)
					}
					return
				}
				if e == nil {
					t.Fatalf("forbidden call answered without error")
				}
				if diff := cmp.Diff(sandbox.Error{Kind: sandbox.ErrForbidden, Code: sandbox.CodeForbidden, Message: "agent " + agent + " may not call " + tool}, *e); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				want := sandbox.LogEntry{Seq: 1, At: 20, Agent: agent, Tool: tool, Item: "E1", Key: "k", Outcome: sandbox.OutcomeForbidden, Code: sandbox.CodeForbidden}
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
	e := mustFail(t, s, "monitor", SchedulePayment, "E1", sandbox.Args{}, "", 0)
	if e.Kind != sandbox.ErrForbidden {
		t.Errorf("kind = %s, want %s: a fault masked the violation", e.Kind, sandbox.ErrForbidden)
	}
	if n := len(s.Fired()); n != 0 {
		t.Errorf("%d faults fired on a forbidden call, want 0", n)
	}
}

func TestWriter(t *testing.T) {
	got := map[string]string{}
	for _, tl := range spec().Tools.Tools() {
		if tl.Access == sandbox.Write {
			got[tl.Record] = spec().Tools.Writer(tl.Record)
		}
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
	first, second func(inv string) sandbox.Args
}

func writeCases() []writeCase {
	decision := func(reason string) func(string) sandbox.Args {
		return func(string) sandbox.Args { return sandbox.Args{"item": "E1", "reason": reason} }
	}
	return []writeCase{
		{RegisterInvoice, "intake",
			func(string) sandbox.Args { return invoiceArgs("B-1", 50) },
			func(string) sandbox.Args { return invoiceArgs("B-2", 60) }},
		{RecordMatch, "action",
			func(inv string) sandbox.Args {
				return sandbox.Args{"invoice_id": inv, "po_number": "PO-100", "status": "matched", "variance": 0.0}
			},
			func(inv string) sandbox.Args {
				return sandbox.Args{"invoice_id": inv, "po_number": "PO-100", "status": "no_po"}
			}},
		{ApproveInvoice, "boundary",
			func(inv string) sandbox.Args { return sandbox.Args{"invoice_id": inv, "amount_eur": 100.0} },
			func(inv string) sandbox.Args { return sandbox.Args{"invoice_id": inv, "amount_eur": 200.0} }},
		{PostLedger, "boundary",
			func(inv string) sandbox.Args {
				return sandbox.Args{"invoice_id": inv, "account": "2000-AP", "amount": 100.0, "currency": "EUR"}
			},
			func(inv string) sandbox.Args {
				return sandbox.Args{"invoice_id": inv, "account": "6000-EXP", "amount": 100.0, "currency": "EUR"}
			}},
		{SchedulePayment, "boundary",
			func(inv string) sandbox.Args {
				return sandbox.Args{"invoice_id": inv, "supplier_id": "S1", "amount": 100.0, "currency": "EUR", "due_date": "2026-02-04", "bank_account": "DE-222"}
			},
			func(inv string) sandbox.Args {
				return sandbox.Args{"invoice_id": inv, "supplier_id": "S1", "amount": 100.0, "currency": "EUR", "due_date": "2026-02-04", "bank_account": "XX-999"}
			}},
		{Escalate, "boundary", decision("above_threshold"), decision("bank_account_changed")},
		{RejectInvoice, "boundary", decision("duplicate_invoice"), decision("tool_refused")},
		{CloseItem, "boundary", decision("out_of_scope"), decision("statement")},
		{PublishReport, "monitor",
			func(string) sandbox.Args { return sandbox.Args{"day": "2026-01-05", "entries": []any{}} },
			func(string) sandbox.Args {
				return sandbox.Args{"day": "2026-01-05", "entries": []any{map[string]any{"item": "E1", "kind": "escalation", "reason": "x"}}}
			}},
	}
}

// approvedInvoice registers and approves an invoice for E1.
func approvedInvoice(tb testing.TB, s *sandbox.Sandbox) string {
	tb.Helper()
	inv := mustCall(tb, s, "intake", RegisterInvoice, "E1", invoiceArgs("A-1", 100), "")["invoice_id"].(string)
	mustCall(tb, s, "boundary", ApproveInvoice, "E1", sandbox.Args{"invoice_id": inv, "amount_eur": 100.0}, "")
	return inv
}

func TestIdempotency(t *testing.T) {
	writes := 0
	for _, tl := range spec().Tools.Tools() {
		if tl.Access == sandbox.Write {
			writes++
		}
	}
	if len(writeCases()) != writes {
		t.Fatalf("write cases cover %d tools, the registry has %d writes", len(writeCases()), writes)
	}
	for _, tc := range writeCases() {
		kind := spec().Tools.RecordOf(tc.tool)
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
			tl, _ := spec().Tools.Tool(tc.tool)
			effect := first[tl.ResultID].(string)
			want := sandbox.LogEntry{Seq: 4, At: 80, Agent: tc.agent, Tool: tc.tool, Item: "E1", Key: "E1:" + tc.tool, Outcome: sandbox.OutcomeReplayed, Effect: effect}
			if diff := cmp.Diff(want, lastLog(t, s)); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
		t.Run(tc.tool+"/empty key applies every time", func(t *testing.T) {
			s := newSandbox(t, nil)
			inv := approvedInvoice(t, s)
			n := countRecords(s.Snapshot(), kind)
			first := mustCall(t, s, tc.agent, tc.tool, "E1", tc.first(inv), "")
			_, err := s.Call(tc.agent, tc.tool, "E1", tc.first(inv), "", 0)
			if tc.tool == RegisterInvoice {
				// Applied again, the same invoice is a duplicate.
				if e, _ := sandbox.AsError(err); e == nil || e.Code != CodeDuplicate {
					t.Fatalf("second register without key: got %v, want %s", err, CodeDuplicate)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := countRecords(s.Snapshot(), kind) - n; got != 2 {
				t.Errorf("%d %s records written by two keyless calls, want 2 (first %v)", got, kind, first)
			}
		})
	}
}

var cmpIgnoreLog = cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Log" }, cmp.Ignore())

func TestIdempotencyKeysArePerTool(t *testing.T) {
	s := newSandbox(t, nil)
	mustCall(t, s, "boundary", Escalate, "E1", sandbox.Args{"item": "E1", "reason": "above_threshold"}, "k")
	mustCall(t, s, "boundary", RejectInvoice, "E1", sandbox.Args{"item": "E1", "reason": "duplicate_invoice"}, "k")
	st := s.Snapshot()
	if len(recs(st).Escalations) != 1 || len(recs(st).Rejections) != 1 {
		t.Errorf("escalations %d, rejections %d; want 1 and 1", len(recs(st).Escalations), len(recs(st).Rejections))
	}
}

func TestFailedWriteIsNotRemembered(t *testing.T) {
	s := newSandbox(t, nil)
	inv := mustCall(t, s, "intake", RegisterInvoice, "E1", invoiceArgs("A-1", 100), "")["invoice_id"].(string)
	pay := sandbox.Args{"invoice_id": inv, "supplier_id": "S1", "amount": 100.0, "currency": "EUR", "due_date": "2026-02-04", "bank_account": "DE-222"}
	if e := mustFail(t, s, "boundary", SchedulePayment, "E1", pay, "E1:pay", 0); e.Code != CodeNoApproval {
		t.Fatalf("code = %s, want %s", e.Code, CodeNoApproval)
	}
	mustCall(t, s, "boundary", ApproveInvoice, "E1", sandbox.Args{"invoice_id": inv, "amount_eur": 100.0}, "")
	got := mustCall(t, s, "boundary", SchedulePayment, "E1", pay, "E1:pay")
	if diff := cmp.Diff(sandbox.Result{"payment_id": "PAY-0004"}, got); diff != "" {
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
	got = append(got, recs(s.Snapshot()).Payments[1].ID)
	decide(t, s, Escalate, "E3", "above_threshold")
	got = append(got, recs(s.Snapshot()).Escalations[0].ID)
	publish(t, s)
	got = append(got, recs(s.Snapshot()).Reports[0].ID)
	// The fixture holds INV-0007 and PAY-0003: issued ids continue after them.
	want := []string{"INV-0008", "INV-0009", "INV-0010", "PAY-0004", "ESC-0001", "REP-0001"}
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
			clock := sandbox.NewClock(sandbox.Epoch)
			s := sandbox.New(spec().Tools, fixtureState(), sandbox.Config{Latency: tc.latency}, sandbox.NewDice(1), clock)
			s.Call("intake", LookupSupplier, "E1", sandbox.Args{"supplier_id": "S1"}, "", 0)
			s.Call("intake", LookupSupplier, "E1", sandbox.Args{}, "", 0)  // invalid
			s.Call("monitor", LookupSupplier, "E1", sandbox.Args{}, "", 0) // forbidden
			if got := clock.Elapsed(); got != tc.want {
				t.Errorf("elapsed %dms after three calls, want %d", got, tc.want)
			}
			if s.Clock() != clock {
				t.Errorf("Clock() is not the clock given to sandbox.New")
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
	for _, sp := range recs(snap).Suppliers {
		ids = append(ids, sp.ID)
	}
	for _, po := range recs(snap).PurchaseOrders {
		ids = append(ids, po.Number)
	}
	for _, g := range recs(snap).GoodsReceipts {
		ids = append(ids, g.ID)
	}
	for _, inv := range recs(snap).Invoices {
		ids = append(ids, inv.ID)
	}
	for _, p := range recs(snap).Payments {
		ids = append(ids, p.ID)
	}
	want := []string{"S1", "S2", "PO-050", "PO-100", "GR-1", "GR-2", "INV-0007", "INV-0008", "PAY-0003", "PAY-0004"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("snapshot order (-want +got):\n%s", diff)
	}

	// Mutating a snapshot reaches neither the sandbox nor a later snapshot.
	recs(snap).PurchaseOrders[0].Lines[0].Qty = 999
	recs(snap).Reports[0].Entries[0].Reason = "tampered"
	snap.Log[0].Outcome = "tampered"
	again := s.Snapshot()
	if diff := cmp.Diff(s.Snapshot(), again); diff != "" || recs(again).PurchaseOrders[0].Lines[0].Qty == 999 ||
		recs(again).Reports[0].Entries[0].Reason == "tampered" || again.Log[0].Outcome == "tampered" {
		t.Errorf("snapshot shares memory with the sandbox")
	}

	a, _ := json.Marshal(again)
	b, _ := json.Marshal(s.Snapshot())
	if string(a) != string(b) {
		t.Errorf("two snapshots of one state marshal differently")
	}
}

func TestNewCopiesInitial(t *testing.T) {
	initial := fixtureState()
	recs(initial).Invoices = append(recs(initial).Invoices, Invoice{ID: "INV-0001", EmailID: "E9", SupplierID: "S2", Number: "G-1", Status: "registered"})
	s := sandbox.New(spec().Tools, initial, sandbox.Config{}, sandbox.NewDice(1), nil)
	mustCall(t, s, "action", RecordMatch, "E9", sandbox.Args{"invoice_id": "INV-0001", "status": "matched"}, "")
	mustCall(t, s, "intake", RegisterInvoice, "E1", invoiceArgs("A-1", 10), "")
	if got := recs(initial).Invoices[1].Status; got != "registered" {
		t.Errorf("initial invoice status = %q after a match in the sandbox, want registered", got)
	}
	if len(recs(initial).Invoices) != 2 {
		t.Errorf("initial has %d invoices, want 2", len(recs(initial).Invoices))
	}
	recs(initial).PurchaseOrders[0].Lines[0].UnitPrice = 1
	recs(initial).Suppliers[1].BankAccount = "EVIL"
	got := mustCall(t, s, "boundary", LookupSupplier, "E1", sandbox.Args{"supplier_id": "S1"}, "")
	if got["bank_account"] != "DE-222" {
		t.Errorf("sandbox sees a change made to initial after New: %v", got)
	}
	po := mustCall(t, s, "action", GetPurchaseOrder, "E1", sandbox.Args{"po_number": "PO-100"}, "")
	if line := po["lines"].([]any)[0].(map[string]any); line["unit_price"] != 25.0 {
		t.Errorf("sandbox sees a change to initial's order lines: %v", line)
	}
}

func TestNewNil(t *testing.T) {
	s := sandbox.New(spec().Tools, nil, sandbox.Config{}, sandbox.NewDice(1), nil)
	e := mustFail(t, s, "intake", LookupSupplier, "E1", sandbox.Args{"supplier_id": "S1"}, "", 0)
	if e.Kind != sandbox.ErrNotFound {
		t.Errorf("kind %s, want not_found", e.Kind)
	}
	if got := s.Clock().Now(); !got.Equal(sandbox.Epoch.Add(sandbox.DefaultLatency)) {
		t.Errorf("clock at %v, want sandbox.Epoch+20ms", got)
	}
}
