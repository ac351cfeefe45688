package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mission/triage"
	"github.com/baton-lab/baton/sandbox"
)

// passed returns, per scenario id, whether m's build under env passed its
// check on trial seed seed, and the runs' total cost.
func passed(tb testing.TB, m mission.Mission, b mission.Build, scs []*mission.Scenario, seed uint64, env mission.Env) (map[string]bool, mission.Cost) {
	tb.Helper()
	out := map[string]bool{}
	var cost mission.Cost
	for _, sc := range scs {
		run, err := m.Run(context.Background(), b, sc, seed, env)
		if err != nil {
			tb.Fatal(err)
		}
		out[sc.ID] = len(m.Check(sc, run.End)) == 0
		cost.Add(run.Cost)
		run.Trace.Recycle()
	}
	return out, cost
}

// TestSingleAgentCompletesWhatTheTeamDoes runs every scenario of the toy,
// invoice and triage missions through the multi-agent clean build and the
// single-agent build, slips and faults off: the single agent completes
// the same scenarios, with the same model calls and tool calls.
func TestSingleAgentCompletesWhatTheTeamDoes(t *testing.T) {
	for _, m := range []mission.Mission{toyMission(t), invoice.New(), triage.New()} {
		t.Run(m.Spec().Name, func(t *testing.T) {
			scs, _, err := m.Scenarios()
			if err != nil {
				t.Fatal(err)
			}
			multi, mc := passed(t, m, mission.Clean(), scs, 1, mission.Env{})
			single, sc := passed(t, m, mission.Clean(), scs, 1, mission.Env{Single: &mission.Single{}})
			if diff := cmp.Diff(multi, single); diff != "" {
				t.Errorf("scenarios passed (-multi +single):\n%s", diff)
			}
			n := 0
			for _, ok := range single {
				if ok {
					n++
				}
			}
			if n != len(scs) {
				t.Errorf("single agent passed %d of %d scenarios, want all", n, len(scs))
			}
			if mc.ModelCalls != sc.ModelCalls || mc.ToolCalls != sc.ToolCalls {
				t.Errorf("cost: multi %d model calls, %d tool calls; single %d, %d: want the same", mc.ModelCalls, mc.ToolCalls, sc.ModelCalls, sc.ToolCalls)
			}
			if sc.Emits != 0 || sc.Parses != 0 {
				t.Errorf("single agent emitted %d and parsed %d messages, want none", sc.Emits, sc.Parses)
			}
		})
	}
}

// TestSingleAgentTraceIsOneAgent checks that a single-agent run's trace
// holds one agent and no hand-off.
func TestSingleAgentTraceIsOneAgent(t *testing.T) {
	m := invoice.New()
	scs, _, err := m.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	run, err := m.Run(context.Background(), mission.Clean(), scs[0], 3, mission.Env{Single: &mission.Single{Name: "solo"}})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[mission.EventKind]int{}
	for _, e := range run.Trace.Events {
		if e.Agent != "solo" {
			t.Fatalf("event %d is agent %q's, want solo's", e.Seq, e.Agent)
		}
		kinds[e.Kind]++
	}
	for _, k := range []mission.EventKind{mission.EventSent, mission.EventReceived, mission.EventDropped} {
		if kinds[k] != 0 {
			t.Errorf("%d %s events, want none", kinds[k], k)
		}
	}
	if kinds[mission.EventModelCall] != run.Cost.ModelCalls || kinds[mission.EventToolCall] != run.Cost.ToolCalls || kinds[mission.EventResult] == 0 {
		t.Errorf("events %v, cost %+v: want a model call event per model call, a tool call event per tool call, results", kinds, run.Cost)
	}
	if _, err := m.Run(context.Background(), mission.Clean(), scs[0], 3, mission.Env{Single: &mission.Single{Name: invoice.Intake}}); err == nil {
		t.Error("a single agent named like a role ran, want an error")
	}
}

// dropField drops a payload field at the emitter: a wire boundary the
// single agent does not have.
type dropField struct {
	mission.NoSeams
	field string
}

func (s dropField) Emit(_ mission.Edge, msg *mission.Message) {
	if p := msg.Object("payload"); p != nil {
		p.Delete(s.field)
	}
}

// TestSingleAgentHasNoWire checks that what a wire drops reaches the next
// role inside the single agent: a build dropping the amount at the
// desk's emitter fails the team and not the single agent.
func TestSingleAgentHasNoWire(t *testing.T) {
	m := toyMission(t)
	scs := toyScenarios()
	b := mission.NewBuild(dropField{field: "amount"}, nil)
	multi, _ := passed(t, m, b, scs, 1, mission.Env{})
	single, _ := passed(t, m, b, scs, 1, mission.Env{Single: &mission.Single{}})
	want := map[string]bool{"T1": false, "T2": false, "T3": false}
	if diff := cmp.Diff(want, multi); diff != "" {
		t.Errorf("multi-agent build (-want +got):\n%s", diff)
	}
	want = map[string]bool{"T1": true, "T2": true, "T3": true}
	if diff := cmp.Diff(want, single); diff != "" {
		t.Errorf("single agent (-want +got):\n%s", diff)
	}
}

// forgetful is a clerk that forgets to file now and then (a slip with the
// profile's rate) and decides through its turn.
func forgetful(_ context.Context, t *mission.Turn) (mission.Result, error) {
	p := t.Messages[0].Payload
	res := mission.Result{"entry_id": ""}
	choice := "file"
	if t.Slip("forget", "file") {
		choice = "skip"
	}
	t.Step("file", choice, 0, 20)
	if t.Decide("file", choice) == "file" {
		args := sandbox.Args{"request": p["request_id"], "account": p["account_id"], "amount": p["amount"], "category": p["category"]}
		if out, err := t.Call("file_entry", args); err == nil {
			res["entry_id"] = out["entry_id"]
		}
	}
	return res, nil
}

