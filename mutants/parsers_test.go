package mutants

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
)

// hidden is a build's seams without their places: the engine parses every
// message with them, as it must for any seams that do not say where they
// act.
type hidden struct{ mission.Seams }

// TestPlacedParsersAsTheirOwn: the engine reads a message with the clean
// parser's remembered reading wherever a mutant's seams are not placed at
// the parser (every mutant but the consumer-side escalation ones). For the
// catalogue and every tenth mutant of the generated space, each
// integrated run and each core run alone on a golden input is then what
// it is when every message goes through the mutant's own parser, trace,
// end state and reach count alike.
func TestPlacedParsersAsTheirOwn(t *testing.T) {
	cat, err := Default(invoice.Spec())
	if err != nil {
		t.Fatal(err)
	}
	all := cat.Mutants
	if !testing.Short() {
		space, _, err := Space(invoice.Spec())
		if err != nil {
			t.Fatal(err)
		}
		all = slices.Clone(all)
		for i := 0; i < len(space.Mutants); i += 10 { // a spread over every operator's sites
			all = append(all, space.Mutants[i])
		}
	}
	s := newSuite(t)
	ctx := context.Background()
	var goldens [][]mission.Golden
	for _, sc := range s.scs {
		g, err := s.m.RecordGolden(sc)
		if err != nil {
			t.Fatal(err)
		}
		goldens = append(goldens, g)
	}
	ownBuild := func(m *Mutant, o *mission.Oracle) mission.Build {
		seams, err := m.Seams(invoice.Spec(), o)
		if err != nil {
			t.Fatal(err)
		}
		return mission.NewBuild(hidden{seams}, o)
	}
	for _, m := range all {
		for sc := range s.scs {
			placed, own := &mission.Oracle{}, &mission.Oracle{}
			seed := uint64(sc + 1)
			got := s.run(t, m.Switch(placed), sc, seed, noisy)
			want := s.run(t, ownBuild(m, own), sc, seed, noisy)
			if !got.equal(want) || placed.Reached != own.Reached {
				t.Fatalf("%s on %s: the run differs from the one through its own parser", m.ID, s.scs[sc].ID)
			}
			for _, g := range goldens[sc] {
				a, err := s.m.RunCore(ctx, m.Switch(placed), g.Agent, s.scs[sc], g.Input, seed, noisy)
				if err != nil {
					t.Fatal(err)
				}
				b, err := s.m.RunCore(ctx, ownBuild(m, own), g.Agent, s.scs[sc], g.Input, seed, noisy)
				if err != nil {
					t.Fatal(err)
				}
				ta, _ := a.Trace.MarshalJSONL()
				tb, _ := b.Trace.MarshalJSONL()
				if d := cmp.Diff(string(tb), string(ta)); d != "" || placed.Reached != own.Reached {
					t.Fatalf("%s on %s, %s alone: differs from the run through its own parser (reached %d, %d) (-own +placed):\n%s",
						m.ID, s.scs[sc].ID, g.Agent, own.Reached, placed.Reached, d)
				}
			}
		}
	}
}
