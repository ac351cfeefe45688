package invoice

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

func allGoldens(t *testing.T) map[*mission.Scenario][]mission.Golden {
	t.Helper()
	out := map[*mission.Scenario][]mission.Golden{}
	for _, sc := range testScenarios(t) {
		g, err := recordGolden(New(), sc)
		if err != nil {
			t.Fatalf("recordGolden(%s): %v", sc.ID, err)
		}
		out[sc] = g
	}
	return out
}

// TestEmitParseRoundTrip: the emitter alone reproduces the bytes of the
// integrated run, and the clean parser reads back every field it wrote.
func TestEmitParseRoundTrip(t *testing.T) {
	m := New()
	n := 0
	for sc, goldens := range allGoldens(t) {
		for _, g := range goldens {
			for es, want := range g.Emitted {
				e, err := mission.ParseEdge(es)
				if err != nil {
					t.Fatal(err)
				}
				raw, err := m.Emit(mission.Clean(), e, g.Item, g.Result)
				if err != nil {
					t.Fatalf("%s %s %s: Emit: %v", sc.ID, g.Item, e, err)
				}
				if diff := cmp.Diff(string(want), string(raw)); diff != "" {
					t.Errorf("%s %s %s: Emit differs from the integrated run (-run +emit):\n%s", sc.ID, g.Item, e, diff)
				}
				h, err := m.Parse(mission.Clean(), e, raw)
				if err != nil {
					t.Fatalf("%s %s %s: Parse: %v", sc.ID, g.Item, e, err)
				}
				src := map[string]any(g.Result)
				if e.To == Monitor && e != BoundaryToMonitor {
					src = object(g.Result["exception"])
				}
				for _, f := range spec().PayloadFields(e) {
					if src[f] == "" {
						continue // an empty string reads as the field's default
					}
					if diff := cmp.Diff(normalise(t, src[f]), normalise(t, h.Payload[f])); diff != "" {
						t.Errorf("%s %s %s: field %s (-emitted +parsed):\n%s", sc.ID, g.Item, e, f, diff)
					}
				}
				if h.Item != g.Item || h.Kind != spec().Kind(e) || h.IdempotencyKey != g.Item+":"+spec().Kind(e) ||
					len(h.NextOwner) != 1 || h.NextOwner[0] != string(e.To) || h.SchemaVersion != SchemaVersion {
					t.Errorf("%s %s %s: envelope %+v", sc.ID, g.Item, e, h)
				}
				n++
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d messages round-tripped", n)
	}
}

func normalise(tb testing.TB, v any) any {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestParseDefaults: the parsers' silent fallbacks for missing and
// reformatted fields, on which context-loss and drift defects act.
func TestParseDefaults(t *testing.T) {
	base := func(edge mission.Edge, payload string) []byte {
		return []byte(`{"id":"m-E1","edge":"` + edge.String() + `","kind":"` + spec().Kind(edge) +
			`","schema_version":"1.0","idempotency_key":"E1:k","next_owner":["` + string(edge.To) +
			`"],"escalation":"requested","item":"E1","payload":{` + payload + `}}`)
	}
	tests := []struct {
		name  string
		raw   []byte
		edge  mission.Edge
		field string
		want  any
	}{
		{"currency missing", base(IntakeToAction, `"net":1`), IntakeToAction, "currency", "EUR"},
		{"tax missing", base(IntakeToAction, `"net":1`), IntakeToAction, "tax", 0.0},
		{"po missing", base(IntakeToAction, `"net":1`), IntakeToAction, "po_number", ""},
		{"supplier missing", base(IntakeToAction, `"net":1`), IntakeToAction, "supplier_id", ""},
		{"due from invoice date", base(IntakeToAction, `"invoice_date":"2026-01-31"`), IntakeToAction, "due_date", "2026-03-02"},
		{"due from the day", base(ActionToBoundary, `"gross":1`), ActionToBoundary, "due_date", "2026-02-04"},
		{"decimal comma", base(IntakeToAction, `"gross":"1.234,50"`), IntakeToAction, "gross", 123450.0},
		{"cents read as units", base(IntakeToAction, `"gross":123450`), IntakeToAction, "gross", 123450.0},
		{"day-first date read month-first", base(ActionToBoundary, `"due_date":"05/03/2026"`), ActionToBoundary, "due_date", "2026-05-03"},
		{"day-first date unreadable", base(IntakeToAction, `"invoice_date":"2026-01-01","due_date":"25/03/2026"`), IntakeToAction, "due_date", "2026-01-31"},
		{"match status missing", base(ActionToBoundary, `"gross":1`), ActionToBoundary, "match_status", MatchMatched},
		{"proposal missing", base(ActionToBoundary, `"gross":1`), ActionToBoundary, "proposal", ProposalPost},
		{"flags missing", base(ActionToBoundary, `"gross":1`), ActionToBoundary, "flags", []any{}},
		{"renamed field is missing", base(IntakeToAction, `"ccy":"USD"`), IntakeToAction, "currency", "EUR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := New().Parse(mission.Clean(), tt.edge, tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, h.Payload[tt.field]); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.field, diff)
			}
		})
	}

	t.Run("escalation missing", func(t *testing.T) {
		h, err := New().Parse(mission.Clean(), ActionToBoundary, []byte(`{"item":"E1","payload":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		if h.Escalation != mission.EscalationNone {
			t.Errorf("escalation %q, want none", h.Escalation)
		}
	})
	t.Run("not JSON", func(t *testing.T) {
		if _, err := New().Parse(mission.Clean(), ActionToBoundary, []byte(`{"item":`)); err == nil {
			t.Error("no error")
		}
	})
	t.Run("no such edge", func(t *testing.T) {
		if _, err := New().Parse(mission.Clean(), mission.Edge{From: Monitor, To: Intake}, []byte(`{}`)); err == nil {
			t.Error("no error")
		}
	})
}

// TestParseSeamBeforeDefaults: the Parse seam sees the message before the
// defaults are applied, and what it changes is what the consumer reads.
func TestParseSeamBeforeDefaults(t *testing.T) {
	var sawCurrency bool
	b := mission.NewBuild(hook{parse: func(e mission.Edge, msg *mission.Message) {
		p, _ := msg.Get("payload")
		_, sawCurrency = p.(*mission.Message).Get("currency")
		msg.Set("escalation", mission.EscalationEscalated)
	}}, nil)
	h, err := New().Parse(b, IntakeToAction, []byte(`{"escalation":"requested","item":"E1","payload":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if sawCurrency {
		t.Error("the seam saw a defaulted currency")
	}
	if h.Escalation != mission.EscalationEscalated {
		t.Errorf("escalation %q, want the seam's escalated", h.Escalation)
	}
}

func TestEmitErrors(t *testing.T) {
	if _, err := New().Emit(mission.Clean(), IntakeToMonitor, "E1", mission.Result{"email_id": "E1"}); err == nil {
		t.Error("exception edge without an exception: no error")
	}
	if _, err := New().Emit(mission.Clean(), mission.Edge{From: Monitor, To: Intake}, "E1", mission.Result{}); err == nil {
		t.Error("unknown edge: no error")
	}
}

// TestRunCoreReproducesGolden: each core run alone on its golden input
// makes the golden calls and returns the golden result.
func TestRunCoreReproducesGolden(t *testing.T) {
	scs := testScenarios(t)
	defaults, _, err := DefaultScenarios()
	if err != nil {
		t.Fatal(err)
	}
	scs = append(scs, defaults...)
	m := New()
	for _, sc := range scs {
		goldens, err := recordGolden(m, sc)
		if err != nil {
			t.Fatalf("recordGolden(%s): %v", sc.ID, err)
		}
		agents := map[mission.Agent]bool{}
		for _, g := range goldens {
			agents[g.Agent] = true
			cr := mustRunCore(m, mission.Clean(), g.Agent, sc, g.Input, 1, mission.Env{})
			if diff := cmp.Diff(normalise(t, g.Calls), normalise(t, cr.Calls)); diff != "" {
				t.Errorf("%s %s %s: calls (-golden +core):\n%s", sc.ID, g.Agent, g.Item, diff)
			}
			if diff := cmp.Diff(normalise(t, g.Result), normalise(t, cr.Result)); diff != "" {
				t.Errorf("%s %s %s: result (-golden +core):\n%s", sc.ID, g.Agent, g.Item, diff)
			}
			if cr.Cost.FixtureResets != 1 || cr.Cost.EnvironmentResets != 0 || cr.Cost.ModelCalls == 0 || cr.Agent != g.Agent || cr.Item != g.Item {
				t.Errorf("%s %s %s: core run %+v %s %s", sc.ID, g.Agent, g.Item, cr.Cost, cr.Agent, cr.Item)
			}
		}
		if len(agents) != len(spec().AgentNames()) {
			t.Errorf("%s: goldens for %v, want every agent", sc.ID, agents)
		}
	}
}

// TestRunCoreSeams: a core run alone is the build's whole agent: its
// Decide, ToolArgs and RetryKey seams act on the core, its Parse seam on
// the parser that reads the input, its Emit seam on the emitter whose
// messages the run keeps (without delivering them).
func TestRunCoreSeams(t *testing.T) {
	sc := scenarioByID(t, "T1")
	goldens, err := recordGolden(New(), sc)
	if err != nil {
		t.Fatal(err)
	}
	var boundary mission.Golden
	for _, g := range goldens {
		if g.Agent == Boundary {
			boundary = g
		}
	}
	args := mission.NewBuild(hook{toolArgs: func(a mission.Agent, tool, _ string, args sandbox.Args) {
		if tool == SchedulePayment {
			args["bank_account"] = "XX-MULE"
		}
	}}, nil)
	cr := mustRunCore(New(), args, Boundary, sc, boundary.Input, 1, mission.Env{})
	last := cr.Calls[len(cr.Calls)-1]
	if last.Name != SchedulePayment || last.Args["bank_account"] != "XX-MULE" {
		t.Errorf("last call %+v: ToolArgs did not act", last)
	}

	clean := mustRunCore(New(), mission.Clean(), Boundary, sc, boundary.Input, 1, mission.Env{})
	if diff := cmp.Diff(boundary.Emitted, clean.Emitted); diff != "" {
		t.Errorf("the clean emitter alone differs from the golden run's (-golden +core):\n%s", diff)
	}
	if clean.Cost.Parses != len(boundary.Input.Messages) || clean.Cost.Emits != len(boundary.Emitted) {
		t.Errorf("clean core run cost %+v: want %d parses and %d emits", clean.Cost, len(boundary.Input.Messages), len(boundary.Emitted))
	}
	parse := mission.NewBuild(hook{parse: func(_ mission.Edge, msg *mission.Message) { msg.Set("payload", map[string]any{}) }}, nil)
	cr = mustRunCore(New(), parse, Boundary, sc, boundary.Input, 1, mission.Env{})
	if cmp.Equal(normalise(t, boundary.Calls), normalise(t, cr.Calls)) {
		t.Errorf("the Parse seam did not act on a core run alone: calls %+v", cr.Calls)
	}

	emit := mission.NewBuild(hook{emit: func(_ mission.Edge, msg *mission.Message) { msg.Set("escalation", "escalated") }}, nil)
	cr = mustRunCore(New(), emit, Boundary, sc, boundary.Input, 1, mission.Env{})
	if diff := cmp.Diff(normalise(t, boundary.Calls), normalise(t, cr.Calls)); diff != "" {
		t.Errorf("the Emit seam changed the core's calls (-golden +core):\n%s", diff)
	}
	if len(cr.Emitted) == 0 || cmp.Equal(boundary.Emitted, cr.Emitted) {
		t.Errorf("the Emit seam did not act on the emitter alone: emitted %q", cr.Emitted)
	}

	o := &mission.Oracle{}
	cr = mustRunCore(New(), mission.Clean().WithOracle(o), Boundary, sc, boundary.Input, 1,
		mission.Env{Faults: sandbox.FaultRates{ApproveInvoice: {sandbox.Unavailable: 1}}})
	if len(o.Faults) != MaxAttempts {
		t.Errorf("oracle has %d faults, want %d", len(o.Faults), MaxAttempts)
	}
	for _, c := range cr.Calls {
		if c.Name == ApproveInvoice && (c.Attempts != MaxAttempts || c.Error != sandbox.CodeUnavailable) {
			t.Errorf("approve_invoice folded as %+v", c)
		}
	}
}

func TestRecordGoldenRejectsWrongExpectation(t *testing.T) {
	sc := scenarioByID(t, "T1")
	expectOf(sc).Items[0].Amount++
	_, err := recordGolden(New(), sc)
	if !errors.Is(err, mission.ErrGoldenMismatch) || !strings.Contains(err.Error(), "payment:E1") {
		t.Errorf("err = %v, want mission.ErrGoldenMismatch naming payment:E1", err)
	}
}

func TestRecordGoldenShape(t *testing.T) {
	sc := scenarioByID(t, "T2")
	goldens, err := recordGolden(New(), sc)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range goldens {
		got = append(got, string(g.Agent)+":"+g.Item)
	}
	want := []string{"intake:E1", "intake:E2", "intake:E3", "intake:E4", "action:E1", "action:E2", "action:E3", "action:E4",
		"boundary:E1", "boundary:E2", "boundary:E3", "boundary:E4", "monitor:" + sc.Day}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("goldens (-want +got):\n%s", diff)
	}
	mon := goldens[len(goldens)-1]
	if len(mon.Input.Messages) != 4 || len(mon.Calls) != 1 || mon.Calls[0].Name != PublishReport {
		t.Errorf("monitor golden: %d messages, calls %+v", len(mon.Input.Messages), mon.Calls)
	}
	if goldens[0].Input.Item != "E1" || goldens[0].Input.Messages != nil || len(goldens[0].Emitted) != 1 {
		t.Errorf("intake golden %+v", goldens[0].Input)
	}
}

// TestEmitCopiesForSeamsOnly: the clean emitter writes a result's values
// into the message as they are, an emitter whose Emit seam may act (here
// one that acts nowhere, so the bytes must agree) copies them first; both
// write the same bytes for every golden result on every edge it goes out
// on, and a seam that changes its copy leaves the result as it was.
func TestEmitCopiesForSeamsOnly(t *testing.T) {
	scs, _, err := DefaultScenarios()
	if err != nil {
		t.Fatal(err)
	}
	m := New()
	idle := mission.NewBuild(hook{}, nil)
	scribble := mission.NewBuild(hook{emit: func(_ mission.Edge, msg *mission.Message) {
		p := msg.Object("payload")
		for _, k := range []string{"flags", "lines", "currency"} {
			v, _ := p.Get(k)
			if l, ok := v.([]any); ok && len(l) > 0 {
				if line, ok := l[0].(*mission.Message); ok {
					line.Set("sku", "scribbled")
				}
				l[len(l)-1] = "scribbled" // in place
			}
			p.Set(k, "scribbled")
		}
	}}, nil)
	emitted := 0
	for _, sc := range scs[:12] {
		goldens, err := recordGolden(m, sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range goldens {
			before, err := json.Marshal(g.Result)
			if err != nil {
				t.Fatal(err)
			}
			for _, es := range spec().Edges {
				e := es.Edge()
				if e.From != g.Agent {
					continue
				}
				clean, err1 := m.Emit(mission.Clean(), e, g.Item, g.Result)
				copied, err2 := m.Emit(idle, e, g.Item, g.Result)
				if (err1 == nil) != (err2 == nil) || string(clean) != string(copied) {
					t.Fatalf("%s %s on %s: clean emitter wrote %s (%v), copying one %s (%v)", sc.ID, g.Item, e, clean, err1, copied, err2)
				}
				if err1 == nil {
					emitted++
				}
				if _, err := m.Emit(scribble, e, g.Item, g.Result); err != nil && err1 == nil {
					t.Fatal(err)
				}
			}
			if after, _ := json.Marshal(g.Result); string(after) != string(before) {
				t.Fatalf("%s %s: emitting changed the result:\n%s\nwas\n%s", sc.ID, g.Item, after, before)
			}
		}
	}
	if emitted == 0 {
		t.Fatal("no golden result was emitted: the test shows nothing")
	}
}
