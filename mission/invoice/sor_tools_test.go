package invoice

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/sandbox"
)

func TestTools(t *testing.T) {
	type want struct {
		Result sandbox.Result
		Err    *sandbox.Error
	}
	invalid := func(msg string) want {
		return want{Err: &sandbox.Error{Kind: sandbox.ErrInvalid, Code: sandbox.CodeInvalid, Message: msg}}
	}
	notFound := func(msg string) want {
		return want{Err: &sandbox.Error{Kind: sandbox.ErrNotFound, Code: sandbox.CodeNotFound, Message: msg}}
	}
	ok := func(r sandbox.Result) want { return want{Result: r} }
	for _, tc := range []struct {
		name  string
		agent string
		tool  string
		setup func(testing.TB, *sandbox.Sandbox) // before the call
		args  sandbox.Args
		want  want
	}{
		{name: "lookup by id", agent: "boundary", tool: LookupSupplier, args: sandbox.Args{"supplier_id": "S1"},
			want: ok(sandbox.Result{"supplier_id": "S1", "name": "Acme GmbH", "email": "billing@acme.example", "bank_account": "DE-222", "currency": "EUR"})},
		{name: "lookup by email ignores case", agent: "intake", tool: LookupSupplier, args: sandbox.Args{"email": "AR@Globex.example"},
			want: ok(sandbox.Result{"supplier_id": "S2", "name": "Globex Inc", "email": "ar@globex.example", "bank_account": "US-111", "currency": "USD"})},
		{name: "lookup by name", agent: "intake", tool: LookupSupplier, args: sandbox.Args{"name": "acme gmbh"},
			want: ok(sandbox.Result{"supplier_id": "S1", "name": "Acme GmbH", "email": "billing@acme.example", "bank_account": "DE-222", "currency": "EUR"})},
		{name: "lookup id wins over email", agent: "intake", tool: LookupSupplier, args: sandbox.Args{"supplier_id": "S9", "email": "billing@acme.example"},
			want: notFound("supplier not found")},
		{name: "lookup without key", agent: "intake", tool: LookupSupplier, args: sandbox.Args{},
			want: invalid("missing field supplier_id (or email, or name)")},
		{name: "lookup ill-typed", agent: "intake", tool: LookupSupplier, args: sandbox.Args{"supplier_id": 7.0},
			want: invalid("field supplier_id: want string, got number")},
		{name: "find paid invoice of the initial state", agent: "intake", tool: FindInvoice, args: sandbox.Args{"supplier_id": "S1", "number": "A-77"},
			want: ok(sandbox.Result{"invoice_id": "INV-0007", "status": "paid"})},
		{name: "find other supplier's number", agent: "intake", tool: FindInvoice, args: sandbox.Args{"supplier_id": "S2", "number": "A-77"},
			want: notFound("invoice not found")},
		{name: "find needs supplier_id", agent: "intake", tool: FindInvoice, args: sandbox.Args{"number": "A-77"},
			want: invalid("missing field supplier_id")},
		{name: "find escalated invoice", agent: "intake", tool: FindInvoice, args: sandbox.Args{"supplier_id": "S1", "number": "A-1"},
			setup: func(tb testing.TB, s *sandbox.Sandbox) {
				mustCall(tb, s, "intake", RegisterInvoice, "E1", invoiceArgs("A-1", 10), "")
				decide(tb, s, Escalate, "E1", "above_threshold")
			},
			want: ok(sandbox.Result{"invoice_id": "INV-0008", "status": "escalated"})},
		{name: "register", agent: "intake", tool: RegisterInvoice, args: invoiceArgs("A-1", 10),
			want: ok(sandbox.Result{"invoice_id": "INV-0008"})},
		{name: "register with invoice_number", agent: "intake", tool: RegisterInvoice,
			args: sandbox.Args{"supplier_id": "", "invoice_number": "Z-1", "currency": "EUR", "gross": 5.0},
			want: ok(sandbox.Result{"invoice_id": "INV-0008"})},
		{name: "register duplicate of a paid invoice", agent: "intake", tool: RegisterInvoice, args: invoiceArgs("A-77", 119),
			want: want{Err: &sandbox.Error{Kind: sandbox.ErrRefused, Code: CodeDuplicate, Message: "duplicate invoice number A-77 (INV-0007, paid)"}}},
		{name: "register without gross", agent: "intake", tool: RegisterInvoice, args: sandbox.Args{"supplier_id": "S1", "number": "A-1", "currency": "EUR"},
			want: invalid("missing field gross")},
		{name: "register gross as text", agent: "intake", tool: RegisterInvoice, args: sandbox.Args{"supplier_id": "S1", "number": "A-1", "currency": "EUR", "gross": "1.234,50"},
			want: invalid("field gross: want number, got string")},
		{name: "register empty number", agent: "intake", tool: RegisterInvoice, args: sandbox.Args{"supplier_id": "S1", "number": "", "currency": "EUR", "gross": 1.0},
			want: invalid("missing field number (or invoice_number)")},
		{name: "purchase order", agent: "action", tool: GetPurchaseOrder, args: sandbox.Args{"po_number": "PO-050"},
			want: ok(sandbox.Result{"po_number": "PO-050", "supplier_id": "S2", "currency": "USD", "lines": []any{
				map[string]any{"sku": "G-1", "qty": 1.0, "unit_price": 900.0},
				map[string]any{"sku": "G-2", "qty": 2.0, "unit_price": 50.0},
			}})},
		{name: "unknown purchase order", agent: "action", tool: GetPurchaseOrder, args: sandbox.Args{"po_number": "PO-999"},
			want: notFound("purchase order PO-999 not found")},
		{name: "goods receipts", agent: "action", tool: GetGoodsReceipts, args: sandbox.Args{"po_number": "PO-100"},
			want: ok(sandbox.Result{"po_number": "PO-100", "receipts": []any{
				map[string]any{"id": "GR-2", "sku": "W-1", "qty": 4.0},
				map[string]any{"id": "GR-1", "sku": "W-1", "qty": 6.0},
			}})},
		{name: "no goods receipts", agent: "action", tool: GetGoodsReceipts, args: sandbox.Args{"po_number": "PO-050"},
			want: ok(sandbox.Result{"po_number": "PO-050", "receipts": []any{}})},
		{name: "match unknown invoice", agent: "action", tool: RecordMatch, args: sandbox.Args{"invoice_id": "INV-9", "status": "matched"},
			want: notFound("invoice INV-9 not found")},
		{name: "match unknown status", agent: "action", tool: RecordMatch, args: sandbox.Args{"invoice_id": "INV-0007", "status": "fine"},
			want: invalid(`field status: unknown value "fine" (want matched, variance_explained, variance_unexplained, no_po, not_applicable)`)},
		{name: "approve without amount", agent: "boundary", tool: ApproveInvoice, args: sandbox.Args{"invoice_id": "INV-0007"},
			want: invalid("missing field amount_eur")},
		{name: "ledger with int amount", agent: "boundary", tool: PostLedger, args: sandbox.Args{"invoice_id": "INV-0007", "account": "2000", "amount": 119, "currency": "EUR"},
			want: ok(sandbox.Result{"posting_id": "LED-0001"})},
		{name: "payment without approval", agent: "boundary", tool: SchedulePayment,
			setup: func(tb testing.TB, s *sandbox.Sandbox) {
				mustCall(tb, s, "intake", RegisterInvoice, "E1", invoiceArgs("A-1", 10), "")
			},
			args: sandbox.Args{"invoice_id": "INV-0008", "supplier_id": "S1", "amount": 10.0, "currency": "EUR", "due_date": "2026-02-04", "bank_account": "DE-222"},
			want: want{Err: &sandbox.Error{Kind: sandbox.ErrRefused, Code: CodeNoApproval, Message: "no approval for invoice INV-0008"}}},
		{name: "payment without bank account", agent: "boundary", tool: SchedulePayment,
			args: sandbox.Args{"invoice_id": "INV-0007", "supplier_id": "S1", "amount": 10.0, "currency": "EUR", "due_date": "2026-02-04"},
			want: invalid("missing field bank_account")},
		{name: "escalate without reason", agent: "boundary", tool: Escalate, args: sandbox.Args{"item": "E1"},
			want: invalid("missing field reason")},
		{name: "close", agent: "boundary", tool: CloseItem, args: sandbox.Args{"item": "E1", "reason": "out_of_scope"},
			want: ok(sandbox.Result{"closure_id": "CLO-0001"})},
		{name: "reject", agent: "boundary", tool: RejectInvoice, args: sandbox.Args{"item": "E1", "reason": "duplicate_invoice"},
			want: ok(sandbox.Result{"rejection_id": "REJ-0001"})},
		{name: "report with typed entries", agent: "monitor", tool: PublishReport,
			args: sandbox.Args{"day": "2026-01-05", "entries": []ReportEntry{{Item: "E1", Kind: "escalation", Reason: "x"}}},
			want: ok(sandbox.Result{"report_id": "REP-0001"})},
		{name: "report entries not a list", agent: "monitor", tool: PublishReport, args: sandbox.Args{"day": "2026-01-05", "entries": "none"},
			want: invalid("field entries: want array, got string")},
		{name: "report entry without kind", agent: "monitor", tool: PublishReport,
			args: sandbox.Args{"day": "2026-01-05", "entries": []any{map[string]any{"item": "E1", "reason": "x"}}},
			want: invalid("missing field entries[0].kind")},
		{name: "report entry not an object", agent: "monitor", tool: PublishReport,
			args: sandbox.Args{"day": "2026-01-05", "entries": []any{"E1"}},
			want: invalid("field entries[0]: want object, got string")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t, nil)
			if tc.setup != nil {
				tc.setup(t, s)
			}
			res, err := s.Call(tc.agent, tc.tool, "E1", tc.args, "", 0)
			var got want
			got.Result = res
			if err != nil {
				got.Err, _ = sandbox.AsError(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			wantOutcome := sandbox.OutcomeOK
			if tc.want.Err != nil {
				wantOutcome = sandbox.OutcomeError
			}
			if l := lastLog(t, s); l.Outcome != wantOutcome || (tc.want.Err != nil && l.Code != tc.want.Err.Code) {
				t.Errorf("log %+v, want outcome %s", l, wantOutcome)
			}
		})
	}
}

