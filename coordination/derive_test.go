package coordination_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/sandbox"
	"github.com/baton-lab/baton/score"
)

// derive runs build b of m on sc and derives its record, with budget.
func derive(tb testing.TB, m mission.Mission, sc *mission.Scenario, b mission.Build, seed uint64, env mission.Env, budget *coordination.Budget) (*coordination.Record, *mission.Run) {
	tb.Helper()
	run, err := m.Run(context.Background(), b, sc, seed, env)
	if err != nil {
		tb.Fatal(err)
	}
	rec, err := coordination.Derive(coordination.Source{Trial: sc.ID, System: "toy", Mission: m, Scenario: sc, Trace: run.Trace, Cost: run.Cost, Budget: budget})
	if err != nil {
		tb.Fatal(err)
	}
	if err := rec.Validate(); err != nil {
		tb.Fatalf("derived record of %s: %v", sc.ID, err)
	}
	return rec, run
}

// verdicts returns each dimension's verdict.
func verdicts(s coordination.Score) map[coordination.Dimension]coordination.Verdict {
	out := map[coordination.Dimension]coordination.Verdict{}
	for _, r := range s.Dimensions {
		out[r.Dimension] = r.Verdict
	}
	return out
}

// retrySeed returns a seed under which the clean toy retries file_entry
// after a timeout, with env's faults.
func retrySeed(tb testing.TB, m mission.Mission, sc *mission.Scenario, env mission.Env) uint64 {
	tb.Helper()
	for seed := uint64(1); seed < 500; seed++ {
		run, err := m.Run(context.Background(), mission.Clean(), sc, seed, env)
		if err != nil {
			tb.Fatal(err)
		}
		evs := run.Trace.Of(mission.EventToolCall)
		for i, e := range evs {
			if e.Tool == "file_entry" && e.Attempt == 1 && e.Error == "" && strings.Contains(evs[i-1].Error, sandbox.CodeTimeout) {
				return seed
			}
		}
	}
	tb.Fatal("no seed retries file_entry after a timeout")
	return 0
}

// TestDerivedDimensionsMove shows each dimension passing on the clean toy build
// and failing on a build made to break it, its failures pointing at
// events of the trace.
func TestDerivedDimensionsMove(t *testing.T) {
	m, sc := toyMission(t)
	faults := mission.Env{Faults: sandbox.FaultRates{"file_entry": {sandbox.TimeoutAfterCommit: 0.5}}}
	seed := retrySeed(t, m, sc, faults)
	route := func(edge mission.Edge, to ...mission.Agent) func(mission.Edge, []mission.Agent) []mission.Agent {
		return func(e mission.Edge, owners []mission.Agent) []mission.Agent {
			if e == edge {
				return to
			}
			return owners
		}
	}
	payload := func(edge mission.Edge, f func(p *mission.Message)) func(mission.Edge, *mission.Message) {
		return func(e mission.Edge, msg *mission.Message) {
			if e == edge {
				f(msg.Object("payload"))
			}
		}
	}
	decide := func(agent mission.Agent, kind, to string) func(mission.Agent, string, string) string {
		return func(a mission.Agent, k, choice string) string {
			if a == agent && k == kind {
				return to
			}
			return choice
		}
	}
	deskClerk, clerkAuditor := mission.Edge{From: desk, To: clerk}, mission.Edge{From: clerk, To: auditor}
	tests := []struct {
		dim   coordination.Dimension
		seams toySeams
		env   mission.Env
	}{
		{coordination.DimDelegation, toySeams{route: route(deskClerk, auditor)}, mission.Env{}},
		{coordination.DimCoverage, toySeams{route: route(clerkAuditor)}, mission.Env{}},
		{coordination.DimDuplicateWork, toySeams{toolArgs: func(a mission.Agent, tool string, args sandbox.Args) {
			if a == clerk && tool == "lookup_account" {
				delete(args, "id")
				args["email"] = toyEmail
			}
		}}, mission.Env{}},
		{coordination.DimInformationKept, toySeams{emit: payload(deskClerk, func(p *mission.Message) { p.Delete("amount") })}, mission.Env{}},
		{coordination.DimStateContention, toySeams{decide: decide(auditor, "check", "skip")}, mission.Env{}},
		{coordination.DimMergeCorrectness, toySeams{emit: payload(clerkAuditor, func(p *mission.Message) { p.Set("amount", 121.0) })}, mission.Env{}},
		{coordination.DimEffectSafety, toySeams{retryKey: func(key string, attempt int) string { return key + "#" + strconv.Itoa(attempt) }}, faults},
		{coordination.DimEfficiency, toySeams{decide: decide(clerk, "think", "twice")}, mission.Env{}},
	}
	for _, tt := range tests {
		t.Run(tt.dim.String(), func(t *testing.T) {
			clean, cleanRun := derive(t, m, sc, mission.Clean(), seed, tt.env, nil)
			calls, tokens := float64(cleanRun.Cost.ModelCalls), float64(cleanRun.Cost.Tokens)
			budget := &coordination.Budget{ModelCalls: &calls, Tokens: &tokens, MatchedTo: "the clean build"}
			clean.Budget = budget
			if got := verdicts(coordination.ScoreRecord(clean)); got[tt.dim] != coordination.Pass {
				t.Fatalf("clean build: %s is %s, want pass", tt.dim, got[tt.dim])
			}
			broken, run := derive(t, m, sc, mission.NewBuild(tt.seams, nil), seed, tt.env, budget)
			res := coordination.ScoreRecord(broken).Result(tt.dim)
			if res.Verdict != coordination.Fail {
				t.Fatalf("breaking build: %s is %s, want fail; record %+v", tt.dim, res.Verdict, broken)
			}
			for _, f := range res.Failures {
				for _, ev := range f.Events {
					if !traceEvent(run.Trace, ev) && !slices.ContainsFunc(broken.Subtasks, func(s coordination.Subtask) bool { return s.ID == ev }) && !strings.HasPrefix(ev, "usage.") {
						t.Errorf("failure %q names %q: not an event of the trace, a subtask or a usage field", f.Reason, ev)
					}
				}
			}
			t.Logf("%s: %v", tt.dim, res.Failures)
		})
	}
}

