package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mission/modelcore"
	"github.com/baton-lab/baton/mission/triage"
	"github.com/baton-lab/baton/reports"
)

func TestMatchedProtocolErrors(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"unit", "matched:\n  unit: dollars\n", `p.yaml:2:9: matched.unit: unknown unit "dollars" (want one of model_calls, tokens)`},
		{"per", "matched:\n  per: week\n", `p.yaml:2:8: matched.per: unknown average "week" (want one of scenario, task)`},
		{"measure", "matched:\n  measure: median\n", `p.yaml:2:12: matched.measure: unknown measure "median" (want one of mean, max)`},
		{"surplus", "matched:\n  surplus: spend\n", `p.yaml:2:12: matched.surplus: unknown surplus "spend" (want one of none, revote)`},
		{"even votes", "matched:\n  max_votes: 4\n", "p.yaml:2:14: matched.max_votes: 4: want an odd number, at least 1"},
		{"unknown key", "matched:\n  votes: 3\n", "p.yaml:2:3: matched.votes: unknown field (want one of unit, per, measure, surplus, max_votes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseProtocol([]byte(tt.yaml), "p.yaml", "", testMissions())
			if err == nil {
				t.Fatalf("ParseProtocol(%q) = nil error, want %q", tt.yaml, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("ParseProtocol(%q):\n got %s\nwant %s", tt.yaml, got, tt.want)
			}
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Errorf("error %v is not an *InputError", err)
			}
		})
	}
}

// matched runs baton matched's comparison on a protocol into a new
// folder and returns its result, checking the folder's files.
func matched(tb testing.TB, proto string) *reports.Matched {
	tb.Helper()
	reg, err := mission.NewRegistry(invoice.New(), triage.New())
	if err != nil {
		tb.Fatal(err)
	}
	p, err := ParseProtocol([]byte(proto), "matched.yaml", tb.TempDir(), reg)
	if err != nil {
		tb.Fatal(err)
	}
	dir := filepath.Join(tb.TempDir(), "run")
	res, err := RunMatched(context.Background(), p, NewStack(reg), dir, 0)
	if err != nil {
		tb.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, MatchedFile))
	if err != nil {
		tb.Fatal(err)
	}
	var back reports.Matched
	if err := json.Unmarshal(data, &back); err != nil {
		tb.Fatal(err)
	}
	if diff := cmp.Diff(res, &back); diff != "" {
		tb.Errorf("matched.json (-returned +read):\n%s", diff)
	}
	for _, f := range []string{ProtocolCopy, ManifestFile, MatchedMarkdownFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			tb.Error(err)
		}
	}
	return res
}

// successes returns each arm's successes and runs.
func successes(m *reports.Matched) [][2]int {
	var out [][2]int
	for _, a := range m.Arms {
		out = append(out, [2]int{a.Successes, a.Runs})
	}
	return out
}

// TestMatchedCleanTriage: with slips and faults off, the single agent
// completes every triage scenario as the team does, at the same model
// calls, so the budgets match and no orchestration advantage shows.
func TestMatchedCleanTriage(t *testing.T) {
	res := matched(t, "name: m\nmission:\n  name: triage\ntrials: 2\nprofile: {}\nfaults: {}\n")
	n := 2 * len(res.Scenarios)
	want := [][2]int{{n, n}, {n, n}, {n, n}}
	if diff := cmp.Diff(want, successes(res)); diff != "" {
		t.Errorf("successes (-want +got):\n%s", diff)
	}
	want2 := []coordination.Attribution{coordination.AttrUnmatched, coordination.AttrNoAdvantage}
	for i, c := range res.Comparisons {
		if c.Budget.Matched != (i == 1) || c.Budget.Attribution != want2[i] || c.Paired.Both != n {
			t.Errorf("%s: matched %v, attribution %s, paired %+v: want %s, all both", c.Name, c.Budget.Matched, c.Budget.Attribution, c.Paired, want2[i])
		}
	}
	if got := res.Arms[1].Dimensions[0].Reason; got == "" {
		t.Errorf("single agent's delegation correctness has no reason it does not apply")
	}
}

