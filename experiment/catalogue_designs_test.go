package experiment

import (
	"strings"
	"testing"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
)

// catalogueBench evaluates designs on the default catalogue's builds, each
// with the goldens the experiment prepares for it, with no slips and no
// faults: what a design flags is the build's defect.
type catalogueBench struct {
	m         mission.Mission
	builds    map[string]BuildSpec
	scenarios []*mission.Scenario
	clean     [][]mission.Golden
}

func newCatalogueBench(tb testing.TB) *catalogueBench {
	tb.Helper()
	m := invoice.New()
	bs, _, err := missionBuilds(m, CatalogueDefault, "")
	if err != nil {
		tb.Fatal(err)
	}
	scs, _, err := m.Scenarios()
	if err != nil {
		tb.Fatal(err)
	}
	cb := &catalogueBench{m: m, builds: map[string]BuildSpec{"clean": CleanBuild()}, scenarios: scs}
	for _, b := range bs {
		cb.builds[b.Info.ID] = b
	}
	for _, sc := range scs {
		g, err := designs.PrepareGolden(m, sc)
		if err != nil {
			tb.Fatal(err)
		}
		cb.clean = append(cb.clean, g)
	}
	return cb
}

// flagged returns the scenarios design flags on build, and the first
// blame of each; rebased false scores against the clean goldens whatever
// the build's intent.
func (cb *catalogueBench) flagged(tb testing.TB, design, build string, rebased bool) map[string]mission.Location {
	tb.Helper()
	b, ok := cb.builds[build]
	if !ok {
		tb.Fatalf("no build %s in the default catalogue", build)
	}
	d, err := designs.Lookup(design)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]mission.Location{}
	for i, sc := range cb.scenarios {
		golden := cb.clean[i]
		if rebased && b.Rebaseline != "" {
			if golden, err = rebaseline(cb.m, b, sc, golden); err != nil {
				tb.Fatal(err)
			}
		}
		v, err := d.Evaluate(designs.Input{Mission: cb.m, Build: b.Switch(&mission.Oracle{}), Scenario: sc, Seed: 1, Golden: golden})
		if err != nil {
			tb.Fatalf("%s on %s, %s: %v", design, build, sc.ID, err)
		}
		if v.Flagged {
			out[sc.ID] = ""
			if len(v.Blame) > 0 {
				out[sc.ID] = v.Blame[0]
			}
		}
	}
	return out
}

// Whole-agent A at golden inputs runs the build's parser: the boundary
// misreading the escalation flag is caught by A and blamed on boundary.
// Emit-side drops change no agent's result: A at result level misses
// them, A.wire catches them on the producer's wire.
func TestWholeAgentAOnDefaultCatalogue(t *testing.T) {
	cb := newCatalogueBench(t)
	for _, d := range []string{"A", "A.wire"} {
		if got := cb.flagged(t, d, "clean", true); len(got) != 0 {
			t.Fatalf("%s flags the clean build on %v", d, got)
		}
	}
	misread := cb.flagged(t, "A", "eg-action-boundary-flag-meaning", true)
	if len(misread) == 0 {
		t.Error("A flags no scenario on eg-action-boundary-flag-meaning (boundary's parser misreads the escalation flag)")
	}
	for sc, blame := range misread {
		if blame != mission.AgentLocation(invoice.Boundary) {
			t.Errorf("%s: A blames %s for the boundary's parser, want boundary", sc, blame)
		}
	}
	for _, id := range []string{"cl-intake-action-currency", "cl-intake-action-po-number", "cl-action-boundary-supplier-id", "cl-action-boundary-due-date"} {
		result, wire := cb.flagged(t, "A", id, true), cb.flagged(t, "A.wire", id, true)
		t.Logf("%s: A flags %d scenarios, A.wire %d", id, len(result), len(wire))
		if len(result) != 0 {
			t.Errorf("%s: A at result level flags %v: an emitter's drop changes no core's result", id, keys(result))
		}
		if len(wire) == 0 {
			t.Errorf("%s: A.wire flags no scenario on an emitter that drops a field", id)
		}
		producer := strings.Split(cb.builds[id].Info.Location, "->")[0]
		for sc, blame := range wire {
			if string(blame) != producer {
				t.Errorf("%s %s: A.wire blames %s, want the producer %s", id, sc, blame, producer)
			}
		}
	}
}

// A contract drift shipped as a version change passes its producer's own
// per-agent checks (A.wire against the goldens its team re-recorded),
// though the same build fails them against the clean goldens; what catches
// it, if anything, is downstream.
func TestVersionChangePassesProducersChecks(t *testing.T) {
	cb := newCatalogueBench(t)
	drifts := 0
	for id, b := range cb.builds {
		if b.Info.Class != "contract_drift" {
			continue
		}
		drifts++
		if b.Rebaseline == "" {
			t.Errorf("%s: intent %q, want a version change re-baselining its producer", id, b.Info.Intent)
			continue
		}
		producer := mission.Agent(strings.Split(b.Info.Location, "->")[0])
		if b.Rebaseline != producer {
			t.Errorf("%s: re-baselines %s, want the producer %s", id, b.Rebaseline, producer)
		}
		own, stale := cb.flagged(t, "A.wire", id, true), cb.flagged(t, "A.wire", id, false)
		for sc, blame := range own {
			if blame == mission.AgentLocation(producer) {
				t.Errorf("%s %s: A.wire blames the producer %s against its own re-recorded goldens", id, sc, producer)
			}
		}
		if len(stale) == 0 {
			t.Errorf("%s: A.wire against the clean goldens flags nothing: the re-baseline is not what makes the producer pass", id)
		}
		e2e := cb.flagged(t, "B", id, true)
		t.Logf("%s: A.wire flags %d scenarios with the build's goldens (%d with the clean), B %d", id, len(own), len(stale), len(e2e))
	}
	if drifts == 0 {
		t.Fatal("no contract_drift mutant in the default catalogue")
	}
}

func keys(m map[string]mission.Location) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
