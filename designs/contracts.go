package designs

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/mission"
)

// PerAgentContracts is design C: design A, plus every hand-off the agents'
// emitters produce from their A results and every parse of the golden wire
// messages, checked against the hand-off contracts at the protocol's level.
var PerAgentContracts = Design{
	ID:   "C",
	Name: "per-agent plus contracts",
	Doc: "Design A, plus each agent's emitter run on its A result and each consumer's parser run on " +
		"the golden wire messages, every message checked against its edge's contract (required fields, " +
		"types, owner of the next step, idempotency key, escalation state, cross-field rules). " +
		"A contract violation blames its edge; A's findings keep their agent blame.",
	Evaluate: func(in Input) (Verdict, error) {
		start := time.Now()
		var v Verdict
		outcomes, err := runAgents(in, &v)
		if err != nil {
			return v, err
		}
		if in.Contracts == nil {
			v.Findings = append(v.Findings, Finding{Rule: "harness.contracts", Message: "design C needs a contract set"})
		} else {
			for _, o := range outcomes {
				checkEmitted(in, o, &v)
				checkParsed(in, o.golden, &v)
			}
		}
		finish(&v, start)
		return v, nil
	},
}

// checkEmitted runs the agent's emitter on its A result for every edge the
// golden run emitted on, and checks each message against its contract.
func checkEmitted(in Input, o coreOutcome, v *Verdict) {
	edges := make([]string, 0, len(o.golden.Emitted))
	for e := range o.golden.Emitted {
		edges = append(edges, e)
	}
	sort.Strings(edges)
	for _, es := range edges {
		e, err := mission.ParseEdge(es)
		if err != nil {
			continue
		}
		runID := "emit:" + es + ":" + o.golden.Item
		raw, err := in.Mission.Emit(in.Build, e, o.golden.Item, o.run.Result)
		if err != nil {
			addContract(v, contracts.Violation{Edge: es, Rule: "emit", Message: err.Error()}, runID, o.golden.Item, o.failed)
			continue
		}
		for _, viol := range in.Contracts.Check(es, raw, in.Level) {
			addContract(v, viol, runID, o.golden.Item, o.failed)
		}
	}
}

// checkParsed runs the consumer's parser on each golden wire message the
// agent receives, and checks the parsed view against the edge's contract.
func checkParsed(in Input, g mission.Golden, v *Verdict) {
	for _, raw := range g.Input.Messages {
		e, ok := mission.EnvelopeEdge(raw)
		if !ok {
			continue
		}
		edge := e.String()
		runID := "parse:" + edge + ":" + g.Item
		h, err := in.Mission.Parse(in.Build, e, raw)
		if err != nil {
			addContract(v, contracts.Violation{Edge: edge, Rule: "parse", Message: err.Error()}, runID, g.Item, false)
			continue
		}
		view, ok := jsontext.AppendValue(nil, h)
		if !ok {
			if view, err = json.Marshal(h); err != nil {
				continue
			}
		}
		for _, viol := range in.Contracts.Check(edge, view, in.Level) {
			viol.Message = "as parsed by " + string(e.To) + ": " + viol.Message
			addContract(v, viol, runID, g.Item, false)
		}
	}
}

// addContract records a violation as a finding blaming its edge. derived
// marks a violation on a message produced from a core result that already
// failed its own scorecard: reported, but ranked behind the agent.
func addContract(v *Verdict, viol contracts.Violation, runID, item string, derived bool) {
	rule := "contract." + viol.Rule
	if derived {
		rule = "contract.derived." + viol.Rule
	}
	msg := viol.Message
	if viol.Field != "" {
		msg = fmt.Sprintf("%s: %s (want %s, got %s)", viol.Field, viol.Message, viol.Expected, viol.Got)
	}
	v.Findings = append(v.Findings, Finding{
		Rule:     rule,
		Message:  viol.Edge + ": " + msg,
		Location: mission.Location(viol.Edge),
		Evidence: Evidence{Run: runID, Seq: viol.Seq, Item: item, Field: viol.Field},
	})
}