func TestInvoiceStatus(t *testing.T) {
	s := newSandbox(t, nil)
	status := func() string {
		return mustCall(t, s, "intake", FindInvoice, "E1", sandbox.Args{"supplier_id": "S1", "number": "A-1"}, "")["status"].(string)
	}
	var got []string
	inv := mustCall(t, s, "intake", RegisterInvoice, "E1", invoiceArgs("A-1", 10), "")["invoice_id"].(string)
	got = append(got, status())
	mustCall(t, s, "action", RecordMatch, "E1", sandbox.Args{"invoice_id": inv, "status": "matched"}, "")
	got = append(got, status())
	mustCall(t, s, "boundary", ApproveInvoice, "E1", sandbox.Args{"invoice_id": inv, "amount_eur": 10.0}, "")
	got = append(got, status())
	decide(t, s, RejectInvoice, "E1", "tool_refused")
	got = append(got, status())
	if diff := cmp.Diff([]string{"registered", "matched", "approved", "rejected"}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	// A paid invoice stays paid whatever happens to its email's item.
	decide(t, s, Escalate, "E0", "above_threshold")
	if st := mustCall(t, s, "intake", FindInvoice, "E0", sandbox.Args{"supplier_id": "S1", "number": "A-77"}, "")["status"]; st != "paid" {
		t.Errorf("paid invoice moved to %v", st)
	}
}

func TestCodeKind(t *testing.T) {
	got := map[string]sandbox.ErrorKind{}
	for _, c := range []string{sandbox.CodeForbidden, sandbox.CodeTokenExpired, sandbox.CodeBadRequest, sandbox.CodeInvalid, sandbox.CodeNotFound, CodeDuplicate,
		CodeNoApproval, sandbox.CodeDailyLimit, sandbox.CodeUnavailable, sandbox.CodeTimeout, sandbox.CodeRateLimited, "XYZ"} {
		got[c] = sandbox.CodeKind(c)
	}
	want := map[string]sandbox.ErrorKind{
		"AUTH-403": sandbox.ErrForbidden, "AUTH-401": sandbox.ErrRefused, "VAL-400": sandbox.ErrRefused, "VAL-422": sandbox.ErrInvalid,
		"NF-404": sandbox.ErrNotFound, "BR-409": sandbox.ErrRefused, "BR-412": sandbox.ErrRefused, "BR-429": sandbox.ErrRefused,
		"SYS-503": sandbox.ErrUnavailable, "SYS-504": sandbox.ErrTimeout, "RL-429": sandbox.ErrRateLimited, "XYZ": "",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CodeKind (-want +got):\n%s", diff)
	}
	for c, k := range want {
		if sandbox.RetryableCode(c) != (&sandbox.Error{Kind: k}).Retryable() {
			t.Errorf("RetryableCode(%s) disagrees with sandbox.Error.Retryable for %s", c, k)
		}
	}
}
