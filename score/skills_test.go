package score

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readTestdata opens testdata/name and reads it with read.
func readTestdata[T any](tb testing.TB, name string, read func(f *os.File, name string) (T, error)) T {
	tb.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	v, err := read(f, name)
	if err != nil {
		tb.Fatalf("read %s: %v", name, err)
	}
	return v
}

func readSkillsFile(f *os.File, name string) ([]SkillRequest, error) { return ReadSkills(f, name) }

// The seed's worked micro-kata: 20 requests, 12 requiring the refund
// skill; 10 required and 2 irrelevant activations; 8 of the 10 load the
// current procedure; 6 of those execute correctly.
func TestSkillsSeedExample(t *testing.T) {
	r := ScoreSkills(readTestdata(t, "skills.jsonl", readSkillsFile))
	type fig struct{ Count, N, Unknown int }
	got := map[string]fig{}
	for _, f := range r.figures() {
		got[f.name] = fig{f.fig.Count, f.fig.N, f.fig.Unknown}
	}
	want := map[string]fig{
		"selection precision":    {10, 12, 0},
		"selection recall":       {10, 12, 0},
		"correct non-activation": {6, 8, 0},
		"selection accuracy":     {16, 20, 0},
		"current version":        {8, 10, 0},
		"execution success":      {6, 8, 0},
		"complete success":       {6, 12, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("figures (-want +got):\n%s", diff)
	}
	// The equal precision and recall have different denominators.
	if r.SelectionPrecision.Of == r.SelectionRecall.Of {
		t.Errorf("precision and recall both over %q", r.SelectionPrecision.Of)
	}
	parts := map[SkillOutcome]int{}
	total := 0
	for _, b := range r.RequiredFailures {
		parts[b.Outcome] = b.Count
		total += b.Count
	}
	wantParts := map[SkillOutcome]int{SkillMissedActivation: 2, SkillWrongActivation: 0, SkillStaleLoad: 2,
		SkillVersionUnknown: 0, SkillExecutionFailure: 2, SkillExecutionUnknown: 0}
	if diff := cmp.Diff(wantParts, parts); diff != "" {
		t.Errorf("partition of required failures (-want +got):\n%s", diff)
	}
	if total != r.Required-r.CompleteSuccess.Count {
		t.Errorf("partition sums to %d, want required %d - successes %d", total, r.Required, r.CompleteSuccess.Count)
	}
	wantIrr := []IrrelevantActivation{
		{Request: "S19", Activated: []string{"refund-policy"}, SideEffects: []string{}},
		{Request: "S20", Activated: []string{"refund-policy"}, SideEffects: []string{"refund:ORD-120"}},
	}
	if diff := cmp.Diff(wantIrr, r.Irrelevant); diff != "" {
		t.Errorf("irrelevant activations (-want +got):\n%s", diff)
	}
}

func TestSkillOutcome(t *testing.T) {
	skill := new("refund")
	cur := []SkillLoad{{Skill: "refund", Version: "v2", CurrentVersion: "v2"}}
	tests := []struct {
		name string
		req  SkillRequest
		want SkillOutcome
	}{
		{"success", SkillRequest{RequiredSkill: skill, Activated: []string{"refund"}, Loads: cur, Execution: new(ExecutionSuccess)}, SkillSuccess},
		{"nothing activated", SkillRequest{RequiredSkill: skill}, SkillMissedActivation},
		{"another skill", SkillRequest{RequiredSkill: skill, Activated: []string{"generic"}, Loads: cur, Execution: new(ExecutionSuccess)}, SkillWrongActivation},
		{"both skills, conflicting", SkillRequest{RequiredSkill: skill, Activated: []string{"refund", "generic"}, Loads: cur, Execution: new(ExecutionSuccess)}, SkillWrongActivation},
		{"stale, even if execution succeeded", SkillRequest{RequiredSkill: skill, Activated: []string{"refund"},
			Loads: []SkillLoad{{Skill: "refund", Version: "v1", CurrentVersion: "v2"}}, Execution: new(ExecutionSuccess)}, SkillStaleLoad},
		{"no loader record is unknown, not current", SkillRequest{RequiredSkill: skill, Activated: []string{"refund"}, Execution: new(ExecutionSuccess)}, SkillVersionUnknown},
		{"loader record of another skill only", SkillRequest{RequiredSkill: skill, Activated: []string{"refund"},
			Loads: []SkillLoad{{Skill: "generic", Version: "v2", CurrentVersion: "v2"}}, Execution: new(ExecutionSuccess)}, SkillVersionUnknown},
		{"execution failed", SkillRequest{RequiredSkill: skill, Activated: []string{"refund"}, Loads: cur, Execution: new(ExecutionFailure)}, SkillExecutionFailure},
		{"no execution outcome", SkillRequest{RequiredSkill: skill, Activated: []string{"refund"}, Loads: cur}, SkillExecutionUnknown},
		{"no skill required, none activated", SkillRequest{}, SkillCorrectNone},
		{"no skill required, one activated", SkillRequest{Activated: []string{"refund"}}, SkillIrrelevant},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _, _ := tt.req.Outcome(); got != tt.want {
				t.Errorf("Outcome() = %s, want %s", got, tt.want)
			}
		})
	}
}

