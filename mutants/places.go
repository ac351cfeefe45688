package mutants

import "github.com/baton-lab/baton/mission"

// Each operator's seams list the one place they act (mission.Placed): a
// probe of the clean build asks them there only. A seam that acted
// anywhere else would be missed; TestPlacesCoverEveryAct checks each
// operator against the runs.

var (
	_ mission.Placed = (*dropField)(nil)
	_ mission.Placed = (*renameField)(nil)
	_ mission.Placed = (*reformatField)(nil)
	_ mission.Placed = (*retryKey)(nil)
	_ mission.Placed = (*noDedup)(nil)
	_ mission.Placed = (*clearOwner)(nil)
	_ mission.Placed = (*doubleOwner)(nil)
	_ mission.Placed = (*escalationGap)(nil)
	_ mission.Placed = (*wrongToolArg)(nil)
	_ mission.Placed = (*perturbToolArg)(nil)
	_ mission.Placed = (*flipDecision)(nil)
	_ mission.Placed = (*reroute)(nil)
)

func onEdge(h mission.Hook, e mission.Edge) []mission.Place {
	return []mission.Place{{Hook: h, Edge: e}}
}

func ofAgent(h mission.Hook, a mission.Agent) []mission.Place {
	return []mission.Place{{Hook: h, Agent: a}}
}

// Places is the emitter of the field's edge.
func (t fieldTarget) Places() []mission.Place { return onEdge(mission.HookEmit, t.edge) }

// Places is the agent's retries.
func (s *retryKey) Places() []mission.Place { return ofAgent(mission.HookRetryKey, s.agent) }

// Places is the transport's deduplication on the edge.
func (s *noDedup) Places() []mission.Place { return onEdge(mission.HookDedup, s.edge) }

// Places is the emitter of the edge.
func (s *clearOwner) Places() []mission.Place { return onEdge(mission.HookEmit, s.edge) }

// Places is the emitter of the edge.
func (s *doubleOwner) Places() []mission.Place { return onEdge(mission.HookEmit, s.edge) }

// Places is the consumer's parser or the producer's emitter of the edge.
func (s *escalationGap) Places() []mission.Place {
	if s.consumer {
		return onEdge(mission.HookParse, s.edge)
	}
	return onEdge(mission.HookEmit, s.edge)
}

// Places is the agent's tool calls.
func (s *wrongToolArg) Places() []mission.Place { return ofAgent(mission.HookToolArgs, s.agent) }

// Places is the agent's tool calls.
func (s *perturbToolArg) Places() []mission.Place { return ofAgent(mission.HookToolArgs, s.agent) }

// Places is the agent's decisions.
func (s *flipDecision) Places() []mission.Place { return ofAgent(mission.HookDecide, s.agent) }

// Places is the transport's routing on the edge.
func (s *reroute) Places() []mission.Place { return onEdge(mission.HookRoute, s.edge) }
