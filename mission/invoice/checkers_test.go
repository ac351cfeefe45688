package invoice

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// endStates runs every scenario under the clean build and under builds
// that go wrong in many ways (high fault and slip rates, decisions
// overturned, writes retried under new keys), and returns each run's scenario and end state.
func endStates(tb testing.TB) ([]*mission.Scenario, []*sandbox.State) {
	tb.Helper()
	scs, _, err := DefaultScenarios()
	if err != nil {
		tb.Fatal(err)
	}
	scs = append(testScenarios(tb), scs...)
	rates := scaled(protocolFaults, 10)
	rates["*"][sandbox.Refusal] = 0.05
	profile := mission.Profile{}
	for _, a := range spec().AgentNames() {
		profile[a] = map[mission.Slip]float64{Misclassify: 0.2, Misread: 0.2, SkipLookup: 0.2, mission.Misroute: 0.1}
	}
	flip := hook{decide: func(_ mission.Agent, kind, item, choice string) string {
		switch {
		case kind == "decision" && len(item)%2 == 0:
			return DecisionApproved
		case kind == "escalate":
			return mission.EscalationRequested
		}
		return choice
	}}
	// A retry under a new key writes again: duplicate records.
	rekey := hook{retryKey: func(_ mission.Agent, _, _, key string, attempt int) string {
		return key + "#" + strconv.Itoa(attempt)
	}}
	m := New()
	var runs []*mission.Scenario
	var ends []*sandbox.State
	for i, sc := range scs {
		for j, b := range []mission.Build{mission.Clean(), mission.NewBuild(flip, &mission.Oracle{}), mission.NewBuild(rekey, &mission.Oracle{})} {
			for _, env := range []mission.Env{{}, {Faults: rates, Profile: profile}} {
				r := mustRun(m, b, sc, uint64(10*i+j), env)
				runs, ends = append(runs, sc), append(ends, r.End)
			}
		}
	}
	return runs, ends
}

// TestCheckersAsCheck checks many end states, with and without
// differences, through one pool of checkers, twice in different orders:
// every check reports what a check of its own ([Check]) reports, in the
// same order. A checker that kept anything of an earlier check would
// differ.
func TestCheckersAsCheck(t *testing.T) {
	scs, ends := endStates(t)
	want := make([][]sandbox.Difference, len(ends))
	differ := 0
	for i := range ends {
		want[i] = Check(expectOf(scs[i]), ends[i])
		if len(want[i]) > 0 {
			differ++
		}
	}
	dups := 0
	for i := range want {
		for _, d := range want[i] {
			if d.Field == "count" && d.Want == "1" && (strings.HasPrefix(d.Record, "match:") || strings.HasPrefix(d.Record, "ledger:")) {
				dups++
			}
		}
	}
	if differ < len(ends)/4 || differ == len(ends) || dups == 0 {
		t.Fatalf("%d of %d end states differ from their expectation, %d duplicate records: too few checks of each kind", differ, len(ends), dups)
	}
	m := New()
	for pass := range 2 {
		for k := range ends {
			i := k
			if pass == 1 {
				i = (k * 7) % len(ends) // another order
			}
			if diff := cmp.Diff(want[i], m.Check(scs[i], ends[i])); diff != "" {
				t.Fatalf("pass %d, end state %d (%s): (-want +got)\n%s", pass, i, scs[i].ID, diff)
			}
		}
	}
}

// BenchmarkCheckEnds checks the end states of endStates through the
// mission, as the sweep does after each integrated run.
func BenchmarkCheckEnds(b *testing.B) {
	scs, ends := endStates(b)
	m := New()
	b.ReportAllocs()
	for b.Loop() {
		for i := range ends {
			m.Check(scs[i], ends[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ends)), "ns/check")
}
