package contracts_test

import (
	"fmt"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/mission/invoice"
)

func Example() {
	set, err := contracts.LoadFS(invoice.Spec().Contracts, "mission/invoice/contracts")
	if err != nil {
		panic(err)
	}
	// A decision message whose producer claims the item is already with a
	// person but names no ticket, and approved an invoice above the
	// threshold.
	msg := []byte(`{"id":"m-E7-boundary->monitor-1","edge":"boundary->monitor","kind":"decision.made",
	  "schema_version":"1.0","idempotency_key":"E7:decision.made","next_owner":["monitor"],
	  "escalation":"escalated","escalation_ref":"","item":"E7",
	  "payload":{"email_id":"E7","invoice_number":"INV-7","supplier_id":"S-1","decision":"approved",
	    "reason":"","currency":"GBP","gross":9000,"amount_eur":10530,"payment_id":"P-1","escalation_id":""}}`)
	for _, level := range contracts.AllLevels {
		vs := set.Check("boundary->monitor", msg, level)
		fmt.Printf("%s: %d violation(s)\n", level, len(vs))
		for _, v := range vs {
			fmt.Printf("  %s/%s %s: want %s, got %s\n", v.Level, v.Rule, v.Field, v.Expected, v.Got)
		}
	}
	// Output:
	// schema: 0 violation(s)
	// ownership: 1 violation(s)
	//   ownership/escalation-ref escalation_ref: want the ticket of the escalation, got ""
	// semantic: 2 violation(s)
	//   ownership/escalation-ref escalation_ref: want the ticket of the escalation, got ""
	//   semantic/approved-within-threshold payload.amount_eur: want payload.decision != "approved" || payload.amount_eur <= threshold, got payload.decision="approved" payload.amount_eur=10530
}
