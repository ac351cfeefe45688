package invoice

import (
	"slices"
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// TestSeamsCalled: every hook is called at its seam, as often as the trace
// says the seam was passed.
func TestSeamsCalled(t *testing.T) {
	sc := scenarioByID(t, "T2")
	s := newRecordingSeams()
	env := mission.Env{Faults: sandbox.FaultRates{
		RecordMatch: {sandbox.Unavailable: 1}, // every record_match is retried 3 times
		"transport": {sandbox.Redelivery: 1},
	}}
	run := mustRun(New(), mission.NewBuild(s, nil), sc, 9, env)
	tr := run.Trace

	logical, retries := 0, 0
	for _, e := range tr.Of(mission.EventToolCall) {
		if e.Attempt == 0 {
			logical++
		} else if spec().Tools.RecordOf(e.Tool) != "" {
			retries++
		}
	}
	if s.toolArgs != logical {
		t.Errorf("ToolArgs called %d times, %d logical tool calls", s.toolArgs, logical)
	}
	if len(s.retryKey) != retries || retries == 0 {
		t.Errorf("RetryKey called %d times, %d write retries", len(s.retryKey), retries)
	}
	if slices.Contains(s.retryKey, 0) {
		t.Error("RetryKey called for a first attempt")
	}
	sent := len(tr.Of(mission.EventSent))
	emitted := 0
	for _, n := range s.emit {
		emitted += n
	}
	if emitted != sent || s.route != sent {
		t.Errorf("Emit %d, Route %d, handoffs sent %d", emitted, s.route, sent)
	}
	received := len(tr.Of(mission.EventReceived))
	parsed := 0
	for _, n := range s.parse {
		parsed += n
	}
	if parsed != received {
		t.Errorf("Parse %d, handoffs received %d", parsed, received)
	}
	dups := 0
	for _, e := range tr.Of(mission.EventDropped) {
		if e.Reason == "duplicate" {
			dups++
		}
	}
	// Dedup is asked only about copies of a message already delivered.
	if s.dedup != dups || dups == 0 {
		t.Errorf("Dedup asked %d times, %d duplicate copies dropped", s.dedup, dups)
	}
	for _, k := range []string{"intake/classify", "intake/escalate", "action/proposal", "action/escalate",
		"boundary/decision", "intake/route", "action/route", "boundary/route"} {
		if s.decide[k] == 0 {
			t.Errorf("Decide never called for %s (calls: %v)", k, s.decide)
		}
	}
	if s.decide["intake/classify"] != len(sc.Inputs) {
		t.Errorf("classify decided %d times for %d emails", s.decide["intake/classify"], len(sc.Inputs))
	}
}

// TestSeamsAct: a change at each seam reaches the end state (so a mutant
// switched on there has an effect), and the clean build is unaffected.
func TestSeamsAct(t *testing.T) {
	tests := []struct {
		name     string
		scenario string
		seams    hook
		env      mission.Env
		check    func(t *testing.T, run *mission.Run)
	}{
		{
			name: "emit drops currency; action reads EUR", scenario: "T2",
			seams: hook{emit: func(e mission.Edge, msg *mission.Message) {
				if e == IntakeToAction {
					msg.Object("payload").Delete("currency")
				}
			}},
			check: func(t *testing.T, run *mission.Run) {
				for _, p := range recs(run.End).Payments {
					if p.Currency != "EUR" {
						t.Errorf("payment in %s, want the defaulted EUR", p.Currency)
					}
				}
			},
		},
		{
			name: "emit clears next owner; item dropped", scenario: "T1",
			seams: hook{emit: func(e mission.Edge, msg *mission.Message) {
				if e == ActionToBoundary {
					msg.Set("next_owner", []any{})
				}
			}},
			check: func(t *testing.T, run *mission.Run) {
				if len(recs(run.End).Payments) != 0 {
					t.Error("paid an item nobody owned")
				}
				if !hasDropped(run.Trace, "no_owner") {
					t.Error("no handoff_dropped no_owner event")
				}
			},
		},
		{
			name: "tool args change the amount", scenario: "T1",
			seams: hook{toolArgs: func(a mission.Agent, tool, _ string, args sandbox.Args) {
				if a == Boundary && tool == SchedulePayment {
					args["amount"] = 1.0
				}
			}},
			check: func(t *testing.T, run *mission.Run) {
				if len(recs(run.End).Payments) != 1 || recs(run.End).Payments[0].Amount != 1 {
					t.Errorf("payments %+v, want one of 1.00", recs(run.End).Payments)
				}
			},
		},
		{
			name: "fresh key on retry duplicates a committed write", scenario: "T1",
			seams: hook{retryKey: func(_ mission.Agent, _, _, key string, attempt int) string {
				return key + "#retry" + string(rune('0'+attempt))
			}},
			env: mission.Env{Faults: sandbox.FaultRates{PostLedger: {sandbox.TimeoutAfterCommit: 1}}},
			check: func(t *testing.T, run *mission.Run) {
				if n := len(recs(run.End).Ledger); n != 4 {
					t.Errorf("%d ledger postings, want 4 (one per attempt)", n)
				}
			},
		},
		{
			name: "parse reads requested as escalated on a variance", scenario: "T2",
			seams: hook{parse: func(e mission.Edge, msg *mission.Message) {
				if e == ActionToBoundary && get(msg, "escalation") == mission.EscalationRequested {
					msg.Set("escalation", mission.EscalationEscalated)
				}
			}},
			check: func(t *testing.T, run *mission.Run) {
				if len(recs(run.End).Escalations) != 0 {
					t.Errorf("escalations %+v: boundary should assume E4 was escalated", recs(run.End).Escalations)
				}
			},
		},
		{
			name: "route doubles the owner", scenario: "T1",
			seams: hook{route: func(e mission.Edge, owners []mission.Agent) []mission.Agent {
				if e == IntakeToAction {
					return append(owners, Boundary)
				}
				return owners
			}},
			check: func(t *testing.T, run *mission.Run) {
				n := 0
				for _, e := range run.Trace.Of(mission.EventReceived) {
					if e.Agent == Boundary {
						n++
					}
				}
				if n != 2 {
					t.Errorf("boundary received %d messages, want 2", n)
				}
			},
		},
		{
			name: "decide flips the boundary decision", scenario: "T1",
			seams: hook{decide: func(a mission.Agent, kind, _, choice string) string {
				if a == Boundary && kind == "decision" {
					return DecisionRejected
				}
				return choice
			}},
			check: func(t *testing.T, run *mission.Run) {
				if len(recs(run.End).Rejections) != 1 || len(recs(run.End).Payments) != 0 {
					t.Errorf("rejections %+v payments %+v", recs(run.End).Rejections, recs(run.End).Payments)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := scenarioByID(t, tt.scenario)
			clean := mustRun(New(), mission.Clean(), sc, 1, tt.env)
			if diffs := Check(expectOf(sc), clean.End); len(diffs) > 0 && tt.env.Faults == nil {
				t.Fatalf("clean build fails:\n%s", describeDiffs(diffs))
			}
			run := mustRun(New(), mission.NewBuild(tt.seams, nil), sc, 1, tt.env)
			tt.check(t, run)
			if jsonl(t, clean.Trace) == jsonl(t, run.Trace) {
				t.Error("the seam changed nothing in the trace")
			}
		})
	}
}

func hasDropped(tr *mission.Trace, reason string) bool {
	for _, e := range tr.Of(mission.EventDropped) {
		if e.Reason == reason {
			return true
		}
	}
	return false
}

// TestRunSurvivesHostileBuilds: heavy slips, faults and a seam that
// mangles every message never crash a run or loop forever.
func TestRunSurvivesHostileBuilds(t *testing.T) {
	scs, _, err := DefaultScenarios()
	if err != nil {
		t.Fatal(err)
	}
	scs = append(testScenarios(t), scs...)
	rates := sandbox.FaultRates{
		"*": {sandbox.TimeoutBeforeCommit: 0.2, sandbox.TimeoutAfterCommit: 0.2, sandbox.Refusal: 0.1,
			sandbox.Unavailable: 0.2, sandbox.RateLimit: 0.1, sandbox.Latency: 0.2},
		"transport": {sandbox.Redelivery: 0.5},
	}
	profile := mission.Profile{}
	for _, a := range spec().AgentNames() {
		profile[a] = map[mission.Slip]float64{Misclassify: 0.3, Misread: 0.3, SkipLookup: 0.3, mission.Misroute: 0.3}
	}
	mangle := hook{
		emit: func(e mission.Edge, msg *mission.Message) {
			p := msg.Object("payload")
			for k, v := range p.Clone().All() {
				switch v.(type) {
				case float64:
					p.Set(k, "1.234,50")
				case string:
					p.Delete(k)
				}
			}
			msg.Set("next_owner", []string{"boundary", "monitor", "nobody", "intake"})
		},
		parse:    func(_ mission.Edge, msg *mission.Message) { msg.Set("escalation", 7.0) },
		decide:   func(_ mission.Agent, _, _, _ string) string { return "" },
		toolArgs: func(_ mission.Agent, _, _ string, args sandbox.Args) { args["invoice_id"] = nil },
		retryKey: func(_ mission.Agent, _, _, _ string, _ int) string { return "" },
		dedup:    func(mission.Edge) bool { return false },
	}
	for i, sc := range scs {
		for _, b := range []mission.Build{mission.Clean(), mission.NewBuild(mangle, &mission.Oracle{})} {
			run := mustRun(New(), b, sc, uint64(i), mission.Env{Faults: rates, Profile: profile})
			if len(run.Trace.Events) == 0 || run.End == nil {
				t.Fatalf("%s: empty run", sc.ID)
			}
		}
	}
}
