package invoice

import (
	"testing"

	"github.com/baton-lab/baton/mission"
)

// BenchmarkRun is one whole mission run: a one-email day (T1) and a
// four-email day (T2), clean build, default protocol faults. Each run's
// trace goes back to later runs, as a sweep's do.
func BenchmarkRun(b *testing.B) {
	for _, id := range []string{"T1", "T2"} {
		b.Run(id, func(b *testing.B) {
			sc := scenarioByID(b, id)
			m := New()
			env := mission.Env{Faults: protocolFaults}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				mustRun(m, mission.Clean(), sc, uint64(i), env).Trace.Recycle()
			}
		})
	}
}

// BenchmarkRunSuite runs every default scenario once per iteration.
func BenchmarkRunSuite(b *testing.B) {
	scs, _, err := DefaultScenarios()
	if err != nil {
		b.Fatal(err)
	}
	m := New()
	env := mission.Env{Faults: protocolFaults}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for _, sc := range scs {
			mustRun(m, mission.Clean(), sc, uint64(i), env)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(scs)), "ns/scenario")
}

// BenchmarkRunCore runs one agent's core alone on its golden input,
// handing each trace back as a sweep does.
func BenchmarkRunCore(b *testing.B) {
	sc := scenarioByID(b, "T2")
	goldens, err := recordGolden(New(), sc)
	if err != nil {
		b.Fatal(err)
	}
	for _, agent := range spec().AgentNames() {
		var g mission.Golden
		for _, x := range goldens {
			if x.Agent == agent {
				g = x // the last item's
			}
		}
		b.Run(string(agent), func(b *testing.B) {
			m := New()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				mustRunCore(m, mission.Clean(), agent, sc, g.Input, uint64(i), mission.Env{}).Trace.Recycle()
			}
		})
	}
}

// BenchmarkEmitParse is one hand-off: emit a result and parse it.
func BenchmarkEmitParse(b *testing.B) {
	sc := scenarioByID(b, "T1")
	goldens, err := recordGolden(New(), sc)
	if err != nil {
		b.Fatal(err)
	}
	emitParse(b, New(), mission.Clean(), goldens[0])
}

// emitParse emits g's result on intake->action with build and parses it,
// b.N times.
func emitParse(b *testing.B, m mission.Mission, build mission.Build, g mission.Golden) {
	b.ReportAllocs()
	for b.Loop() {
		raw, err := m.Emit(build, IntakeToAction, g.Item, g.Result)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Parse(build, IntakeToAction, raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEmitParseSeams is one hand-off on a build whose seam changes
// it: an emitter that drops a payload field, a parser that rewrites the
// escalation flag (on a decoded message all parses share).
func BenchmarkEmitParseSeams(b *testing.B) {
	sc := scenarioByID(b, "T1")
	goldens, err := recordGolden(New(), sc)
	if err != nil {
		b.Fatal(err)
	}
	g := goldens[0]
	for _, bc := range []struct {
		name  string
		seams hook
	}{
		{"emit", hook{emit: func(_ mission.Edge, msg *mission.Message) {
			if p := msg.Object("payload"); p != nil {
				p.Delete("currency")
			}
		}}},
		{"parse", hook{parse: func(_ mission.Edge, msg *mission.Message) { msg.Set("escalation", mission.EscalationEscalated) }}},
	} {
		b.Run(bc.name, func(b *testing.B) { emitParse(b, New(), mission.NewBuild(bc.seams, nil), g) })
	}
}
