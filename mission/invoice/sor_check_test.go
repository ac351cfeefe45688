package invoice

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/sandbox"
)

// baseExpected is the business truth of the day cleanDay plays.
func baseExpected() *Expected {
	return &Expected{
		Items: []ExpectedItem{
			{Item: "E1", Outcome: OutcomePaid, Invoice: "A-E1", Supplier: "S1", Amount: 100, Currency: "EUR", DueDate: "2026-02-04", BankAccount: "DE-222"},
			{Item: "E2", Outcome: OutcomeEscalated, Invoice: "A-E2", Reason: "above_threshold"},
			{Item: "E3", Outcome: OutcomeRejected, Invoice: "A-77", Reason: "duplicate_invoice"},
			{Item: "E4", Outcome: OutcomeClosed, Reason: "out_of_scope"},
		},
		Report: []ReportEntry{
			{Item: "E2", Kind: "escalation", Reason: "above_threshold"},
			{Item: "E3", Kind: "rejection", Reason: "duplicate_invoice"},
			{Item: "E3", Kind: "refusal", Reason: "BR-409"}, // not required
		},
	}
}

var baseReport = []ReportEntry{
	{Item: "E2", Kind: "escalation", Reason: "above_threshold"},
	{Item: "E3", Kind: "rejection", Reason: "duplicate_invoice"},
}

// cleanDay plays the clean day's items, except those in skip.
func cleanDay(tb testing.TB, s *sandbox.Sandbox, skip ...string) {
	tb.Helper()
	if !slices.Contains(skip, "E1") {
		pay(tb, s, "E1", payment{key: true})
	}
	if !slices.Contains(skip, "E2") {
		mustCall(tb, s, "intake", RegisterInvoice, "E2", invoiceArgs("A-E2", 20000), "E2:register_invoice")
		decide(tb, s, Escalate, "E2", "above_threshold")
	}
	if !slices.Contains(skip, "E3") {
		if e := mustFail(tb, s, "intake", RegisterInvoice, "E3", invoiceArgs("A-77", 119), "E3:register_invoice", 0); e.Code != CodeDuplicate {
			tb.Fatalf("E3: %v, want a duplicate", e)
		}
		decide(tb, s, RejectInvoice, "E3", "duplicate_invoice")
	}
	if !slices.Contains(skip, "E4") {
		decide(tb, s, CloseItem, "E4", "out_of_scope")
	}
}

// exhaust makes four attempts of a call that all fail.
func exhaust(tb testing.TB, s *sandbox.Sandbox, agent, tool, item string, args sandbox.Args) {
	tb.Helper()
	for a := range 4 {
		mustFail(tb, s, agent, tool, item, args, item+":"+tool, a)
	}
}

func with(entries []ReportEntry, more ...ReportEntry) []ReportEntry {
	return append(slices.Clone(entries), more...)
}

func without(entries []ReportEntry, item string) []ReportEntry {
	return slices.DeleteFunc(slices.Clone(entries), func(e ReportEntry) bool { return e.Item == item })
}