// Unknowns stay out of n and are counted, and never make a success; an
// irrelevant activation is in precision's n but not recall's.
func TestSkillsUnknowns(t *testing.T) {
	input := strings.Join([]string{
		`{"request":"A","required_skill":"s","activated":["s"],"loads":[{"skill":"s","version":"1","current_version":"1"}],"execution":"success"}`,
		`{"request":"B","required_skill":"s","activated":["s"],"execution":"success"}`,
		`{"request":"C","required_skill":"s","activated":["s"],"loads":[{"skill":"s","version":"1","current_version":"1"}]}`,
		`{"request":"D","activated":["s"]}`,
	}, "\n")
	reqs, err := ReadSkills(strings.NewReader(input), "u.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	r := ScoreSkills(reqs)
	type fig struct{ Count, N, Unknown int }
	for _, tt := range []struct {
		name string
		got  Figure
		want fig
	}{
		{"selection precision", r.SelectionPrecision, fig{3, 4, 0}},
		{"selection recall", r.SelectionRecall, fig{3, 3, 0}},
		{"current version", r.CurrentVersion, fig{2, 2, 1}},
		{"execution success", r.ExecutionSuccess, fig{1, 1, 1}},
		{"complete success", r.CompleteSuccess, fig{1, 3, 0}},
	} {
		if diff := cmp.Diff(tt.want, fig{tt.got.Count, tt.got.N, tt.got.Unknown}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestReadSkillsErrors(t *testing.T) {
	ok := `{"request":"A","required_skill":"s","activated":["s"]}`
	tests := []readErrorCase{
		{"byte order mark", "\xEF\xBB\xBF" + ok, ErrBOM, "skills.jsonl:1: starts with a UTF-8 byte order mark: save the file without it"},
		{"unknown key", ok + "\n" + `{"request":"B","activated":[],"exectuion":"success"}`, ErrUnknownKey,
			`skills.jsonl:2: exectuion: unknown key "exectuion" (want one of: activated, condition, execution, loads, request, required_skill, side_effects)`},
		{"duplicate key", `{"request":"A","activated":["s"],"activated":[]}`, ErrDuplicateKey, "skills.jsonl:1: activated: key given twice"},
		{"invalid UTF-8", "{\"request\":\"A\",\"condition\":\"\xc3\x28\"}", ErrInvalidUTF8, "skills.jsonl:1: condition: invalid UTF-8 in a string"},
		{"missing id", `{"activated":[]}`, ErrMissingID, "skills.jsonl:1: request: missing request id"},
		{"duplicate id", ok + "\n\n" + ok, ErrDuplicateID, `skills.jsonl:3: request: duplicate request "A" (first on line 1)`},
		{"empty required skill", `{"request":"A","required_skill":""}`, ErrBadValue,
			"skills.jsonl:1: required_skill: empty: write null, or leave the key out, when no skill is required"},
		{"skill activated twice", `{"request":"A","activated":["s","s"]}`, ErrBadValue, `skills.jsonl:1: activated[1]: skill "s" listed twice`},
		{"load without version", `{"request":"A","loads":[{"skill":"s","current_version":"2"}]}`, ErrBadValue,
			"skills.jsonl:1: loads[0].version: missing version: leave the load out when the loader recorded none"},
		{"bad execution", `{"request":"A","execution":"ok"}`, ErrBadValue,
			`skills.jsonl:1: execution: "ok": want success or failure (or null when not recorded)`},
		{"execution not a string", `{"request":"A","execution":true}`, ErrBadField, "skills.jsonl:1: execution: want string, got boolean"},
		{"not JSON", ok + "\nnope", ErrNotJSON, "skills.jsonl:2: not JSON: invalid character 'o' in literal null (expecting 'u')"},
	}
	checkReadErrors(t, tests, func(r io.Reader) error {
		_, err := ReadSkills(r, "skills.jsonl")
		return err
	})
	if _, err := ReadSkills(strings.NewReader("\n\n"), "empty.jsonl"); !errors.Is(err, ErrNoRecords) {
		t.Errorf("empty file: err = %v, want %v", err, ErrNoRecords)
	}
}

func FuzzReadSkills(f *testing.F) {
	seed, err := os.ReadFile("testdata/skills.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{string(seed), `{"request":"A","required_skill":null,"loads":[{"skill":"s","version":"1","current_version":"2"}]}`,
		"{\"request\":\"A\",\"request\":\"B\"}", "\xEF\xBB\xBF{}", `{"request":"A","activated":["a","a"]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		reqs, err := ReadSkills(strings.NewReader(input), "fuzz.jsonl")
		if err != nil {
			checkLocated(t, err, "fuzz.jsonl")
			return
		}
		r := ScoreSkills(reqs)
		sum := 0
		for _, b := range r.RequiredFailures {
			sum += b.Count
		}
		if sum+r.CompleteSuccess.Count != r.Required {
			t.Fatalf("partition %d + successes %d != required %d", sum, r.CompleteSuccess.Count, r.Required)
		}
		roundTrip(t, reqs, func(s string) ([]SkillRequest, error) { return ReadSkills(strings.NewReader(s), "again.jsonl") })
	})
}

// checkLocated fails unless err names the file and, when it is about a
// line, a line from 1.
func checkLocated(tb testing.TB, err error, name string) {
	tb.Helper()
	if errors.Is(err, ErrNoRecords) {
		return
	}
	var le *LineError
	if !errors.As(err, &le) || le.Line < 1 || le.File != name || strings.Contains(err.Error(), "\n") {
		tb.Fatalf("error without a file and line: %v", err)
	}
}

// roundTrip writes recs as JSON Lines, reads them back with read and wants
// the same records.
func roundTrip[T any](tb testing.TB, recs []T, read func(string) ([]T, error)) {
	tb.Helper()
	var b strings.Builder
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			tb.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	again, err := read(b.String())
	if err != nil {
		tb.Fatalf("re-reading what was accepted: %v\n%s", err, b.String())
	}
	if diff := cmp.Diff(recs, again); diff != "" {
		tb.Fatalf("round trip (-first +again):\n%s", diff)
	}
}

// readErrorCase is a bad input and the error it must give.
type readErrorCase struct {
	name    string
	input   string
	wantErr error
	wantMsg string
}

// checkReadErrors reads each case's input with read and wants its error.
func checkReadErrors(t *testing.T, tests []readErrorCase, read func(r io.Reader) error) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := read(strings.NewReader(tt.input))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantMsg, err.Error()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}
