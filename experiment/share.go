package experiment

import (
	"bytes"
	"compress/gzip"
	"context"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/internal/xxh64"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/modelcore"
	"github.com/baton-lab/baton/sandbox"
)

// itemMission is the mission a design sees for one item: the stack's
// mission, recording the trace of every run the design executes (so the
// experiment can keep and replay it), and, when the item belongs to a
// unit's shared memo, serving a run the unit already executed with the
// same build, scenario, seed and inputs instead of executing it again.
//
// Sharing changes nothing a design or a report can see: runs are
// deterministic functions of (build, scenario, seed, environment, inputs),
// so the observation run and design B's integrated run, or design A's and
// design C's core runs, are the same execution; the served item is charged
// the run's full cost, its wall time as measured when it executed, and
// credited with what its oracle would have recorded. Replay never shares, and a test checks that results are
// byte-identical with sharing on and off.
type itemMission struct {
	mission.Mission
	memo   *unitMemo // nil: execute everything
	build  mission.Build
	sc     *mission.Scenario
	seed   uint64
	env    mission.Env
	oracle *mission.Oracle

	extra fired // oracle records of the runs served from the memo
	// served is the wall time of the runs served from the memo, measured
	// when they executed: each item that uses a shared run is charged its
	// duration, as if it had executed it.
	served time.Duration
	traces map[string]*mission.Trace
	// use counts the item's model calls (nil without model cores); a run
	// served from the memo is charged its calls as served from the cache,
	// which is what executing it again would have cost.
	use *modelcore.Use
}

// unitMemo holds what the items of one (build, scenario, trial) unit
// share: its runs (when share is set) and the serialised traces. It is used
// by one worker at a time; a worker resets it for each unit and keeps its
// scratch (a buffer and a compressor) from unit to unit.
type unitMemo struct {
	share bool
	run   *sharedRun
	cores map[string]*sharedCore

	jsonl map[*mission.Trace][]byte // a trace's JSON Lines
	kept  map[string]keptSum        // traces key -> hash and size of the item's trace bytes
	sent  map[string]bool           // trace hashes already attached to a row

	trace, end []byte       // an integrated run's trace and end state while hashing
	digest     xxh64.Digest // a trace's hash while it is written
	records    any          // the end state's own memo (memoJSONRecords), kept across units
	zw         *gzip.Writer // nil until a trace is compressed
	// stored are the traces whose bytes the writer has been handed (nil:
	// none known), which attachTrace does not compress.
	stored *storedTraces

	// arena holds the unit's serialised traces (see marshal): it is
	// emptied, not freed, between units, since nothing a row holds points
	// into it (kept bytes are hashed and compressed into a copy).
	arena []byte
	key   []byte // scratch for a core run's key
	tkey  []byte // scratch for a traces key (see [outcome.appendTracesKey])

	// runs are the traces of every run the unit executed, recycled when
	// the unit is over (see [mission.Trace.Recycle]).
	runs []*mission.Trace

	// probe, when set, observes the seam calls of the unit's clean build
	// (see [selection]); zr and unzipped read clean twins back.
	probe    *mission.Probe
	zr       *gzip.Reader
	unzipped bytes.Buffer
	covers   []int // scratch for a run's coverage
	// twinScratch holds a clean twin's rows while they are compressed.
	twinScratch []byte

	// twin, in a mutant unit, is its clean twin's core runs, and build the
	// unit's build: a core run the build's seams could not reach in the
	// twin is served from it (see [selection]).
	twin  map[string]*heldCore
	build int
	// ran and served count the unit's runs executed and its core runs
	// served from the twin, fromTrials its runs served from other trials.
	ran, served, fromTrials int
	// trials, when set, holds the worker's runs of other trials of the
	// unit's build and scenario (see [trialMemo]).
	trials *trialMemo
	// scorecards are the designs' scorecards of the core runs they scored:
	// the unit's, and with a trial memo the group's (its held runs are
	// served to the group's later units, scored already) and those of the
	// twins' runs served (held to the end of the sweep and served to the
	// units of other builds).
	scorecards designs.Scorecards
	// twinRuns are the twins' core runs served to the worker's units.
	twinRuns map[*mission.CoreRun]bool
}

