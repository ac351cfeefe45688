package coordination_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/sandbox"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// edits are the ways perturbed changes a record, each making some
// dimension's failures more (or less) likely; ids it adds end in "x<n>".
var edits = []func(r *coordination.Record, rng *rand.Rand, n int){
	func(r *coordination.Record, rng *rand.Rand, n int) { // a second owner at once, or a reassignment
		if len(r.Delegations) == 0 {
			return
		}
		d := r.Delegations[rng.IntN(len(r.Delegations))]
		d.ID, d.Owner = fmt.Sprintf("%sx%d", d.ID, n), r.Agents[rng.IntN(len(r.Agents))].ID
		if rng.IntN(3) == 0 {
			d.Replaces = r.Delegations[rng.IntN(len(r.Delegations))].ID
		}
		r.Delegations = append(r.Delegations, d)
	},
	func(r *coordination.Record, rng *rand.Rand, _ int) { // a delegation dropped
		if len(r.Delegations) > 0 {
			i := rng.IntN(len(r.Delegations))
			r.Delegations = slices.Delete(r.Delegations, i, i+1)
		}
	},
	func(r *coordination.Record, rng *rand.Rand, _ int) { // a completion dropped
		if len(r.Completions) > 0 {
			i := rng.IntN(len(r.Completions))
			r.Completions = slices.Delete(r.Completions, i, i+1)
		}
	},
	func(r *coordination.Record, rng *rand.Rand, n int) { // a subtask completed, or work done, by another agent too
		a := r.Agents[rng.IntN(len(r.Agents))].ID
		if len(r.Completions) > 0 && rng.IntN(2) == 0 {
			c := r.Completions[rng.IntN(len(r.Completions))]
			c.ID, c.Agent = fmt.Sprintf("%sx%d", c.ID, n), a
			r.Completions = append(r.Completions, c)
		} else if len(r.Work) > 0 {
			w := r.Work[rng.IntN(len(r.Work))]
			w.ID, w.Agent = fmt.Sprintf("%sx%d", w.ID, n), a
			r.Work = append(r.Work, w)
		}
	},
	func(r *coordination.Record, rng *rand.Rand, _ int) { // a field lost, or one required that none sends
		if len(r.Handoffs) == 0 {
			return
		}
		h := &r.Handoffs[rng.IntN(len(r.Handoffs))]
		if len(h.Sent) > 0 && rng.IntN(2) == 0 {
			i := rng.IntN(len(h.Sent))
			h.Sent = slices.Delete(slices.Clone(h.Sent), i, i+1)
		} else {
			h.Required = append(slices.Clone(h.Read), "payload.missing")
			h.Required = append(h.Required, h.Required[0]) // twice
		}
	},
	func(r *coordination.Record, rng *rand.Rand, _ int) { // a state access by another agent, or moved
		if len(r.State) < 2 {
			return
		}
		i, j := rng.IntN(len(r.State)), rng.IntN(len(r.State))
		if rng.IntN(2) == 0 {
			r.State[i].Agent = r.Agents[rng.IntN(len(r.Agents))].ID
		} else {
			r.State[i], r.State[j] = r.State[j], r.State[i]
		}
	},
	func(r *coordination.Record, rng *rand.Rand, n int) { // an effect applied again, unknown, keyless or its key reused
		if len(r.Effects) == 0 {
			return
		}
		e := r.Effects[rng.IntN(len(r.Effects))]
		switch rng.IntN(4) {
		case 0:
			e.Applied = nil
		case 1:
			e.Key = ""
		case 2:
			e.Identity += "-other"
		}
		e.ID = fmt.Sprintf("%sx%d", e.ID, n)
		r.Effects = append(r.Effects, e)
	},
	func(r *coordination.Record, rng *rand.Rand, n int) { // a conflict resolved otherwise, or one more
		for i := range r.Merges {
			if m := &r.Merges[i]; len(m.Inputs) > 1 {
				m.Conflicts = append(m.Conflicts, coordination.Conflict{Field: fmt.Sprintf("x%d", n), Inputs: m.Inputs[:2], Resolution: coordination.ResolutionUnresolved})
			}
			for j := range r.Merges[i].Conflicts {
				r.Merges[i].Conflicts[j].Resolution = coordination.AllResolutions[rng.IntN(len(coordination.AllResolutions))]
			}
		}
	},
	func(r *coordination.Record, _ *rand.Rand, _ int) { // over a budget
		calls := float64(*r.Usage.ModelCalls - 1)
		r.Budget = &coordination.Budget{ModelCalls: &calls, MatchedTo: "one call fewer"}
	},
}

// perturbed returns a copy of r with one to four random edits.
func perturbed(tb testing.TB, r *coordination.Record, rng *rand.Rand) *coordination.Record {
	tb.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		tb.Fatal(err)
	}
	var c coordination.Record
	if err := json.Unmarshal(b, &c); err != nil {
		tb.Fatal(err)
	}
	for n := range 1 + rng.IntN(4) {
		edits[rng.IntN(len(edits))](&c, rng, n)
	}
	return &c
}

// scoreCorpus returns derived records of the toy mission's clean and
// broken builds and of clean invoice runs, each with perturbed copies.
func scoreCorpus(tb testing.TB) []*coordination.Record {
	tb.Helper()
	m, sc := toyMission(tb)
	faults := mission.Env{Faults: sandbox.FaultRates{"file_entry": {sandbox.TimeoutAfterCommit: 0.5}}}
	seed := retrySeed(tb, m, sc, faults)
	var base []*coordination.Record
	for _, b := range []mission.Build{
		mission.Clean(),
		mission.NewBuild(toySeams{route: func(e mission.Edge, owners []mission.Agent) []mission.Agent { return []mission.Agent{auditor, clerk} }}, nil),
		mission.NewBuild(toySeams{emit: func(e mission.Edge, msg *mission.Message) {
			if p := msg.Object("payload"); p != nil && e == (mission.Edge{From: clerk, To: auditor}) {
				p.Set("amount", 121.0)
			}
		}}, nil),
		mission.NewBuild(toySeams{decide: func(a mission.Agent, k, choice string) string { return "skip" }}, nil),
	} {
		rec, _ := derive(tb, m, sc, b, seed, faults, nil)
		base = append(base, rec)
	}
	for _, src := range cleanSources(tb, invoice.New(), 1)[:6] {
		rec, err := coordination.Derive(src)
		if err != nil {
			tb.Fatal(err)
		}
		base = append(base, rec)
	}
	rng := rand.New(rand.NewPCG(21, 1))
	var out []*coordination.Record
	for _, r := range base {
		out = append(out, r)
		for range 8 {
			out = append(out, perturbed(tb, r, rng))
		}
	}
	return out
}

// TestScoreGolden pins every verdict, failure (reason and events, in
// order) and note on records with failures on every dimension, so that a
// faster judge is shown to say exactly what the one before it said.
// Rewrite with go test ./coordination -run ScoreGolden -update.
func TestScoreGolden(t *testing.T) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	failing := map[coordination.Dimension]int{}
	for _, r := range scoreCorpus(t) {
		s := coordination.ScoreRecord(r)
		for _, res := range s.Dimensions {
			if res.Verdict == coordination.Fail {
				failing[res.Dimension]++
			}
		}
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range coordination.AllDimensions {
		if failing[d] < 2 {
			t.Errorf("%s fails on %d records of the corpus: want at least 2", d, failing[d])
		}
	}
	path := filepath.Join("testdata", "scores.jsonl.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("scores (-%s +got):\n%s", path, diff)
	}
}
