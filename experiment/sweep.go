package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/reports"
)

// Options set up a [Run].
type Options struct {
	// ProtocolPath is the protocol file; "" runs the default mission's
	// default protocol.
	ProtocolPath string
	// OutDir is where a new run folder is made, named
	// <name>-<seed>-<first 8 hex of the protocol hash> (plus -t<trials>
	// when Trials overrides the protocol); "out" when empty.
	OutDir string
	// RunDir, when set, is the run folder itself.
	RunDir string
	// Workers is the worker pool's size; 0 means runtime.NumCPU().
	Workers int
	// Seed and Trials, when set, override the protocol's (recorded in the
	// manifest; the run folder of another seed or trial count is another
	// run). A locked protocol refuses them unless Deviate says why.
	Seed   *uint64
	Trials int
	// Deviate is the reason a run of a locked protocol overrides its
	// settings; each deviation is recorded with it in the manifest and at
	// the top of every report.
	Deviate string
	// Resume continues the run in an existing run folder, skipping the
	// items it already stores.
	Resume bool
	Logger zerolog.Logger
	// Progress, if set, is called from one goroutine with the items done
	// (stored before this session included) and the total.
	Progress func(done, total int)

	// Missions are the missions a protocol may name (the first is the
	// default); the command line builds the registry. Stack, when set,
	// is what runs instead: NewStack(Missions) when nil.
	Missions *mission.Registry
	Stack    *Stack
	// TraceSample is the share of items whose trace bytes are stored
	// whatever their verdict; 0 means DefaultTraceSample, a negative value
	// stores none.
	TraceSample float64
	// SampleTracesOnly keeps the sampled traces only, not the hash of
	// every flagged item's (nor the bytes of the clean build's): faster;
	// every trace still regenerates with Replay.
	SampleTracesOnly bool
	// Batch is the number of rows per store transaction; 0 means
	// DefaultBatch.
	Batch int
	// GCPercent is the garbage collector's target (debug.SetGCPercent)
	// during the sweep; the previous setting is restored when it ends.
	// 0 means DefaultGCPercent unless the GOGC environment variable is
	// set; a negative value leaves the collector alone.
	GCPercent int
	// MemoryLimit, when positive, is a soft limit in bytes on the memory
	// the Go runtime uses during the sweep (debug.SetMemoryLimit): the
	// collector runs more often as the heap nears it, for a lower peak
	// resident set at some CPU (README, "Performance"). The previous limit
	// is restored when the sweep ends; 0 or a negative value leaves it (the
	// GOMEMLIMIT environment variable's, or none).
	MemoryLimit int64
	// Clock gives wall-clock times for the manifest; nil means time.Now.
	Clock func() time.Time
	// ModelCache is a directory of model answers shared between runs,
	// searched after the run folder's model-cache/ (it overrides the
	// protocol's model_cache). ModelOffline answers model cores from the
	// caches alone: a request they do not hold is an error.
	ModelCache   string
	ModelOffline bool
	// Remote, when set, executes the units in other processes instead of
	// the worker pool (see [Remote]); Workers is then the pool that
	// executes the clean units, which coverage selection probes here.
	Remote Remote

	// noShare executes every run of every item, sharing none within a
	// unit (tests compare both ways).
	noShare bool
	// noTrials serves no run from another trial (see [trialMemo]).
	noTrials bool
	// noSelection executes every unit whatever the protocol's selection
	// (tests compare both ways on the same protocol file).
	noSelection bool
	// heldBudget, when not 0, replaces the budget of the twins' core runs
	// held (a negative one holds none).
	heldBudget int64
	// pacer, set by Run, paces the collector during the sweep.
	pacer *gcPacer
}

// stack returns the stack the options run.
func (opt *Options) stack() (*Stack, error) {
	switch {
	case opt.Stack != nil:
		return opt.Stack, nil
	case opt.Missions != nil:
		return NewStack(opt.Missions), nil
	}
	return nil, ErrNoStack
}

// Summary is what a finished run reports.
type Summary struct {
	RunDir   string
	Valid    bool
	Reason   string
	Results  *reports.Results
	Items    int // work items of the run
	Skipped  int // already stored when this session started
	Manifest *Manifest
}

