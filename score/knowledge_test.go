package score

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readKnowledgeFile(f *os.File, name string) ([]KnowledgeAttempt, error) {
	return ReadKnowledge(f, name)
}

func TestKnowledgeResult(t *testing.T) {
	p, f, na := new(StagePass), new(StageFail), new(StageNotApplicable)
	tests := []struct {
		name      string
		stages    KnowledgeStages
		want      KnowledgeResult
		wantStage Stage
	}{
		{"all pass", KnowledgeStages{p, p, p, p, p, p}, KnowledgeSuccess, ""},
		{"not applicable counts as passed", KnowledgeStages{p, na, p, p, p, p}, KnowledgeSuccess, ""},
		// The seed's oracle-document case: evidence retrieved, reasoning
		// right, the wrong state changed. The failure is action, not retrieval.
		{"oracle documents, wrong action", KnowledgeStages{p, na, p, f, nil, nil}, KnowledgeFailed, StageToolCall},
		{"first failure wins", KnowledgeStages{p, f, f, f, f, f}, KnowledgeFailed, StageRetrieval},
		{"unavailable knowledge", KnowledgeStages{Availability: f}, KnowledgeFailed, StageAvailability},
		{"failure after an unrecorded stage", KnowledgeStages{p, nil, p, f, nil, nil}, KnowledgeUnlocalized, ""},
		{"no failure, a stage unrecorded", KnowledgeStages{p, p, p, p, p, nil}, KnowledgeIncomplete, ""},
		{"nothing recorded", KnowledgeStages{}, KnowledgeIncomplete, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, stage := KnowledgeAttempt{Stages: tt.stages}.Result()
			if got != tt.want || stage != tt.wantStage {
				t.Errorf("Result() = %s %q, want %s %q", got, stage, tt.want, tt.wantStage)
			}
		})
	}
}

