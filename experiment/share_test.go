package experiment

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/sandbox"
)

// TestCoreKeyTellsInputsApart: two core runs share a key only when agent,
// item and every message byte agree, however the bytes are split.
func TestCoreKeyTellsInputsApart(t *testing.T) {
	in := func(item string, msgs ...string) mission.CoreInput {
		c := mission.CoreInput{Item: item}
		for _, m := range msgs {
			c.Messages = append(c.Messages, []byte(m))
		}
		return c
	}
	cases := []struct {
		agent mission.Agent
		in    mission.CoreInput
	}{
		{invoice.Action, in("E1", "ab", "c")},
		{invoice.Action, in("E1", "a", "bc")},
		{invoice.Action, in("E1", "abc")},
		{invoice.Action, in("E1", "abc", "")},
		{invoice.Action, in("E1")},
		{invoice.Action, in("E1\x00")},
		{invoice.Action, in("E2", "ab", "c")},
		{invoice.Boundary, in("E1", "ab", "c")},
		{invoice.Action, in("E1", "1:x")},
		{invoice.Action, in("E1", "x", "")},
	}
	seen := map[string]int{}
	for i, c := range cases {
		k := string(appendCoreKey(nil, c.agent, c.in))
		if j, dup := seen[k]; dup {
			t.Errorf("cases %d and %d share the key %q", j, i, k)
		}
		seen[k] = i
		if again := string(appendCoreKey([]byte("scratch"), c.agent, c.in)[len("scratch"):]); again != k {
			t.Errorf("case %d: the key depends on the buffer: %q vs %q", i, again, k)
		}
	}
}

// checkCounter is a mission that counts its end-state checks and finds
// one difference in every end state.
type checkCounter struct {
	mission.Mission
	checks int
}

func (c *checkCounter) Check(sc *mission.Scenario, end *sandbox.State) []sandbox.Difference {
	c.checks++
	return []sandbox.Difference{{Record: "invoice:" + sc.ID, Field: "total", Want: "1", Got: "2"}}
}

// TestSharedRunCheckedOnce: the items of a unit that share its integrated
// run (the observation run and design B) check its end state once and each
// get the mission's differences; any other end state is checked as asked.
func TestSharedRunCheckedOnce(t *testing.T) {
	m := &checkCounter{Mission: invoice.New()}
	all, _, err := m.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	sc := all[0]
	memo := newUnitMemo(true)
	item := func() *itemMission {
		return &itemMission{Mission: m, memo: memo, build: mission.Clean(), sc: sc, seed: 7, oracle: &mission.Oracle{}}
	}
	want := []sandbox.Difference{{Record: "invoice:" + sc.ID, Field: "total", Want: "1", Got: "2"}}
	var ends []*sandbox.State
	for i := range 2 {
		im := item()
		run, err := im.Run(context.Background(), im.build, sc, im.seed, im.env)
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, run.End)
		got := im.Check(sc, run.End)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("item %d: differences (-want +got):\n%s", i, diff)
		}
		got[0].Got = "changed by a caller"
	}
	if ends[0] != ends[1] {
		t.Fatal("the unit's two items did not share the run")
	}
	if m.checks != 1 {
		t.Errorf("the shared run was checked %d times, want once", m.checks)
	}
	other := &sandbox.State{}
	item().Check(sc, other)
	if m.checks != 2 {
		t.Errorf("another end state: %d checks in all, want 2", m.checks)
	}
}

// sameVerdicts evaluates u's design items with memo and with ref (nil:
// no memo) and reports the verdicts that differ, wall time aside.
func sameVerdicts(t *testing.T, pl *plan, u unit, memo, ref *unitMemo) {
	t.Helper()
	for slot := 1; slot < pl.slots(); slot++ {
		got, err := pl.evaluate(context.Background(), u, slot, memo)
		if err != nil {
			t.Fatal(err)
		}
		want, err := pl.evaluate(context.Background(), u, slot, ref)
		if err != nil {
			t.Fatal(err)
		}
		got.verdict.WallNS, want.verdict.WallNS = 0, 0
		if d := cmp.Diff(want.verdict, got.verdict); d != "" {
			t.Errorf("%s: verdict with the memo differs (-reference +memo):\n%s", got.row.id, d)
		}
	}
}

