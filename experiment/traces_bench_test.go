package experiment

import (
	"fmt"
	"testing"

	"github.com/baton-lab/baton/mission"
)

// traceCorpus is the items of every build of the default protocol on a
// third of its scenarios, one trial each: an observation item (its
// integrated run's trace) and an item of the core runs of the scenario's
// golden inputs (a design item's trace of several runs), all of one memo.
func traceCorpus(b *testing.B) []*outcome {
	pl := preparedPlan(b, "name: traces\n")
	memo := newUnitMemo(true)
	var out []*outcome
	for bi := range pl.builds {
		for si := bi % 3; si < len(pl.scenarios); si += 3 {
			seed := TrialSeed(pl.seed, pl.scenarios[si].ID, 1)
			id := fmt.Sprintf("%s/%s/1", pl.builds[bi].Info.ID, pl.scenarios[si].ID)
			obs := &outcome{traces: map[string]*mission.Trace{"integrated": runOf(b, pl, bi, si, -1, seed).run.Trace}, memo: memo}
			obs.row.id = id
			cores := &outcome{traces: map[string]*mission.Trace{}, memo: memo}
			for k, g := range pl.goldenOf(bi, si) {
				cores.traces[fmt.Sprintf("core:%s:%d", g.Agent, k)] = runOf(b, pl, bi, si, k, seed).core.Trace
			}
			cores.row.id = id + "/C"
			out = append(out, obs, cores)
		}
	}
	return out
}

// BenchmarkTraceSum is the identity (hash and compact size) of every
// corpus item's trace, as attachTrace takes it for an item it keeps. One
// op is the corpus.
func BenchmarkTraceSum(b *testing.B) {
	items := traceCorpus(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, o := range items {
			if _, ok := o.traceSum(); !ok {
				b.Fatal("no trace")
			}
		}
	}
}

// BenchmarkKeptTrace is attachTrace keeping the bytes of every corpus
// item's trace, its traces/ line too: its identity, JSON Lines, line and
// gzip member, each item in a unit of its own. One op is the corpus.
func BenchmarkKeptTrace(b *testing.B) {
	items := traceCorpus(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, o := range items {
			o.memo.reset()
			if err := o.attachTrace(keepBytes, true); err != nil {
				b.Fatal(err)
			}
			if len(o.row.traceGZ) == 0 || len(o.row.traceLine) == 0 {
				b.Fatal("nothing kept")
			}
		}
	}
}