// TestMatchedRevoteTriage: under a raised slip profile the comparison
// records the protocol's settings, gives the same figures twice, and the single agents stay within the
// team's model calls (they make the same decisions, and votes only what
// the budget leaves).
func TestMatchedRevoteTriage(t *testing.T) {
	const proto = "name: m\nmission:\n  name: triage\ntrials: 3\nfaults: {}\n" +
		"profile:\n  supervisor: {misroute: 0.2}\n  billing: {skip_lookup: 0.2}\n" +
		"matched: {unit: model_calls, surplus: revote, max_votes: 3}\n"
	res := matched(t, proto)
	if diff := cmp.Diff(res, matched(t, proto)); diff != "" {
		t.Errorf("second run (-first +second):\n%s", diff)
	}
	if res.Budget.Surplus != SurplusRevote || res.Budget.Unit != "model_calls" || res.Budget.Per != MatchedPerScenario {
		t.Errorf("budget %+v: want the protocol's", res.Budget)
	}
	m, s, sm := res.Arms[0], res.Arms[1], res.Arms[2]
	if sm.ModelCalls > m.ModelCalls*1.05 || s.ModelCalls > m.ModelCalls {
		t.Errorf("model calls per task: multi %.2f, single %.2f, matched %.2f: want the single agents within the team's", m.ModelCalls, s.ModelCalls, sm.ModelCalls)
	}
	t.Logf("multi %d/%d, single %d/%d, matched %d/%d (votes %.2f, over %d)", m.Successes, m.Runs, s.Successes, s.Runs, sm.Successes, sm.Runs, sm.Votes, sm.OverBudget)

	// The per-task budget is the mean of the scenarios' budgets, to a
	// hundredth, not rounded to a whole call.
	var total int
	for _, c := range res.Cases {
		total += c.Budget
	}
	mean := math.Round(float64(total)/float64(len(res.Cases))*100) / 100
	if mean == math.Trunc(mean) {
		t.Fatalf("mean budget %v is a whole number: the protocol no longer shows its precision", mean)
	}
	want := "model_calls " + strconv.FormatFloat(mean, 'f', -1, 64)
	for _, a := range []reports.MatchedArm{m, sm} {
		if got := a.Budget.String(); got != want {
			t.Errorf("%s: budget %q, want %q", a.Name, got, want)
		}
	}
	if claim := res.Comparisons[1].Budget.Claim; !strings.Contains(claim, "("+want+")") {
		t.Errorf("matched claim %q does not give the budget as %q", claim, want)
	}
}

// TestMatchedModelCores runs the comparison with every core a model
// against the scripted server: the figures are the policy's.
func TestMatchedModelCores(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("runs the triage comparison over HTTP")
	}
	const proto = "name: m\nmission:\n  name: triage\ntrials: 1\n"
	policy := matched(t, proto)
	ts := missionEndpoint(t, triage.New())
	model := matched(t, modelCores(proto, ts.URL, modelcore.PlayerModel(triage.Name)))
	if diff := cmp.Diff(successes(policy), successes(model)); diff != "" {
		t.Errorf("successes (-policy +model):\n%s", diff)
	}
	if !strings.Contains(strings.Join([]string{model.Cores["supervisor"]}, ""), "triage") {
		t.Errorf("cores %v: want the model named", model.Cores)
	}
}

// TestMatchedDeriverAsDerive: the comparison derives its records with the
// plan's deriver and comes out as it does deriving each record alone.
func TestMatchedDeriverAsDerive(t *testing.T) {
	reg, err := mission.NewRegistry(invoice.New(), triage.New())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"triage", "invoice"} {
		t.Run(name, func(t *testing.T) {
			proto := "name: m\nmission:\n  name: " + name + "\ntrials: 2\nmatched: {surplus: revote, max_votes: 3}\n"
			p, err := ParseProtocol([]byte(proto), "matched.yaml", t.TempDir(), reg)
			if err != nil {
				t.Fatal(err)
			}
			compare := func(coord *coordination.Deriver) *reports.Matched {
				pl, err := resolve(p, NewStack(reg), p.Path)
				if err != nil {
					t.Fatal(err)
				}
				if err := pl.bindCores(t.TempDir(), coreOptions{ctx: context.Background(), check: true}); err != nil {
					t.Fatal(err)
				}
				defer pl.cores.close()
				pl.coord = coord
				mr := &matchedRun{pl: pl, mb: p.Matched.withDefaults(), trials: p.Trials}
				res, err := mr.run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			alone, shared := compare(nil), compare(coordination.NewDeriver())
			if diff := cmp.Diff(alone, shared); diff != "" {
				t.Errorf("with a deriver (-alone +shared):\n%s", diff)
			}
			if len(shared.Arms[0].Dimensions) == 0 {
				t.Errorf("no dimensions: nothing compared")
			}
		})
	}
}