// cards returns the unit's scorecards; none without a memo.
func (m *unitMemo) cards() *designs.Scorecards {
	if m == nil {
		return nil
	}
	return &m.scorecards
}

func newUnitMemo(share bool) *unitMemo {
	return &unitMemo{share: share, jsonl: map[*mission.Trace][]byte{}, kept: map[string]keptSum{}, sent: map[string]bool{}}
}

// reset empties m for the next unit of the same worker. Nothing a unit's
// rows hold points into m.
func (m *unitMemo) reset() {
	m.run = nil
	m.twin, m.ran, m.served, m.fromTrials = nil, 0, 0, 0
	if m.trials == nil {
		m.scorecards.Reset()
	}
	clear(m.cores)
	clear(m.jsonl)
	clear(m.kept)
	clear(m.sent)
	m.arena = m.arena[:0]
	for _, t := range m.runs {
		t.Recycle()
	}
	clear(m.runs)
	m.runs = m.runs[:0]
}

// enter readies m for a unit of (build, scenario) after reset: a new
// group drops the trial memo's runs and the scorecards of any run but a
// twin's.
func (m *unitMemo) enter(build, scenario int) {
	if m.trials.enter(build, scenario) {
		m.scorecards.Retain(m.isTwinRun)
	}
}

// isTwinRun reports whether cr is a twin's core run served to one of the
// worker's units.
func (m *unitMemo) isTwinRun(cr *mission.CoreRun) bool { return m.twinRuns[cr] }

// executed records the trace of a run the unit executed.
func (m *unitMemo) executed(t *mission.Trace) {
	if m == nil {
		return
	}
	m.ran++
	if t != nil {
		m.runs = append(m.runs, t)
	}
}

// executedHeld records a run the unit executed whose trace a trial memo
// holds, when held, and recycles when it drops it.
func (m *unitMemo) executedHeld(t *mission.Trace, held bool) {
	if held {
		m.ran++
		return
	}
	m.executed(t)
}

// credit charges the item a run served to it: the wall time it took when
// it executed, what its oracle recorded, its model use as served.
func (m *itemMission) credit(f fired, took time.Duration, use modelcore.UseCounts) {
	m.extra.add(f)
	m.served += took
	m.use.Add(use.AsServed())
}

// fromTwin returns the twin's core run of the key in m.key when the
// unit's build could not reach it there, and shares it with the rest of
// the unit.
func (m *unitMemo) fromTwin() (*sharedCore, bool) {
	h, ok := m.twin[string(m.key)]
	if !ok || h.covers.has(m.build) {
		return nil, false
	}
	m.served++
	if m.cores == nil {
		m.cores = map[string]*sharedCore{}
	}
	m.cores[string(m.key)] = &h.core
	if m.twinRuns == nil {
		m.twinRuns = map[*mission.CoreRun]bool{}
	}
	m.twinRuns[h.core.run] = true
	return &h.core, true
}

// marshal returns a trace's JSON Lines, serialising each trace of the unit
// once, into the unit's arena. What it returns is good until the next
// reset.
func (m *unitMemo) marshal(t *mission.Trace) ([]byte, error) {
	if m == nil {
		return t.MarshalJSONL()
	}
	if b, ok := m.jsonl[t]; ok {
		return b, nil
	}
	start := len(m.arena)
	a, err := t.AppendJSONL(m.arena)
	if err != nil {
		return nil, err
	}
	m.arena = a
	b := a[start:len(a):len(a)]
	m.jsonl[t] = b
	return b, nil
}

// alloc returns an empty slice of capacity n from the unit's arena (a new
// one when m is nil), good until the next reset.
func (m *unitMemo) alloc(n int) []byte {
	if m == nil {
		return make([]byte, 0, n)
	}
	m.arena = slices.Grow(m.arena, n)
	start := len(m.arena)
	m.arena = m.arena[:start+n]
	return m.arena[start : start : start+n]
}

