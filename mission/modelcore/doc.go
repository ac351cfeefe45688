// Package modelcore runs an agent of any mission on a language model: a
// [mission.Core] whose decisions come from a model behind an
// OpenAI-compatible endpoint, through [model.Loop], and the scripted
// [Player] that plays a mission's policy cores as that model, for tests and
// demos. It knows no mission: everything comes from the mission's spec and
// the turn.
//
// # The core
//
// [New] builds a [Core] for one agent from its spec: the instructions (the
// agent's prompt file), the agent's tools with the JSON Schemas of their
// arguments (so that arguments are checked before a call), and the agent's
// result schema (so that the final answer is checked). [Core.Play] runs the
// loop on one turn:
//
//   - the user message is the turn's [mission.View] as JSON: the agent, the
//     item, the day and the input (the entry agent's input document, else the
//     hand-offs as the agent's parser read them);
//   - every tool call the model makes goes through the turn's tool box
//     ([mission.Turn.Call]), so the build's ToolArgs and RetryKey seams and
//     the sandbox's faults act on it; the tool message is the call's result,
//     or {"error": {"kind", "code", "message", "retry_after"}} when it
//     failed for good;
//   - each model call is recorded in the trace as it is answered
//     ([mission.Turn.ModelCall], decision "tool" with the tools called, or
//     "result"), with the tokens the endpoint reported;
//   - the final answer, valid against the result schema, is the turn's
//     result; the kernel applies the Decide seam to its decision fields.
//
// A mistake of the model (a call to a tool it was not offered, arguments or
// an answer that are not JSON or fail their schema, no answer within the
// steps) is an agent error, not a Go error: it is recorded in the trace as an
// exception (reason "agent_error <kind>: <detail>") and the turn has no
// result, which the scorecards score as unscoreable and which hands nothing
// on. Only an endpoint that cannot answer (or a cache that is offline and
// misses) ends the run with an error.
//
// # Sample and seed
//
// Every request of a turn carries the trial seed ([mission.Turn.Seed]) as
// its sample: in the request's "seed" field and in the cache key. A trial's
// seed is the same for every build and design, so a mutated build and its
// clean twin send identical requests until their runs diverge, and share
// the answers (common random numbers for real models).
//
// # The scripted player
//
// [NewPlayer] is the model of `baton model serve --mission M`: it plays
// mission M's policy cores, with the protocol's slips. For each request it
// reads the view from the user message and the trial seed from the
// request's seed, re-executes the agent's policy outside any run
// ([mission.PlayOutside]), answering the policy's tool calls with the tool
// results already in the conversation, and answers with the first tool call
// not yet answered, or with the policy's result. The policy's slips are
// drawn from the keyed dice of that seed, so a run whose every core is a
// model playing against the player gives the policy run's results exactly.
package modelcore
