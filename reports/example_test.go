package reports_test

import (
	"fmt"

	"github.com/baton-lab/baton/reports"
)

func ExampleWilson() {
	lo, hi := reports.Wilson(81, 263)
	fmt.Printf("%.4f–%.4f\n", lo, hi)
	// Output: 0.2553–0.3662
}

func ExamplePassKCurve() {
	// 4 trials, 2 passed: pass^1 = 1/2, pass^2 = C(2,2)/C(4,2) = 1/6.
	fmt.Println(reports.F4(reports.PassKCurve(4, 2)[0]), reports.F4(reports.PassKCurve(4, 2)[1]))
	// Output: 0.5 0.1667
}

func ExampleAggregator() {
	a := reports.NewAggregator(reports.Config{Designs: []string{"A"}})
	// Every clean item first: the clean twin flags S02 (an intrinsic slip).
	a.Add(reports.Item{Build: "clean", Design: "A", Scenario: "S01"})
	a.Add(reports.Item{Build: "clean", Design: "A", Scenario: "S02", Flagged: true})
	// The mutant's suite run flags both: only S01 is evidence about it.
	m := reports.Item{Build: "m1", Class: "context_loss", Location: "intake->action", Design: "A", Flagged: true,
		Blame: []string{"intake->action"}}
	m.Scenario = "S01"
	a.Add(m)
	m.Scenario = "S02"
	a.Add(m)
	d := a.Results().Detection[0]
	fmt.Printf("%s %s: detected %d/%d %v\n", d.Design, d.Class, d.Detected, d.N, d.CI95)
	// Output: A context_loss: detected 1/1 [0.2065 1]
}
