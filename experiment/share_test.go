package experiment

import (
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
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
