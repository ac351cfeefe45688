package sandbox

import (
	"strconv"
	"testing"
)

func TestDiceKeyed(t *testing.T) {
	d := NewDice(99)
	base := d.Float("intake", "slip:misread", "E1", 0)
	if again := NewDice(99).Float("intake", "slip:misread", "E1", 0); again != base {
		t.Fatalf("same key drew %v then %v", base, again)
	}
	for _, tc := range []struct {
		name string
		got  float64
	}{
		{"seed", NewDice(100).Float("intake", "slip:misread", "E1", 0)},
		{"agent", d.Float("action", "slip:misread", "E1", 0)},
		{"kind", d.Float("intake", "slip:misroute", "E1", 0)},
		{"item", d.Float("intake", "slip:misread", "E2", 0)},
		{"attempt", d.Float("intake", "slip:misread", "E1", 1)},
		{"field boundaries", d.Float("intak", "eslip:misread", "E1", 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got == base {
				t.Errorf("a different %s drew the same value %v", tc.name, base)
			}
			if tc.got < 0 || tc.got >= 1 {
				t.Errorf("value %v outside [0, 1)", tc.got)
			}
		})
	}
}

func TestDiceRand(t *testing.T) {
	d := NewDice(5)
	seq := func(item string, attempt int) [4]uint64 {
		r := d.Rand("intake", "slip:misread", item, attempt)
		return [4]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()}
	}
	first, again := seq("E1", 0), seq("E1", 0)
	if first != again {
		t.Errorf("same key gave different sequences")
	}
	if seq("E1", 0) == seq("E2", 0) || seq("E1", 0) == seq("E1", 1) {
		t.Errorf("different items or attempts gave the same sequence")
	}
}

func TestDiceChance(t *testing.T) {
	d := NewDice(11)
	hits := 0
	const n = 10000
	for i := range n {
		if d.Chance(0.3, "boundary", "slip:skip_lookup", "E", i) {
			hits++
		}
		if d.Chance(0, "a", "k", "E", i) || !d.Chance(1, "a", "k", "E", i) {
			t.Fatalf("Chance(0) or Chance(1) consulted the key")
		}
	}
	if p := float64(hits) / n; p < 0.28 || p > 0.32 {
		t.Errorf("Chance(0.3) hit %.3f of draws", p)
	}
}

func TestHashSeed(t *testing.T) {
	a := HashSeed(1, "S01", "0")
	if a != HashSeed(1, "S01", "0") {
		t.Errorf("HashSeed is not deterministic")
	}
	for _, other := range []uint64{HashSeed(2, "S01", "0"), HashSeed(1, "S01", "1"), HashSeed(1, "S0", "10"), HashSeed(1, "S01")} {
		if other == a {
			t.Errorf("different parts gave the same seed %d", a)
		}
	}
}

// TestChanceAfterPrefix: a draw that goes on from its agent and kind's
// prefix is the draw the dice make from the whole key.
func TestChanceAfterPrefix(t *testing.T) {
	for seed := range uint64(4) {
		d := NewDice(seed)
		for _, agent := range []string{"", "intake", "boundary"} {
			pre := d.prefix(agent, "fault:lookup:timeout_before_commit")
			for i, item := range []string{"", "E1", "E12", "2026-01-05"} {
				for attempt := range 3 {
					for _, p := range []float64{-1, 0, 0.01, 0.3, 0.5, 0.99, 1, 2} {
						want := d.Chance(p, agent, "fault:lookup:timeout_before_commit", item, attempt)
						if got := chanceAfter(p, pre, item, attempt); got != want {
							t.Errorf("seed %d agent %q item %d attempt %d p %v: chanceAfter = %v, Chance = %v", seed, agent, i, attempt, p, got, want)
						}
					}
				}
			}
		}
	}
}

// TestHoldsRemembersPrefixes: Holds, which remembers the prefixes of the
// last agents and kinds it drew, says what drawing every recorded draw
// afresh under the other seed says, on a record of more agents and kinds
// than it remembers, drawn in turn.
func TestHoldsRemembersPrefixes(t *testing.T) {
	var rec Draws
	d := NewDice(3).Recording(&rec)
	for round := range 3 {
		for i := range 15 {
			agent := []string{"intake", "action", "boundary"}[i%3]
			kind := "fault:tool:" + strconv.Itoa(i%5) // each kind drawn by three agents
			d.Chance(0.02, agent, kind, "E"+strconv.Itoa(round), round%2)
		}
	}
	afresh := func(seed uint64) bool {
		o := NewDice(seed)
		for _, x := range rec.List() {
			if o.Chance(x.P, x.Agent, x.Kind, x.Item, x.Attempt) != x.Happened {
				return false
			}
		}
		return true
	}
	holds := 0
	for seed := uint64(0); seed < 300; seed++ {
		want := afresh(seed)
		if got := rec.Holds(seed); got != want {
			t.Fatalf("seed %d: Holds %v, drawing afresh %v", seed, got, want)
		}
		if want {
			holds++
		}
	}
	if holds == 0 || holds == 300 {
		t.Errorf("the record held under %d of 300 seeds: the test shows nothing", holds)
	}
}
