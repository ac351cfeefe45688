package mutants

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/sandbox"
)

func TestChangeApply(t *testing.T) {
	for _, c := range []struct {
		name    string
		change  Change
		in      any
		want    any
		changed bool
	}{
		{"digit", ChangeLeadingDigit, 2725.10, 3725.10, true},
		{"digit nine", ChangeLeadingDigit, 9000.0, 8000.0, true},
		{"digit fraction", ChangeLeadingDigit, 0.05, 0.06, true},
		{"digit negative", ChangeLeadingDigit, -120.0, -220.0, true},
		{"digit zero", ChangeLeadingDigit, 0.0, 1.0, true},
		{"digit int", ChangeLeadingDigit, 15, 25.0, true},
		{"digit not a number", ChangeLeadingDigit, "15", "15", false},
		{"day", ChangeNextDay, "2025-02-28", "2025-03-01", true},
		{"day unreadable", ChangeNextDay, "28/02/2025", "28/02/2025", false},
		{"currency EUR", ChangeSwapCurrency, "EUR", "USD", true},
		{"currency other", ChangeSwapCurrency, "GBP", "EUR", true},
		{"id down", ChangeNeighbourID, "SUP-005", "SUP-004", true},
		{"id one goes up", ChangeNeighbourID, "SUP-001", "SUP-002", true},
		{"id zero goes up", ChangeNeighbourID, "SUP-000", "SUP-001", true},
		{"id borrows", ChangeNeighbourID, "PO-10100", "PO-10099", true},
		{"id last run", ChangeNeighbourID, "INV-2025-0402", "INV-2025-0401", true},
		{"id short", ChangeNeighbourID, "E1", "E2", true},
		{"id long", ChangeNeighbourID, "DE89370400440532013000", "DE89370400440532012999", true},
		{"id trailing letters", ChangeNeighbourID, "FR1420041010050500013M02606", "FR1420041010050500013M02605", true},
		{"id no digit", ChangeNeighbourID, "abc", "abc", false},
		{"negate", ChangeNegate, true, false, true},
		{"negate not a bool", ChangeNegate, "true", "true", false},
		{"drop last", ChangeDropLast, []any{"a", "b"}, []any{"a"}, true},
		{"drop last empty", ChangeDropLast, []any{}, []any{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, changed := c.change.apply(c.in)
			if diff := cmp.Diff(c.want, got); diff != "" || changed != c.changed {
				t.Errorf("apply(%v) = %v, %v; want %v, %v (-want +got):\n%s", c.in, got, changed, c.want, c.changed, diff)
			}
		})
	}
}

// TestPerturbSeam: the seam reaches every call of its agent's tool and
// changes the argument it names, leaving others and other tools alone.
func TestPerturbSeam(t *testing.T) {
	m := &Mutant{ID: "p", Class: Control, Operator: "perturb_tool_arg", Agent: "boundary", Tool: invoice.SchedulePayment,
		Arg: "amount", Change: string(ChangeLeadingDigit), Description: "d"}
	o := &mission.Oracle{}
	s, err := m.Seams(invoice.Spec(), o)
	if err != nil {
		t.Fatal(err)
	}
	args := sandbox.Args{"amount": 120.0, "currency": "EUR"}
	s.ToolArgs(invoice.Boundary, invoice.SchedulePayment, "E1", args)
	if diff := cmp.Diff(sandbox.Args{"amount": 220.0, "currency": "EUR"}, args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	s.ToolArgs(invoice.Boundary, invoice.SchedulePayment, "E1", sandbox.Args{"currency": "EUR"}) // reached, no amount
	other := sandbox.Args{"amount": 120.0}
	s.ToolArgs(invoice.Boundary, invoice.PostLedger, "E1", other)
	s.ToolArgs(invoice.Intake, invoice.SchedulePayment, "E1", other)
	if other["amount"] != 120.0 {
		t.Errorf("another tool's or agent's call changed: %v", other)
	}
	if o.Reached != 2 {
		t.Errorf("reached %d, want 2", o.Reached)
	}
}

func TestPerturbValidate(t *testing.T) {
	spec := invoice.Spec()
	for _, c := range []struct {
		name string
		m    Mutant
		want string
	}{
		{"unknown change", Mutant{Tool: invoice.SchedulePayment, Arg: "amount", Change: "twice"}, `change: unknown change "twice"`},
		{"wrong type", Mutant{Tool: invoice.SchedulePayment, Arg: "currency", Change: "leading_digit"}, "change: leading_digit changes a number, and schedule_payment's currency is a string"},
		{"unknown arg", Mutant{Tool: invoice.SchedulePayment, Arg: "amnt", Change: "leading_digit"}, `arg: schedule_payment takes no argument "amnt"`},
		{"not permitted", Mutant{Tool: invoice.RegisterInvoice, Arg: "gross", Change: "leading_digit"}, `tool: agent boundary may not call "register_invoice"`},
		{"missing change", Mutant{Tool: invoice.SchedulePayment, Arg: "amount"}, "change: missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := c.m
			m.ID, m.Class, m.Operator, m.Agent, m.Description = "p", Control, "perturb_tool_arg", "boundary", "d"
			errs := m.Validate(spec)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if len(got) == 0 || !strings.HasPrefix(got[0], c.want) {
				t.Errorf("errors %q, want one starting %q", got, c.want)
			}
		})
	}
}
