package designs

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
)

// sharingMission serves every core run it executed again for the same
// agent and input, as a sweep's unit does for designs A and C.
type sharingMission struct {
	mission.Mission
	runs map[string]*mission.CoreRun
}

func (s *sharingMission) RunCore(ctx context.Context, b mission.Build, a mission.Agent, sc *mission.Scenario, in mission.CoreInput, seed uint64, env mission.Env) (*mission.CoreRun, error) {
	var k strings.Builder
	k.WriteString(string(a) + "\x00" + in.Item)
	for _, m := range in.Messages {
		k.WriteString("\x00" + string(m))
	}
	if cr, ok := s.runs[k.String()]; ok {
		return cr, nil
	}
	cr, err := s.Mission.RunCore(ctx, b, a, sc, in, seed, env)
	if err == nil {
		s.runs[k.String()] = cr
	}
	return cr, err
}

// TestScorecardsAsScored: designs that share core runs and scorecards
// give the verdicts they give scoring every run themselves, and each core
// run is scored once. A.recorded's core runs, on other inputs, are not
// taken for A's: a scorecard keyed by the golden alone fails here.
func TestScorecardsAsScored(t *testing.T) {
	var ds []Design
	for _, id := range []string{"A", "A.wire", "A.recorded", "C", "C.wire"} {
		d, err := Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	builds := map[string]mission.Build{
		"clean":         mission.Clean(),
		"drop currency": mission.NewBuild(hook{emit: dropField("intake->action", "currency")}, nil),
	}
	findings := 0
	for name, b := range builds {
		for _, sc := range scenarios(t)[:6] {
			m := &sharingMission{Mission: invoice.New(), runs: map[string]*mission.CoreRun{}}
			cards := &Scorecards{}
			for _, d := range ds {
				in := testInput(t, sc, m)
				in.Build = b
				alone := evaluate(t, d, in)
				in.Scorecards = cards
				shared := evaluate(t, d, in)
				if diff := cmp.Diff(alone, shared, cmpopts.IgnoreFields(Verdict{}, "WallNS")); diff != "" {
					t.Errorf("%s, %s, %s: verdict with scorecards (-alone +shared):\n%s", name, sc.ID, d.ID, diff)
				}
				findings += len(alone.Findings)
			}
			if len(cards.m) > len(m.runs) {
				t.Errorf("%s, %s: %d scorecards for %d core runs: some scored twice", name, sc.ID, len(cards.m), len(m.runs))
			}
			cards.Reset()
			if len(cards.m) != 0 {
				t.Errorf("Reset left %d scorecards", len(cards.m))
			}
		}
	}
	if findings == 0 {
		t.Error("no design found anything: nothing compared")
	}
}

// TestScorecardsByIdentity: an entry is found by the run's identity, so
// a run object changed in place (as a pool recycling it would) gets its
// old scorecard and contract checks until Reset, and is scored afresh
// after it (why a caller resets when the runs it serves change, and never
// recycles a run the memo holds); the bound forgets everything.
func TestScorecardsByIdentity(t *testing.T) {
	m := invoice.New()
	sc := scenarios(t)[0]
	in := testInput(t, sc, m)
	golden, err := goldenFor(in)
	if err != nil {
		t.Fatal(err)
	}
	g := &golden[0]
	cr, err := m.RunCore(context.Background(), mission.Clean(), g.Agent, sc, g.Input, in.Seed, in.Env)
	if err != nil {
		t.Fatal(err)
	}
	if len(cr.Emitted) == 0 {
		t.Fatalf("%s %s emitted nothing: no contract check to remember", g.Agent, g.Item)
	}
	spec := m.Spec()
	judge := func(cards *Scorecards) Verdict {
		var v Verdict
		v.Matchers = &MatcherCounts{}
		cards.score(spec, g, cr, v.Matchers, &v)
		cards.checkContracts(in.Contracts, in.Level, coreOutcome{golden: g, run: cr, failed: len(v.Findings) > 0}, &v)
		return v
	}
	cards := &Scorecards{}
	first := judge(cards)
	if cards.Len() != 2 {
		t.Fatalf("%d entries after scoring and checking one run, want 2", cards.Len())
	}
	// Recycle the run: the same object, another run's content.
	cr.Result = nil
	for e := range cr.Emitted {
		cr.Emitted[e] = []byte("{}")
	}
	fresh := judge(nil)
	if cmp.Equal(first, fresh) {
		t.Fatal("the changed run judges as before: the test shows nothing")
	}
	if d := cmp.Diff(first, judge(cards)); d != "" {
		t.Errorf("before Reset, the memo should serve the run's first judgement (-first +served):\n%s", d)
	}
	cards.Reset()
	if d := cmp.Diff(fresh, judge(cards)); d != "" {
		t.Errorf("after Reset, a stale entry was served (-fresh +served):\n%s", d)
	}
	cards = &Scorecards{m: map[scoreKey]scorecard{}}
	for cards.Len() < scorecardsMax {
		cards.m[scoreKey{run: &mission.CoreRun{}}] = scorecard{}
	}
	judge(cards)
	if cards.Len() > 2 {
		t.Errorf("full at %d entries, the memo holds %d after one more run, want everything forgotten", scorecardsMax, cards.Len())
	}
	cards.m[scoreKey{run: &mission.CoreRun{}}] = scorecard{}
	cards.Retain(func(r *mission.CoreRun) bool { return r == cr })
	if cards.Len() != 2 {
		t.Errorf("Retain of the run left %d entries, want its 2", cards.Len())
	}
	cards.Retain(func(*mission.CoreRun) bool { return false })
	if cards.Len() != 0 {
		t.Errorf("Retain of no run left %d entries", cards.Len())
	}
}

// BenchmarkScorecards evaluates designs A and C on one unit of each of
// eight scenarios, the core runs shared as a sweep's unit shares them:
// "alone" scores every core run in each design, "shared" with the unit's
// scorecards (C reads A's), "served" with scorecards kept from unit to
// unit, as a worker keeps them for a group whose later trials are served
// the same runs. One op is the eight units.
func BenchmarkScorecards(b *testing.B) {
	var ds []Design
	for _, id := range []string{"A", "C"} {
		d, err := Lookup(id)
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, d)
	}
	build := mission.NewBuild(hook{emit: dropField("intake->action", "currency")}, nil)
	scs := scenarios(b)[:8]
	for _, bm := range []struct {
		name  string
		cards *Scorecards
		keep  bool
	}{{"alone", nil, false}, {"shared", &Scorecards{}, false}, {"served", &Scorecards{}, true}} {
		b.Run(bm.name, func(b *testing.B) {
			// The units' core runs, executed once: the benchmark measures
			// the designs' scoring, not the mission.
			ins := make([]Input, len(scs))
			for i, sc := range scs {
				ins[i] = testInput(b, sc, &sharingMission{Mission: invoice.New(), runs: map[string]*mission.CoreRun{}})
				ins[i].Build, ins[i].Scorecards = build, bm.cards
				ins[i].Contracts = ins[0].Contracts
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, in := range ins {
					for _, d := range ds {
						evaluate(b, d, in)
					}
					if !bm.keep {
						bm.cards.Reset()
					}
				}
			}
		})
	}
}
