package score

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    Verdict
		why     string
		wantErr bool
	}{
		{"plain", `{"verdict":"pass","reason":"refund matches the booking"}`, VerdictPass, "refund matches the booking", false},
		{"fenced json", "```json\n{\"verdict\": \"fail\", \"reason\": \"wrong amount\"}\n```", VerdictFail, "wrong amount", false},
		{"bare fence", "```\n{\"verdict\":\"undetermined\",\"reason\":\"no data\"}\n```", VerdictUndetermined, "no data", false},
		{"text around, case and spaces", "Here you go:\n{\"verdict\":\" PASS \",\"reason\":\" ok \"}\nThanks", VerdictPass, "ok", false},
		{"one-line fence", "```{\"verdict\":\"fail\",\"reason\":\"x\"}```", VerdictFail, "x", false},
		{"unknown verdict", `{"verdict":"maybe","reason":"x"}`, "", "", true},
		{"no object", "I think it passes.", "", "", true},
		{"broken JSON", `{"verdict":"pass",}`, "", "", true},
		{"missing verdict", `{"reason":"x"}`, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, why, err := ParseVerdict(tt.content)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrBadVerdict) {
				t.Errorf("err = %v, want ErrBadVerdict", err)
			}
			if v != tt.want || why != tt.why {
				t.Errorf("ParseVerdict = %q, %q; want %q, %q", v, why, tt.want, tt.why)
			}
		})
	}
}

// sometimesWrongJudge is a fake judge endpoint: it passes answers that say
// "issued", fails the rest, answers "undetermined" for "UNSURE" and replies
// garbage for "GARBLED". On labelled runs that rule is sometimes wrong.
func sometimesWrongJudge(tb testing.TB) *fakeEndpoint {
	return newFakeEndpoint(tb, func(_ int, req chatRequest) (int, string) {
		rec := recordOf(tb, req)
		answer, _ := rec["answer"].(string)
		switch {
		case strings.Contains(answer, "GARBLED"):
			return contentReply("I would rather not say.")
		case strings.Contains(answer, "UNSURE"):
			return contentReply(`{"verdict":"undetermined","reason":"cannot tell"}`)
		case strings.Contains(answer, "issued"):
			return contentReply("```json\n" + `{"verdict":"pass","reason":"says the refund was issued"}` + "\n```")
		}
		return contentReply(`{"verdict":"fail","reason":"no refund issued"}`)
	})
}

func judgeRuns() []Run {
	truth := func(s string) *string { return &s }
	return []Run{
		{ID: "L1", ExpectedAnswer: truth("Refund issued"), Answer: "Refund issued"},                       // pass, correct: agree
		{ID: "L2", ExpectedAnswer: truth("Refund declined"), Answer: "Refund issued twice"},               // pass, incorrect: false pass
		{ID: "L3", ExpectedAnswer: truth("Declined: outside window"), Answer: "Declined: outside window"}, // fail, correct: false fail
		{ID: "L4", ExpectedAnswer: truth("Refund issued"), Answer: "no idea"},                             // fail, incorrect: agree
		{ID: "L5", ExpectedAnswer: truth("UNSURE"), Answer: "UNSURE"},                                     // undetermined: no agreement
		{ID: "U1", Answer: "Refund issued"},
		{ID: "U2", Answer: "nothing happened"},
		{ID: "U3", Answer: "UNSURE"},
		{ID: "U4", Answer: "GARBLED"},
	}
}

func TestApplyJudgeValidation(t *testing.T) {
	f := sometimesWrongJudge(t)
	runs := judgeRuns()
	rep := Score(runs)
	j := &LLMJudge{Client: newTestClient(t, f), Rubric: "RUBRIC-MARKER: pass only issued refunds"}
	if err := rep.ApplyJudge(context.Background(), runs, j, "fake-judge-1"); err != nil {
		t.Fatal(err)
	}
	wantV := &JudgeValidation{LabelledN: 5, Agreement: ptr(0.4), FalsePass: 1, FalseFail: 1, Agreed: 2, Undetermined: 1}
	if diff := cmp.Diff(wantV, rep.JudgeValidation); diff != "" {
		t.Errorf("validation (-want +got):\n%s", diff)
	}
	wantJ := []JudgeVerdict{
		{Run: "U1", Verdict: VerdictPass, Why: "says the refund was issued"},
		{Run: "U2", Verdict: VerdictFail, Why: "no refund issued"},
		{Run: "U3", Verdict: VerdictUndetermined, Why: "cannot tell"},
		{Run: "U4", Verdict: VerdictUndetermined, Why: "unreadable judge reply: no valid verdict: no JSON object"},
	}
	if diff := cmp.Diff(wantJ, rep.Judge); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	// Validation first, then only the unscoreable runs, each once.
	var order []string
	for _, req := range f.requests {
		order = append(order, recordOf(t, req)["run"].(string))
		if !strings.Contains(req.Messages[0].Content, "RUBRIC-MARKER") {
			t.Errorf("rubric not in the system message")
		}
	}
	if diff := cmp.Diff([]string{"L1", "L2", "L3", "L4", "L5", "U1", "U2", "U3", "U4"}, order); diff != "" {
		t.Errorf("judge call order (-want +got):\n%s", diff)
	}
	// The judge is blind to the truth, on labelled runs too.
	for _, req := range f.requests {
		if _, ok := recordOf(t, req)["expected_answer"]; ok {
			t.Errorf("a request carries expected_answer")
		}
	}
	for _, want := range []string{"judge fake-judge-1", "agreement 0.400 on 5 labelled runs (1 false pass, 1 false fail)", "4 unscoreable runs judged (1 pass, 1 fail, 2 undetermined)"} {
		if !strings.Contains(rep.Headline, want) {
			t.Errorf("headline %q lacks %q", rep.Headline, want)
		}
	}
}

