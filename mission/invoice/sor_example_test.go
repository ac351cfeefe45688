package invoice_test

import (
	"fmt"

	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/sandbox"
)

func Example_sandbox() {
	initial := &sandbox.State{Records: &invoice.Records{
		Suppliers: []invoice.Supplier{{ID: "S1", Name: "Acme GmbH", BankAccount: "DE-222", Currency: "EUR"}},
	}}
	// The answer to every escalate call is lost after the write commits.
	cfg := sandbox.Config{Faults: sandbox.FaultRates{invoice.Escalate: {sandbox.TimeoutAfterCommit: 1}}}
	s := sandbox.New(invoice.Spec().Tools, initial, cfg, sandbox.NewDice(1), nil)

	args := sandbox.Args{"item": "E1", "reason": "above_threshold"}
	for attempt := range 2 {
		_, err := s.Call("boundary", invoice.Escalate, "E1", args, "E1:escalate", attempt)
		fmt.Println(err)
	}
	_, err := s.Call("intake", invoice.Escalate, "E1", args, "E1:escalate", 0)
	fmt.Println(err)

	st := s.Snapshot()
	fmt.Println(len(st.Records.(*invoice.Records).Escalations), "escalation")
	for _, e := range st.Log {
		fmt.Printf("%d %dms %s %s %s %s [%s]\n", e.Seq, e.At, e.Agent, e.Tool, e.Outcome, e.Code, e.Effect)
	}
	for _, f := range s.Fired() {
		fmt.Println(f.Kind, f.Attempt)
	}
	// Output:
	// timeout SYS-504: request timed out
	// timeout SYS-504: request timed out
	// forbidden AUTH-403: agent intake may not call escalate
	// 1 escalation
	// 1 20ms boundary escalate error SYS-504 [ESC-0001]
	// 2 40ms boundary escalate error SYS-504 [ESC-0001]
	// 3 60ms intake escalate forbidden AUTH-403 []
	// timeout_after_commit 0
	// timeout_after_commit 1
}

func ExampleCheck() {
	s := sandbox.New(invoice.Spec().Tools, nil, sandbox.Config{}, sandbox.NewDice(1), nil)
	s.Call("boundary", invoice.Escalate, "E1", sandbox.Args{"item": "E1", "reason": "above_threshold"}, "E1:escalate", 0)
	s.Call("boundary", invoice.Escalate, "E1", sandbox.Args{"item": "E1", "reason": "above_threshold"}, "", 0)
	s.Call("monitor", invoice.PublishReport, "", sandbox.Args{"day": "2026-01-05", "entries": []any{
		map[string]any{"item": "E1", "kind": "escalation", "reason": "above_threshold"},
	}}, "report", 0)

	want := &invoice.Expected{
		Items:  []invoice.ExpectedItem{{Item: "E1", Outcome: "paid", Amount: 120, Currency: "EUR"}},
		Report: []invoice.ReportEntry{},
	}
	for _, d := range invoice.Check(want, s.Snapshot()) {
		fmt.Printf("%s %s: want %q, got %q\n", d.Record, d.Field, d.Want, d.Got)
	}
	// Output:
	// escalation:E1 count: want "0", got "2"
	// payment:E1 outcome: want "paid", got "escalated"
	// report:E1 entry: want "", got "escalation above_threshold"
}
