// Package experiment runs the protocol: it loads and locks a pre-registered
// [Protocol], plans the work items of a sweep (every build, design,
// scenario and trial, plus one integrated observation run per build,
// scenario and trial), runs them on a worker pool, streams every outcome
// through a single writer into the run store (runs.db, SQLite) and, on the
// same goroutine, into the reports aggregation and the kept-trace files (a
// resumed sweep reads every stored row back at the end instead). A run
// folder holds everything needed to continue an interrupted sweep
// ([Options].Resume), to regenerate any work item exactly ([Replay]) and
// to check that its copies of the protocol and its inputs are what it ran
// ([VerifyRun]).
//
// # Pre-registration
//
// [Lock] writes a protocol's lock: the hash tree ([InputTree]) of the
// protocol, every file it names and the stack's embedded inputs, after
// refusing what would discard a run late (no control mutant). A run of a
// locked protocol refuses to start when anything in the tree changed
// ([ErrLockMismatch]) and refuses Options.Trials and Options.Seed
// ([ErrLockedOverride]) unless Options.Deviate gives the reason; the
// manifest records the tree and each deviation, and the reports show them
// first.
//
// # Work items
//
// An item's id is build/design/scenario/trial ("clean/C/S01/3"), with
// design "obs" for the observation run, whose [reports.Item] has Design ""
// and carries Success (the end state passed [sandbox.Check]) and TraceHash
// (SHA-256 of the trace's JSON Lines and the end state's JSON). A trial's
// seed is [TrialSeed]: [sandbox.HashSeed](master seed, scenario id,
// trial), the same for every build and design and independent of the
// worker count. The clean build's items are dispatched first, then each
// mutant's.
//
// # Determinism
//
// The aggregation needs every clean-build item before any mutated one (to
// compare each mutated item with its clean twin) and is otherwise
// independent of the order items arrive in (reports tests it). A fresh
// sweep aggregates rows as the writer receives them, holding back the few
// mutated rows that overtake the last clean ones; a resumed sweep reads
// the rows out of runs.db ordered by build (clean first), design (the
// observation run first), scenario and trial. Both write byte-identical
// results.json, whatever the worker count; tests compare them. Wall-clock
// time lives only in manifest.json (per design, WallMS) and in the store's
// wall_ns column; results.json leaves it out (reports.Results.SetWall puts
// it back in the rendered cost table).
//
// The items of one (build, scenario, trial) run on one worker and share
// their executions: the observation run is design B's integrated run, and
// design A's core runs are design C's (see itemMission). Runs are
// deterministic, so this changes no result; a test compares results with
// sharing on and off, and Replay never shares. A shared run is timed once,
// when it executes, and its duration is charged to every item that uses
// it: design B's wall time includes its integrated run, design C's its core
// runs plus its checks.
//
// # Run folder
//
//	protocol.yaml      byte copy of the protocol the run used
//	inputs/            copies of the files the protocol names (catalogue, contracts, scenarios)
//	manifest.json      protocol hash, versions, hashes, seed, workers, start and end times
//	runs.db            SQLite, described below
//	results.json ...   written by reports.WriteAll
//	traces/<build>.jsonl  kept traces, written as each build completes
//	traces/<item>.jsonl   traces exported on demand (ExportTraces, ReplayResult.WriteTrace)
//
// As each build completes, the traces whose bytes the store keeps for the
// clean build's flagged design items and failed observation runs and for
// the seeded sample of all items (Options.TraceSample) are written into
// traces/<build>.jsonl, one line per item in plan order (items.ord: a
// unit's observation run and design items together):
// {"item":"<id>","trace":[<event>,...]}, the array holding the trace's
// JSON Lines (a core run's {"run":"<name>"} lines in place). One file per
// item would cost several times more (for the default protocol, 2,444
// kept traces: about 0.6 s as files, 0.18 s as JSON Lines per build).
// report.html embeds the trace viewer of a drill-down item whose trace is
// there (reports.Results.TraceItems), with its findings from runs.db
// ([ReportFindings]); the others show the baton replay --html command that
// regenerates them into the same viewer ([Stack.TraceInput]).
//
// # runs.db
//
//	meta(key, value)                   schema, protocol_sha256, seed, trials, complete
//	builds(id, ord, class, location, operator, description, status)
//	scenarios(id, ord, category, tags, title)
//	items(ord, id, build, design, scenario, trial, seed, flagged, blame,
//	      findings, model_calls, tool_calls, tokens, sandbox_resets,
//	      wall_ns, slipped, faulted, reached, success, match_n,
//	      match_exact, match_name_only, match_order_ignored, trace_hash,
//	      trace)                     integer primary key ord
//	findings(item_id, seq, rule, message, location, evidence)
//	traces(sha256, size, data)         gzipped JSON Lines
//
// An item's ord is its place in the plan: builds (clean first, then the
// catalogue's order), scenarios (the protocol's order), trials, then the
// observation run and the designs in protocol order; id is
// build/design/scenario/trial with design "obs" for the observation run.
// Booleans are 0/1, seeds decimal text, blame and evidence JSON. The
// match_ columns are design A's (and C's) trajectory matcher counts: of
// match_n agent-items, how many passed the exact matcher, which decides,
// and the name-only and order-ignored ones reported beside it. status is
// the mutant's status from the results (killed, survived, equivalent,
// no_coverage). items.trace is the SHA-256 of the item's trace (the
// integrated run's, else its core runs' concatenated, each after a
// {"run":"<name>"} line) for every flagged design item and failed
// observation run; traces holds the bytes for the clean build's flagged
// and failed items and a seeded sample of all items. The store runs in WAL
// mode with synchronous=OFF during the sweep (results regenerate from the
// protocol; a killed process loses at most the batch in flight) and is left
// as a single file at the end.
package experiment