type sharedRun struct {
	run   *mission.Run
	fired fired
	took  time.Duration // wall time of the execution
	use   modelcore.UseCounts
	// diffs is what Check found in the run's end state, once checked.
	diffs   []sandbox.Difference
	checked bool
	// hashed is the run's hashes, once computed (see [unitMemo.hashes]).
	hashed *runHashed
	// coord is the run's coordination verdicts, once derived (coordJudged;
	// see [unitMemo.coordination]), for scenario coordSc and success
	// coordOK.
	coord       []coordination.Verdict
	coordSc     *mission.Scenario
	coordOK     bool
	coordJudged bool
}

// coordination returns the coordination verdicts of an observation run of
// scenario sc, derived with derive once for the unit's shared run, which
// other trials' units may be served (see [trialMemo]): its verdicts are
// a function of its trace, cost, scenario and success alone (see
// [verdictMemo]).
func (m *unitMemo) coordination(run *mission.Run, sc *mission.Scenario, success bool, derive func() ([]coordination.Verdict, error)) ([]coordination.Verdict, error) {
	r := m.sharedRun()
	if r == nil || r.run != run {
		return derive()
	}
	if !r.coordJudged || r.coordSc != sc || r.coordOK != success {
		vs, err := derive()
		if err != nil {
			return nil, err
		}
		r.coord, r.coordSc, r.coordOK, r.coordJudged = slices.Clone(vs), sc, success, true
		return vs, nil
	}
	return slices.Clone(r.coord), nil
}

// runHashed is what [runHashes] gave for a shared run: its hashes, and the
// hash and size of its trace's compact encoding.
type runHashed struct {
	run, end string
	kept     keptSum
}

// hashes returns [runHashes] of an integrated run, computed once for the
// unit's shared run, which other trials' units may be served (see
// [trialMemo]): the same run, the same hashes.
func (m *unitMemo) hashes(run *mission.Run) (string, string, error) {
	r := m.sharedRun()
	if r == nil || r.run != run {
		return runHashes(run.Trace, run.End, m)
	}
	key := integratedKey(run.Trace)
	if r.hashed == nil {
		h, e, err := runHashes(run.Trace, run.End, m)
		if err != nil {
			return "", "", err
		}
		r.hashed = &runHashed{run: h, end: e, kept: m.kept[key]}
	} else if m.kept != nil {
		m.kept[key] = r.hashed.kept
	}
	return r.hashed.run, r.hashed.end, nil
}

type sharedCore struct {
	run   *mission.CoreRun
	fired fired
	took  time.Duration // wall time of the execution
	use   modelcore.UseCounts
	// covers, in a probed clean unit, are the probe's candidates that
	// could act in the run.
	covers []int
}

// fired is what a run recorded in its oracle: changing counts the faults
// that can change an outcome (every kind but a latency, see [faulted]).
type fired struct {
	reached                   int
	slips, faults, redelivers int
	changing                  int
}

func (f *fired) add(o fired) {
	f.reached += o.reached
	f.slips += o.slips
	f.faults += o.faults
	f.redelivers += o.redelivers
	f.changing += o.changing
}

// snapshot reads an oracle's counts. The oracle belongs to one item whose
// runs execute on this goroutine, so no other goroutine writes it.
func snapshot(o *mission.Oracle) fired {
	f := fired{reached: o.Reached, slips: len(o.Slips), faults: len(o.Faults), redelivers: len(o.Redeliveries)}
	for _, x := range o.Faults {
		if x.Kind != sandbox.Latency {
			f.changing++
		}
	}
	return f
}

func (a fired) minus(b fired) fired {
	return fired{reached: a.reached - b.reached, slips: a.slips - b.slips, faults: a.faults - b.faults,
		redelivers: a.redelivers - b.redelivers, changing: a.changing - b.changing}
}

// same reports whether a run is for this item's build, scenario, seed and
// environment.
func (m *itemMission) same(b mission.Build, sc *mission.Scenario, seed uint64, env mission.Env) bool {
	return sc == m.sc && seed == m.seed && sameBuild(b, m.build) && sameMap(env.Profile, m.env.Profile) &&
		sameMap(env.Faults, m.env.Faults) && sameMap(env.Cores, m.env.Cores)
}

