package e2e

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mutants"
	"github.com/baton-lab/baton/sandbox"
)

// faultyEnv has every fault kind firing now and then, and a few slips, so
// that the control test holds under the noise a real protocol has.
func faultyEnv() mission.Env {
	return mission.Env{
		Faults: sandbox.FaultRates{
			"*": {sandbox.TimeoutBeforeCommit: 0.02, sandbox.TimeoutAfterCommit: 0.02, sandbox.Unavailable: 0.03,
				sandbox.RateLimit: 0.02, sandbox.Latency: 0.05, sandbox.Refusal: 0.005},
			"transport": {sandbox.Redelivery: 0.05},
		},
		Profile: mission.Profile{
			invoice.Intake:   {invoice.Misclassify: 0.01, invoice.Misread: 0.01},
			invoice.Boundary: {invoice.SkipLookup: 0.01},
		},
	}
}

type suite struct {
	m      mission.Mission
	set    *contracts.Set
	scs    []*mission.Scenario
	golden map[string][]mission.Golden
}

func newSuite(tb testing.TB, scs []*mission.Scenario) *suite {
	tb.Helper()
	set, err := contracts.LoadFS(invoice.Spec().Contracts, "mission/invoice/contracts")
	if err != nil {
		tb.Fatal(err)
	}
	s := &suite{m: invoice.New(), set: set, scs: scs, golden: map[string][]mission.Golden{}}
	for _, sc := range scs {
		g, err := designs.PrepareGolden(s.m, sc)
		if err != nil {
			tb.Fatal(err)
		}
		s.golden[sc.ID] = g
	}
	return s
}

// flagged returns the ids of the scenarios design d flags on build b in one
// trial.
func (s *suite) flagged(d designs.Design, b mission.Build, trial int, env mission.Env) []string {
	var out []string
	for _, sc := range s.scs {
		v, err := d.Evaluate(designs.Input{
			Mission: s.m, Build: b, Scenario: sc, Env: env, Golden: s.golden[sc.ID],
			Seed:      sandbox.HashSeed(7, sc.ID, strconv.Itoa(trial)),
			Contracts: s.set, Level: contracts.LevelSemantic,
		})
		if err != nil {
			panic(err)
		}
		if v.Flagged {
			out = append(out, sc.ID)
		}
	}
	return out
}

func defaultScenarios(tb testing.TB) []*mission.Scenario {
	tb.Helper()
	scs, _, err := invoice.DefaultScenarios()
	if err != nil {
		tb.Fatal(err)
	}
	return scs
}

func catalogue(tb testing.TB) *mutants.Catalogue {
	tb.Helper()
	cat, err := mutants.Default(invoice.Spec())
	if err != nil {
		tb.Fatal(err)
	}
	return cat
}

// Every design catches every default control mutant in every trial, under
// faults and slips: the validity gate's premise. Caught follows the
// experiment's detection rule: in a trial, the design flags at least one
// scenario that it does not flag on the clean build under the same seed
// (a flag the clean twin raises too, from a slip or a fault, is no
// evidence about the mutant).
func TestControlCaughtByEveryDesignInEveryTrial(t *testing.T) {
	trials := 5
	if testing.Short() {
		trials = 2
	}
	s := newSuite(t, defaultScenarios(t))
	controls := catalogue(t).ByClass(mutants.Control)
	if len(controls) < 3 {
		t.Fatalf("%d control mutants in the default catalogue, want at least 3", len(controls))
	}
	env := faultyEnv()
	for _, d := range designs.All() {
		for trial := 0; trial < trials; trial++ {
			clean := s.flagged(d, mission.Clean(), trial, env)
			for _, m := range controls {
				got := s.flagged(d, m.Switch(nil), trial, env)
				if fresh := newFlags(got, clean); len(fresh) == 0 {
					t.Errorf("design %s misses control mutant %s in trial %d: flags %v, the clean build flags %v", d.ID, m.ID, trial, got, clean)
				}
			}
		}
	}
}

// newFlags returns the scenarios of got that clean does not flag.
func newFlags(got, clean []string) []string {
	var out []string
	for _, id := range got {
		if !slices.Contains(clean, id) {
			out = append(out, id)
		}
	}
	return out
}

func TestNewFlags(t *testing.T) {
	tests := []struct {
		name             string
		got, clean, want []string
	}{
		{"nothing flagged", nil, nil, nil},
		{"clean flags the same", []string{"S01"}, []string{"S01"}, nil},
		{"one new", []string{"S01", "S02"}, []string{"S01"}, []string{"S02"}},
		{"clean flags more", []string{"S02"}, []string{"S01", "S02", "S03"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, newFlags(tt.got, tt.clean)); diff != "" {
				t.Errorf("newFlags (-want +got):\n%s", diff)
			}
		})
	}
}

// A dropped currency is invisible end to end while every invoice is in
// EUR (the consumer's default), yet breaks the hand-off contract; once a
// USD invoice is in the suite, the end state shows it too.
func TestCurrencyDropSeenByContractsBeforeEndState(t *testing.T) {
	all := defaultScenarios(t)
	eurOnly, err := mission.SelectScenarios(all, nil, []string{"currency:EUR"}, []string{"currency:USD", "currency:GBP", "currency:CHF", "currency:SEK"})
	if err != nil {
		t.Fatal(err)
	}
	var usd []*mission.Scenario
	for _, sc := range all {
		if strings.Contains(strings.Join(sc.Tags, ","), "currency:USD") && sc.Category == mission.CategoryTypical {
			usd = append(usd, sc)
		}
	}
	if len(eurOnly) == 0 || len(usd) == 0 {
		t.Fatalf("need EUR-only and USD scenarios, got %d and %d", len(eurOnly), len(usd))
	}
	var drop *mutants.Mutant
	for _, m := range catalogue(t).ByClass(mutants.ContextLoss) {
		if m.Operator == "drop_field" && m.Field == "currency" {
			drop = m
		}
	}
	if drop == nil {
		t.Fatal("the default catalogue has no drop_field currency mutant")
	}
	b := drop.Switch(nil)
	zero := mission.Env{}

	eur := newSuite(t, eurOnly)
	if got := eur.flagged(designs.EndToEnd, b, 0, zero); len(got) != 0 {
		t.Errorf("B flags %v on an EUR-only suite; a dropped currency defaults to EUR and should be invisible end to end", got)
	}
	if got := eur.flagged(designs.PerAgentContracts, b, 0, zero); len(got) == 0 {
		t.Error("C flags nothing on the EUR-only suite; the contract requires the currency")
	}
	if got := eur.flagged(designs.EndToEnd, mission.Clean(), 0, zero); len(got) != 0 {
		t.Errorf("B flags the clean build on %v", got)
	}

	withUSD := newSuite(t, append(append([]*mission.Scenario{}, eurOnly...), usd...))
	if got := withUSD.flagged(designs.EndToEnd, b, 0, zero); len(got) == 0 {
		t.Error("B flags nothing once USD invoices are in the suite")
	}
}