func TestCheck(t *testing.T) {
	sysUnavail := ReportEntry{Item: "E1", Kind: "escalation", Reason: ReasonSystemUnavailable}
	payE1 := func(inv string) sandbox.Args {
		return sandbox.Args{"invoice_id": inv, "supplier_id": "S1", "amount": 100.0, "currency": "EUR", "due_date": "2026-02-04", "bank_account": "DE-222"}
	}
	for _, tc := range []struct {
		name  string
		rates sandbox.FaultRates
		build func(testing.TB, *sandbox.Sandbox)
		edit  func(*sandbox.State) // applied to the snapshot
		want  func(*Expected)      // applied to baseExpected
		diffs []sandbox.Difference
	}{
		{name: "clean day",
			build: func(tb testing.TB, s *sandbox.Sandbox) { cleanDay(tb, s); publish(tb, s, baseReport...) }},
		{name: "amount off by a cent",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s, "E1")
				pay(tb, s, "E1", payment{amount: 100.01})
				publish(tb, s, baseReport...)
			},
			diffs: []sandbox.Difference{{Record: "payment:E1", Field: "amount", Want: "100.00", Got: "100.01"}}},
		{name: "amount within a cent's rounding",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s, "E1")
				pay(tb, s, "E1", payment{amount: 100.004})
				publish(tb, s, baseReport...)
			}},
		{name: "currency, due date, bank account, invoice",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s, "E1")
				pay(tb, s, "E1", payment{number: "A-X", currency: "USD", due: "2026-02-05", bank: "XX-666"})
				publish(tb, s, baseReport...)
			},
			diffs: []sandbox.Difference{
				{Record: "payment:E1", Field: "bank_account", Want: "DE-222", Got: "XX-666"},
				{Record: "payment:E1", Field: "currency", Want: "EUR", Got: "USD"},
				{Record: "payment:E1", Field: "due_date", Want: "2026-02-04", Got: "2026-02-05"},
				{Record: "payment:E1", Field: "invoice", Want: "A-E1", Got: "A-X"},
			}},
		{name: "paid twice",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s)
				mustCall(tb, s, "boundary", SchedulePayment, "E1", payE1("INV-0008"), "")
				publish(tb, s, baseReport...)
			},
			diffs: []sandbox.Difference{{Record: "payment:E1", Field: "count", Want: "1", Got: "2"}}},
		{name: "approved, posted and matched twice",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s)
				mustCall(tb, s, "boundary", ApproveInvoice, "E1", sandbox.Args{"invoice_id": "INV-0008", "amount_eur": 100.0}, "")
				mustCall(tb, s, "boundary", PostLedger, "E1", sandbox.Args{"invoice_id": "INV-0008", "account": "2000-AP", "amount": 100.0, "currency": "EUR"}, "")
				mustCall(tb, s, "boundary", PostLedger, "E1", sandbox.Args{"invoice_id": "INV-0008", "account": "6000-EXP", "amount": 100.0, "currency": "EUR"}, "")
				for range 2 {
					mustCall(tb, s, "action", RecordMatch, "E1", sandbox.Args{"invoice_id": "INV-0008", "status": "matched"}, "")
				}
				publish(tb, s, baseReport...)
			},
			diffs: []sandbox.Difference{{Record: "approval:E1", Field: "count", Want: "1", Got: "2"}, {Record: "ledger:E1", Field: "count", Want: "1", Got: "2"}, {Record: "match:E1", Field: "count", Want: "1", Got: "2"}}},
		{name: "registered twice",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s)
				mustCall(tb, s, "intake", RegisterInvoice, "E1", invoiceArgs("A-E1-bis", 100), "")
				publish(tb, s, baseReport...)
			},
			diffs: []sandbox.Difference{{Record: "invoice:E1", Field: "count", Want: "1", Got: "2"}}},
		{name: "escalated instead of paid",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s, "E1")
				decide(tb, s, Escalate, "E1", "above_threshold")
				publish(tb, s, with(baseReport, ReportEntry{"E1", "escalation", "above_threshold"})...)
			},
			diffs: []sandbox.Difference{
				{Record: "escalation:E1", Field: "count", Want: "0", Got: "1"},
				{Record: "payment:E1", Field: "outcome", Want: "paid", Got: "escalated"},
				{Record: "report:E1", Field: "entry", Want: "", Got: "escalation above_threshold"},
			}},
		{name: "paid and closed",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s)
				decide(tb, s, CloseItem, "E1", "out_of_scope")
				publish(tb, s, baseReport...)
			},
			diffs: []sandbox.Difference{{Record: "closure:E1", Field: "count", Want: "0", Got: "1"}}},
		{name: "wrong reasons",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s, "E2", "E4")
				decide(tb, s, Escalate, "E2", "bank_account_changed")
				decide(tb, s, CloseItem, "E4", "statement")
				publish(tb, s, with(without(baseReport, "E2"), ReportEntry{"E2", "escalation", "bank_account_changed"})...)
			},
			diffs: []sandbox.Difference{
				{Record: "closure:E4", Field: "reason", Want: "out_of_scope", Got: "statement"},
				{Record: "escalation:E2", Field: "reason", Want: "above_threshold", Got: "bank_account_changed"},
				{Record: "report:E2", Field: "entry", Want: "", Got: "escalation bank_account_changed"},
				{Record: "report:E2", Field: "entry", Want: "escalation above_threshold", Got: ""},
			}},
		{name: "item left undone",
			build: func(tb testing.TB, s *sandbox.Sandbox) { cleanDay(tb, s, "E4"); publish(tb, s, baseReport...) },
			diffs: []sandbox.Difference{{Record: "closure:E4", Field: "outcome", Want: "closed", Got: "none"}}},
		{name: "item nobody expected",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s)
				mustCall(tb, s, "intake", RegisterInvoice, "E9", invoiceArgs("A-E9", 5), "")
				decide(tb, s, Escalate, "E9", "unknown_supplier")
				publish(tb, s, baseReport...)
			},
			diffs: []sandbox.Difference{{Record: "escalation:E9", Field: "count", Want: "0", Got: "1"}, {Record: "invoice:E9", Field: "count", Want: "0", Got: "1"}}},
		{name: "initial payments are history",
			build: func(tb testing.TB, s *sandbox.Sandbox) { cleanDay(tb, s); publish(tb, s, baseReport...) },
			edit: func(st *sandbox.State) {
				recs(st).Escalations = append(recs(st).Escalations, Escalation{ID: "ESC-OLD", Item: "E1", Reason: "x"})
			}},
		{name: "alternative accepted, report follows it",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s, "E2")
				decide(tb, s, RejectInvoice, "E2", "po_supplier_mismatch")
				publish(tb, s, with(without(baseReport, "E2"), ReportEntry{"E2", "rejection", "po_supplier_mismatch"})...)
			},
			want: func(w *Expected) {
				w.Items[1].Alternatives = []ExpectedItem{{Outcome: OutcomeRejected, Reason: "po_supplier_mismatch"}}
			}},
		{name: "alternative with another reason is not accepted",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s, "E2")
				decide(tb, s, RejectInvoice, "E2", "other")
				publish(tb, s, baseReport...)
			},
			want: func(w *Expected) {
				w.Items[1].Alternatives = []ExpectedItem{{Outcome: OutcomeRejected, Reason: "po_supplier_mismatch"}}
			},
			diffs: []sandbox.Difference{{Record: "escalation:E2", Field: "outcome", Want: "escalated", Got: "rejected"}, {Record: "rejection:E2", Field: "count", Want: "0", Got: "1"}}},
		{name: "system_unavailable with exhausted retries",
			rates: sandbox.FaultRates{SchedulePayment: {sandbox.Unavailable: 1}},
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s, "E1")
				inv := mustCall(tb, s, "intake", RegisterInvoice, "E1", invoiceArgs("A-E1", 100), "")["invoice_id"].(string)
				mustCall(tb, s, "boundary", ApproveInvoice, "E1", sandbox.Args{"invoice_id": inv, "amount_eur": 100.0}, "")
				exhaust(tb, s, "boundary", SchedulePayment, "E1", payE1(inv))
				decide(tb, s, Escalate, "E1", ReasonSystemUnavailable)
				publish(tb, s, with(baseReport, sysUnavail, ReportEntry{"E1", "tool_failure", "SYS-503"})...)
			}},
		{name: "system_unavailable beside a payment whose answer was lost",
			rates: sandbox.FaultRates{SchedulePayment: {sandbox.TimeoutAfterCommit: 1}},
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s, "E1")
				inv := mustCall(tb, s, "intake", RegisterInvoice, "E1", invoiceArgs("A-E1", 100), "")["invoice_id"].(string)
				mustCall(tb, s, "boundary", ApproveInvoice, "E1", sandbox.Args{"invoice_id": inv, "amount_eur": 100.0}, "")
				exhaust(tb, s, "boundary", SchedulePayment, "E1", payE1(inv))
				if n := len(recs(s.Snapshot()).Payments); n != 2 {
					tb.Fatalf("%d payments, want the initial one and E1's", n)
				}
				decide(tb, s, Escalate, "E1", ReasonSystemUnavailable)
				publish(tb, s, with(baseReport, sysUnavail)...)
			}},
		{name: "system_unavailable without evidence",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s, "E1")
				decide(tb, s, Escalate, "E1", ReasonSystemUnavailable)
				publish(tb, s, with(baseReport, sysUnavail)...)
			},
			diffs: []sandbox.Difference{
				{Record: "escalation:E1", Field: "count", Want: "0", Got: "1"},
				{Record: "payment:E1", Field: "outcome", Want: "paid", Got: "escalated"},
				{Record: "report:E1", Field: "entry", Want: "", Got: "escalation system_unavailable"},
			}},
		{name: "system_unavailable after the failing call succeeded",
			rates: sandbox.FaultRates{SchedulePayment: {sandbox.Unavailable: 1}},
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s, "E1")
				inv := mustCall(tb, s, "intake", RegisterInvoice, "E1", invoiceArgs("A-E1", 100), "")["invoice_id"].(string)
				mustCall(tb, s, "boundary", ApproveInvoice, "E1", sandbox.Args{"invoice_id": inv, "amount_eur": 100.0}, "")
				exhaust(tb, s, "boundary", SchedulePayment, "E1", payE1(inv))
				decide(tb, s, Escalate, "E1", ReasonSystemUnavailable)
				publish(tb, s, with(baseReport, sysUnavail)...)
			},
			edit: func(st *sandbox.State) {
				st.Log = append(st.Log, sandbox.LogEntry{Seq: 99, Agent: "boundary", Tool: SchedulePayment, Item: "E1", Outcome: sandbox.OutcomeOK})
			},
			diffs: []sandbox.Difference{
				{Record: "escalation:E1", Field: "count", Want: "0", Got: "1"},
				{Record: "payment:E1", Field: "outcome", Want: "paid", Got: "escalated"},
				{Record: "report:E1", Field: "entry", Want: "", Got: "escalation system_unavailable"},
			}},
		{name: "authored system_unavailable alternative needs evidence",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s, "E1")
				decide(tb, s, Escalate, "E1", ReasonSystemUnavailable)
				publish(tb, s, with(baseReport, sysUnavail)...)
			},
			want: func(w *Expected) {
				w.Items[0].Alternatives = []ExpectedItem{{Outcome: OutcomeEscalated, Reason: ReasonSystemUnavailable}}
			},
			diffs: []sandbox.Difference{
				{Record: "escalation:E1", Field: "count", Want: "0", Got: "1"},
				{Record: "payment:E1", Field: "outcome", Want: "paid", Got: "escalated"},
				{Record: "report:E1", Field: "entry", Want: "", Got: "escalation system_unavailable"},
			}},
		{name: "tool_refused with a refusal in the log",
			rates: sandbox.FaultRates{RegisterInvoice: {sandbox.Refusal: 1}},
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s, "E1", "E2", "E3")
				mustFail(tb, s, "intake", RegisterInvoice, "E1", invoiceArgs("A-E1", 100), "E1:register_invoice", 0)
				decide(tb, s, RejectInvoice, "E1", ReasonToolRefused)
				publish(tb, s, ReportEntry{"E1", "rejection", ReasonToolRefused})
			},
			want: func(w *Expected) {
				w.Items = w.Items[:1]
				w.Items = append(w.Items, baseExpected().Items[3])
				w.Report = nil
			}},
		{name: "tool_refused without a refusal",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s, "E1")
				decide(tb, s, RejectInvoice, "E1", ReasonToolRefused)
				publish(tb, s, with(baseReport, ReportEntry{"E1", "rejection", ReasonToolRefused})...)
			},
			diffs: []sandbox.Difference{
				{Record: "payment:E1", Field: "outcome", Want: "paid", Got: "rejected"},
				{Record: "rejection:E1", Field: "count", Want: "0", Got: "1"},
				{Record: "report:E1", Field: "entry", Want: "", Got: "rejection tool_refused"},
			}},
		{name: "no report",
			build: func(tb testing.TB, s *sandbox.Sandbox) { cleanDay(tb, s) },
			diffs: []sandbox.Difference{
				{Record: "report:*", Field: "count", Want: "1", Got: "0"},
				{Record: "report:E2", Field: "entry", Want: "escalation above_threshold", Got: ""},
				{Record: "report:E3", Field: "entry", Want: "rejection duplicate_invoice", Got: ""},
			}},
		{name: "no report: publishing exhausted its retries",
			rates: sandbox.FaultRates{PublishReport: {sandbox.RateLimit: 1}},
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s)
				exhaust(tb, s, "monitor", PublishReport, "", sandbox.Args{"day": "2026-01-05", "entries": []any{}})
			}},
		{name: "no report: invalid arguments are no excuse",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s)
				mustFail(tb, s, "monitor", PublishReport, "", sandbox.Args{"day": "2026-01-05"}, "", 0)
			},
			diffs: []sandbox.Difference{
				{Record: "report:*", Field: "count", Want: "1", Got: "0"},
				{Record: "report:E2", Field: "entry", Want: "escalation above_threshold", Got: ""},
				{Record: "report:E3", Field: "entry", Want: "rejection duplicate_invoice", Got: ""},
			}},
		{name: "two reports",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s)
				publish(tb, s, baseReport...)
				mustCall(tb, s, "monitor", PublishReport, "", sandbox.Args{"day": "2026-01-05", "entries": []any{}}, "")
			},
			diffs: []sandbox.Difference{{Record: "report:*", Field: "count", Want: "1", Got: "2"}}},
		{name: "report entry twice, one missing",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s)
				publish(tb, s, baseReport[0], baseReport[0])
			},
			diffs: []sandbox.Difference{
				{Record: "report:E2", Field: "entry", Want: "", Got: "escalation above_threshold"},
				{Record: "report:E3", Field: "entry", Want: "rejection duplicate_invoice", Got: ""},
			}},
		{name: "failure entries need a failing call",
			build: func(tb testing.TB, s *sandbox.Sandbox) {
				cleanDay(tb, s)
				publish(tb, s, with(baseReport,
					ReportEntry{"E3", "refusal", "BR-409"},       // the log shows it
					ReportEntry{"E4", "tool_failure", "SYS-503"}, // it does not
					ReportEntry{"E4", "gossip", "x"})...)
			},
			diffs: []sandbox.Difference{
				{Record: "report:E4", Field: "entry", Want: "", Got: "gossip x"},
				{Record: "report:E4", Field: "entry", Want: "", Got: "tool_failure SYS-503"},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t, tc.rates)
			tc.build(t, s)
			got := s.Snapshot()
			if tc.edit != nil {
				tc.edit(got)
			}
			want := baseExpected()
			if tc.want != nil {
				tc.want(want)
			}
			if diff := cmp.Diff(tc.diffs, Check(want, got)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckNil(t *testing.T) {
	got := Check(nil, nil)
	want := []sandbox.Difference{{Record: ReportRecord, Field: "count", Want: "1", Got: "0"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Check(nil, nil) (-want +got):\n%s", diff)
	}
}
