package designs

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/mission"
)

// PerAgentContracts is design C at its defaults: design A, plus every
// message the agents' emitters packaged in A's runs and every message
// their parsers read there, checked against the hand-off contracts.
var PerAgentContracts = perAgentContracts(Params{})

// perAgentContracts is design C with parameters p.
func perAgentContracts(p Params) Design {
	level := "the protocol's level"
	if p.Contracts != "" {
		level = "level " + p.Contracts
	}
	return Design{
		ID:     "C",
		Base:   "C",
		Name:   variantName("per-agent plus contracts", p),
		Params: p,
		Blames: []LocationKind{BlameAgent, BlameEdge},
		Doc: "Design A (" + cmp.Or(p.describe(), "at its defaults") + "), plus every message its agents' emitters packaged and every message their parsers read " +
			"in those runs, each checked against its edge's contract at " + level + " (required fields, types, owner of the next step, " +
			"idempotency key, escalation state, cross-field rules). A contract violation blames its edge; A's findings keep their agent blame. " +
			"Its cost is A's plus the contract checks it executes.",
		Evaluate: func(in Input) (Verdict, error) {
			start := time.Now()
			var v Verdict
			outcomes, err := runAgents(in, p, &v)
			if err != nil {
				return v, err
			}
			if in.Contracts == nil {
				v.Findings = append(v.Findings, Finding{Rule: "harness.contracts", Message: "design C needs a contract set"})
			} else {
				lv := p.level(in)
				for _, o := range outcomes {
					in.Scorecards.checkContracts(in.Contracts, lv, o, &v)
				}
			}
			finish(&v, start)
			return v, nil
		},
	}
}

// checkEmitted checks every message the agent's emitter packaged in its
// run alone against its edge's contract, one contract check each.
func checkEmitted(set ContractChecker, lv contracts.Level, o coreOutcome, v *Verdict) {
	edges := make([]string, 0, len(o.run.Emitted))
	for e := range o.run.Emitted {
		edges = append(edges, e)
	}
	slices.Sort(edges)
	runID := "core:" + string(o.golden.Agent) + ":" + o.golden.Item
	for _, es := range edges {
		v.Cost.ContractChecks++
		seq := sentSeq(o.run.Trace, es)
		for _, viol := range set.Check(es, o.run.Emitted[es], lv) {
			if viol.Seq == 0 {
				viol.Seq = seq
			}
			addContract(v, viol, runID, o.golden.Item, o.failed)
		}
	}
}

// checkParsed checks the agent's parser's view of every message it read in
// its run alone against the edge's contract, one contract check each; a
// message the parser could not read is a violation of its edge.
func checkParsed(set ContractChecker, lv contracts.Level, o coreOutcome, v *Verdict) {
	if o.run.Trace == nil {
		return
	}
	runID := "core:" + string(o.golden.Agent) + ":" + o.golden.Item
	for _, e := range o.run.Trace.Events {
		switch {
		case e.Kind == mission.EventDropped && e.Reason == "unreadable":
			v.Cost.ContractChecks++
			addContract(v, contracts.Violation{Edge: e.Edge, Rule: "parse", Message: "as parsed by " + string(e.Agent) + ": unreadable", Seq: e.Seq},
				runID, o.golden.Item, false)
		case e.Kind == mission.EventReceived:
			v.Cost.ContractChecks++
			for _, viol := range set.Check(e.Edge, e.Parsed, lv) {
				viol.Message = "as parsed by " + string(e.Agent) + ": " + viol.Message
				viol.Seq = e.Seq
				addContract(v, viol, runID, o.golden.Item, false)
			}
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
