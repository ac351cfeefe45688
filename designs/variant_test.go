package designs

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/sandbox"
)

// hook is a build's seams for the tests: each set function replaces its
// hook (designs cannot import mutants, whose operators are these seams).
type hook struct {
	mission.NoSeams
	emit     func(e mission.Edge, msg *mission.Message)
	parse    func(e mission.Edge, msg *mission.Message)
	retryKey func(agent mission.Agent, tool, item, key string, attempt int) string
	toolArgs func(agent mission.Agent, tool, item string, args sandbox.Args)
}

var _ mission.Seams = hook{}

func (h hook) Emit(e mission.Edge, msg *mission.Message) {
	if h.emit != nil {
		h.emit(e, msg)
	}
}

func (h hook) Parse(e mission.Edge, msg *mission.Message) {
	if h.parse != nil {
		h.parse(e, msg)
	}
}

func (h hook) RetryKey(agent mission.Agent, tool, item, key string, attempt int) string {
	if h.retryKey != nil {
		return h.retryKey(agent, tool, item, key, attempt)
	}
	return key
}

func (h hook) ToolArgs(agent mission.Agent, tool, item string, args sandbox.Args) {
	if h.toolArgs != nil {
		h.toolArgs(agent, tool, item, args)
	}
}

// dropField is an emitter that no longer writes a payload field on edge.
func dropField(edge, field string) func(mission.Edge, *mission.Message) {
	return func(e mission.Edge, msg *mission.Message) {
		if e.String() == edge {
			if p := msg.Object("payload"); p != nil {
				p.Delete(field)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		id      string
		want    Params
		wantErr string
	}{
		{id: "A"},
		{id: "A.wire", want: Params{Scorecard: ScorecardWire}},
		{id: "A.recorded", want: Params{Inputs: InputsRecorded}},
		{id: "A.wire.recorded", want: Params{Scorecard: ScorecardWire, Inputs: InputsRecorded}},
		{id: "C.schema", want: Params{Contracts: "schema"}},
		{id: "C.wire.golden.ownership", want: Params{Scorecard: ScorecardWire, Inputs: InputsGolden, Contracts: "ownership"}},
		{id: "D"},
		{id: "E", wantErr: `unknown design "E" (known: A, B, C, D)`},
		{id: "B.wire", wantErr: "design B takes no parameters"},
		{id: "A.schema", wantErr: `"schema" is no value of A's parameters (scorecard: result, wire; inputs: golden, recorded)`},
		{id: "A.recorded.wire", wantErr: `"wire" comes too late: A writes its parameters in the order scorecard, inputs, each once`},
		{id: "A.wire.result", wantErr: "comes too late"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			d, err := Lookup(tc.id)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Lookup(%q) = %v, want an error containing %q", tc.id, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.ID != tc.id || d.Base != tc.id[:1] || d.Evaluate == nil {
				t.Errorf("Lookup(%q) = id %q, base %q", tc.id, d.ID, d.Base)
			}
			if diff := cmp.Diff(tc.want, d.Params); diff != "" {
				t.Errorf("params (-want +got):\n%s", diff)
			}
		})
	}
}

// With fills the parameters a variant leaves to the protocol, so that what
// a run records is what it ran.
func TestWith(t *testing.T) {
	a, _ := Lookup("A.wire")
	got := a.With(Params{Inputs: InputsRecorded, Contracts: "semantic"})
	if want := (Params{Scorecard: ScorecardWire, Inputs: InputsRecorded}); got.Params != want || got.ID != "A.wire" {
		t.Errorf("A.wire.With = %s %+v, want A.wire %+v", got.ID, got.Params, want)
	}
	if !strings.Contains(got.Doc, "recorded from an integrated run") || !strings.Contains(got.Doc, "at the wire level") {
		t.Errorf("A.wire.With's doc does not say what it ran: %s", got.Doc)
	}
	c := PerAgentContracts.With(Params{Contracts: "schema"})
	if c.Params.Contracts != "schema" || c.Params.Scorecard != ScorecardResult || c.Params.Inputs != InputsGolden {
		t.Errorf("C.With = %+v", c.Params)
	}
	if b := EndToEnd.With(Params{Inputs: InputsRecorded}); b.Params != (Params{}) {
		t.Errorf("B takes no parameters, With gave it %+v", b.Params)
	}
}

