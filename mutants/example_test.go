package mutants_test

import (
	"fmt"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mutants"
)

func ExampleParse() {
	c, err := mutants.Parse("my-mutants.yaml", []byte(`mutants:
  - id: my-drop-tax
    class: context_loss
    operator: drop_field
    edge: intake->action
    field: tax
    description: the new extractor no longer forwards tax
`), invoice.Spec())
	if err != nil {
		fmt.Println(err)
		return
	}
	m := c.Mutants[0]
	fmt.Println(m.ID, m.Class, m.Location(), m.Source)

	oracle := &mission.Oracle{}
	build := m.Switch(oracle) // run it like any build; oracle.Reached counts what it changed
	_ = build
	// Output: my-drop-tax context_loss intake->action my-mutants.yaml:2
}

func ExampleParse_error() {
	_, err := mutants.Parse("my-mutants.yaml", []byte(`mutants:
  - id: my-drop-po
    class: context_loss
    operator: drop_field
    edge: boundary->monitor
    field: po_number
`), invoice.Spec())
	fmt.Println(err)
	// Output: my-mutants.yaml:6:12: my-drop-po.field: edge boundary->monitor (decision.made) carries no payload field "po_number" (it carries email_id, invoice_number, supplier_id, decision, reason, currency, gross, amount_eur, payment_id, escalation_id)
}
