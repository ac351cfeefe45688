package score

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/model"
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

// TestApplyJudgeKeepsVerdicts: a failed request loses nothing already
// judged (issue 23 item 13); after three failures in a row the judge
// stops, and every run not judged says why.
func TestApplyJudgeKeepsVerdicts(t *testing.T) {
	runs := judgeRuns()
	all := scriptedJudge{"L1": VerdictPass, "L2": VerdictFail, "L3": VerdictPass, "L4": VerdictFail, "L5": VerdictUndetermined,
		"U1": VerdictPass, "U2": VerdictFail, "U3": VerdictPass, "U4": VerdictFail}
	without := func(ids ...string) scriptedJudge {
		s := scriptedJudge{}
		for k, v := range all {
			if !slices.Contains(ids, k) {
				s[k] = v
			}
		}
		return s
	}
	tests := []struct {
		name      string
		script    scriptedJudge
		wantV     JudgeValidation
		wantWhy   map[string]string // unscoreable run: reason
		wantNote  string
		wantError string
	}{
		{
			name:      "a labelled run fails",
			script:    without("L2"),
			wantV:     JudgeValidation{LabelledN: 4, Agreement: ptr(0.75), Agreed: 3, Undetermined: 1, Failed: 1},
			wantWhy:   map[string]string{"U1": "scripted", "U2": "scripted", "U3": "scripted", "U4": "scripted"},
			wantNote:  "partly failed: 1 of 9 runs not judged (see error)",
			wantError: "judge: 1 of 9 requests failed; first: judge run L2: no script for L2",
		},
		{
			name:      "an unscoreable run fails",
			script:    without("U2"),
			wantV:     JudgeValidation{LabelledN: 5, Agreement: ptr(0.8), Agreed: 4, Undetermined: 1},
			wantWhy:   map[string]string{"U1": "scripted", "U2": "judge request failed: judge run U2: no script for U2", "U3": "scripted", "U4": "scripted"},
			wantNote:  "partly failed: 1 of 9 runs not judged (see error)",
			wantError: "judge: 1 of 9 requests failed; first: judge run U2",
		},
		{
			name:   "three failures in a row stop the judge",
			script: without("L2", "L3", "L4"),
			wantV:  JudgeValidation{LabelledN: 1, Agreement: ptr(1.0), Agreed: 1, Failed: 4},
			wantWhy: map[string]string{
				"U1": "not judged: the judge stopped after: judge run L4: no script for L4",
				"U2": "not judged: the judge stopped after: judge run L4: no script for L4",
				"U3": "not judged: the judge stopped after: judge run L4: no script for L4",
				"U4": "not judged: the judge stopped after: judge run L4: no script for L4",
			},
			wantNote:  "partly failed: 8 of 9 runs not judged (see error)",
			wantError: "judge: 3 of 4 requests failed; first: judge run L2",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := Score(runs)
			err := rep.ApplyJudge(context.Background(), runs, tt.script, "scripted")
			var je *JudgeError
			if !errors.As(err, &je) || !strings.Contains(err.Error(), tt.wantError) {
				t.Fatalf("err = %v, want a JudgeError with %q", err, tt.wantError)
			}
			if diff := cmp.Diff(&tt.wantV, rep.JudgeValidation); diff != "" {
				t.Errorf("validation (-want +got):\n%s", diff)
			}
			why := map[string]string{}
			for _, v := range rep.Judge {
				why[v.Run] = v.Why
			}
			if diff := cmp.Diff(tt.wantWhy, why); diff != "" {
				t.Errorf("verdict reasons (-want +got):\n%s", diff)
			}
			if rep.JudgeNote != tt.wantNote || rep.JudgeModel != "scripted" {
				t.Errorf("note %q model %q, want %q", rep.JudgeNote, rep.JudgeModel, tt.wantNote)
			}
		})
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

// TestMainJudgeHangKeepsVerdicts: an endpoint that hangs on one run makes
// that run's request time out within the retry budget; every other
// verdict is kept and printed (issue 23 item 13).
func TestMainJudgeHangKeepsVerdicts(t *testing.T) {
	inner := sometimesWrongJudge(t)
	handler := inner.Config.Handler
	inner.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		if strings.Contains(string(raw), `\"run\": \"U2\"`) {
			<-r.Context().Done() // hang until the client gives up
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
		handler.ServeHTTP(w, r)
	})
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	var lines []string
	for _, r := range judgeRuns() {
		raw, _ := json.Marshal(r)
		lines = append(lines, string(raw))
	}
	writeFile(t, path, strings.Join(lines, "\n")+"\n")
	cfg := inner.config()
	cfg.RequestTimeout, cfg.MaxElapsed = 100*time.Millisecond, 350*time.Millisecond
	var out bytes.Buffer
	err := Main(context.Background(), path, Options{JSON: true, Stdout: &out, Env: noEnv, Judge: cfg})
	var je *JudgeError
	if !errors.As(err, &je) || je.Failed != 1 || !errors.Is(err, model.ErrTimeout) {
		t.Fatalf("err = %v, want one timed-out request", err)
	}
	var rep struct {
		Judge           []JudgeVerdict  `json:"judge"`
		JudgeValidation JudgeValidation `json:"judge_validation"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.JudgeValidation.LabelledN != 5 || len(rep.Judge) != 4 {
		t.Fatalf("validation %+v, %d verdicts: want everything but U2 judged", rep.JudgeValidation, len(rep.Judge))
	}
	for _, v := range rep.Judge {
		failed := strings.HasPrefix(v.Why, "judge request failed: judge run U2: chat completions: request timed out")
		if (v.Run == "U2") != failed {
			t.Errorf("run %s: %s %q", v.Run, v.Verdict, v.Why)
		}
	}
}