// Run runs a protocol's sweep into a run folder: every (build, design,
// scenario, trial) work item and every observation run, the clean build
// first, on a worker pool, each outcome streamed through one writer into
// runs.db and into the aggregation; then it writes results.json and the
// reports (a resumed run aggregates the stored rows instead). Cancelling ctx stops the sweep cleanly: every finished item
// is committed, and Options.Resume continues from there. A run that fails
// the validity gate returns a [*reports.DiscardedError] after writing every
// output.
func Run(ctx context.Context, opt Options) (*Summary, error) {
	log := opt.Logger
	ph := newPhases(log)
	clock := opt.Clock
	if clock == nil {
		clock = time.Now
	}
	st, err := opt.stack()
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}

	// The protocol: lock, load, overrides.
	var p *Protocol
	var lock *InputTree
	var legacyLock error
	absPath := ""
	if opt.ProtocolPath == "" {
		if p, err = DefaultProtocol(st.Missions); err != nil {
			return nil, fmt.Errorf("run: %w", err)
		}
	} else {
		if lock, legacyLock = readLock(opt.ProtocolPath); lock == nil && legacyLock != nil {
			return nil, fmt.Errorf("run: %w", legacyLock)
		}
		if p, err = LoadProtocol(opt.ProtocolPath, st.Missions); err != nil {
			return nil, fmt.Errorf("run: %w", err)
		}
		if absPath, err = filepath.Abs(opt.ProtocolPath); err != nil {
			return nil, fmt.Errorf("run: %w", err)
		}
	}
	if err := context.Cause(ctx); err != nil { // Ctrl-C while loading: no run folder
		return nil, fmt.Errorf("run: interrupted while loading: %w", err)
	}
	trialsOverride := opt.Trials > 0 && opt.Trials != p.Trials
	devs, err := overrides(p, opt)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	ph.done("protocol")

	ses, err := openSession(opt, runSetup{p: p, st: st, lock: lockState{lock, legacyLock}, devs: devs, absPath: absPath,
		trialsOverride: trialsOverride, clock: clock, log: log, ph: ph})
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	defer ses.release(log)
	runDir, pl, s, man, skipped := ses.runDir, ses.pl, ses.s, ses.man, ses.skipped
	// A distributed sweep's workers ask the endpoints; the coordinator's
	// cores answer from the run folder's cache alone.
	offline := opt.ModelOffline || opt.Remote != nil
	if err := pl.bindCores(runDir, coreOptions{ctx: ctx, offline: offline, check: skipped == 0 && !offline,
		shared: opt.ModelCache}); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	defer pl.cores.close()
	ph.done("cores")
	workers := man.Workers
	sample := opt.TraceSample
	if sample == 0 {
		sample = DefaultTraceSample
	}
	log.Info().Str("run", runDir).Str("protocol", short(p.SHA256)).Int("items", pl.total()).
		Int("stored", skipped).Int("workers", workers).Msg("sweep")

	// A fresh sweep aggregates and writes the kept traces as it goes; a
	// resumed one reads every stored row back when it ends (see finish).
	var lv *live
	if skipped == 0 {
		lv = newLive(pl, runDir)
	}
	pacer, restoreGC := tuneGC(opt.GCPercent)
	restoreLimit := limitMemory(opt.MemoryLimit)
	opt.pacer = pacer
	var failed []reports.InfraFailure
	if opt.Remote != nil {
		failed, err = remoteSweep(ctx, ses, lv, sample, opt)
	} else {
		err = sweep(ctx, pl, s, ses.done, skipped, workers, sample, lv, opt)
	}
	if lv != nil {
		lv.traces.close() // the spools of builds an interrupted sweep left
	}
	restoreGC() // aggregation holds what grows with the run: collect as usual
	restoreLimit()
	ph.done("sweep")
	if err != nil {
		if ctx.Err() != nil {
			err = &InterruptedError{RunDir: runDir, Err: ctx.Err()}
		}
		return nil, fmt.Errorf("run: %w", err)
	}

	man.Models, man.ModelUse = pl.cores.provenance(man.Models), pl.cores.addUse(man.ModelUse)
	mode, note := selectionOf(pl, opt)
	man.Selection = &reports.Selection{Mode: mode.String(), Note: note}
	if opt.Remote != nil && mode == SelectCoverage {
		man.Selection.Note = "distributed: the coordinator executes the clean units, probing them, and hands out the mutant units to execute"
	}
	keptTrace := func(build, id string) bool {
		return build == reports.CleanBuild || sampled(pl.seed, id, sample)
	}
	sum, err := finish(pl, s, lv, runDir, man, keptTrace, failed, ph)
	if err == nil {
		err = s.close()
		ses.s = nil
		ph.done("store close")
	}
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	sum.Skipped = skipped
	man.Finished = nowUTC(clock())
	if err := writeManifest(runDir, man); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	ph.done("manifest")
	log.Info().Str("run", runDir).Bool("valid", sum.Valid).Msg("results written")
	if len(failed) > 0 {
		return sum, &IncompleteError{RunDir: runDir, Units: len(failed), Items: failedItems(failed)}
	}
	if !sum.Valid {
		return sum, &reports.DiscardedError{RunDir: runDir, Reason: sum.Reason}
	}
	return sum, nil
}

