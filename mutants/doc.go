// Package mutants holds the seeded defects of the protocol: operators that
// act at the mission's seams, the catalogue that names each defect with its
// class and ground-truth location, and switching one on in a build.
//
// An [Operator] is a kind of defect (drop_field, clear_owner, wrong_tool_arg,
// ...) acting through one hook of [mission.Seams]. A [Mutant] is a catalogue
// entry: an operator placed on an edge (hand-off seams: emit, parse, route,
// dedup) or in an agent (core seams: decide, tool arguments, retry keys),
// with the operator's parameters and the class of defect it seeds. Its
// ground truth, [Mutant.Location], is that edge or agent.
//
// [Mutant.Switch] returns the mission build with the mutant switched on
// alone. Its seams call [mission.Oracle.Reach] every time they change
// something on their target, so an experiment can tell a mutant whose target
// no scenario reached (no coverage) from one that was reached and changed
// nothing observable (equivalent), by comparing with the clean build under
// the same seed.
//
// # Catalogue files
//
// A catalogue is YAML: a top-level mutants list, each entry a mapping of
//
//	id           unique; letters, digits, '_', '-', '.'
//	class        context_loss | ambiguous_ownership | duplicate_action |
//	             escalation_gap | contract_drift | control
//	operator     see [Operators]
//	edge         from->to, for operators on a hand-off seam
//	agent        for operators on a core seam
//	field, to, format, tool, arg, value, decision, from
//	             the operator's parameters ([Operator.Params])
//	description  the change a real team would make
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
// parameters and duplicate ids are errors naming file, line and entry.
// [Default] reads the embedded catalogue.yaml; [Load] reads a user file that
// replaces or extends it.
package mutants
