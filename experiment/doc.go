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
// # Missions
//
// The package knows no mission. The caller hands in the missions a
// protocol may name (Options.Missions, a [mission.Registry] built by the
// command line; [NewStack] wires it to baton's scenarios, mutants,
// contracts and designs). A protocol's "mission:" key picks one (the
// registry's first when left out), and the protocol's other keys default
// to that mission's own default protocol (its Spec.Protocol); scenarios,
// the catalogue, contracts, agents, slips and tools are checked against
// that mission's spec.
//
// # Pre-registration
//
// [Lock] writes a protocol's lock: the hash tree ([InputTree]) of the
// protocol, every file it names and the mission's embedded inputs, after
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
// and carries Success (the end state passed the mission's Check) and TraceHash
// (the hash of the trace and the end state: see [TraceHashAlgorithm]). A trial's
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
// their executions: the observation run is design B's integrated run (its
// end state checked once), and design A's core runs are design C's, scored
// once (see itemMission and designs.Scorecards; a run served from another
// trial comes with its scorecards, contract checks, hashes and
// coordination verdicts, derived when it executed). Runs are
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
// traces/<build>.jsonl, one line per item in plan order (outcomes.ord: a
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
// Schema [StoreSchema] stores each fact once, under integer keys, and puts
// names back in views (the README's "Auditing a run" has every column):
//
//	meta(key, value)                       schema, protocol_sha256, seed, trials, slots, items, complete
//	builds(ord, id, class, location, operator, description, status)
//	scenarios(ord, id, category, tags, title)
//	designs(ord, id, name)                 0 is the observation run, "obs"
//	trials(scenario, trial, seed)          a trial's seed, the same for every build
//	units(ord, build, scenario, trial, run_sha256, end_state, checksum)
//	end_states(id, sha256, checksum)       distinct end-state hashes
//	outcomes(ord, unit, design, flags, flagged, slipped, faulted, success,
//	         blame, model_calls, tool_calls, tokens, environment_resets,
//	         fixture_resets, emits, parses, contract_checks,
//	         attribution_steps, wall_ns,
//	         reached, match_n, match_exact, match_name_only,
//	         match_order_ignored, trace, checksum)  executed items
//	taken(ord, unit, design, twin, trace, checksum)  items taken from
//	                                       their twin: its row's values
//	coverage(unit, builds, checksum)       a probed clean unit's covering mutants
//	blames(id, blame, checksum)            distinct blames, JSON; 0 is []
//	finding_texts(id, rule, message, location, evidence, checksum)
//	item_findings(item, seq, finding)
//	traces(id, sha256, size, data, checksum)   data gzipped, NULL for a hash only
//	views: items, findings, item_flags, suite_runs, detection_cells
//
// A unit's ord is its place in the plan (builds, clean first, then
// scenarios, then trials) and an item's is unit × slots + slot (the
// observation run, then the designs in protocol order): the writer appends
// in nearly that order, and a unit's build, scenario and trial and an
// item's unit and design are generated columns, never stored (nor are the
// four booleans packed in flags, above which an observation run's
// coordination verdicts sit, two bits a dimension). Workers seal each row ([row.seal]): its
// blame and evidence JSON, its findings' dictionary keys and its CRC-32C
// checksum, which covers the row, its blame, its findings and its kept
// trace's hash; the single writer only looks dictionary entries up and
// binds integers. Every read checks what it reads and refuses a row that
// does not match with [ErrStoreDamaged] naming the table and the row.
//
// The store runs in WAL mode with synchronous=OFF during the sweep
// (results regenerate from the protocol; a killed process loses at most
// the batch in flight) and is left as a single file at the end. Readers
// (replay, review, [Items], [SuiteRuns]) open it read-only.
//
// # Run folder lock
//
// A process writing a run folder holds an exclusive flock(2) on its
// [FolderLock] file, its pid inside; a second one gets a [*LockedError].
// Holding it, a run first removes what killed processes left
// ([RemoveLeftovers]); a resume checks the manifest, the hashes and every
// stored row before it changes anything, and leaves a finished run's
// manifest as it was until it finishes too.
package experiment