// DefaultGCPercent is the garbage collector's target during a sweep. A
// sweep allocates fast (about 30 KB per work item) over a small live heap
// (20–40 MB, nearly flat in the trials), so the runtime's default of 100
// collects some 250 times and spends about a sixth of the CPU doing so;
// 800 collects some 30 times, for a peak resident set of about 350 MB
// instead of 170 MB at 400. The live heap does grow with the units, so a
// [gcPacer] lowers the target as it does. After the sweep the reports run
// with the collector as it was.
const DefaultGCPercent = 800

// tuneGC sets the collector's target for a run (see Options.GCPercent) and
// returns what restores it. With the default target it also returns a
// pacer that lowers the target as the live heap grows (see [gcPacer]); an
// explicit target, or GOGC's, is kept as set.
func tuneGC(percent int) (pacer *gcPacer, restore func()) {
	if percent == 0 {
		if _, set := os.LookupEnv("GOGC"); set {
			return nil, func() {}
		}
		percent = DefaultGCPercent
		pacer = newGCPacer(percent)
	}
	if percent < 0 {
		return nil, func() {}
	}
	old := debug.SetGCPercent(percent)
	return pacer, func() { debug.SetGCPercent(old) }
}

// limitMemory sets a soft memory limit for a run (see
// Options.MemoryLimit) and returns what restores the previous one.
func limitMemory(limit int64) (restore func()) {
	if limit <= 0 {
		return func() {}
	}
	old := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(old) }
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// sendRows is how many rows a worker gathers before it hands them to the
// writer.
const sendRows = 64

// sweep runs every item not yet stored; live, if not nil, is handed every
// row as the writer receives it.
func sweep(ctx context.Context, pl *plan, s *store, done bitset, skipped, workers int, sample float64, live *live, opt Options) error {
	var sel *selection
	if mode, _ := selectionOf(pl, opt); mode == SelectCoverage {
		var err error
		if sel, err = newSelection(pl, s, done); err != nil {
			return err
		}
		if sel != nil && opt.heldBudget != 0 {
			sel.budget = opt.heldBudget
		}
	}
	err := sweepUnits(ctx, pl, s, done, skipped, workers, sample, live, opt, sel, pl.units())
	if sel != nil {
		if merr := s.addRunCounts(sel.ran.Load(), sel.served.Load(), sel.fromTrials.Load()); err == nil {
			err = merr
		}
	}
	return err
}

