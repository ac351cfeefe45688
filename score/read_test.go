package score

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadRunsExample(t *testing.T) {
	f, err := os.Open("testdata/runs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runs, skipped, err := ReadRuns(f, "runs.jsonl", false)
	if err != nil || skipped != 0 {
		t.Fatalf("ReadRuns: skipped %d, err %v", skipped, err)
	}
	var ids []string
	var truth []bool
	for _, r := range runs {
		ids = append(ids, r.ID)
		truth = append(truth, r.ExpectedAnswer != nil)
	}
	if diff := cmp.Diff([]string{"R1", "R2", "R3", "R4", "R5", "R6"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	// R4 has "expected_answer": null, R5 has none: both mean no truth.
	if diff := cmp.Diff([]bool{true, true, true, false, false, true}, truth); diff != "" {
		t.Errorf("has truth (-want +got):\n%s", diff)
	}
	if runs[5].ExpectedCalls == nil || len(runs[5].ExpectedCalls) != 0 {
		t.Errorf("R6 expected_calls = %#v, want an empty non-nil list", runs[5].ExpectedCalls)
	}
	want := Call{Name: "refund", Args: map[string]any{"booking": "B7", "amount": 140.0, "currency": "EUR"}}
	if diff := cmp.Diff(want, runs[0].ExpectedCalls[1]); diff != "" {
		t.Errorf("R1 expected_calls[1] (-want +got):\n%s", diff)
	}
	if runs[2].Line != 3 {
		t.Errorf("R3 line = %d, want 3", runs[2].Line)
	}
}

const okLine = `{"run":"A","calls":[],"answer":"x"}`

func TestReadRunsErrors(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		wantErr error
		wantMsg string
	}{
		{"not JSON", okLine + "\n{\"run\": \"B\",\n", ErrNotJSON, "runs.jsonl:2: not JSON: unexpected end of JSON input"},
		{"not an object", "[1,2]\n", ErrNotJSON, "runs.jsonl:1: not JSON: want an object, got array"},
		{"trailing garbage", `{"run":"A"} x` + "\n", ErrNotJSON, "runs.jsonl:1: not JSON: 'x' after the top-level object"},
		{"missing run id", okLine + "\n\n" + `{"answer":"x"}`, ErrMissingID, "runs.jsonl:3: run: missing run id"},
		{"empty run id", `{"run":""}`, ErrMissingID, "runs.jsonl:1: run: missing run id"},
		{"duplicate id", okLine + "\n" + `{"run":"B"}` + "\n" + okLine, ErrDuplicateID, `runs.jsonl:3: run: duplicate run id "A" (first on line 1)`},
		{"call without a name", okLine + "\n" + `{"run":"B","calls":[{"name":"a"},{"args":{"x":1}}]}`, ErrNoName, "runs.jsonl:2: calls[1].name: call without a name"},
		{"expected call without a name", `{"run":"B","expected_calls":[{"name":""}]}`, ErrNoName, "runs.jsonl:1: expected_calls[0].name: call without a name"},
		{"run id not a string", `{"run":7}`, ErrBadField, "runs.jsonl:1: run: want string, got number"},
		{"expected_answer not a string", `{"run":"A","expected_answer":140}`, ErrBadField, "runs.jsonl:1: expected_answer: want string, got number"},
		{"args not an object", `{"run":"A","calls":[{"name":"a","args":[1]}]}`, ErrBadField, "runs.jsonl:1: calls[0].args: want object, got array"},
		{"misspelt key", `{"run":"A","expected_answr":"x"}`, ErrUnknownKey, `runs.jsonl:1: expected_answr: unknown key "expected_answr" (want one of: answer, calls, expected_answer, expected_calls, run)`},
		// Accepted silently or unclear before (issue 23, items 9 and 10).
		{"byte order mark", "\xef\xbb\xbf" + okLine, ErrBOM, "runs.jsonl:1: starts with a UTF-8 byte order mark: save the file without it"},
		{"duplicate key", `{"run":"A","answer":"x","answer":"y"}`, ErrDuplicateKey, "runs.jsonl:1: answer: key given twice"},
		{"invalid UTF-8", okLine + "\n{\"run\":\"B\",\"answer\":\"\xff\"}", ErrInvalidUTF8, "runs.jsonl:2: answer: invalid UTF-8 in a string"},
		{"number beyond float64", `{"run":"A","calls":[{"name":"a","args":{"n":1e999}}]}`, ErrNonFinite, "runs.jsonl:1: calls[0].args.n: 1e999 is beyond the range of a 64-bit float"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ReadRuns(strings.NewReader(tt.input), "runs.jsonl", false)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("err %T is not a *LineError", err)
			}
			if diff := cmp.Diff(tt.wantMsg, err.Error()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadRunsKeepGoing(t *testing.T) {
	input := strings.Join([]string{
		`{"run":"A"}`,
		`not json`,
		`{"answer":"no id"}`,
		`{"run":"A","answer":"dup"}`,
		`{"run":"B","calls":[{}]}`,
		``,
		`{"run":"C"}`,
	}, "\n")
	runs, skipped, err := ReadRuns(strings.NewReader(input), "runs.jsonl", true)
	if err != nil {
		t.Fatalf("keep going: %v", err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	if diff := cmp.Diff([]string{"A", "C"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if skipped != 4 {
		t.Errorf("skipped = %d, want 4", skipped)
	}
	if runs[0].Answer != "" {
		t.Errorf("first A was replaced by its duplicate: answer %q", runs[0].Answer)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadRunsReadError(t *testing.T) {
	_, _, err := ReadRuns(failingReader{}, "runs.jsonl", true)
	if err == nil || !strings.Contains(err.Error(), "read runs.jsonl: disk on fire") {
		t.Errorf("err = %v, want the read error even with keep-going", err)
	}
}

func FuzzReadRuns(f *testing.F) {
	seeds := []string{
		okLine,
		`{"run":"A","expected_calls":[{"name":"a","args":{"x":[1,{"y":null}]}}],"calls":[],"expected_answer":null,"answer":"x"}` + "\n" + okLine,
		"{\"run\":\"A\"}\n{\"run\":\"A\"}\n",
		`{"run":"A","calls":[{"args":{}}]}`,
		"\n\n[]\n\"x\"\n{",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		runs, skipped, err := ReadRuns(strings.NewReader(input), "fuzz.jsonl", false)
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.Line < 1 || !strings.HasPrefix(err.Error(), "fuzz.jsonl:") {
				t.Fatalf("error without a line: %v", err)
			}
		} else {
			checkRuns(t, runs)
		}
		if skipped != 0 {
			t.Fatalf("skipped %d without keep-going", skipped)
		}
		kRuns, kSkipped, kErr := ReadRuns(strings.NewReader(input), "fuzz.jsonl", true)
		if kErr != nil {
			t.Fatalf("keep-going returned %v", kErr)
		}
		checkRuns(t, kRuns)
		lines := 0
		for l := range strings.SplitSeq(input, "\n") {
			if strings.TrimSpace(l) != "" {
				lines++
			}
		}
		if len(kRuns)+kSkipped != lines {
			t.Fatalf("%d runs + %d skipped != %d non-blank lines", len(kRuns), kSkipped, lines)
		}
		if err == nil && kSkipped != 0 {
			t.Fatalf("keep-going skipped %d lines that strict mode accepted", kSkipped)
		}
		// Scoring what was read never panics and keeps its invariants.
		rep := Score(kRuns)
		oa := rep.OutputAccuracy
		if oa.Correct+oa.Incorrect+oa.Unscoreable != len(kRuns) {
			t.Fatalf("output counts %+v do not add up to %d runs", oa, len(kRuns))
		}
	})
}

// checkRuns asserts what ReadRuns promises about the runs it returns.
func checkRuns(tb testing.TB, runs []Run) {
	tb.Helper()
	seen := map[string]bool{}
	for _, r := range runs {
		if r.ID == "" || seen[r.ID] {
			tb.Fatalf("run id %q empty or duplicate", r.ID)
		}
		seen[r.ID] = true
		for _, c := range append(append([]Call(nil), r.ExpectedCalls...), r.Calls...) {
			if c.Name == "" {
				tb.Fatalf("run %s has a call without a name", r.ID)
			}
		}
	}
}