// Every design declares what it can blame, and a design's flagged
// verdicts blame nothing else.
func TestBlamesDeclared(t *testing.T) {
	b := mission.NewBuild(hook{emit: dropField("intake->action", "currency")}, nil)
	for _, d := range variants(t) {
		if len(d.Blames) == 0 {
			t.Errorf("design %s declares no location kind it can blame", d.ID)
		}
		for _, sc := range scenarios(t)[:10] {
			in := testInput(t, sc, invoice.New())
			in.Build = b
			for _, l := range evaluate(t, d, in).Blame {
				_, edge := l.Edge()
				if kind := map[bool]LocationKind{true: BlameEdge, false: BlameAgent}[edge]; !d.CanBlame(kind) {
					t.Errorf("design %s blames %s, a %s, but declares only %v", d.ID, l, kind, d.Blames)
				}
			}
		}
	}
}

// An emitter that drops a field changes no core's trajectory or result:
// the result scorecard passes and the wire scorecard flags the producer,
// naming the field.
func TestWireScorecard(t *testing.T) {
	b := mission.NewBuild(hook{emit: dropField("intake->action", "currency")}, nil)
	wire, _ := Lookup("A.wire")
	flaggedResult, flaggedWire := 0, 0
	for _, sc := range scenarios(t) {
		in := testInput(t, sc, invoice.New())
		in.Build = b
		if evaluate(t, PerAgent, in).Flagged {
			flaggedResult++
		}
		v := evaluate(t, wire, in)
		if !v.Flagged {
			continue
		}
		flaggedWire++
		if v.Blame[0] != "intake" {
			t.Errorf("%s: A.wire blames %v, want intake first", sc.ID, v.Blame)
		}
		if f := v.Findings[0]; f.Rule != "wire.golden" || f.Evidence.Field != "payload.currency" || !strings.Contains(f.Message, "payload.currency: want") {
			t.Errorf("%s: first finding %+v, want the wire's currency", sc.ID, f)
		}
	}
	if flaggedResult != 0 || flaggedWire == 0 {
		t.Errorf("A flags %d scenarios, A.wire %d: want 0 and some", flaggedResult, flaggedWire)
	}
}

// A parser that misreads an escalation flag is the consuming agent's
// defect: A runs the build's parser, so it sees it on golden inputs.
func TestPerAgentRunsTheBuildsParser(t *testing.T) {
	misread := mission.NewBuild(hook{parse: func(e mission.Edge, msg *mission.Message) {
		if e.String() == "action->boundary" && get(msg, "escalation") == mission.EscalationRequested {
			msg.Set("escalation", mission.EscalationEscalated)
		}
	}}, nil)
	n := 0
	for _, sc := range scenarios(t) {
		in := testInput(t, sc, invoice.New())
		in.Build = misread
		if v := evaluate(t, PerAgent, in); v.Flagged {
			n++
			if v.Blame[0] != mission.AgentLocation(invoice.Boundary) {
				t.Errorf("%s: A blames %v, want boundary", sc.ID, v.Blame)
			}
		}
	}
	if n == 0 {
		t.Error("A flags no scenario on a build whose boundary misreads requested escalations as escalated")
	}
}

