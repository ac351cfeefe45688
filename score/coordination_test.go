package score

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/coordination"
)

func readCoordinationFile(f *os.File, name string) ([]coordination.Record, error) {
	return ReadCoordination(f, name)
}

// The seed's hand-authored multi-agent observation assigns policy twice,
// omits the customer message, loses one fact, reports a merge conflict,
// repeats a refund key and exceeds the matched single-agent budget. Each
// declared failure is exposed by its own dimension, with its events; the
// duplicate assignment also shows as duplicate work, since both policy
// agents did the analysis. Shared state is not contended.
func TestCoordinationSeedObservation(t *testing.T) {
	r := ScoreCoordination(readTestdata(t, "coordination.jsonl", readCoordinationFile))
	seed := r.Trials[0]
	if seed.Trial != "refund-817/four-agent" {
		t.Fatalf("first trial %q", seed.Trial)
	}
	got := map[coordination.Dimension][][]string{}
	for _, res := range seed.Dimensions {
		if res.Verdict == coordination.Fail {
			for _, f := range res.Failures {
				got[res.Dimension] = append(got[res.Dimension], f.Events)
			}
		}
	}
	want := map[coordination.Dimension][][]string{
		coordination.DimDelegation:       {{"d2", "d3"}},         // policy assigned twice
		coordination.DimCoverage:         {{"customer_message"}}, // customer message never assigned
		coordination.DimDuplicateWork:    {{"c2", "c3"}},         // both policy agents analysed
		coordination.DimInformationKept:  {{"h5"}},               // refund_limit lost
		coordination.DimMergeCorrectness: {{"m1", "h3", "h4"}},   // conflict reported, unresolved
		coordination.DimEffectSafety:     {{"e1", "e2"}},         // refund key repeated
		coordination.DimEfficiency:       {{"usage.cost_usd"}},   // 1.35 over 1.20
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failures of the seed observation (-want +got):\n%s", diff)
	}
	if v := seed.Result(coordination.DimStateContention).Verdict; v != coordination.Pass {
		t.Errorf("shared-state contention = %s, want pass", v)
	}
	for _, res := range r.Trials[1].Dimensions {
		if res.Verdict != coordination.Pass {
			t.Errorf("clean four-agent trial: %s = %s %v", res.Dimension, res.Verdict, res.Failures)
		}
	}
	// Per system, each dimension is its own rate: nothing is combined.
	four := r.Systems[0]
	if four.System != "four-agent" || len(four.Dimensions) != len(coordination.AllDimensions) {
		t.Fatalf("systems %+v", r.Systems)
	}
	if d := four.Dimensions[0]; d.Pass.Count != 1 || d.Pass.N != 2 {
		t.Errorf("four-agent delegation %d/%d, want 1/2", d.Pass.Count, d.Pass.N)
	}
	single := r.Systems[1]
	if d := single.Dimensions[2]; d.Pass.N != 0 || d.NotApplicable != 2 {
		t.Errorf("single-agent duplicate work %d/%d, n/a %d: want 0/0 and 2 not applicable", d.Pass.Count, d.Pass.N, d.NotApplicable)
	}
	if r.MatchedBudget == nil || r.MatchedBudget.Attribution != coordination.AttrNoAdvantage || r.MatchedBudget.Multi.System != "four-agent" {
		t.Errorf("matched budget %+v (%s)", r.MatchedBudget, r.MatchedBudgetNote)
	}
}

func TestCoordinationNotCompared(t *testing.T) {
	line := func(trial, system string, agents int) string {
		as := `{"id":"a0"}`
		for i := 1; i < agents; i++ {
			as += `,{"id":"a` + string(rune('0'+i)) + `"}`
		}
		return `{"trial":"` + trial + `","system":"` + system + `","success":true,"agents":[` + as + `],"usage":{"cost_usd":1},"budget":{"cost_usd":1}}`
	}
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"one system", []string{line("t1", "m", 3)}, "not compared: 1 system in the file, want one multi-agent and one single-agent"},
		{"two multi-agent systems", []string{line("t1", "m", 3), line("t2", "n", 2)},
			"not compared: want one system with one agent in every trial and one with two or more in every trial"},
		{"budgets differ within a system", []string{line("t1", "m", 3), strings.Replace(line("t2", "m", 3), `"budget":{"cost_usd":1}`, `"budget":{"cost_usd":2}`, 1), line("t3", "s", 1)},
			"not compared: the trials of m do not all record one and the same budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := ReadCoordination(strings.NewReader(strings.Join(tt.lines, "\n")), "c.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			r := ScoreCoordination(recs)
			if r.MatchedBudget != nil {
				t.Fatalf("compared: %s", r.MatchedBudget.Claim)
			}
			if diff := cmp.Diff(tt.want, r.MatchedBudgetNote); diff != "" {
				t.Errorf("note (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadCoordinationErrors(t *testing.T) {
	ok := `{"trial":"t","agents":[{"id":"a"}]}`
	tests := []readErrorCase{
		{"unknown agent", ok + "\n" + `{"trial":"u","agents":[{"id":"a"}],"work":[{"id":"w","agent":"b","key":"k"}]}`, ErrBadValue,
			`c.jsonl:2: work[0].agent: unknown agent "b"`},
		{"duplicate trial", ok + "\n" + ok, ErrDuplicateID, `c.jsonl:2: trial: duplicate trial "t" (first on line 1)`},
		{"missing trial", `{"agents":[]}`, ErrMissingID, "c.jsonl:1: trial: missing trial id"},
		{"budgeted, not recorded", `{"trial":"t","budget":{"tokens":10}}`, ErrBadValue,
			"c.jsonl:1: usage.tokens: not recorded, but budgeted: record it or drop it from the budget"},
		{"infinite cost", `{"trial":"t","usage":{"cost_usd":1e999}}`, ErrNonFinite, "c.jsonl:1: usage.cost_usd: 1e999 is beyond the range of a 64-bit float"},
		{"misspelt key", `{"trial":"t","handoffs":[{"id":"h","from":"a","to":"a","sent":[],"requried":[]}]}`, ErrUnknownKey,
			`c.jsonl:1: handoffs[0].requried: unknown key "requried" (want one of: from, id, read, required, sent, to)`},
	}
	checkReadErrors(t, tests, func(r io.Reader) error {
		_, err := ReadCoordination(r, "c.jsonl")
		return err
	})
}

func FuzzReadCoordination(f *testing.F) {
	seed, err := os.ReadFile("testdata/coordination.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(seed))
	f.Add(`{"trial":"t","agents":[{"id":"a"},{"id":"b"}],"state":[{"id":"1","agent":"a","op":"write","key":"k"},{"id":"2","agent":"b","op":"write","key":"k"}]}`)
	f.Add(`{"trial":"t","agents":[{"id":"a"}],"effects":[{"id":"e","agent":"a","identity":"x","irreversible":true,"applied":null}]}`)
	f.Fuzz(func(t *testing.T, input string) {
		recs, err := ReadCoordination(strings.NewReader(input), "fuzz.jsonl")
		if err != nil {
			checkLocated(t, err, "fuzz.jsonl")
			return
		}
		r := ScoreCoordination(recs)
		for _, s := range r.Trials {
			for _, res := range s.Dimensions {
				if (res.Verdict == coordination.Fail) != (len(res.Failures) > 0) {
					t.Fatalf("%s %s: verdict %s with %d failures", s.Trial, res.Dimension, res.Verdict, len(res.Failures))
				}
			}
		}
		roundTrip(t, recs, func(s string) ([]coordination.Record, error) {
			return ReadCoordination(strings.NewReader(s), "again.jsonl")
		})
	})
}
