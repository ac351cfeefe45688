package invoice

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// TestWriteKeys runs every scenario through one mission value, clean and
// under builds whose Parse seam renames some items or whose transport
// delivers every copy, with faults that make writes retry and hand-offs
// arrive twice: every write's key is item + ":" + tool, in the trace and as
// the RetryKey seam is handed it, and every read has none; every message's
// id is "m-" + item + "-" + edge + "-" + its count on the edge for the
// item, and its idempotency key item + ":" + kind.
func TestWriteKeys(t *testing.T) {
	scs, _, err := DefaultScenarios()
	if err != nil {
		t.Fatal(err)
	}
	scs = append(testScenarios(t), scs...)
	reg := spec().Tools
	seen := 0
	check := func(where, item, tool, key string) {
		t.Helper()
		tl, ok := reg.Tool(tool)
		if !ok {
			t.Fatalf("%s: unknown tool %s", where, tool)
		}
		want := ""
		if tl.Access == sandbox.Write {
			want = item + ":" + tool
			seen++
		}
		if key != want {
			t.Fatalf("%s: %s for %s: key %q, want %q", where, tool, item, key, want)
		}
	}
	retry := func(_ mission.Agent, tool, item, key string, _ int) string {
		check("RetryKey", item, tool, key)
		return key
	}
	rename := func(_ mission.Edge, msg *mission.Message) {
		if v, _ := msg.Get("item"); len(str(v))%2 == 1 {
			msg.Set("item", str(v)+"-renamed")
		}
	}
	kinds := map[string]string{}
	for _, e := range spec().Edges {
		kinds[e.Edge().String()] = e.Kind
	}
	m := New()
	env := mission.Env{Faults: scaled(protocolFaults, 10)}
	env.Faults["transport"][sandbox.Redelivery] = 0.5
	maxSeq := 0
	for i, sc := range scs {
		for _, b := range []mission.Build{
			mission.NewBuild(hook{retryKey: retry}, &mission.Oracle{}),
			mission.NewBuild(hook{retryKey: retry, parse: rename}, &mission.Oracle{}),
			mission.NewBuild(hook{dedup: func(mission.Edge) bool { return false }}, &mission.Oracle{}),
		} {
			run := mustRun(m, b, sc, uint64(i), env)
			for _, ev := range run.Trace.Of(mission.EventToolCall) {
				if ev.Attempt == 0 {
					check(sc.ID+" trace", ev.Item, ev.Tool, ev.Key)
				}
			}
			seqs := map[[2]string]int{}
			for _, ev := range run.Trace.Of(mission.EventSent) {
				var env struct {
					ID  string `json:"id"`
					Key string `json:"idempotency_key"`
				}
				if err := json.Unmarshal([]byte(ev.Raw), &env); err != nil {
					t.Fatal(err)
				}
				k := [2]string{ev.Edge, ev.Item}
				seqs[k]++
				maxSeq = max(maxSeq, seqs[k])
				id := "m-" + ev.Item + "-" + ev.Edge + "-" + strconv.Itoa(seqs[k])
				if env.ID != id || env.Key != ev.Item+":"+kinds[ev.Edge] {
					t.Fatalf("%s: message %s, key %s; want %s, %s", sc.ID, env.ID, env.Key, id, ev.Item+":"+kinds[ev.Edge])
				}
			}
		}
	}
	if seen < 100 || maxSeq < 3 {
		t.Fatalf("only %d writes seen, at most %d messages on an edge for an item", seen, maxSeq)
	}
}