// votes runs the toy's scenarios over trials with a forgetful clerk, as
// the single agent with votes votes and budget, and returns how many runs
// passed, went over the budget, and their cost.
func votes(tb testing.TB, trials, votes, need int, budget mission.Budget) (pass, over int, cost mission.Cost) {
	tb.Helper()
	m := toyMission(tb)
	env := mission.Env{
		Profile: mission.Profile{clerk: {"forget": 0.15}},
		Cores:   map[mission.Agent]mission.Core{clerk: mission.Policy(forgetful)},
		Single:  &mission.Single{Votes: votes, Budget: budget, Need: need},
	}
	for trial := range trials {
		for _, sc := range toyScenarios() {
			run, err := m.Run(context.Background(), mission.Clean(), sc, sandbox.HashSeed(9, sc.ID, fmt.Sprint(trial)), env)
			if err != nil {
				tb.Fatal(err)
			}
			switch {
			case budget.Exceeded(run.Cost):
				over++
			case len(m.Check(sc, run.End)) == 0:
				pass++
			}
			cost.Add(run.Cost)
		}
	}
	return pass, over, cost
}

// TestSingleAgentRevotes checks that votes spend surplus budget on
// independent draws: three votes take the majority of three slip draws,
// so a 15% slip fails less than half as often, at about three times the model
// calls; a budget below what the votes cost holds them back; and a budget
// below what the run needs stops it.
func TestSingleAgentRevotes(t *testing.T) {
	const trials = 60
	once, _, c1 := votes(t, trials, 1, 0, mission.Budget{})
	thrice, _, c3 := votes(t, trials, 3, 0, mission.Budget{})
	if thrice <= once+8 {
		t.Errorf("passed %d runs voting once, %d voting thrice: want thrice to pass over 8 more", once, thrice)
	}
	if c3.ModelCalls < 2*c1.ModelCalls {
		t.Errorf("model calls: %d voting once, %d thrice: want thrice to spend at least twice as much", c1.ModelCalls, c3.ModelCalls)
	}
	again, _, _ := votes(t, trials, 3, 0, mission.Budget{})
	if again != thrice {
		t.Errorf("voting thrice passed %d, then %d: want the same (keyed dice)", thrice, again)
	}
	// The toy's scenarios need two to four model calls: a budget of six
	// for a need of four leaves room for some votes, not all.
	capped, over, cc := votes(t, trials, 3, 4, mission.Budget{Unit: mission.UnitModelCalls, Limit: 6})
	if over != 0 || cc.ModelCalls >= c3.ModelCalls || cc.ModelCalls <= c1.ModelCalls || capped >= thrice {
		t.Errorf("budget 6: %d passed, %d over, %d model calls: want none over, calls between voting once and thrice (%d, %d), fewer passes than unbudgeted (%d)",
			capped, over, cc.ModelCalls, c1.ModelCalls, c3.ModelCalls, thrice)
	}
	// Without a need the budgeted agent does not vote.
	_, _, cn := votes(t, trials, 3, 0, mission.Budget{Unit: mission.UnitModelCalls, Limit: 100})
	if cn.ModelCalls != c1.ModelCalls {
		t.Errorf("budget 100, no need: %d model calls, want %d (no votes)", cn.ModelCalls, c1.ModelCalls)
	}
	_, over, _ = votes(t, trials, 1, 0, mission.Budget{Unit: mission.UnitModelCalls, Limit: 1})
	if over != 3*trials {
		t.Errorf("budget 1: %d runs over, want all %d", over, 3*trials)
	}
}

// BenchmarkSingleAgent runs every invoice scenario once through the
// multi-agent build and through the single-agent build.
func BenchmarkSingleAgent(b *testing.B) {
	m := invoice.New()
	scs, _, err := m.Scenarios()
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		env  mission.Env
	}{{"multi", mission.Env{}}, {"single", mission.Env{Single: &mission.Single{}}}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, sc := range scs {
					run, err := m.Run(context.Background(), mission.Clean(), sc, 1, bc.env)
					if err != nil {
						b.Fatal(err)
					}
					run.Trace.Recycle()
				}
			}
		})
	}
}

// TestSingleAgentVotesSampleApart checks that each vote of a core that is
// not a policy (a model's) sees its own trial seed, the sample a model
// core sends, so that a cache keeps the votes' answers apart; and that
// the seeds are the same on a rerun.
func TestSingleAgentVotesSampleApart(t *testing.T) {
	m := toyMission(t)
	sc := toyScenarios()[0]
	seeds := func() []uint64 {
		var out []uint64
		seen := mission.CoreFunc(func(ctx context.Context, t *mission.Turn) (mission.Result, error) {
			out = append(out, t.Seed())
			return deskCore(ctx, t)
		})
		env := mission.Env{Cores: map[mission.Agent]mission.Core{desk: seen}, Single: &mission.Single{Votes: 3}}
		if _, err := m.Run(context.Background(), mission.Clean(), sc, 11, env); err != nil {
			t.Fatal(err)
		}
		return out
	}
	first := seeds()
	if len(first) != 3 || first[2] != 11 || first[0] == first[1] || first[0] == 11 || first[1] == 11 {
		t.Errorf("seeds %v: want two distinct vote seeds, then the trial's (11)", first)
	}
	if diff := cmp.Diff(first, seeds()); diff != "" {
		t.Errorf("rerun (-first +second):\n%s", diff)
	}
}
