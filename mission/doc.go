// Package mission is baton's kernel: what every mission is made of and the
// engine that runs one. It knows agents, edges, hand-offs, seams, tools,
// records and traces, never what a mission's records or messages mean; a
// mission is a package beside it (mission/<name>, the reference mission
// among them) that describes itself as data and supplies its cores.
//
// # A mission
//
// A mission package fills in a [Spec] and hands it to [New] inside a
// [Definition]:
//
//   - the agents ([AgentSpec]): their slips, their decisions (kind, the
//     result field holding the choice, the choices), their hard trajectory
//     rules ([Rule]) and the JSON Schema of their result; the Entry agent
//     takes one turn per scenario input, a Collect agent one turn at the
//     end of the day over every message it received, any other agent with
//     incoming edges one turn per message;
//   - the message kinds ([MessageSpec]) with their payload fields
//     ([Field]: name, type, silent default) and the edges ([EdgeSpec]),
//     each carrying one kind, whether it carries the producer's escalation
//     state, and the result field its payload comes from;
//   - the system of record: a [sandbox.Registry] of tools (argument schema,
//     read or write, record kind written, permitted agents, handler) over
//     the mission's own [sandbox.Records];
//   - the default contracts (an fs.FS), mutant catalogue and experiment
//     protocol;
//   - in the Definition: the default [Core] of each agent, the end-state
//     check and the scenario parser.
//
// [New] returns a [Mission]. Designs, mutant operators, the protocol
// decoder, contracts and reports read everything they know about a
// mission through [Mission.Spec]: no package keeps a table of one
// mission's facts. [Registry] is the list of missions a program runs,
// built by the command line and passed down.
//
// # The engine
//
// [Mission.Run] processes a [Scenario]'s inputs in order, each through the
// whole mission before the next, over a deterministic FIFO transport, then
// has the collecting agents take their end-of-day turns. A turn's result
// goes out on the agent's edges in declared order: the emitter copies the
// message kind's payload fields from the result (or from its Source
// field), fills the envelope (id, edge, kind, schema version, idempotency
// key item:kind, next owner, escalation state, item) and marshals real
// JSON bytes. The transport delivers to the envelope's owners, drops a
// copy of a key it already delivered, and redelivers with the protocol's
// rate. The consumer's parser reads the envelope and each payload field
// with its type and silent default (a missing currency, an unreadable
// date, a lenient number): a consumer reads whatever arrives as the kind of
// its incoming edge with the envelope's kind, else of its first incoming
// edge. [Mission.RunCore] runs one agent alone on a golden input, against
// a fixture: the scenario's initial state plus what the clean mission
// wrote before the agent's turn on the item.
//
// # Cores and the tool box
//
// A [Core] plays one [Turn]: it reads the turn's input (the entry agent's
// [Input], else the parsed [Handoff] messages and their wire bytes), calls
// tools through [Turn.Call], reports its decision steps ([Turn.Step] for a
// policy's byte-estimated tokens, [Turn.ModelCall] for a model's counted
// ones) and returns its structured [Result]. Every tool call goes through
// the tool box: the build's ToolArgs seam, up to MaxAttempts attempts with
// exponential back-off on the virtual clock, the idempotency key item:tool
// on the first attempt and the RetryKey seam's on retries, the sandbox's
// faults on every attempt. A core that decides in its turn ([Policy],
// [DecidesInTurn]) asks [Turn.Decide]; for any other the kernel applies the
// Decide seam to the result's decision fields, so a seeded defect acts on
// a decision whatever made it. [Env].Cores replaces an agent's core for a
// run (a model for one agent, the policies for the others).
//
// # Builds, seams and the oracle
//
// A [Build] is the mission with at most one seeded defect switched on. The
// defect acts through [Seams], the places where a real team's change goes
// wrong; the build handle carries them opaquely, so an evaluator that is
// handed a build can run it but cannot see what is in it. What fired
// (slips, faults, redeliveries, a seam reaching its target) goes to the
// build's [Oracle], which designs never see.
//
// # Scenarios and goldens
//
// A [Scenario] is one business day: the initial [sandbox.State], the
// inputs, the expected end state (in the mission's terms) and the
// per-agent golden expectations ([Golden]) design A scores against.
// [Mission.RecordGolden] records them from the clean build with zero slips
// and faults, and refuses when that run does not pass the mission's check;
// a mission stores reviewed goldens as [GoldenFile]s beside its scenarios
// and attaches them with [AttachGoldens].
//
// # Determinism
//
// Every random draw comes from the keyed dice of the trial seed
// ([sandbox.Dice]): a slip is drawn as (agent, "slip:"+slip, item), a
// misrouted owner as (sender, "slip:misroute:owner", item), a redelivery
// as (sender, "redeliver:"+edge, item). Time is a virtual clock. The same
// build, scenario, seed and environment give the same trace and end state,
// byte for byte.
package mission