func TestScoreKnowledgeExample(t *testing.T) {
	r := ScoreKnowledge(readTestdata(t, "knowledge.jsonl", readKnowledgeFile))
	got := map[Interface]map[string][]string{}
	for _, s := range r.Interfaces {
		m := map[string][]string{"unlocalized": s.Unlocalized.Cases, "incomplete": s.Incomplete.Cases}
		for _, c := range s.FailedAt {
			if c.Count > 0 {
				m[string(c.Stage)] = c.Cases
			}
		}
		got[s.Interface] = m
	}
	none := []string{}
	want := map[Interface]map[string][]string{
		InterfaceNormal:      {"availability": {"K3"}, "retrieval": {"K2"}, "final_state": {"K4"}, "unlocalized": none, "incomplete": none},
		InterfaceOracle:      {"availability": {"K3"}, "tool_call": {"K2"}, "explanation": {"K4"}, "unlocalized": none, "incomplete": none},
		InterfaceFullContext: {"availability": {"K3"}, "interpretation": {"K2"}, "unlocalized": none, "incomplete": none},
		InterfaceAltSearch:   {"availability": {"K3"}, "unlocalized": {"K4"}, "incomplete": {"K1"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failure stages per interface (-want +got):\n%s", diff)
	}
	alt := r.Interfaces[3]
	type fig struct{ Count, N, Unknown int }
	if diff := cmp.Diff(fig{1, 3, 1}, fig{alt.Success.Count, alt.Success.N, alt.Success.Unknown}); diff != "" {
		t.Errorf("alternative_search success (-want +got):\n%s", diff)
	}
	// K1 under alternative_search gave no cost: the mean is over three.
	if alt.CostUSD.N != 3 || alt.LatencyMS.N != 4 || *alt.LatencyMS.Max != 3100 {
		t.Errorf("alternative_search latency %+v, cost %+v", alt.LatencyMS, alt.CostUSD)
	}
	retrieval := r.Interfaces[0].StagePass[1]
	if diff := cmp.Diff(fig{2, 3, 1}, fig{retrieval.Count, retrieval.N, retrieval.Unknown}); diff != "" {
		t.Errorf("normal_retrieval retrieval pass (-want +got):\n%s", diff)
	}
	if len(r.NotRun) != 0 || len(r.MissingAttempts) != 0 {
		t.Errorf("not run %v, missing %v: want none", r.NotRun, r.MissingAttempts)
	}
}

func TestScoreKnowledgeMissingAttempts(t *testing.T) {
	input := `{"case":"A","interface":"normal_retrieval","stages":{}}
{"case":"B","interface":"normal_retrieval","stages":{}}
{"case":"A","interface":"oracle_documents","stages":{}}`
	atts, err := ReadKnowledge(strings.NewReader(input), "k.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	r := ScoreKnowledge(atts)
	if diff := cmp.Diff([]string{"B under oracle_documents"}, r.MissingAttempts); diff != "" {
		t.Errorf("missing attempts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Interface{InterfaceFullContext, InterfaceAltSearch}, r.NotRun); diff != "" {
		t.Errorf("not run (-want +got):\n%s", diff)
	}
}

func TestReadKnowledgeErrors(t *testing.T) {
	ok := `{"case":"A","interface":"full_context","stages":{"availability":"pass"}}`
	tests := []readErrorCase{
		{"same case and interface twice", ok + "\n" + ok, ErrDuplicateID, `k.jsonl:2: case: case "A" under full_context given twice (first on line 1)`},
		{"unknown interface", `{"case":"A","interface":"rag","stages":{}}`, ErrBadValue,
			`k.jsonl:1: interface: "rag": want one of normal_retrieval, oracle_documents, full_context, alternative_search`},
		{"unknown stage", `{"case":"A","interface":"full_context","stages":{"action":"pass"}}`, ErrUnknownKey,
			`k.jsonl:1: stages.action: unknown key "action" (want one of: availability, explanation, final_state, interpretation, retrieval, tool_call)`},
		{"bad stage outcome", `{"case":"A","interface":"full_context","stages":{"retrieval":"ok"}}`, ErrBadValue,
			`k.jsonl:1: stages.retrieval: "ok": want one of pass, fail, not_applicable (or null when not recorded)`},
		{"infinite latency", `{"case":"A","interface":"full_context","stages":{},"latency_ms":1e400}`, ErrNonFinite,
			"k.jsonl:1: latency_ms: 1e400 is beyond the range of a 64-bit float"},
		{"negative cost", `{"case":"A","interface":"full_context","stages":{},"cost_usd":-0.5}`, ErrBadValue,
			"k.jsonl:1: cost_usd: -0.5: want 0 or more"},
		{"missing case", `{"interface":"full_context","stages":{}}`, ErrMissingID, "k.jsonl:1: case: missing case id"},
	}
	checkReadErrors(t, tests, func(r io.Reader) error {
		_, err := ReadKnowledge(r, "k.jsonl")
		return err
	})
}

func FuzzReadKnowledge(f *testing.F) {
	seed, err := os.ReadFile("testdata/knowledge.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(seed))
	f.Add(`{"case":"A","interface":"oracle_documents","stages":{"retrieval":null},"cost_usd":0}`)
	f.Add(`{"case":"A","interface":"oracle_documents","stages":{},"latency_ms":-1e309}`)
	f.Fuzz(func(t *testing.T, input string) {
		atts, err := ReadKnowledge(strings.NewReader(input), "fuzz.jsonl")
		if err != nil {
			checkLocated(t, err, "fuzz.jsonl")
			return
		}
		r := ScoreKnowledge(atts)
		for _, s := range r.Interfaces {
			n := s.Success.Count + s.Unlocalized.Count + s.Incomplete.Count
			for _, c := range s.FailedAt {
				n += c.Count
			}
			if n != s.Attempts {
				t.Fatalf("%s: results sum to %d of %d attempts", s.Interface, n, s.Attempts)
			}
		}
		roundTrip(t, atts, func(s string) ([]KnowledgeAttempt, error) { return ReadKnowledge(strings.NewReader(s), "again.jsonl") })
	})
}
