package score

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readExample reads testdata/runs.jsonl.
func readExample(tb testing.TB) []Run {
	tb.Helper()
	f, err := os.Open("testdata/runs.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	runs, _, err := ReadRuns(f, "testdata/runs.jsonl", false)
	if err != nil {
		tb.Fatal(err)
	}
	return runs
}

func TestScoreExample(t *testing.T) {
	rep := Score(readExample(t))

	type summary struct {
		N, Exact, NameOnly, OrderIgnored int
		GapNameOnly, GapOrderIgnored     string
		ForgivenByNameOnly               []string
		ForgivenByOrderIgnored           []string
		Output                           OutputAccuracy
	}
	ta := rep.ToolCallAccuracy
	got := summary{
		ta.N, ta.Passed[MatchExact], ta.Passed[MatchNameOnly], ta.Passed[MatchOrderIgnored],
		ta.Gap(MatchNameOnly), ta.Gap(MatchOrderIgnored),
		rep.Forgives(MatchNameOnly), rep.Forgives(MatchOrderIgnored),
		rep.OutputAccuracy,
	}
	want := summary{
		N: 6, Exact: 3, NameOnly: 4, OrderIgnored: 4,
		GapNameOnly: "+0.167", GapOrderIgnored: "+0.167",
		ForgivenByNameOnly:     []string{"R2"}, // wrong amount, right tools
		ForgivenByOrderIgnored: []string{"R3"}, // right calls, swapped
		Output:                 OutputAccuracy{Correct: 3, Incorrect: 1, Unscoreable: 2, Accuracy: ptr(0.75)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("score (-want +got):\n%s", diff)
	}
	if *ta.Exact != 0.5 || *ta.NameOnly != 4.0/6 || *ta.OrderIgnored != 4.0/6 {
		t.Errorf("accuracies %v %v %v, want 0.5 0.667 0.667", *ta.Exact, *ta.NameOnly, *ta.OrderIgnored)
	}
}

func TestOutputAccuracy(t *testing.T) {
	truth := func(s string) *string { return &s }
	tests := []struct {
		name string
		runs []Run
		want OutputAccuracy
	}{
		{
			name: "unscoreable runs stay out of the denominator",
			runs: []Run{
				{ID: "a", ExpectedAnswer: truth("Refund issued"), Answer: "refund   ISSUED "},
				{ID: "b", ExpectedAnswer: truth("Refund issued"), Answer: "Refund declined"},
				{ID: "c", Answer: "Refund issued"},
				{ID: "d", Answer: ""},
			},
			want: OutputAccuracy{Correct: 1, Incorrect: 1, Unscoreable: 2, Accuracy: ptr(0.5)},
		},
		{
			name: "only unscoreable runs: no accuracy, not zero",
			runs: []Run{{ID: "a", Answer: "x"}, {ID: "b", Answer: "y"}},
			want: OutputAccuracy{Unscoreable: 2},
		},
		{
			name: "an empty truth is a truth",
			runs: []Run{{ID: "a", ExpectedAnswer: truth(""), Answer: " \n\t"}, {ID: "b", ExpectedAnswer: truth(""), Answer: "x"}},
			want: OutputAccuracy{Correct: 1, Incorrect: 1, Accuracy: ptr(0.5)},
		},
		{
			name: "whitespace inside words matters",
			runs: []Run{{ID: "a", ExpectedAnswer: truth("9:00"), Answer: "9: 00"}},
			want: OutputAccuracy{Incorrect: 1, Accuracy: ptr(0.0)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Score(tt.runs).OutputAccuracy); diff != "" {
				t.Errorf("output accuracy (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolCallAccuracySkipsRunsWithoutExpectedCalls(t *testing.T) {
	runs := []Run{
		{ID: "a", ExpectedCalls: []Call{{Name: "x"}}, Calls: []Call{{Name: "x"}}},
		{ID: "b", Calls: []Call{{Name: "x"}}},                          // no truth for calls
		{ID: "c", ExpectedCalls: []Call{}, Calls: []Call{{Name: "x"}}}, // none expected, one made
	}
	rep := Score(runs)
	ta := rep.ToolCallAccuracy
	if ta.N != 2 || ta.Passed != [3]int{1, 1, 1} {
		t.Errorf("n=%d passed=%v, want n=2 passed=[1 1 1]", ta.N, ta.Passed)
	}
	if rep.Runs[1].Matchers != nil {
		t.Errorf("run b matchers = %+v, want nil", rep.Runs[1].Matchers)
	}
	if got := Score(runs[1:2]).ToolCallAccuracy; got.Exact != nil || got.Gap(MatchNameOnly) != "n/a" {
		t.Errorf("no scoreable trajectory: exact %v gap %q, want nil and n/a", got.Exact, got.Gap(MatchNameOnly))
	}
}

func TestNormaliseAnswer(t *testing.T) {
	if got, want := NormaliseAnswer("  Refund\tof 140\n\nEUR  "), "refund of 140 eur"; got != want {
		t.Errorf("NormaliseAnswer = %q, want %q", got, want)
	}
}