// traceEvent reports whether a record's event id names an event of tr:
// its sequence number, before any slash.
func traceEvent(tr *mission.Trace, ev string) bool {
	head, _, _ := strings.Cut(ev, "/")
	seq, err := strconv.Atoi(head)
	return err == nil && seq >= 1 && seq <= len(tr.Events) && tr.Events[seq-1].Seq == seq
}

// TestDeriveToyClean pins the clean toy record's shape: who was assigned
// what, what each hand-off carried and read, and the state the auditor
// shared with the clerk.
func TestDeriveToyClean(t *testing.T) {
	m, sc := toyMission(t)
	rec, run := derive(t, m, sc, mission.Clean(), 1, mission.Env{}, nil)
	seq := func(kind mission.EventKind, agent mission.Agent, n int) string {
		for _, e := range run.Trace.Events {
			if e.Kind == kind && e.Agent == agent {
				if n--; n == 0 {
					return strconv.Itoa(e.Seq)
				}
			}
		}
		t.Fatalf("no %s event %d of %s", kind, n, agent)
		return ""
	}
	var subtasks, owners []string
	for _, s := range rec.Subtasks {
		subtasks = append(subtasks, s.ID)
	}
	for _, d := range rec.Delegations {
		owners = append(owners, d.Subtask+"="+d.Owner)
	}
	var state []string
	for _, a := range rec.State {
		state = append(state, fmt.Sprintf("%s %s %s", a.Agent, a.Op, a.Key))
	}
	got := map[string]any{
		"subtasks": subtasks, "delegations": owners, "state": state,
		"handoff read": rec.Handoffs[0].Read, "merge inputs": rec.Merges[0].Inputs,
		"first completion": rec.Completions[0].ID,
	}
	want := map[string]any{
		"subtasks":    []string{"R1:desk", "R1:desk->clerk", "R1:clerk->auditor", "R1:desk->auditor"},
		"delegations": []string{"R1:desk=desk", "R1:desk->clerk=clerk", "R1:desk->auditor=auditor", "R1:clerk->auditor=auditor"},
		"state":       []string{"clerk write ENT-0001", "auditor read ENT-0001", "auditor write ENT-0001"},
		"handoff read": []string{"edge", "escalation", "id", "idempotency_key", "item", "kind", "next_owner",
			"payload.account", "payload.amount", "payload.request", "schema_version"},
		"merge inputs":     []string{seq(mission.EventReceived, auditor, 1), seq(mission.EventReceived, auditor, 2)},
		"first completion": seq(mission.EventResult, desk, 1),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("clean toy record (-want +got):\n%s", diff)
	}
	for _, r := range coordination.ScoreRecord(rec).Dimensions {
		if want := coordination.Pass; r.Dimension != coordination.DimEfficiency && r.Verdict != want {
			t.Errorf("%s: %s %v, want %s", r.Dimension, r.Verdict, r.Failures, want)
		}
	}
}

// TestDeriveInvoiceClean derives the record of every default invoice
// scenario's clean run: each validates, and the clean mission fails no
// dimension.
func TestDeriveInvoiceClean(t *testing.T) {
	m := invoice.New()
	if _, ok := m.(coordination.Irreversible); !ok {
		t.Fatal("the invoice mission does not say which writes are irreversible")
	}
	scs, _, err := m.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		rec, _ := derive(t, m, sc, mission.Clean(), 1, mission.Env{}, nil)
		for _, r := range coordination.ScoreRecord(rec).Dimensions {
			if r.Verdict == coordination.Fail {
				t.Errorf("%s: clean build fails %s: %v", sc.ID, r.Dimension, r.Failures)
			}
		}
	}
}

// TestDerivedRecordsScore: a derived record, written as a line of JSON, is
// what baton score --kind coordination reads back unchanged.
func TestDerivedRecordsScore(t *testing.T) {
	m, sc := toyMission(t)
	clean, _ := derive(t, m, sc, mission.Clean(), 1, mission.Env{}, nil)
	broken, _ := derive(t, m, sc, mission.NewBuild(toySeams{route: func(e mission.Edge, owners []mission.Agent) []mission.Agent {
		return nil
	}}, nil), 1, mission.Env{}, nil)
	broken.Trial = "T1-broken"
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, r := range []*coordination.Record{clean, broken} {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := score.ReadCoordination(&buf, "derived.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]coordination.Record{*clean, *broken}, got); diff != "" {
		t.Errorf("records read back (-derived +read):\n%s", diff)
	}
}
