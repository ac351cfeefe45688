package invoice

import (
	"testing"

	"github.com/baton-lab/baton/sandbox"
)

// benchRates are fault rates of the order a protocol sets: a few percent of
// calls fail in some way.
var benchRates = sandbox.FaultRates{"*": {
	sandbox.TimeoutBeforeCommit: 0.01, sandbox.TimeoutAfterCommit: 0.01, sandbox.Refusal: 0.005,
	sandbox.Unavailable: 0.02, sandbox.RateLimit: 0.01, sandbox.Latency: 0.05,
}}

func BenchmarkCall(b *testing.B) {
	items := make([]string, 256)
	for i := range items {
		items[i] = "E" + itoa(i)
	}
	for _, bc := range []struct {
		name  string
		rates sandbox.FaultRates
		agent string
		tool  string
		args  sandbox.Args
		key   bool
	}{
		{"read", nil, "boundary", LookupSupplier, sandbox.Args{"supplier_id": "S1"}, false},
		{"read/faults", benchRates, "boundary", LookupSupplier, sandbox.Args{"supplier_id": "S1"}, false},
		{"write", nil, "boundary", Escalate, sandbox.Args{"item": "E1", "reason": "above_threshold"}, true},
		{"write/faults", benchRates, "boundary", Escalate, sandbox.Args{"item": "E1", "reason": "above_threshold"}, true},
		{"forbidden", nil, "monitor", SchedulePayment, sandbox.Args{}, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			initial := fixtureState()
			s := sandbox.New(spec().Tools, initial, sandbox.Config{Faults: bc.rates}, sandbox.NewDice(1), nil)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if i == len(items) { // a run makes a few hundred calls at most
					s, i = sandbox.New(spec().Tools, initial, sandbox.Config{Faults: bc.rates}, sandbox.NewDice(1), nil), 0
				}
				key := ""
				if bc.key {
					key = items[i] + ":" + bc.tool
				}
				s.Call(bc.agent, bc.tool, items[i], bc.args, key, 0)
				i++
			}
		})
	}
}

// BenchmarkItem is one paid item end to end on a fresh sandbox: sandbox.New and
// register, approve, post and pay.
func BenchmarkItem(b *testing.B) {
	initial := fixtureState()
	b.ReportAllocs()
	for b.Loop() {
		s := sandbox.New(spec().Tools, initial, sandbox.Config{Faults: benchRates}, sandbox.NewDice(1), nil)
		pay(b, s, "E1", payment{key: true})
	}
}

func BenchmarkNew(b *testing.B) {
	initial := fixtureState()
	b.ReportAllocs()
	for b.Loop() {
		sandbox.New(spec().Tools, initial, sandbox.Config{Faults: benchRates}, sandbox.NewDice(1), nil)
	}
}

func BenchmarkSnapshot(b *testing.B) {
	s := newSandbox(b, nil)
	cleanDay(b, s)
	publish(b, s, baseReport...)
	b.ReportAllocs()
	for b.Loop() {
		s.Snapshot()
	}
}

func BenchmarkCheck(b *testing.B) {
	s := newSandbox(b, nil)
	cleanDay(b, s)
	publish(b, s, baseReport...)
	got, want := s.Snapshot(), baseExpected()
	if d := Check(want, got); len(d) != 0 {
		b.Fatalf("clean day differs: %v", d)
	}
	b.ReportAllocs()
	for b.Loop() {
		Check(want, got)
	}
}
