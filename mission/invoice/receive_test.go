package invoice

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
)

// A core run alone is the same whether its input messages are read afresh
// or served from the mission's memo, and what a run does with the parsed
// message it gets does not reach the next run.
func TestRunCoreReadingsMemo(t *testing.T) {
	scs, _, err := DefaultScenarios()
	if err != nil {
		t.Fatal(err)
	}
	env := mission.Env{Faults: scaled(protocolFaults, 5)}
	shared := New()
	for _, sc := range scs[:20] {
		goldens, err := recordGolden(New(), sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range goldens {
			if len(g.Input.Messages) == 0 {
				continue
			}
			for seed := range uint64(2) {
				want := mustRunCore(New(), mission.Clean(), g.Agent, sc, g.Input, seed, env) // reads afresh
				for i := range 2 {
					got := mustRunCore(shared, mission.Clean(), g.Agent, sc, g.Input, seed, env)
					if diff := cmp.Diff(jsonl(t, want.Trace), jsonl(t, got.Trace)); diff != "" {
						t.Fatalf("%s %s %s seed %d, run %d: trace (-fresh +memo):\n%s", sc.ID, g.Agent, g.Item, seed, i+1, diff)
					}
					if diff := cmp.Diff(want.Result, got.Result); diff != "" {
						t.Fatalf("%s %s %s seed %d, run %d: result (-fresh +memo):\n%s", sc.ID, g.Agent, g.Item, seed, i+1, diff)
					}
					scribble(got.Result)
				}
			}
		}
	}
}

// scribble changes every container inside v.
// scribbleMessage changes every field of msg and of every object in it,
// through the message's methods, as a seam may.
func scribbleMessage(msg *mission.Message) {
	var keys []string
	for k := range msg.All() {
		keys = append(keys, k)
	}
	for _, k := range keys {
		if o := msg.Object(k); o != nil {
			scribbleMessage(o)
		}
		msg.Set(k, "scribbled")
	}
	msg.Set("extra", true)
}

func scribble(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, y := range x {
			scribble(y)
			x[k] = "scribbled"
		}
		x["extra"] = true
	case []any:
		for i, y := range x {
			scribble(y)
			x[i] = "scribbled"
		}
	}
}