// scriptedJudge answers from a table; a missing run is an error.
type scriptedJudge map[string]Verdict

var _ Judger = scriptedJudge(nil)

func (s scriptedJudge) Judge(_ context.Context, r Run) (Verdict, string, error) {
	v, ok := s[r.ID]
	if !ok {
		return "", "", fmt.Errorf("no script for %s", r.ID)
	}
	return v, "scripted", nil
}

func TestApplyJudgeCounts(t *testing.T) {
	truth := func(s string) *string { return &s }
	tests := []struct {
		name   string
		runs   []Run
		script scriptedJudge
		want   JudgeValidation
	}{
		{
			name:   "always pass: every incorrect answer is a false pass",
			runs:   []Run{{ID: "a", ExpectedAnswer: truth("x"), Answer: "x"}, {ID: "b", ExpectedAnswer: truth("x"), Answer: "y"}, {ID: "c", ExpectedAnswer: truth("x"), Answer: "z"}},
			script: scriptedJudge{"a": VerdictPass, "b": VerdictPass, "c": VerdictPass},
			want:   JudgeValidation{LabelledN: 3, Agreement: ptr(1.0 / 3), FalsePass: 2, Agreed: 1},
		},
		{
			name:   "always fail: every correct answer is a false fail",
			runs:   []Run{{ID: "a", ExpectedAnswer: truth("x"), Answer: "X "}, {ID: "b", ExpectedAnswer: truth("x"), Answer: "y"}},
			script: scriptedJudge{"a": VerdictFail, "b": VerdictFail},
			want:   JudgeValidation{LabelledN: 2, Agreement: ptr(0.5), FalseFail: 1, Agreed: 1},
		},
		{
			name:   "no labelled runs: agreement unknown, not zero",
			runs:   []Run{{ID: "u", Answer: "x"}},
			script: scriptedJudge{"u": VerdictPass},
			want:   JudgeValidation{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := Score(tt.runs)
			if err := rep.ApplyJudge(context.Background(), tt.runs, tt.script, "scripted"); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tt.want, rep.JudgeValidation); diff != "" {
				t.Errorf("validation (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyJudgeErrorLeavesReport(t *testing.T) {
	runs := judgeRuns()
	rep := Score(runs)
	before := *rep
	err := rep.ApplyJudge(context.Background(), runs, scriptedJudge{"L1": VerdictPass}, "scripted")
	if err == nil || !strings.Contains(err.Error(), "judge run L2: no script for L2") {
		t.Fatalf("err = %v, want it to name run L2", err)
	}
	if diff := cmp.Diff(before, *rep); diff != "" {
		t.Errorf("report changed on error (-before +after):\n%s", diff)
	}
}

func TestLLMJudgeRequestFails(t *testing.T) {
	f := newFakeEndpoint(t, func(int, chatRequest) (int, string) { return http.StatusBadRequest, `{"error":"model not found"}` })
	_, _, err := (&LLMJudge{Client: newTestClient(t, f)}).Judge(context.Background(), Run{ID: "a"})
	if err == nil || !strings.Contains(err.Error(), "status 400") {
		t.Errorf("err = %v, want status 400", err)
	}
}

func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{
		`{"verdict":"pass","reason":"ok"}`,
		"```json\n{\"verdict\":\"fail\",\"reason\":\"x\"}\n```",
		"```",
		"}{",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		v, _, err := ParseVerdict(content)
		if err != nil {
			if !errors.Is(err, ErrBadVerdict) || v != "" {
				t.Fatalf("ParseVerdict = %q, %v", v, err)
			}
			return
		}
		if v != VerdictPass && v != VerdictFail && v != VerdictUndetermined {
			t.Fatalf("verdict %q not one of %v", v, AllVerdicts)
		}
	})
}