// D names the edge a hand-off defect lives on, from the trace alone, and
// falls back to the record's writer when no hand-off rule fires.
func TestAttribution(t *testing.T) {
	escalated := func(edge string) func(mission.Edge, *mission.Message) {
		return func(e mission.Edge, msg *mission.Message) {
			if e.String() == edge && get(msg, "escalation") == mission.EscalationRequested {
				msg.Set("escalation", mission.EscalationEscalated)
			}
		}
	}
	noOwner := func(e mission.Edge, msg *mission.Message) {
		if e.String() == "action->boundary" {
			msg.Set("next_owner", []any{})
		}
	}
	for _, tc := range []struct {
		name  string
		seams hook
		want  mission.Location
		rule  string
	}{
		{"dropped field", hook{emit: dropField("intake->action", "currency")}, "intake->action", "attribution.field_dropped"},
		{"no owner", hook{emit: noOwner}, "action->boundary", "attribution.no_owner"},
		{"assumed escalated", hook{emit: escalated("action->boundary")}, "action->boundary", "attribution.escalation_changed"},
		{"misread escalation", hook{parse: func(e mission.Edge, msg *mission.Message) { escalated("action->boundary")(e, msg) }}, "action->boundary", "attribution.escalation_misread"},
		{"wrong tool argument", hook{toolArgs: func(a mission.Agent, tool, _ string, args sandbox.Args) {
			if tool == invoice.SchedulePayment {
				args["bank_account"] = "XX-MULE"
			}
		}}, "boundary", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := mission.NewBuild(tc.seams, nil)
			flagged := 0
			for _, sc := range scenarios(t) {
				in := testInput(t, sc, invoice.New())
				in.Build = b
				vb, vd := evaluate(t, EndToEnd, in), evaluate(t, TraceAttribution, in)
				if vb.Flagged != vd.Flagged {
					t.Fatalf("%s: B flagged %v, D %v: D's flag is B's check", sc.ID, vb.Flagged, vd.Flagged)
				}
				if !vd.Flagged {
					continue
				}
				flagged++
				if vd.Blame[0] != tc.want {
					t.Errorf("%s: D blames %v, want %s first; findings %+v", sc.ID, vd.Blame, tc.want, vd.Findings)
				}
				rules := map[string]bool{}
				for _, f := range vd.Findings {
					rules[f.Rule] = true
					if strings.HasPrefix(f.Rule, "attribution.") && (f.Evidence.Run != "integrated" || f.Evidence.Seq == 0) {
						t.Errorf("%s: finding %+v points at no trace event", sc.ID, f)
					}
				}
				if tc.rule != "" && !rules[tc.rule] {
					t.Errorf("%s: no %s finding among %v", sc.ID, tc.rule, slices.Sorted(maps.Keys(rules)))
				}
				if vd.Cost.AttributionSteps <= 0 {
					t.Errorf("%s: D counted no attribution step", sc.ID)
				}
				steps := vd.Cost
				steps.AttributionSteps = 0
				if diff := cmp.Diff(vb.Cost, steps); diff != "" {
					t.Errorf("%s: D's cost is not B's plus its attribution steps (-B +D):\n%s", sc.ID, diff)
				}
			}
			if flagged == 0 {
				t.Fatal("the build's defect changes no scenario's end state")
			}
		})
	}
}

// A retry under a fresh idempotency key writes twice when the first
// attempt timed out after committing; D names the hand-off the write
// serves.
func TestAttributionRetryKey(t *testing.T) {
	b := mission.NewBuild(hook{retryKey: func(agent mission.Agent, tool, _, key string, attempt int) string {
		if agent == invoice.Boundary && tool == invoice.SchedulePayment {
			return key + "#retry"
		}
		return key
	}}, nil)
	env := mission.Env{Faults: sandbox.FaultRates{invoice.SchedulePayment: {sandbox.TimeoutAfterCommit: 1}}}
	sc := scenarios(t)[0]
	in := testInput(t, sc, invoice.New())
	in.Build, in.Env = b, env
	v := evaluate(t, TraceAttribution, in)
	if !v.Flagged || v.Blame[0] != "action->boundary" {
		t.Fatalf("D flagged %v, blames %v; want action->boundary, the hand-off the payment serves; findings %+v", v.Flagged, v.Blame, v.Findings)
	}
}

// Lookup parses protocol input: it never panics, and what it accepts is
// a design whose id is the input, whose base is a base design, and which
// looks up again to the same parameters.
func FuzzLookup(f *testing.F) {
	for _, s := range []string{"A", "A.wire", "A.wire.recorded", "A.recorded.wire", "C.schema", "C.wire.recorded.semantic", "B.wire", "D", "", ".", "A..", "Z.x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		d, err := Lookup(id)
		if err != nil {
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", id)) {
				t.Errorf("Lookup(%q) error %q does not name the id", id, err)
			}
			return
		}
		if d.ID != id || d.Evaluate == nil || !slices.ContainsFunc(All(), func(b Design) bool { return b.ID == d.Base }) {
			t.Errorf("Lookup(%q) = id %q, base %q", id, d.ID, d.Base)
		}
		again, err := Lookup(id)
		if err != nil || again.Params != d.Params {
			t.Errorf("Lookup(%q) again = %+v, %v; want %+v", id, again.Params, err, d.Params)
		}
	})
}

// get reads a message's field, nil when it has none.
func get(msg *mission.Message, key string) any {
	v, _ := msg.Get(key)
	return v
}
