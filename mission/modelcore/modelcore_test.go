package modelcore_test

import (
	"context"
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mission/modelcore"
	"github.com/baton-lab/baton/model"
	"github.com/baton-lab/baton/sandbox"
)

// direct is a Chatter that asks a player without HTTP.
type direct struct{ p model.Player }

func (d direct) Chat(ctx context.Context, req model.Request) (model.Response, error) {
	return d.p.Play(ctx, req)
}

// TestPlayerMatchesPolicy: every core a model played by the scripted
// mission player, under slips and faults, ends every scenario in the
// policy run's end state at the same seed.
func TestPlayerMatchesPolicy(t *testing.T) {
	m := invoice.New()
	spec := m.Spec()
	prof := mission.Profile{
		invoice.Intake:   {invoice.Misclassify: 0.2, invoice.Misread: 0.2, mission.Misroute: 0.05},
		invoice.Boundary: {invoice.SkipLookup: 0.3},
	}
	faults := sandbox.FaultRates{"*": {sandbox.TimeoutAfterCommit: 0.05, sandbox.Unavailable: 0.1}}
	player := modelcore.NewPlayer(m, prof)
	cores := map[mission.Agent]mission.Core{}
	for _, a := range spec.AgentNames() {
		c, err := modelcore.New(spec, modelcore.Config{Agent: a, Instructions: "x", Chat: direct{player}, Model: "p"})
		if err != nil {
			t.Fatal(err)
		}
		cores[a] = c
	}
	scs, _, err := m.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		for seed := uint64(1); seed < 4; seed++ {
			pol, err := m.Run(context.Background(), mission.Clean(), sc, seed, mission.Env{Profile: prof, Faults: faults})
			if err != nil {
				t.Fatal(err)
			}
			mod, err := m.Run(context.Background(), mission.Clean(), sc, seed, mission.Env{Profile: prof, Faults: faults, Cores: cores})
			if err != nil {
				t.Fatal(err)
			}
			a, _ := pol.End.AppendJSON(nil)
			b, _ := mod.End.AppendJSON(nil)
			if string(a) != string(b) {
				t.Errorf("%s seed %d: end states differ", sc.ID, seed)
				for _, e := range mod.Trace.Events {
					if e.Kind == mission.EventException {
						t.Logf("%+v", e)
					}
				}
			}
		}
	}
}