// sweepUnits runs the items not yet stored of the first units units,
// taking from their clean twins what sel, if not nil, allows.
func sweepUnits(ctx context.Context, pl *plan, s *store, done bitset, skipped, workers int, sample float64, live *live, opt Options, sel *selection, units int) error {
	total := pl.total()
	var progress func(int)
	if opt.Progress != nil {
		progress = func(n int) { opt.Progress(skipped+n, total) }
		opt.Progress(skipped, total)
	}
	var observe func([]row) error
	if live != nil {
		observe = live.observe
	}
	w := s.startWriter(opt.Batch, progress, observe)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		errOnce  sync.Once
		firstErr error
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; cancel() })
	}

	// Workers take units in plan order from a shared cursor (a channel fed
	// by another goroutine would wake it, a system call, for every unit).
	var cursor atomic.Int64
	next := func() (unit, bool) {
		for ctx.Err() == nil {
			i := int(cursor.Add(1) - 1)
			if i >= units {
				break
			}
			if i%gcPaceUnits == 0 {
				opt.pacer.pace()
			}
			for slot := range pl.slots() {
				if !done.has(itemIndex(pl, i, slot)) {
					return pl.unitAt(i), true
				}
			}
		}
		return unit{}, false
	}

	var wg sync.WaitGroup
	var firstIdle atomic.Int64 // when the first worker found no unit left
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { firstIdle.CompareAndSwap(0, time.Now().UnixNano()) }()
			wk := &sweepWorker{ctx: ctx, pl: pl, done: done, sel: sel, memo: newUnitMemo(!opt.noShare),
				sample: sample, flagged: !opt.SampleTracesOnly, lines: live != nil}
			wk.memo.stored = w.stored
			if !opt.noShare && !opt.noTrials {
				wk.memo.trials = newTrialMemo()
			}
			if sel != nil {
				wk.probe = sel.newProbe()
			}
			var rows []row
			defer func() {
				if len(rows) > 0 {
					w.send(rows) // finished items are kept even when cancelled
				}
			}()
			for {
				u, ok := next()
				if !ok {
					break
				}
				var err error
				if rows, err = wk.unit(u, rows); err != nil {
					// A cancelled sweep stops where it is: the item is not
					// stored, and a resumed sweep runs it.
					if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
						fail(err)
					}
					break
				}
				// Rows go to the writer sendRows at a time: a hand-over to a
				// writer waiting on another core wakes it, a system call.
				if len(rows) >= sendRows {
					w.send(rows)
					rows = nil
				}
			}
		}()
	}

	wg.Wait()
	idle := time.Now()
	werr := w.close()
	opt.Logger.Debug().Dur("fewer_workers", idle.Sub(time.Unix(0, firstIdle.Load()))).Dur("writer_flush", time.Since(idle)).
		Msg("sweep end")
	switch {
	case firstErr != nil:
		return firstErr
	case werr != nil:
		return werr
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return nil
}

// sweepWorker is one worker of a sweep: its unit's memo, its probe and
// its scratch.
type sweepWorker struct {
	ctx     context.Context
	pl      *plan
	done    bitset
	sel     *selection // nil: execute every item
	probe   *mission.Probe
	memo    *unitMemo
	sample  float64
	flagged bool // keep flagged items' trace hashes (Options.SampleTracesOnly unset)
	lines   bool // build kept traces' lines (a fresh sweep's)
	scratch []byte
}

// unit appends to rows the items of u not yet stored, sealed: executed,
// or taken from the clean twin where the selection allows. A clean unit
// is probed for the selection, and its twin readied whatever happens. It
// returns the rows finished when an item fails.
func (wk *sweepWorker) unit(u unit, rows []row) ([]row, error) {
	pl, sel, memo := wk.pl, wk.sel, wk.memo
	memo.reset()
	memo.enter(u.build, u.scenario)
	var taken []takenRow
	if sel != nil && u.build > 0 {
		var err error
		if taken, err = sel.take(wk.ctx, u, wk.done, wk.sample, wk.flagged, memo, &wk.scratch); err != nil {
			return rows, err
		}
		memo.twin, memo.build = sel.heldRuns(wk.ctx, u), u.build
		defer func() {
			sel.ran.Add(int64(memo.ran))
			sel.served.Add(int64(memo.served))
			sel.fromTrials.Add(int64(memo.fromTrials))
		}()
	}
	start := len(rows)
	var err error
	if sel != nil && u.build == 0 {
		memo.probe, err = sel.probing(wk.ctx, u, wk.probe, memo)
	}
	for slot := range pl.slots() {
		if err != nil {
			break
		}
		if wk.done.has(itemIndex(pl, u.index, slot)) {
			continue
		}
		if taken != nil && taken[slot].ok {
			rows = append(rows, taken[slot].row)
			continue
		}
		var out *outcome
		if out, err = pl.evaluate(wk.ctx, u, slot, memo); err != nil {
			break
		}
		if err = out.attachTrace(out.keepTrace(pl.seed, wk.sample, wk.flagged), wk.lines); err != nil {
			break
		}
		out.row.seal(u, &wk.scratch)
		rows = append(rows, out.row)
	}
	if err == nil && u.build == 0 {
		pl.noteClean(u, memo)
	}
	if sel != nil && u.build == 0 {
		ferr := sel.finish(u, rows[start:], memo.probe, memo)
		memo.probe = nil
		if err == nil {
			err = ferr
		}
	}
	return rows, err
}

