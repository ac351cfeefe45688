package experiment

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

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
