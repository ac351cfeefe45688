package experiment_test

import (
	"fmt"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
)

func ExampleParseProtocol() {
	// The missions this program runs; the first is the default.
	missions, err := mission.NewRegistry(invoice.New())
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := experiment.ParseProtocol([]byte("name: quick\ntrials: 3\nscenarios:\n  ids: [S01, S02]\n"), "quick.yaml", "", missions)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Name, p.Trials, p.Scenarios.IDs, p.Designs, p.Contracts.Level)

	_, err = experiment.ParseProtocol([]byte("trials: 0\nprofile:\n  intake:\n    misread: 1.5\n"), "bad.yaml", "", missions)
	fmt.Println(err)
	// Output:
	// quick 3 [S01 S02] [A A.wire A.recorded B C C.schema D] semantic
	// bad.yaml:1:9: trials: 0: want at least 1
	// bad.yaml:4:14: profile.intake.misread: 1.5: want a probability in [0, 1]
}

func ExampleItemID() {
	id := experiment.ItemID("cl-intake-action-currency", "C", "S14", 2)
	fmt.Println(id)
	fmt.Println(experiment.ItemID("clean", "", "S01", 1))
	fmt.Println(experiment.TraceFile("out/run", id))
	// Output:
	// cl-intake-action-currency/C/S14/2
	// clean/obs/S01/1
	// out/run/traces/cl-intake-action-currency_C_S14_2.jsonl
}