// finish takes the aggregation and the kept traces of a fresh sweep from
// live or, when live is nil, aggregates the stored items in plan order
// and writes the kept traces that keptTrace accepts into traces/ (see
// [writeKeptTraces]); then it writes the results, whose report.html links
// the drill-down items whose trace was written. The items of failed
// units are missing: the results list the units, and the run is not
// marked complete.
func finish(pl *plan, s *store, live *live, runDir string, man *Manifest, keptTrace func(build, id string) bool, failed []reports.InfraFailure, ph *phases) (*Summary, error) {
	want := pl.total() - failedItems(failed)
	// The mistakes and the selection's counts need nothing of the
	// results: under way while they are aggregated.
	waitMistakes := pl.startMistakes(man.Workers)
	defer waitMistakes() // an early return leaves nothing running
	waitSelection := startSelectionUse(s, man.Selection)
	defer waitSelection()
	var a *aggregation
	if live != nil {
		a = &live.aggregation
	} else {
		var err error
		if a, err = readBack(pl, s, want); err != nil {
			return nil, err
		}
	}
	if !a.complete(want) {
		return nil, fmt.Errorf("aggregated %d items, the plan has %d", a.added, want)
	}
	r := a.agg.Results()
	r.SetBaton(man.Baton)
	r.SetModelUse(man.ModelUse)
	r.SetMutationSources(pl.mutationSources())
	if man.Selection != nil {
		if err := waitSelection(); err != nil {
			return nil, err
		}
		r.SetSelection(man.Selection)
	}
	annotate(r, pl, man)
	r.Infrastructure = failed
	ph.done("aggregation")
	m := waitMistakes()
	if m.err != nil {
		return nil, m.err
	}
	ph.done("waiting for the mistakes")
	m.log(ph)
	r.SetMistakes(m.counts, pl.configuredSlips())
	examples := map[string]bool{}
	for _, ex := range r.Examples {
		for _, it := range ex.Items {
			examples[it.ID] = false
		}
	}
	if live == nil {
		if err := writeKeptTraces(runDir, s, keptTrace, examples); err != nil {
			return nil, err
		}
	} else {
		if err := live.traces.check(); err != nil {
			return nil, err
		}
		for id := range examples {
			examples[id] = live.traces.wrote(id)
		}
	}
	for id, written := range examples {
		if written {
			r.TraceItems = append(r.TraceItems, id)
		}
	}
	if len(r.TraceItems) > 0 {
		slices.Sort(r.TraceItems)
		r.TracePattern = TraceBuildPattern
	}
	ph.done("kept traces")
	if err := setReportFindings(s, pl, r); err != nil {
		return nil, err
	}
	ph.done("report findings")
	// The reports and the store's last writes do not touch each other:
	// both at once. The store is marked complete once both are done.
	stored := make(chan error, 1)
	var indexed, storeStart, storeEnd time.Time
	go func() {
		storeStart = time.Now()
		err := s.index()
		indexed = time.Now()
		if err == nil {
			err = s.setStatus(r.Mutants)
		}
		if err == nil {
			err = s.checkpoint()
		}
		storeEnd = time.Now()
		stored <- err
	}()
	werr := pl.stack.Write(runDir, r)
	ph.done("reports")
	if err := <-stored; err != nil {
		return nil, err
	}
	ph.done("waiting for the store")
	ph.span("store indexes", storeStart, indexed)
	ph.span("store indexes, status and checkpoint", storeStart, storeEnd)
	if werr != nil {
		return nil, fmt.Errorf("write results: %w", werr)
	}
	if len(failed) == 0 {
		if err := s.setMeta(map[string]string{"complete": "1"}); err != nil {
			return nil, err
		}
	}
	man.WallMS = map[string]int64{}
	for d, ns := range a.wall {
		man.WallMS[d] = ns / 1e6
	}
	valid := r.Validity.Valid
	man.Complete, man.Valid, man.Reason = len(failed) == 0, &valid, r.Validity.Reason
	return &Summary{RunDir: runDir, Valid: valid, Reason: r.Validity.Reason, Results: r, Items: pl.total(), Manifest: man}, nil
}

// readBack aggregates every stored item, want of them, in plan order.
func readBack(pl *plan, s *store, want int) (*aggregation, error) {
	n, err := s.count()
	if err != nil {
		return nil, fmt.Errorf("count stored items: %w", err)
	}
	if n != want {
		return nil, fmt.Errorf("run store holds %d items, the plan has %d", n, want)
	}
	a := newAggregation(pl)
	err = s.stream(func(it reports.Item) error {
		a.add(it)
		return nil
	})
	return a, err
}
