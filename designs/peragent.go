package designs

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/score"
)

// PerAgent is design A at its defaults: each agent run whole and alone
// (the build's parser on its inputs, its core, the build's emitter), on
// inputs from the scenario's golden expectations (or recorded from an
// integrated run), scored against its own scorecard.
var PerAgent = perAgent(Params{})

// perAgent is design A with parameters p.
func perAgent(p Params) Design {
	d := Design{
		ID:     "A",
		Base:   "A",
		Name:   variantName("per-agent", p),
		Params: p,
		Blames: []LocationKind{BlameAgent},
		Evaluate: func(in Input) (Verdict, error) {
			start := time.Now()
			var v Verdict
			if _, err := runAgents(in, p, &v); err != nil {
				return v, err
			}
			finish(&v, start)
			return v, nil
		},
	}
	d.Doc = perAgentDoc("the mission's trajectory rules of the agent", p)
	d.Describe = func(spec *mission.Spec) string { return perAgentDoc(ruleDocs(spec), p) }
	return d
}

// variantName is a base design's name with its variant's parameters.
func variantName(name string, p Params) string {
	if s := p.describe(); s != "" {
		return name + " (" + s + ")"
	}
	return name
}

// coreOutcome is one agent-item run alone and whether its scorecard held.
type coreOutcome struct {
	golden *mission.Golden // the caller's, by identity (see [Scorecards])
	run    *mission.CoreRun
	failed bool
}

// runAgents runs every agent-item of the scenario's golden expectations
// whole and alone, scores each at p's level, and appends findings and
// cost to v.
func runAgents(in Input, p Params, v *Verdict) ([]coreOutcome, error) {
	golden, err := goldenFor(in)
	if err != nil {
		v.Findings = append(v.Findings, Finding{Rule: "harness.golden", Message: err.Error()})
		return nil, nil
	}
	inputs := goldenInputs(golden)
	if p.inputs(in) == InputsRecorded {
		if inputs, err = recordedInputs(in, v, golden); err != nil {
			return nil, err
		}
	}
	spec := in.Mission.Spec()
	counts := &MatcherCounts{}
	out := make([]coreOutcome, 0, len(golden))
	for i, g := range golden {
		cr, err := in.Mission.RunCore(in.ctx(), in.Build, g.Agent, in.Scenario, inputs[i], in.Seed, in.Env)
		if err != nil {
			return nil, err
		}
		v.Cost.Add(cr.Cost)
		before := len(v.Findings)
		in.Scorecards.score(spec, &golden[i], cr, counts, v)
		if p.wire() {
			scoreWire(g, cr, v)
		}
		out = append(out, coreOutcome{golden: &golden[i], run: cr, failed: len(v.Findings) > before})
	}
	v.Matchers = counts
	return out, nil
}

func goldenInputs(golden []mission.Golden) []mission.CoreInput {
	in := make([]mission.CoreInput, len(golden))
	for i, g := range golden {
		in[i] = g.Input
	}
	return in
}

// recordedInputs runs the build end to end once and takes each agent-item's
// received messages from its trace (the entry agent's besides its input);
// an agent-item that received nothing in the integrated run keeps no
// messages. A collecting agent works on the
// whole day: everything it received.
func recordedInputs(in Input, v *Verdict, golden []mission.Golden) ([]mission.CoreInput, error) {
	run, err := in.Mission.Run(in.ctx(), in.Build, in.Scenario, in.Seed, in.Env)
	if err != nil {
		return nil, err
	}
	v.Cost.Add(run.Cost)
	spec := in.Mission.Spec()
	received := map[string][][]byte{}
	day := map[mission.Agent][][]byte{}
	for _, e := range run.Trace.Events {
		if e.Kind != mission.EventReceived {
			continue
		}
		k := string(e.Agent) + "\x00" + e.Item
		received[k] = append(received[k], []byte(e.Raw))
		day[e.Agent] = append(day[e.Agent], []byte(e.Raw))
	}
	out := make([]mission.CoreInput, len(golden))
	for i, g := range golden {
		out[i] = mission.CoreInput{Item: g.Item}
		as, _ := spec.Agent(g.Agent)
		switch {
		case as != nil && as.Collect:
			out[i].Messages = day[g.Agent]
		default:
			// The entry agent too: one that also receives replies on its
			// item (a supervisor) takes a turn on each.
			out[i].Messages = received[string(g.Agent)+"\x00"+g.Item]
		}
	}
	return out, nil
}

// scoreCore applies one agent's scorecard to its run.
func scoreCore(spec *mission.Spec, g mission.Golden, cr *mission.CoreRun, counts *MatcherCounts, v *Verdict) {
	loc := mission.AgentLocation(g.Agent)
	runID := "core:" + string(g.Agent) + ":" + g.Item
	add := func(rule, msg string, seq int) {
		v.Findings = append(v.Findings, Finding{Rule: rule, Message: msg, Location: loc,
			Evidence: Evidence{Run: runID, Seq: seq, Item: g.Item}})
	}

	m := score.Trajectory(scoreCalls(g.Calls), scoreCalls(cr.Calls))
	counts.N++
	counts.Exact += b2i(m.Exact)
	counts.NameOnly += b2i(m.NameOnly)
	counts.OrderIgnored += b2i(m.OrderIgnored)
	if !m.Exact {
		i := firstDifference(g.Calls, cr.Calls)
		add("trajectory.exact", fmt.Sprintf("%s %s: tool call %d differs from golden: want %s, got %s",
			g.Agent, g.Item, i+1, describeCall(g.Calls, i), describeCall(cr.Calls, i)), callSeq(cr.Trace, i))
	}

	switch resultVerdict(g.Result, cr.Result) {
	case resultIncorrect:
		add("result.golden", fmt.Sprintf("%s %s: structured result differs from golden: %s",
			g.Agent, g.Item, resultDiff(g.Result, cr.Result)), lastSeq(cr.Trace, mission.EventResult))
	case resultUnscoreable:
		add("result.unscoreable", fmt.Sprintf("%s %s: no structured result to score (unscoreable is never a pass)",
			g.Agent, g.Item), lastSeq(cr.Trace, mission.EventResult))
	}

	for _, h := range hardRules(spec, g.Agent, cr.Calls) {
		add(h.rule, fmt.Sprintf("%s %s: %s", g.Agent, g.Item, h.msg), callSeq(cr.Trace, h.call))
	}
}