// sameBuild compares build handles. A build whose seams are of an
// uncomparable type (never one of baton's mutants) is never the same: its
// runs are executed, not shared.
func sameBuild(a, b mission.Build) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

func sameMap(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Len() == 0 && vb.Len() == 0 {
		return true
	}
	return va.UnsafePointer() == vb.UnsafePointer()
}

func (m *itemMission) keep(name string, t *mission.Trace) {
	if t == nil {
		return
	}
	if m.traces == nil {
		m.traces = map[string]*mission.Trace{}
	}
	if _, dup := m.traces[name]; dup {
		for i := 2; ; i++ {
			n := name + "#" + strconv.Itoa(i)
			if _, dup := m.traces[n]; !dup {
				name = n
				break
			}
		}
	}
	m.traces[name] = t
}

// Run executes, or serves from the unit, an integrated run.
func (m *itemMission) Run(ctx context.Context, b mission.Build, sc *mission.Scenario, seed uint64, env mission.Env) (*mission.Run, error) {
	mine := m.same(b, sc, seed, env)
	share := m.memo != nil && m.memo.share
	var run *mission.Run
	var err error
	switch {
	case mine && share && m.memo.run != nil:
		run = m.memo.run.run
		m.credit(m.memo.run.fired, m.memo.run.took, m.memo.run.use)
	case mine && share:
		trials := m.memo.trialsFor(env, m.env)
		if s := trials.integrated(seed); s != nil {
			m.memo.fromTrials++
			m.memo.run, run = s, s.run
			m.credit(s.fired, s.took, s.use)
			break
		}
		before, used := snapshot(m.oracle), m.use.Counts()
		env.Draws = trials.recorder()
		start := time.Now()
		if run, err = m.Mission.Run(ctx, b, sc, seed, env); err != nil {
			return nil, err
		}
		m.memo.run = &sharedRun{run: run, fired: snapshot(m.oracle).minus(before), took: time.Since(start), use: m.use.Counts().Minus(used)}
		m.memo.executedHeld(traceOf(run), trials.holdRun(env.Draws, m.memo.run))
	default:
		if run, err = m.Mission.Run(ctx, b, sc, seed, env); err != nil {
			return nil, err
		}
		m.memo.executed(traceOf(run))
	}
	if mine && run != nil {
		m.keep("integrated", run.Trace)
	}
	return run, nil
}

// Check compares an end state with the scenario's expected one, as the
// mission does. The unit's shared integrated run is checked once: the
// observation run and design B read the same end state.
func (m *itemMission) Check(sc *mission.Scenario, end *sandbox.State) []sandbox.Difference {
	r := m.memo.sharedRun()
	if r == nil || r.run.End != end || sc != m.sc {
		return m.Mission.Check(sc, end)
	}
	if !r.checked {
		r.diffs, r.checked = m.Mission.Check(sc, end), true
	}
	return slices.Clone(r.diffs)
}

// sharedRun returns the unit's shared integrated run, or nil.
func (m *unitMemo) sharedRun() *sharedRun {
	if m == nil {
		return nil
	}
	return m.run
}

