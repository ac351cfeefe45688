package designs

import (
	"bytes"
	"context"
	"testing"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/sandbox"
)

// benchEnv is an environment of the order the default protocol sets: a
// few percent of tool calls fail in some way, and agents rarely slip.
var benchEnv = mission.Env{
	Profile: mission.Profile{
		invoice.Intake:   {invoice.Misclassify: 0.001, invoice.Misread: 0.001, mission.Misroute: 0.001},
		invoice.Action:   {mission.Misroute: 0.001},
		invoice.Boundary: {invoice.SkipLookup: 0.001, mission.Misroute: 0.001},
	},
	Faults: sandbox.FaultRates{
		"*": {
			sandbox.TimeoutBeforeCommit: 0.01, sandbox.TimeoutAfterCommit: 0.01,
			sandbox.Unavailable: 0.02, sandbox.RateLimit: 0.01, sandbox.Latency: 0.05,
		},
		"transport": {sandbox.Redelivery: 0.02},
	},
}

// BenchmarkEvaluate is one verdict of each design on one (build,
// scenario, trial): S01, a one-email day, and S43, a three-email day, clean
// build, golden expectations prepared once as a sweep does. Each
// iteration is another trial seed.
func BenchmarkEvaluate(b *testing.B) {
	set, err := invoiceContracts()
	if err != nil {
		b.Fatal(err)
	}
	m := invoice.New()
	for _, id := range []string{"S01", "S43"} {
		sc := scenarioByID(b, id)
		golden, err := PrepareGolden(m, sc)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range All() {
			b.Run(id+"/"+d.ID, func(b *testing.B) {
				in := Input{Mission: m, Build: mission.Clean(), Scenario: sc, Env: benchEnv,
					Contracts: set, Level: contracts.LevelSemantic, Golden: golden}
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					in.Seed = uint64(i)
					d.Evaluate(in)
				}
			})
		}
	}
}

// BenchmarkEmitCheck is one hand-off as design C checks it: an emitter
// packages a core's golden result into wire bytes and the bytes are checked
// against the edge's contract at the semantic level.
func BenchmarkEmitCheck(b *testing.B) {
	set, err := invoiceContracts()
	if err != nil {
		b.Fatal(err)
	}
	m := invoice.New()
	sc := scenarioByID(b, "S01")
	golden, err := PrepareGolden(m, sc)
	if err != nil {
		b.Fatal(err)
	}
	var g mission.Golden
	for _, x := range golden {
		if x.Agent == invoice.Intake {
			g = x
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		raw, err := m.Emit(mission.Clean(), invoice.IntakeToAction, g.Item, g.Result)
		if err != nil {
			b.Fatal(err)
		}
		if vs := set.Check(invoice.IntakeToAction.String(), raw, contracts.LevelSemantic); len(vs) != 0 {
			b.Fatal(vs)
		}
	}
}

// BenchmarkResultVerdict compares an agent's structured result with golden, as
// design A's scorecard does for every agent-item.
func BenchmarkResultVerdict(b *testing.B) {
	m := invoice.New()
	sc := scenarioByID(b, "S01")
	golden, err := PrepareGolden(m, sc)
	if err != nil {
		b.Fatal(err)
	}
	g := golden[0]
	got, err := m.RunCore(context.Background(), mission.Clean(), g.Agent, sc, g.Input, 1, mission.Env{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if resultVerdict(g.Result, got.Result) != resultCorrect {
			b.Fatal("clean core result differs from golden")
		}
	}
}

func scenarioByID(tb testing.TB, id string) *mission.Scenario {
	tb.Helper()
	for _, sc := range scenarios(tb) {
		if sc.ID == id {
			return sc
		}
	}
	tb.Fatalf("no scenario %s", id)
	return nil
}

// BenchmarkAttribute is design D's rules over a clean integrated run of
// S43 (three emails) with every record kind of every item differing: each
// scope a mutated build's end state can open, examined once.
func BenchmarkAttribute(b *testing.B) {
	m := invoice.New()
	run, err := m.Run(context.Background(), mission.Clean(), scenarioByID(b, "S43"), 1, benchEnv)
	if err != nil {
		b.Fatal(err)
	}
	spec := m.Spec()
	var recs []string
	items := map[string]bool{}
	for _, e := range run.Trace.Events {
		if e.Item != "" && !items[e.Item] {
			items[e.Item] = true
			for _, k := range spec.Tools.Kinds() {
				recs = append(recs, k.Name+":"+e.Item)
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		a := newAttributor(spec, run.Trace)
		for _, r := range recs {
			a.record(r)
		}
	}
}

// BenchmarkWireDiff compares an emitted message with the golden one, as
// design A's wire level does for every message: the same bytes (most
// messages of a sweep) and one payload field changed.
func BenchmarkWireDiff(b *testing.B) {
	want := []byte(`{"id":"m1","edge":"intake->action","schema_version":"1","idempotency_key":"E1:intake","next_owner":["action"],` +
		`"escalation":"none","payload":{"supplier":"ACME","invoice_number":"INV-1","currency":"EUR","net":100,"tax":20,"gross":120,` +
		`"lines":[{"sku":"A","qty":2,"price":50}],"due_date":"2026-01-31"}}`)
	changed := bytes.Replace(want, []byte(`"currency":"EUR"`), []byte(`"currency":"USD"`), 1)
	for _, tc := range []struct {
		name string
		got  []byte
	}{{"same", bytes.Clone(want)}, {"changed", changed}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				wireDiff(want, tc.got)
			}
		})
	}
}
