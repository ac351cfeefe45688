// Package triage is baton's second mission (seed 003): a support desk
// where a supervisor routes each ticket to a billing specialist, a tech
// specialist or both, run by the kernel (package mission) over a system
// of record on the sandbox engine.
//
// [New] returns the mission and [Spec] its description:
//
//	ticket ─► supervisor ─(ticket.assigned)─► billing: get_invoice, issue_refund
//	                     └(ticket.assigned)─► tech:    search_kb, open_bug
//	billing, tech ─(ticket.answered)─► supervisor ─► reply_to_user (one summary)
//
// The records ([Records]) are invoices (amount, currency, charged twice or
// not, already refunded), refunds, bugs, knowledge-base articles, outages
// and the ticket log (routes, notes, escalations, closures, replies).
// issue_refund is irreversible: a write keyed by ticket and tool, retried
// with the same idempotency key, so a timeout after commit does not refund
// twice. Faults apply to every tool as in the invoice sandbox.
//
// # Routing and the ticket about both an invoice and a crash
//
// The supervisor sends a ticket to billing when it is about money or names
// an invoice, to tech when it is about a product problem, to both when it
// is about both, and closes the rest as out of scope. A ticket about both
// an invoice and a crash goes to both specialists (route both): the
// customer has two independent problems, each owned by one specialist;
// asking them to split the ticket makes them write again, and one
// specialist leaves the other problem unanswered. The supervisor notes the
// first answer in the ticket log and sends one summary with both outcomes
// when the second arrives (scenarios S17, S18).
//
// # Hard trajectory rules, slips and model calls
//
// Each agent's hard rules are data in its spec ([mission.Rule]): billing
// never refunds without a successful get_invoice first; tech never calls a
// money tool (get_invoice, issue_refund); the supervisor never answers
// without reading a specialist's outcome from the ticket log (it never
// answers a billing question itself). The slips of the model profile:
// supervisor misroute and [SelfAnswer]; billing [SkipLookup] (the seed's
// refund without look-up), [Misread] (a digit of the invoice id),
// [WrongAmount] (the amount the ticket asks for) and misroute; tech
// misroute. Each decision step is one model call, as in the seed: the
// supervisor's triage and summary, each specialist's look-up and action.
//
// # Scenarios, goldens, contracts, catalogue
//
// scenarios/*.yaml hold 49 scenarios in the six categories, each with an
// authored expected end state ([Expected], compared by [Check]); S01–S05
// are the seed's five cases. The reviewed goldens are
// scenarios/golden/<id>.json, recorded from the clean build by
// `go test ./mission/triage -run TestGoldenFiles -update`. The hand-off
// contracts (contracts/*.yaml) have rules at the schema, ownership and
// semantic levels; catalogue.yaml is the default mutant catalogue (every
// class, at least three mutants each); protocol.yaml is the default
// experiment protocol and release.yaml the default release protocol
// ([ReleaseProtocol]) of `baton release`; prompts/<agent>.md are the
// instructions of each agent's model-backed core.
package triage
