/*
Package contracts holds the written contract of every hand-off of a mission,
compiled once at load (JSON Schema draft 2020-12 and CEL rules) and checked
mechanically against single messages and against the sequence of messages
for one item, at one of three strength levels.

# Using it

	set, err := contracts.LoadFS(spec.Contracts, "mission/triage/contracts") // a mission's own
	user, err := contracts.Load("my/contracts") // a file or a directory of *.yaml
	set = set.Merge(user)                       // user edges replace the mission's
	level, err := contracts.ParseLevel("semantic")
	vs := set.Check("planner->writer", raw, level)          // one message
	vs = set.CheckSequence("planner->writer", raws, level)  // one item's messages, in order
	vs = set.CheckMessages(traceMessages, level)                // both, over a whole trace

[Set.Check] never panics: bytes that are not a JSON object give one
violation with rule "json"; an edge without a contract gives one with rule
"edge" (not an error, so that a design can report it like any finding). A
[Violation] names the edge, rule id, level, field ("payload.items[0].amount"),
what was expected and what was got; [Set.CheckMessages] fills in Seq, the
trace event's sequence number.

# Levels

Each rule belongs to one level; checking at a level applies every rule at or
below it.

  - schema: the message is a JSON object with the envelope (id, edge, kind,
    schema_version, item, payload required; idempotency_key, next_owner,
    escalation, escalation_ref typed when present), edge, kind and
    schema_version equal to the contract's, and the payload fields'
    required/type/format/enum/range/pattern/length constraints.
  - ownership: schema, plus next_owner names exactly one owner, the
    contract's; idempotency_key present and equal to the contract's key
    template for the item; escalation one of the contract's values; an
    escalation value listed in ref_required (by default "escalated") has a
    non-empty escalation_ref. Across one item's messages ([Set.CheckSequence]):
    one item, a stable key (per_item: one), one owner, and no second,
    different message under one key.
  - semantic: ownership, plus the contract's CEL rules (a rule may also be
    placed at a lower level with "level:").

[BuiltinRules] lists the built-in rule ids.

To report one cause once, a CEL rule is skipped on a message when it reads
a field that already has a violation, and a rule that cannot be evaluated
(a field missing, or of the wrong type) is reported (Got "cannot evaluate:
...") only when the message passed the schema level.

# The contract format

One YAML file per edge, decoded strictly: an unknown key, a duplicate key, a
wrong type or a bad value is an error "file:line: path: problem" at load.

	# my/contracts/planner-writer.yaml (an example)
	edge: planner->writer        # required, "from->to"
	kind: task.assigned          # required, the envelope's kind
	version: "1.0"                # required string, the envelope's schema_version
	owner: writer                 # required, the one owner of the next step
	description: ...              # optional
	per_item: one                 # one (default): one action per item; many: e.g. one exception per failed call
	closed: false                 # true: undeclared payload fields are violations (rule "closed")
	idempotency: {key: "{item}:{kind}"}       # default; placeholders {item} {kind} {edge}, and {*} (any suffix) last
	escalation:
	  values: [none, requested, escalated]    # default
	  ref_required: [escalated]               # default when the block is absent
	constants:                    # JSON-like values rules may read by name
	  escalating_tags: [legal, chargeback]
	  rate: {EUR: 1.0, USD: 0.92}
	fields:                       # the payload's fields, in order
	  topic:     {type: string, required: true, enum: [research, writing, both]}
	  currency:  {type: string, required: true, allow_empty: true, pattern: "^[A-Z]{3}$"}
	  total:     {type: number, required: true, minimum: 0}
	  opened_on: {type: string, required: true, format: date, allow_empty: true}
	  tags:      {type: array, required: true, nullable: true, items: {type: string}}
	  items:
	    type: array
	    items:
	      type: object
	      fields:
	        amount: {type: number, required: true}
	rules:
	  - id: items-add-up          # lower-case id, unique in the file, not a built-in id
	    level: semantic           # optional: schema, ownership or semantic (default)
	    field: payload.total      # optional: the reported field; default the first payload field read
	    expr: abs(sum(payload.items.map(i, i.amount)) - payload.total) <= 0.01
	    message: the items do not add up to the total

Field keys: type (string, number, integer, boolean, array, object or any;
required), required, nullable (null is also accepted), description, enum,
and by type: for strings format (date, date-time, time, duration, email,
hostname, ipv4, ipv6, uri, uri-reference, uuid, regex), pattern, min_length,
max_length and allow_empty ("" is accepted in place of a value that would
fail format, pattern, length or enum); for numbers minimum, maximum,
exclusive_minimum, exclusive_maximum; for arrays items, min_items,
max_items; for objects fields. The fields compile to one JSON Schema
(draft 2020-12, format assertion on) for envelope and payload.

# Rules

A rule's expr is CEL (cel.dev/cel-go) and must return bool; it holds when it
evaluates to true. Its variables are the envelope fields id, edge, kind,
schema_version, idempotency_key, escalation, escalation_ref, item (strings),
next_owner (list of strings), payload (map of string to dyn), and the
contract's constants. JSON numbers are doubles: write 0.0, not 0, in
arithmetic with payload numbers (comparisons across int and double work).
Helpers besides standard CEL: sum(list) -> double (nulls count 0) and
abs(double) / abs(int). A null list field needs a guard:
payload.flags != null && payload.flags.exists(f, f == "x").

At load every rule is compiled, type-checked to bool and checked to read
only declared payload fields: payload.x, payload["x"], has(payload.x),
nested declared objects and comprehension variables over a declared array
(payload.items.all(i, i.amount > 0.0)); an object without declared fields,
or of type any, is not followed. A failure is an error
"file:line: rule <id>: ..." at the line of the offending expression.

# Defaults

A mission ships its default contracts as an fs.FS (its Spec.Contracts,
*.yaml at the root, one per edge): [LoadFS] compiles them once per
process, [Sources] gives them for copying. They encode the mission's
decided semantics.

[Set.Hash] is the SHA-256 of the sources by edge, so the same contracts
give the same hash wherever they were read from.
*/
package contracts
