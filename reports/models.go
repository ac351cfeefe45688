package reports

import (
	"fmt"
	"slices"
	"strings"
)

// ModelUse is one design's model calls in a run with model-backed cores:
// the answers an endpoint made and those a cache served, and their tokens.
// Which of a run's answers were made and which served depends on what the
// cache held and on the order work ran in, so results.json leaves these
// out (the manifest keeps them, like wall-clock time) and the experiment
// hands them back for rendering ([Results.SetModelUse]).
type ModelUse struct {
	Made             int64 `json:"made"`
	Served           int64 `json:"served"`
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// SetModelUse sets each design's model use ("obs" for the observation
// runs), for the reports' model section.
func (r *Results) SetModelUse(use map[string]ModelUse) { r.modelUse = use }

// MistakeCount is one kind of mistake of one agent, observed on the clean
// build against the goldens: Count of N opportunities (agent-items, or
// messages sent for a misroute), with what was involved (the tools a
// skipped call was of).
type MistakeCount struct {
	Agent   string
	Core    string // CorePolicy or CoreModel
	Mistake string
	Count   int
	N       int
	Detail  string
}

// MistakeRow is an agent's observed rate of one kind of mistake, with its
// Wilson interval, next to the slip rates the protocol configured for the
// agent's policy core ("" for a model core, whose mistakes are the
// model's).
type MistakeRow struct {
	Agent      string `json:"agent"`
	Core       string `json:"core"`
	Mistake    string `json:"mistake"`
	Count      int    `json:"count"`
	N          int    `json:"n"`
	Rate       F4     `json:"rate"`
	CI95       CI     `json:"ci95"`
	Detail     string `json:"detail,omitempty"`
	Configured string `json:"configured,omitempty"`
}

// SetMistakes sets the observed mistake rates from their counts, in the
// order given; configured gives each policy agent's slip rates as text.
func (r *Results) SetMistakes(counts []MistakeCount, configured map[string]string) {
	r.Mistakes = make([]MistakeRow, 0, len(counts))
	for _, c := range counts {
		row := MistakeRow{Agent: c.Agent, Core: c.Core, Mistake: c.Mistake, Count: c.Count, N: c.N,
			Rate: rateOf(c.Count, c.N), CI95: wilsonCI(c.Count, c.N), Detail: c.Detail}
		if c.Core == CorePolicy {
			row.Configured = configured[c.Agent]
		}
		r.Mistakes = append(r.Mistakes, row)
	}
}

// hasModelCores reports whether any agent of the run was model-backed.
func (r *Results) hasModelCores() bool {
	return slices.ContainsFunc(r.Methods.Cores, func(c CoreInfo) bool { return c.Kind == CoreModel })
}

// modelSection is the model calls per design: calls (made by the
// endpoint, served from the cache), tokens read and written, and what they
// cost at the protocol's weights. Nil when no core was a model.
func modelSection(r *Results) *section {
	if !r.hasModelCores() {
		return nil
	}
	t := &table{ID: "model-calls-table", RowHeads: true,
		Header: []string{"design", "model calls", "made by the endpoint", "served from the cache", "tokens in", "tokens out", "money (tokens)"}}
	w := r.CostWeights
	for _, x := range r.Cost {
		made, served := textCell("–"), textCell("–")
		if u, ok := r.modelUse[x.Design]; ok {
			made, served = numCell(fmt.Sprint(u.Made), float64(u.Made)), numCell(fmt.Sprint(u.Served), float64(u.Served))
		}
		money := float64(x.TokensIn)/1000*w.Per1kInputTokens + float64(x.TokensOut)/1000*w.Per1kOutputTokens +
			float64(x.Tokens)/1000*w.Per1kTokens
		t.Rows = append(t.Rows, []tcell{textCell(x.Design), intCell(x.ModelCalls), made, served,
			intCell(x.TokensIn), intCell(x.TokensOut), numCell(strings.TrimSpace(f4(money).String()+" "+w.Currency), money)})
	}
	s := &section{ID: "model-calls", Title: "Model calls", Blocks: []block{
		p("Every model call of each design's suite runs, with the tokens the endpoints reported. A run a design shares with another " +
			"(design B's integrated run is the observation run; design C's core runs are design A's) is charged to both, its calls as " +
			"served from the cache the second time, as executing it again would be. Which answers were made and which served depends on " +
			"what the cache held: those two columns come from manifest.json (\"–\" when it has none), never from results.json."), t}}
	if u, ok := r.modelUse["obs"]; ok {
		s.add(p(fmt.Sprintf("Observation runs: %d calls made by the endpoint, %d served from the cache, %d tokens in, %d out.",
			u.Made, u.Served, u.PromptTokens, u.CompletionTokens)))
	}
	return s
}

// mistakesSection is each agent's observed mistake rates on the clean
// build, next to the slip rates configured for policy cores. Nil when the
// run measured none.
func mistakesSection(r *Results) *section {
	if len(r.Mistakes) == 0 {
		return nil
	}
	t := &table{ID: "mistakes-table", RowHeads: true,
		Header: []string{"agent", "core", "mistake", "observed [95% CI]", "detail", "configured slip rates"}}
	for _, x := range r.Mistakes {
		t.Rows = append(t.Rows, []tcell{textCell(x.Agent), textCell(x.Core), textCell(x.Mistake),
			trialRateCell(x.Count, x.N), textCell(x.Detail), textCell(orDash(x.Configured))})
	}
	return &section{ID: "mistakes", Title: "Observed agent mistakes", Blocks: []block{
		p("Each agent's mistakes on the clean build, measured against the goldens: its core run alone on every golden input of every " +
			"trial (a decision field, another result field, a tool call missing from or added to the golden trajectory, no result), and " +
			"every message it sent in the integrated runs (a next owner other than the golden one: misroute). Agent-items in which an " +
			"injected fault fired are left out, so the rates are the agent's own. For a policy core they estimate its configured slip " +
			"rates (a slip is drawn per decision where it can happen); for a model core they are whatever the model does."), t}}
}
