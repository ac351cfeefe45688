package invoice

import (
	"encoding/json"
	"testing"

	"github.com/baton-lab/baton/sandbox"
)

// FuzzCall feeds arbitrary JSON arguments to every tool: a call never
// panics, answers either a result or an *sandbox.Error with a known code, and logs
// exactly one entry.
func FuzzCall(f *testing.F) {
	f.Add(uint8(2), `{"supplier_id":"S1","number":"A-1","currency":"EUR","gross":10}`)
	f.Add(uint8(8), `{"invoice_id":"INV-0007","supplier_id":"S1","amount":1,"currency":"EUR","due_date":"x","bank_account":"y"}`)
	f.Add(uint8(12), `{"day":"d","entries":[{"item":"E1","kind":"k","reason":1}]}`)
	f.Add(uint8(0), `{"email":null,"name":["x"]}`)
	f.Add(uint8(5), `{"invoice_id":"INV-0007","status":"matched","variance":"1e999"}`)
	f.Fuzz(func(t *testing.T, tool uint8, raw string) {
		var args sandbox.Args
		if json.Unmarshal([]byte(raw), &args) != nil {
			return
		}
		name := toolNames[int(tool)%len(toolNames)]
		tl, _ := spec().Tools.Tool(name)
		agent := tl.Agents[0]
		s := sandbox.New(spec().Tools, fixtureState(), sandbox.Config{Faults: allFaults(0.3)}, sandbox.NewDice(uint64(len(raw))), nil)
		res, err := s.Call(agent, name, "E1", args, "k", 0)
		if n := len(s.Snapshot().Log); n != 1 {
			t.Fatalf("%d log entries after one call", n)
		}
		if err == nil {
			if res == nil {
				t.Fatalf("nil result without error")
			}
			return
		}
		e, ok := sandbox.AsError(err)
		if !ok || sandbox.CodeKind(e.Code) != e.Kind {
			t.Fatalf("error %#v: want an *sandbox.Error whose code matches its kind", err)
		}
	})
}
