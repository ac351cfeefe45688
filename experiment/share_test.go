package experiment

import (
	"testing"

	"github.com/baton-lab/baton/mission"
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
		{mission.Action, in("E1", "ab", "c")},
		{mission.Action, in("E1", "a", "bc")},
		{mission.Action, in("E1", "abc")},
		{mission.Action, in("E1", "abc", "")},
		{mission.Action, in("E1")},
		{mission.Action, in("E1\x00")},
		{mission.Action, in("E2", "ab", "c")},
		{mission.Boundary, in("E1", "ab", "c")},
		{mission.Action, in("E1", "1:x")},
		{mission.Action, in("E1", "x", "")},
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