// RunCore executes, or serves from the unit, one agent's core run.
func (m *itemMission) RunCore(ctx context.Context, b mission.Build, agent mission.Agent, sc *mission.Scenario, in mission.CoreInput, seed uint64, env mission.Env) (*mission.CoreRun, error) {
	mine := m.same(b, sc, seed, env)
	var cr *mission.CoreRun
	var err error
	if mine && m.memo != nil && m.memo.share {
		m.memo.key = appendCoreKey(m.memo.key[:0], agent, in)
		s, ok := m.memo.cores[string(m.memo.key)] // no string is made to look up
		if !ok {
			s, ok = m.memo.fromTwin()
		}
		trials := m.memo.trialsFor(env, m.env)
		if !ok {
			s, ok = m.memo.fromTrial(trials, seed)
		}
		if ok {
			cr = s.run
			m.credit(s.fired, s.took, s.use)
		} else {
			before, used := snapshot(m.oracle), m.use.Counts()
			start := time.Now()
			p := m.memo.probe
			if p != nil {
				p.BeginRun()
			}
			env.Draws = trials.recorder()
			cr, err = m.Mission.RunCore(ctx, b, agent, sc, in, seed, env)
			var covers []int
			if p != nil {
				m.memo.covers = p.EndRun(m.memo.covers[:0])
				covers = slices.Clone(m.memo.covers)
			}
			if err != nil {
				return nil, err
			}
			took := time.Since(start)
			if m.memo.cores == nil {
				m.memo.cores = map[string]*sharedCore{}
			}
			s := &sharedCore{run: cr, fired: snapshot(m.oracle).minus(before), took: took,
				use: m.use.Counts().Minus(used), covers: covers}
			m.memo.cores[string(m.memo.key)] = s
			m.memo.executedHeld(coreTraceOf(cr), trials.holdCore(m.memo.key, env.Draws, s))
		}
	} else {
		if cr, err = m.Mission.RunCore(ctx, b, agent, sc, in, seed, env); err != nil {
			return nil, err
		}
		m.memo.executed(coreTraceOf(cr))
	}
	if mine && cr != nil {
		m.keep("core:"+string(agent)+":"+in.Item, cr.Trace)
	}
	return cr, nil
}

// appendCoreKey appends what identifies a core run's inputs within a unit.
func appendCoreKey(b []byte, agent mission.Agent, in mission.CoreInput) []byte {
	b = append(b, agent...)
	b = append(b, 0)
	b = append(b, in.Item...)
	for _, msg := range in.Messages {
		b = append(b, 0)
		b = strconv.AppendInt(b, int64(len(msg)), 10)
		b = append(b, ':')
		b = append(b, msg...)
	}
	return b
}

func traceOf(r *mission.Run) *mission.Trace {
	if r == nil {
		return nil
	}
	return r.Trace
}

func coreTraceOf(r *mission.CoreRun) *mission.Trace {
	if r == nil {
		return nil
	}
	return r.Trace
}

// trialMemo holds, for one worker, the runs its units of one (build,
// scenario) executed, each with the draws it consulted (see
// [sandbox.Draws]): a run is a deterministic function of the build, the
// scenario, its inputs, the environment and the outcomes of its draws, so
// a held run whose record holds under another trial's seed is the run that
// trial would execute, and is served to it as a unit's runs are shared
// (the same run, charged its wall time as measured, its oracle counts
// credited). Units come to a worker in plan order, trials innermost, so
// the memo holds one group at a time and is emptied when the group
// changes; it is the worker's alone, and what it serves is what executing
// would have given, so results do not depend on the workers.
//
// It holds at most [trialLeaves] runs of each identity (the integrated run,
// or a core run's agent and inputs) and [trialBudget] estimated bytes: the
// first runs of an identity are the likeliest to hold (a run in which no
// fault or slip fired holds under most seeds: on P, the default protocol
// with designs A, B and C, 16 runs an identity and 64 MB executed 38,284
// runs, 4 and 4 MB 38,974, 2 and 1 MB 41,218, of 110,994 without the
// memo; on the generated space 2 and 1 MB as few as 4 and 4 MB), and a
// group's runs stay live until the group ends, at the collector's target
// (DefaultGCPercent) nine times them in peak memory (the generated space
// peaked 60 MB higher at 4 runs and 4 MB than at 2 and 1 MB). Opaque runs (a number drawn from the
// dice, a model's call) are never held; neither are a probed clean unit's
// (its probe observes every run it executes).
type trialMemo struct {
	build, scenario int // the group held
	run             []trialRun
	cores           map[string][]trialRun
	size            int // estimated bytes held
	traces          []*mission.Trace
	spare           *sandbox.Draws // the record of the run executing, when not held
}

// trialRun is a held run and the draws it consulted.
type trialRun struct {
	draws *sandbox.Draws
	run   *sharedRun
	core  *sharedCore
}

const (
	// trialLeaves is how many runs of one identity a trial memo holds.
	trialLeaves = 2
	// trialBudget bounds the estimated bytes a trial memo holds.
	trialBudget = 1 << 20
)

