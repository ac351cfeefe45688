package mission_test

import (
	"fmt"

	"github.com/baton-lab/baton/mission"
)

// A seam changes a decoded message through its methods; the message other
// parsers share stays as it was.
func ExampleMessage() {
	shared, err := mission.DecodeMessage([]byte(`{"payload":{"currency":"USD","net":100},"escalation":"none"}`))
	if err != nil {
		panic(err)
	}
	msg := shared.Clone() // what a seam is handed
	if p := msg.Object("payload"); p != nil {
		p.Delete("currency")
		p.Set("net", 10000.0)
	}
	changed, _ := msg.MarshalJSON()
	orig, _ := shared.MarshalJSON()
	fmt.Println(string(changed))
	fmt.Println(string(orig))
	// Output:
	// {"escalation":"none","payload":{"net":10000}}
	// {"escalation":"none","payload":{"currency":"USD","net":100}}
}
