package triage

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mutants"
)

const minimalScenarioYAML = `scenarios:
  - id: X1
    title: a double charge
    category: typical
    tags: [category:typical, currency:EUR]
    day: 2026-03-02
    initial:
      invoices:
        - {id: INV-1, customer: ana@example.com, amount: 20.00, currency: EUR, charged_twice: true}
    tickets:
      - {id: T1, from: ana@example.com, subject: Double charge, body: I was charged twice on INV-1.}
    expect:
      tickets:
        - {ticket: T1, route: billing, billing: refunded, refunds: [{invoice: INV-1, amount: 20.00, currency: EUR}]}
`

// TestDefaultScenarios: at least 40 scenarios in all six categories, each
// tagged with its category, and with the currency of every refund it
// expects.
func TestDefaultScenarios(t *testing.T) {
	scs, _, err := DefaultScenarios()
	if err != nil {
		t.Fatal(err)
	}
	cats := map[mission.Category]int{}
	for _, sc := range scs {
		cats[sc.Category]++
		if !sc.HasTag("category:" + string(sc.Category)) {
			t.Errorf("%s: no tag category:%s", sc.ID, sc.Category)
		}
		for _, w := range sc.Expect.(*Expected).Tickets {
			for _, r := range w.Refunds {
				if !sc.HasTag("currency:" + r.Currency) {
					t.Errorf("%s: a refund in %s but no tag currency:%s", sc.ID, r.Currency, r.Currency)
				}
			}
		}
	}
	if len(scs) < 40 {
		t.Errorf("%d scenarios, want at least 40", len(scs))
	}
	for _, c := range mission.AllCategories {
		if cats[c] == 0 {
			t.Errorf("no scenario in category %s", c)
		}
	}
}

// TestParseScenariosErrors: a mistake is an error naming file, line and field.
func TestParseScenariosErrors(t *testing.T) {
	tests := []struct{ name, edit, with, want string }{
		{"unknown category", "category: typical", "category: usual", "x.yaml:4: X1.category: unknown category"},
		{"unknown route", "route: billing", "route: sales", "x.yaml:14"},
		{"negative amount", "amount: 20.00, currency: EUR, charged_twice", "amount: -1, currency: EUR, charged_twice", "x.yaml:9"},
		{"unknown key", "charged_twice: true}", "charged_twice: true, colour: red}", "x.yaml:9"},
		{"expected ticket not in the scenario", "- {ticket: T1,", "- {ticket: T9,", "x.yaml:14"},
	}
	if _, err := ParseScenarios("x.yaml", []byte(minimalScenarioYAML)); err != nil {
		t.Fatalf("the minimal scenario does not parse: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := strings.Replace(minimalScenarioYAML, tt.edit, tt.with, 1)
			if data == minimalScenarioYAML {
				t.Fatalf("edit %q does not apply", tt.edit)
			}
			_, err := ParseScenarios("x.yaml", []byte(data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// FuzzParseScenarios: no input makes the parser panic, every error names
// the file, and what it accepts has scenarios.
func FuzzParseScenarios(f *testing.F) {
	f.Add([]byte(minimalScenarioYAML))
	f.Add([]byte("scenarios: []\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		scs, err := ParseScenarios("fuzz.yaml", data)
		if err != nil {
			var se *mission.ScenarioError
			if !strings.Contains(err.Error(), "fuzz.yaml") || !errors.As(err, &se) {
				t.Fatalf("error does not name the file or is not a *ScenarioError: %v", err)
			}
			return
		}
		if len(scs) == 0 {
			t.Fatal("no error and no scenarios")
		}
	})
}

// TestDefaultCatalogue: every defect class, at least three mutants each,
// checked against the mission's spec.
func TestDefaultCatalogue(t *testing.T) {
	cat, err := mutants.Default(Spec())
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, m := range cat.Mutants {
		per[fmt.Sprint(m.Class)]++
	}
	for _, c := range mutants.AllClasses {
		if per[fmt.Sprint(c)] < 3 {
			t.Errorf("class %s: %d mutants, want at least 3", c, per[fmt.Sprint(c)])
		}
	}
}