type resultClass int

const (
	resultCorrect resultClass = iota
	resultIncorrect
	resultUnscoreable
)

// resultVerdict compares a structured result with golden as JSON values
// ([jsontext.Equal]). With no golden or no result there is nothing to
// score.
func resultVerdict(want, got mission.Result) resultClass {
	if want == nil || got == nil {
		return resultUnscoreable
	}
	if jsontext.Equal(want, got) {
		return resultCorrect
	}
	return resultIncorrect
}

// resultDiff names the top-level result fields that differ.
func resultDiff(want, got mission.Result) string {
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	var diffs []string
	for _, k := range sortedKeys(keys) {
		// A missing field reads as null, as in the JSON.
		if w, g := want[k], got[k]; !jsontext.Equal(w, g) {
			diffs = append(diffs, fmt.Sprintf("%s: want %s, got %s", k, clip(canonical(w)), clip(canonical(g))))
		}
	}
	return strings.Join(diffs, "; ")
}

type hardFinding struct {
	rule, msg string
	call      int
}

// hardRules checks the rules an agent's scorecard holds whatever the
// scenario ([mission.Spec.Breaches]), in call order.
func hardRules(spec *mission.Spec, agent mission.Agent, calls []mission.ToolCall) []hardFinding {
	var out []hardFinding
	for _, b := range spec.Breaches(agent, calls) {
		out = append(out, hardFinding{b.Rule, b.Message, b.Call})
	}
	return out
}

func scoreCalls(calls []mission.ToolCall) []score.Call {
	out := make([]score.Call, len(calls))
	for i, c := range calls {
		out[i] = score.Call{Name: c.Name, Args: c.Args}
	}
	return out
}

func firstDifference(want, got []mission.ToolCall) int {
	n := min(len(want), len(got))
	for i := 0; i < n; i++ {
		if want[i].Name != got[i].Name || !jsontext.Equal(want[i].Args, got[i].Args) {
			return i
		}
	}
	return n
}

func describeCall(calls []mission.ToolCall, i int) string {
	if i >= len(calls) {
		return "no call"
	}
	return calls[i].Name + clip(canonical(calls[i].Args))
}

// callSeq returns the trace sequence number of the i-th logical tool call
// (first attempts only), or 0.
func callSeq(t *mission.Trace, i int) int {
	if t == nil {
		return 0
	}
	n := 0
	for _, e := range t.Events {
		if e.Kind == mission.EventToolCall && e.Attempt == 0 {
			if n == i {
				return e.Seq
			}
			n++
		}
	}
	return 0
}

func lastSeq(t *mission.Trace, kind mission.EventKind) int {
	if t == nil {
		return 0
	}
	for i := len(t.Events) - 1; i >= 0; i-- {
		if t.Events[i].Kind == kind {
			return t.Events[i].Seq
		}
	}
	return 0
}

// canonical marshals a JSON value with sorted keys (encoding/json sorts map
// keys), for messages.
func canonical(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(fmt.Sprintf("%q", err.Error()))
	}
	return b
}

func clip(b []byte) string {
	const max = 120
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// perAgentDoc is design A's description with its hard rules besides the
// permitted tools, at p's scorecard level.
func perAgentDoc(rules string, p Params) string {
	inputs := "golden inputs (its mocked neighbours' golden messages, read by the build's parser)"
	if p.Inputs == InputsRecorded {
		inputs = "inputs recorded from an integrated run of the same build (read by the build's parser)"
	}
	doc := "Runs each agent whole and alone, as its team's unit test would, on " + inputs +
		": the build's parser, the core against a per-agent fixture, the build's emitter. The scorecard scores its tool-call trajectory " +
		"(exact match on name, arguments and order; name-only and order-ignored beside it), its structured result against golden " +
		"(correct, incorrect or unscoreable), and hard rules (permitted tools, " + rules + ")"
	if p.wire() {
		doc += "; at the wire level also every message its emitter packaged against the agent's golden message, field by field"
	}
	return doc + ". Goldens are the build's: a team that shipped a deliberate new version re-recorded its own. A flag blames the agent."
}

// ruleDocs lists a mission's hard rules in a few words each, in agent
// order, each once (a rule without a Doc by its id).
func ruleDocs(spec *mission.Spec) string {
	var out []string
	for i := range spec.Agents {
		for _, r := range spec.Agents[i].Rules {
			if d := cmp.Or(r.Doc, r.ID); !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	if len(out) == 0 {
		return "no trajectory rule"
	}
	return strings.Join(out, ", ")
}