// TestScorecardsKeptForTheGroup: with a trial memo, a worker's scorecards
// outlive its units of one (build, scenario), whose later trials are
// served the runs it holds, and are dropped with those runs when the
// group changes; without one, each unit starts with none. Every verdict
// is the one evaluated without a memo.
func TestScorecardsKeptForTheGroup(t *testing.T) {
	pl := preparedPlan(t, "name: x\ntrials: 3\ndesigns: [A, C]\nscenarios:\n  ids: [S01, S14]\n")
	evaluate := func(u unit, memo *unitMemo) { sameVerdicts(t, pl, u, memo, nil) }
	const build = 1
	memo := newUnitMemo(true)
	memo.trials = newTrialMemo()
	fromTrials := 0
	for si := range pl.scenarios {
		for trial := 1; trial <= pl.trials; trial++ {
			before := memo.scorecards.Len()
			memo.reset()
			memo.enter(build, si)
			switch n := memo.scorecards.Len(); {
			case trial == 1 && n != 0:
				t.Errorf("%s: %d scorecards of another group on entering %s", pl.scenarios[si].ID, n, pl.scenarios[si].ID)
			case trial > 1 && n != before:
				t.Errorf("%s trial %d: %d scorecards after the reset, want the group's %d", pl.scenarios[si].ID, trial, n, before)
			}
			evaluate(pl.unitAt(pl.unitIndex(build, si, trial)), memo)
			fromTrials += memo.fromTrials
			if memo.scorecards.Len() == 0 {
				t.Errorf("%s trial %d: no scorecard kept", pl.scenarios[si].ID, trial)
			}
		}
	}
	if fromTrials == 0 {
		t.Error("no run served from another trial: the group's scorecards were never read")
	}

	alone := newUnitMemo(true)
	evaluate(pl.unitAt(pl.unitIndex(build, 0, 1)), alone)
	alone.reset()
	if n := alone.scorecards.Len(); n != 0 {
		t.Errorf("without a trial memo, %d scorecards outlive the unit", n)
	}
}

// TestSharedRunJudgedOnce: a shared integrated run's coordination
// verdicts are derived once and handed out as copies; another run, or the
// same run judged for another scenario or success, is derived afresh.
func TestSharedRunJudgedOnce(t *testing.T) {
	scs, _, err := invoice.New().Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	run, other := &mission.Run{}, &mission.Run{}
	memo := newUnitMemo(true)
	memo.run = &sharedRun{run: run}
	derived := 0
	derive := func() ([]coordination.Verdict, error) {
		derived++
		return []coordination.Verdict{coordination.Pass, coordination.Fail}, nil
	}
	for _, c := range []struct {
		run     *mission.Run
		sc      *mission.Scenario
		success bool
		derived int
	}{{run, scs[0], true, 1}, {run, scs[0], true, 1}, {other, scs[0], true, 2}, {run, scs[0], false, 3}, {run, scs[1], false, 4}, {run, scs[1], false, 4}} {
		vs, err := memo.coordination(c.run, c.sc, c.success, derive)
		if err != nil {
			t.Fatal(err)
		}
		if want := []coordination.Verdict{coordination.Pass, coordination.Fail}; !slices.Equal(vs, want) {
			t.Errorf("verdicts %v, want %v", vs, want)
		}
		vs[0] = coordination.Fail // a caller's copy
		if derived != c.derived {
			t.Errorf("%d derivations, want %d", derived, c.derived)
		}
	}
}

// TestScorecardsKeepTwinRuns: the scorecards of the twins' core runs,
// held to the end of the sweep, outlive a group change (the units of
// other builds are served the same runs), those of the group's own runs
// do not; the verdicts served with them are the ones a unit served the
// same runs with scorecards of its own gives. (The twin here serves every
// core run, reachable or not: the verdicts are not the build's own.)
func TestScorecardsKeepTwinRuns(t *testing.T) {
	pl := preparedPlan(t, "name: x\ntrials: 1\ndesigns: [A, C]\nscenarios:\n  ids: [S01, S14]\n")
	clean := newUnitMemo(true)
	for slot := 1; slot < pl.slots(); slot++ {
		if _, err := pl.evaluate(context.Background(), pl.unitAt(pl.unitIndex(0, 0, 1)), slot, clean); err != nil {
			t.Fatal(err)
		}
	}
	twin := map[string]*heldCore{} // as the selection holds them: copies
	for k, c := range clean.cores {
		run := *c.run
		twin[k] = &heldCore{core: sharedCore{run: &run}, covers: newBitset(len(pl.builds))}
	}
	memo := newUnitMemo(true)
	memo.trials = newTrialMemo()
	unit := func(build, scenario int) (entered int) {
		t.Helper()
		memo.reset()
		memo.enter(build, scenario)
		entered = memo.scorecards.Len()
		u := pl.unitAt(pl.unitIndex(build, scenario, 1))
		fresh := newUnitMemo(true)
		if scenario == 0 {
			memo.twin, memo.build = twin, build
			fresh.twin, fresh.build = twin, build
		}
		sameVerdicts(t, pl, u, memo, fresh)
		return entered
	}
	unit(1, 0) // every core run the twin's
	if memo.served != len(twin) {
		t.Fatalf("%d core runs served from the twin, want its %d", memo.served, len(twin))
	}
	kept := memo.scorecards.Len()
	unit(1, 1) // the group's own runs
	own := memo.scorecards.Len() - kept
	if own <= 0 {
		t.Fatalf("%d scorecards of the twin's runs, %d after a unit of the group's own runs: want more", kept, memo.scorecards.Len())
	}
	// Another build, served the twin's runs again.
	if n := unit(2, 0); n != kept {
		t.Errorf("%d scorecards on entering another build's group, want the twin's %d (the last group's %d dropped)", n, kept, own)
	}
	if n := memo.scorecards.Len(); n != kept {
		t.Errorf("%d scorecards after a unit served the twin's runs, want the twin's %d: scored again", n, kept)
	}
}
