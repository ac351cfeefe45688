// Package mutants holds the seeded defects of the protocol: operators that
// act at the mission's seams, the catalogue that names each defect with its
// class and ground-truth location, and switching one on in a build.
//
// An [Operator] is a kind of defect (drop_field, clear_owner, wrong_tool_arg,
// ...) acting through one hook of [mission.Seams]. A [Mutant] is a catalogue
// entry: an operator placed on an edge (hand-off seams: emit, parse, route,
// dedup) or in an agent (core seams: decide, tool arguments, retry keys),
// with the operator's parameters and the class of defect it seeds.
//
// Its ground truth, [Mutant.Location], follows from the class: the five
// hand-off classes live between agents and are located at an edge, the
// control lives inside one agent and is located at it. A retry operator
// (retry_without_key, fresh_key_on_retry) acts in an agent's core but seeds
// a duplicate action, so its entry names both: agent, where the retried
// write is made, and edge, the hand-off whose item the write serves (the
// write's idempotency key should carry that hand-off's idempotency key): a
// consumer's writes serve the edge its item arrived on, a producer's write
// serves the edge of the item it is producing; the agent must be one of
// the edge's ends.
//
// [Mutant.Switch] returns the mission build with the mutant switched on
// alone. Its seams call [mission.Oracle.Reach] every time they are hit on
// their target (a message on their edge carrying their field, a call or
// retry of their agent's tool, their agent's decision), before comparing
// the old value with the new, so a seam that sets a value to what it
// already was still counts as reached; a message without the field does
// not. An experiment can so tell a mutant whose target no scenario reached
// (no coverage) from one that was reached and changed nothing observable
// (equivalent), by comparing with the clean build under the same seed.
//
// # Catalogue files
//
// A catalogue is YAML: a top-level mutants list, each entry a mapping of
//
//	id           unique; letters, digits, '_', '-', '.'
//	class        context_loss | ambiguous_ownership | duplicate_action |
//	             escalation_gap | contract_drift | control
//	operator     see [Operators]
//	edge         from->to, for operators on a hand-off seam, and for retry
//	             operators the hand-off the retried write serves
//	agent        for operators on a core seam
//	field, to, format, tool, arg, value, decision, from, change
//	             the operator's parameters ([Operator.Params])
//	description  the change a real team would make
//	intent       regression (the default) or version_change: a deliberate
//	             new version whose team re-recorded its own agent's
//	             goldens from it (the experiment prepares them; designs
//	             only see the goldens)
//
// for example
//
//	mutants:
//	  - id: my-drop-tax
//	    class: context_loss
//	    operator: drop_field
//	    edge: intake->action
//	    field: tax
//	    description: the new extractor no longer forwards tax
//
// Unknown keys, classes and operators, edges and agents the mission does not
// have, fields an edge does not carry, tools an agent may not call, missing
// parameters, a hand-off class without an edge, a control with an edge, an
// agent that is neither end of its retry operator's edge and duplicate ids
// are errors naming file, line and entry.
// [Default] reads a mission's default catalogue (its Spec.Catalogue); [Load]
// reads a user file that replaces or extends it.
//
// # The generated space
//
// A hand-picked catalogue is written together with the checks that catch
// it, so a detection rate on it is an upper bound. [Generate] instead
// applies every operator at every site of a mission where it applies, from
// the mission's [mission.Spec] alone: each edge × payload field, each write
// tool, each edge and escalation hand-off, each tool argument (wrong values
// derived from its schema's type and format, see [Change]) and each
// decision. Each mutant's class is its operator's, its id its operator and
// site. [Space] encodes the result as a catalogue file in the format above
// ([Encode]) and reads it back; [Catalogue.Sample] draws a seeded sample of
// it per class.
package mutants
