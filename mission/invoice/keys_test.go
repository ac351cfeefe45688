package invoice

import (
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// TestWriteKeys runs every scenario through one mission value, clean and
// under a build whose Parse seam renames some items, with faults that make
// writes retry: every write's key is item + ":" + tool, in the trace and as
// the RetryKey seam is handed it, and every read has none.
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
	m := New()
	env := mission.Env{Faults: scaled(protocolFaults, 10)}
	for i, sc := range scs {
		for _, b := range []mission.Build{
			mission.NewBuild(hook{retryKey: retry}, &mission.Oracle{}),
			mission.NewBuild(hook{retryKey: retry, parse: rename}, &mission.Oracle{}),
		} {
			run := mustRun(m, b, sc, uint64(i), env)
			for _, ev := range run.Trace.Of(mission.EventToolCall) {
				if ev.Attempt == 0 {
					check(sc.ID+" trace", ev.Item, ev.Tool, ev.Key)
				}
			}
		}
	}
	if seen < 100 {
		t.Fatalf("only %d writes seen", seen)
	}
}