func newTrialMemo() *trialMemo {
	return &trialMemo{build: -1, scenario: -1, cores: map[string][]trialRun{}}
}

// enter makes the memo the memo of (build, scenario), dropping the runs of
// another group and recycling their traces, and reports whether it did.
func (t *trialMemo) enter(build, scenario int) bool {
	if t == nil || t.build == build && t.scenario == scenario {
		return false
	}
	t.build, t.scenario = build, scenario
	for _, tr := range t.traces {
		tr.Recycle()
	}
	clear(t.traces)
	t.traces = t.traces[:0]
	clear(t.run)
	t.run = t.run[:0]
	clear(t.cores)
	t.size = 0
	return true
}

// trialsFor returns the unit's trial memo for a run in env of an item in
// itemEnv, nil when none applies (no memo, a probed unit, another
// single-agent setting).
func (m *unitMemo) trialsFor(env, itemEnv mission.Env) *trialMemo {
	if m == nil || m.probe != nil || env.Single != itemEnv.Single {
		return nil
	}
	return m.trials
}

// recorder returns the record for the run about to execute (nil without
// a memo).
func (t *trialMemo) recorder() *sandbox.Draws {
	if t == nil {
		return nil
	}
	if t.spare == nil {
		t.spare = &sandbox.Draws{}
	}
	t.spare.Reset()
	return t.spare
}

// find returns the held run of runs whose record holds under seed.
func find(runs []trialRun, seed uint64) (trialRun, bool) {
	for _, r := range runs {
		if r.draws.Holds(seed) {
			return r, true
		}
	}
	return trialRun{}, false
}

// integrated returns a held integrated run that is this seed's, or nil.
func (t *trialMemo) integrated(seed uint64) *sharedRun {
	if t == nil {
		return nil
	}
	r, _ := find(t.run, seed)
	return r.run
}

// fromTrial returns a held core run of the key in m.key that is this
// seed's, and shares it with the rest of the unit.
func (m *unitMemo) fromTrial(t *trialMemo, seed uint64) (*sharedCore, bool) {
	if t == nil {
		return nil, false
	}
	r, ok := find(t.cores[string(m.key)], seed)
	if !ok {
		return nil, false
	}
	m.fromTrials++
	if m.cores == nil {
		m.cores = map[string]*sharedCore{}
	}
	m.cores[string(m.key)] = r.core
	return r.core, true
}

// room reports whether the memo can hold one more run of size bytes
// beside held others of its identity, recorded in draws.
func (t *trialMemo) room(held int, draws *sandbox.Draws, size int) bool {
	return t != nil && !draws.Opaque() && held < trialLeaves && t.size+size <= trialBudget
}

// holdRun holds an integrated run just executed with its record, and
// reports whether it did: then the memo recycles its trace.
func (t *trialMemo) holdRun(draws *sandbox.Draws, s *sharedRun) bool {
	if t == nil || s.run == nil {
		return false
	}
	size := 2*traceSize(s.run.Trace) + 64*len(draws.List())
	if !t.room(len(t.run), draws, size) {
		return false
	}
	t.run = append(t.run, trialRun{draws: draws, run: s})
	t.held(s.run.Trace, size)
	return true
}

// holdCore holds a core run of key just executed with its record, and
// reports whether it did: then the memo recycles its trace.
func (t *trialMemo) holdCore(key []byte, draws *sandbox.Draws, s *sharedCore) bool {
	if t == nil || s.run == nil {
		return false
	}
	size := len(key) + coreRunSize(s.run) + 64*len(draws.List())
	runs := t.cores[string(key)]
	if !t.room(len(runs), draws, size) {
		return false
	}
	t.cores[string(key)] = append(runs, trialRun{draws: draws, core: s})
	t.held(s.run.Trace, size)
	return true
}

// held accounts for a run just held: its record is no longer the spare.
func (t *trialMemo) held(tr *mission.Trace, size int) {
	t.spare = nil
	t.size += size
	if tr != nil {
		t.traces = append(t.traces, tr)
	}
}
