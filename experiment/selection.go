package experiment

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/reports"
)

// selection decides which mutant items a sweep executes (protocol key
// selection: coverage). A mutated run is its clean twin until one of the
// mutant's seams acts; so while each clean unit executes, a probe
// ([mission.Probe]) asks every candidate mutant's seams each seam call the
// unit makes, and records the mutants that could have changed one. The
// items of a mutant unit whose twin no seam of the mutant reached are not
// executed: their rows are the twin's, with the build replaced, and
// runs.db stores them as references to the twin's rows (taken). Replay
// executes any of them.
//
// Why that is exact, and what else could differ: a build reaches a run
// only through its seams ([mission.Build] holds nothing else, and the
// engine reads nothing else of it; a mission not made by mission.New is
// never selected on, see [mission.SeamsOnly]), and a run is a
// deterministic function of the scenario, the seed, the environment, the
// inputs and what its seam calls return (model answers are cached per
// request, so the same request gets the same answer). What a build
// changes outside its seams is not probed, so such a build is always
// executed: a build whose team re-recorded its goldens
// (BuildSpec.Rebaseline), which design A.wire and the golden designs
// score against; and the clean build itself. Slips and faults belong to
// the environment, the same for every build. The oracle of a taken item
// records nothing: no seam reached, and slips, faults and redeliveries are
// the twin's. A taken item whose trace bytes the run would keep (a sampled
// item) is executed, since the twin's bytes are not held; a flagged one
// takes the twin's trace hash.
//
// Within a mutant unit that is executed, a core run is served from the
// twin when the twin executed the same run (same agent and inputs; the
// scenario, seed and environment are the unit's) and no seam of the
// build could act in it there: the probe records the candidates that
// could act in each core run alone ([mission.Probe.BeginRun]). The design
// gets the twin's run, charged its cost and crediting its oracle with what
// the twin's recorded (nothing reached), as a run shared within a unit is
// served (see [itemMission]). Designs stay blind: they ask the mission for
// a run, as always.
type selection struct {
	pl       *plan
	eligible []bool // per build: may be taken from its twin
	cands    []int  // the eligible builds, in the probe's candidate order
	twins    []twin // per clean unit

	// ran and served count the runs the executed mutant items executed
	// and the core runs served to them from twins, fromTrials the runs
	// served to them from other trials (see [trialMemo]).
	ran, served, fromTrials atomic.Int64

	// Whether a twin holds its core runs is decided in twin order, so
	// that which twins hold them does not depend on which worker finished
	// first: next is the first twin not decided, held the estimated size
	// of the runs held by the twins before it, at most budget.
	mu     sync.Mutex
	next   int
	held   int64
	budget int64 // heldBudget unless a test says otherwise
}

// heldBudget bounds the estimated size of the twins' core runs a sweep
// holds (see [coreRunSize]); a twin that would exceed it holds none. The
// twins are held until the sweep ends (every mutant build visits every
// twin in turn, builds in plan order), and the collector's target
// multiplies what stays live: on the default mission's protocol with
// designs A, B and C (20 trials) holding every twin's runs (37 MB by this
// estimate, about 55 MB of heap) served 55,109 of the 117,139 runs the
// executed mutant items would execute, for 590 MB more peak resident set
// at GOGC 800. A bound that does not grow with the trials keeps the memory
// of a long run flat; this one served 6,145 of those runs for about 40 MB
// of peak (314 MB without held runs, 356 MB with; 1 MB: 1,567 runs, 329
// MB).
const heldBudget = 4 << 20

// twin is what a mutant unit needs of its clean twin: its rows, its
// coverage and, within the budget, its core runs, known once ready is
// closed. The rows are kept compact and gzipped (some 0.6 KB a unit,
// against 5 KB as rows): every clean unit's are held until the sweep ends, and the
// collector's target multiplies what stays live.
type twin struct {
	ready  chan struct{}
	ok     bool   // probed and complete: rows and covers hold
	covers []bool // per build
	rows   []byte // the []twinItem of the unit's slots (see appendTwin), gzipped
	// cores are the twin's core runs by key (see [appendCoreKey]), nil
	// when none are held; size is their estimated size. They are known
	// once decided is closed.
	cores    map[string]*heldCore
	size     int64
	finished bool // readied by this session or before it (under mu)
	decided  chan struct{}
	// part are the rows of a clean unit stored in part before the
	// session, in slot order: the unit is probed again (see probing).
	// covered says its coverage row is stored already (a session probed
	// it whole, and stopped before all its rows were stored).
	part    []row
	covered bool
}

// heldCore is a twin's core run and the builds that could act in it.
type heldCore struct {
	core   sharedCore
	covers bitset // by build
}

// twinItem is what a taken row copies from its twin's.
type twinItem struct {
	Item     reports.Item
	Findings []designs.Finding
	TraceSHA string
	TraceLen int
}

// packTwin encodes a clean unit's rows, one per slot, with m's compressor
// (see [appendTwin]).
func packTwin(m *unitMemo, rows []row) ([]byte, error) {
	items := make([]twinItem, len(rows))
	for i, r := range rows {
		items[i] = twinItem{Item: r.item, Findings: r.findings, TraceSHA: r.traceSHA, TraceLen: r.traceLen}
	}
	b, err := appendTwin(m.twinScratch[:0], reflect.ValueOf(items))
	if err != nil {
		return nil, fmt.Errorf("keep clean twin: %w", err)
	}
	m.twinScratch = b
	gz, err := m.gzip(b)
	if err != nil {
		return nil, fmt.Errorf("keep clean twin: %w", err)
	}
	return bytes.Clone(gz), nil // the compressor's buffer is a quarter of b
}

// unpackTwin decodes what packTwin encoded, with m's decompressor.
func unpackTwin(m *unitMemo, data []byte) ([]twinItem, error) {
	var err error
	if m.zr == nil {
		m.zr, err = gzip.NewReader(bytes.NewReader(data))
	} else {
		err = m.zr.Reset(bytes.NewReader(data))
	}
	if err != nil {
		return nil, err
	}
	m.unzipped.Reset()
	if _, err := io.Copy(&m.unzipped, m.zr); err != nil {
		return nil, err
	}
	var items []twinItem
	r := twinReader{b: m.unzipped.Bytes()}
	r.read(reflect.ValueOf(&items).Elem())
	if r.err == nil && len(r.b) > 0 {
		r.err = errTwinCodec
	}
	return items, r.err
}

// selectionOf is the selection a sweep applies, and why it is off when
// the protocol asks for coverage.
func selectionOf(pl *plan, opt Options) (Selection, string) {
	switch {
	case pl.proto.SelectionMode() == SelectOff:
		return SelectOff, ""
	case opt.noSelection:
		return SelectOff, "every unit executed on request"
	case !mission.SeamsOnly(pl.mission):
		return SelectOff, "the mission is not made by mission.New, so no probe of its seams sees all a build changes"
	case opt.Remote != nil && pl.cores != nil && len(pl.cores.agents) > 0:
		// The coordinator's model cores answer from the cache alone
		// (remotemodels.go): it cannot execute the clean units to probe.
		return SelectOff, "a distributed run with model cores hands every unit out: the coordinator asks no endpoint, so it executes no clean unit to probe"
	}
	return SelectCoverage, ""
}

// newSelection returns the sweep's coverage selection, nil when no build
// could be taken from its twin. done is what the store held when the
// session started: a clean unit stored with its coverage is ready, one
// stored in part is probed again (see [selection.probing]).
func newSelection(pl *plan, s *store, done bitset) (*selection, error) {
	sel := &selection{pl: pl, eligible: make([]bool, len(pl.builds)), budget: heldBudget}
	for i, b := range pl.builds {
		if i > 0 && b.Rebaseline == "" {
			sel.eligible[i] = true
			sel.cands = append(sel.cands, i)
		}
	}
	if len(sel.cands) == 0 {
		return nil, nil
	}
	n := len(pl.scenarios) * pl.trials
	sel.twins = make([]twin, n)
	stored := false
	for i := range sel.twins {
		tw := &sel.twins[i]
		tw.ready, tw.decided = make(chan struct{}), make(chan struct{})
		stored = stored || storedSlots(pl, done, i) > 0
	}
	if stored {
		if err := sel.readTwins(s, done); err != nil {
			return nil, fmt.Errorf("read clean twins: %w", err)
		}
	}
	for i := range sel.twins {
		select {
		case <-sel.twins[i].ready:
			sel.decide(i) // stored before: no runs held
		default:
		}
	}
	return sel, nil
}

// storedSlots counts the stored items of unit u.
func storedSlots(pl *plan, done bitset, u int) int {
	k := 0
	for slot := range pl.slots() {
		if done.has(itemIndex(pl, u, slot)) {
			k++
		}
	}
	return k
}

// readTwins readies the clean units the store holds whole: with their
// coverage when it was recorded, else as never probed. Of those it holds
// in part it keeps the rows, for the probe to run the unit again.
func (sel *selection) readTwins(s *store, done bitset) error {
	pl := sel.pl
	covered := map[int][]int{}
	err := eachRow(s.db, "SELECT unit, builds, checksum FROM coverage", func(scan func(...any) error) error {
		var (
			unit, sum int64
			builds    string
		)
		if err := scan(&unit, &builds, &sum); err != nil {
			return err
		}
		if coverageChecksum(unit, []byte(builds)) != sum {
			return damaged("coverage row %d does not match its checksum", unit)
		}
		var bs []int
		if err := json.Unmarshal([]byte(builds), &bs); err != nil {
			return damaged("coverage row %d: %v", unit, err)
		}
		covered[int(unit)] = bs
		return nil
	})
	if err != nil {
		return err
	}
	nm, err := s.checked()
	if err != nil {
		return err
	}
	rows := map[int][]row{}
	var m unitMemo
	err = s.scan(nm, "{i}.ord < ?", []any{int64(len(sel.twins) * pl.slots())}, func(it *storedItem) error {
		if _, ok := covered[it.unit]; ok || storedSlots(pl, done, it.unit) < pl.slots() {
			rows[it.unit] = append(rows[it.unit], storedRow(it))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range sel.twins {
		tw := &sel.twins[i]
		switch k := storedSlots(pl, done, i); {
		case k == 0:
			continue
		case k < pl.slots() && len(rows[i]) == k:
			slices.SortFunc(rows[i], func(a, b row) int { return a.ord - b.ord })
			_, tw.covered = covered[i]
			tw.part = rows[i]
			continue
		}
		if bs, ok := covered[i]; ok && len(rows[i]) == pl.slots() {
			if tw.rows, err = packTwin(&m, rows[i]); err != nil {
				return err
			}
			tw.ok, tw.covers = true, make([]bool, len(pl.builds))
			for _, b := range bs {
				if b >= 0 && b < len(tw.covers) {
					tw.covers[b] = true
				}
			}
		}
		close(tw.ready)
	}
	return nil
}

// storedRow is a stored item as a twin's row.
func storedRow(it *storedItem) row {
	return row{ord: it.ord, item: it.item, findings: append([]designs.Finding(nil), it.findings...),
		traceSHA: it.traceSHA, traceLen: it.traceSize}
}

// newProbe returns a probe of the candidate mutants for one worker: each
// switched on with an oracle of the probe's own.
func (sel *selection) newProbe() *mission.Probe {
	builds := make([]mission.Build, len(sel.cands))
	for i, b := range sel.cands {
		builds[i] = sel.pl.builds[b].Switch(&mission.Oracle{})
	}
	return mission.NewProbe(builds)
}

// probing returns p, reset, when clean unit u is to be probed (it was not
// readied when the session started), else nil. The items of u stored
// before the session (one interrupted within the unit) are executed again
// first, with memo m and the probe, for its coverage and its core runs:
// their rows are not stored again (finish takes the stored ones), and
// what their model calls cost counts as this session's.
func (sel *selection) probing(ctx context.Context, u unit, p *mission.Probe, m *unitMemo) (*mission.Probe, error) {
	if u.build != 0 {
		return nil, nil
	}
	tw := &sel.twins[u.index]
	select {
	case <-tw.ready:
		return nil, nil
	default:
	}
	p.Reset()
	m.probe = p
	for _, r := range tw.part {
		if _, err := sel.pl.evaluate(ctx, u, r.ord%sel.pl.slots(), m); err != nil {
			m.probe = nil
			return nil, err
		}
	}
	return p, nil
}

// finish readies clean unit u's twin from the rows its session evaluated
// and those stored before it (one per slot when complete) and, when p
// probed it, marks the first row evaluated with the coverage to store,
// unless it is stored already.
func (sel *selection) finish(u unit, rows []row, p *mission.Probe, m *unitMemo) error {
	tw := &sel.twins[u.index]
	select {
	case <-tw.ready:
		return nil // stored before: readied when the session started
	default:
	}
	defer func() {
		close(tw.ready)
		sel.decide(u.index)
	}()
	if p == nil || len(tw.part)+len(rows) != sel.pl.slots() || len(rows) == 0 {
		return nil
	}
	all := rows
	if len(tw.part) > 0 {
		all = append(slices.Clone(tw.part), rows...)
		slices.SortFunc(all, func(a, b row) int { return a.ord - b.ord })
		tw.part = nil
	}
	data, err := packTwin(m, all)
	if err != nil {
		return err
	}
	tw.covers = make([]bool, len(sel.pl.builds))
	cov := []int{}
	for i, b := range sel.cands {
		if p.Covers(i) {
			tw.covers[b] = true
			cov = append(cov, b)
		}
	}
	if !tw.covered {
		rows[0].probed, rows[0].coverage = true, cov
	}
	tw.rows, tw.ok = data, true
	tw.cores, tw.size = sel.hold(m.cores)
	return nil
}

// decide marks twin i finished and decides, in twin order, whether each
// finished twin keeps its core runs within the budget.
func (sel *selection) decide(i int) {
	sel.mu.Lock()
	defer sel.mu.Unlock()
	sel.twins[i].finished = true
	for ; sel.next < len(sel.twins) && sel.twins[sel.next].finished; sel.next++ {
		tw := &sel.twins[sel.next]
		if tw.cores != nil && sel.held+tw.size <= sel.budget {
			sel.held += tw.size
		} else {
			tw.cores = nil
		}
		close(tw.decided)
	}
}

// hold returns the core runs of a probed clean unit to hold for its
// mutant units, each with a trace of its own (the unit's are recycled),
// and their estimated size; nil when there are none or they alone
// exceed the budget.
func (sel *selection) hold(cores map[string]*sharedCore) (map[string]*heldCore, int64) {
	var size int64
	for k, c := range cores {
		size += int64(len(k) + coreRunSize(c.run))
	}
	if len(cores) == 0 || size > sel.budget {
		return nil, 0
	}
	out := make(map[string]*heldCore, len(cores))
	for k, c := range cores {
		h := &heldCore{core: *c, covers: newBitset(len(sel.pl.builds))}
		run := *c.run
		if run.Trace != nil {
			run.Trace = &mission.Trace{Events: slices.Clone(run.Trace.Events)}
		}
		h.core.run, h.core.covers = &run, nil
		for _, i := range c.covers {
			h.covers.set(sel.cands[i])
		}
		out[k] = h
	}
	return out, size
}

// eventSize is the size of a trace event without what it points to.
var eventSize = int(reflect.TypeFor[mission.Event]().Size())

// coreRunSize estimates the memory a held core run takes: its events and
// the bytes they and its emitted messages hold (its calls and result
// are about as large again as its tool-call and result events).
func coreRunSize(cr *mission.CoreRun) int {
	n := 256 + traceSize(cr.Trace)
	for e, b := range cr.Emitted {
		n += 64 + len(e) + len(b)
	}
	return n
}

// traceSize estimates the memory a trace's events take, with what they
// hold (see [coreRunSize]).
func traceSize(t *mission.Trace) int {
	n := 0
	if t != nil {
		for i := range t.Events {
			e := &t.Events[i]
			n += eventSize + len(e.Item) + len(e.Args) + len(e.Output) + len(e.Raw) + len(e.Parsed) + len(e.Error) + len(e.Key) + len(e.Reason)
			if e.Kind == mission.EventToolCall || e.Kind == mission.EventResult {
				n += 2 * (len(e.Args) + len(e.Output) + len(e.Parsed))
			}
		}
	}
	return n
}

// heldRuns returns the core runs of u's clean twin that u's items may be
// served, nil when there are none. It waits for the twin.
func (sel *selection) heldRuns(ctx context.Context, u unit) map[string]*heldCore {
	if !sel.eligible[u.build] {
		return nil
	}
	tw := &sel.twins[u.index%len(sel.twins)]
	select {
	case <-tw.decided:
		return tw.cores
	case <-ctx.Done():
		return nil
	}
}

// take returns the rows of mutant unit u taken from its clean twin,
// sealed, one per slot; a slot to execute or stored already has none (ok
// false). It takes nothing when its build is not eligible, the twin was
// not probed or a seam of the build could act in it; of the rest it
// takes every item but those whose trace bytes the run keeps (a sampled
// item: the twin's bytes are not held). It waits for the twin.
func (sel *selection) take(ctx context.Context, u unit, done bitset, sample float64, flagged bool, m *unitMemo, scratch *[]byte) ([]takenRow, error) {
	pl := sel.pl
	if !sel.eligible[u.build] {
		return nil, nil
	}
	tw := &sel.twins[u.index%len(sel.twins)]
	select {
	case <-tw.ready:
	case <-ctx.Done():
		return nil, nil
	}
	if !tw.ok || tw.covers[u.build] {
		return nil, nil
	}
	items, err := unpackTwin(m, tw.rows)
	if err != nil {
		return nil, fmt.Errorf("clean twin of %s: %w", pl.unitKey(u), err)
	}
	b, sc := pl.builds[u.build].Info, pl.scenarios[u.scenario]
	out := make([]takenRow, len(items))
	for slot, t := range items {
		if done.has(itemIndex(pl, u.index, slot)) {
			continue // stored by a session interrupted within the unit
		}
		r := row{ord: itemIndex(pl, u.index, slot), item: t.Item, findings: t.Findings, fromTwin: true,
			twin: itemIndex(pl, u.index%len(sel.twins), slot)}
		r.item.Build, r.item.Class, r.item.Location = b.ID, b.Class, b.Location
		r.id = ItemID(b.ID, r.item.Design, sc.ID, u.trial)
		o := outcome{row: r}
		switch o.keepTrace(pl.seed, sample, flagged) {
		case keepBytes:
			continue
		case keepHash:
			if t.TraceSHA == "" {
				continue
			}
			r.traceSHA, r.traceLen = t.TraceSHA, t.TraceLen
		}
		r.seal(u, scratch)
		out[slot] = takenRow{r, true}
	}
	return out, nil
}

// takenRow is a slot's row taken from the twin, when ok.
type takenRow struct {
	row row
	ok  bool
}

// selectionUse fills sel's counts from the stored items.
func (s *store) selectionUse(sel *reports.Selection) error {
	q := `SELECT (SELECT count(*) FROM outcomes) + count(k.ord), count(k.ord), coalesce(sum(o.model_calls), 0),
		coalesce(sum(o.tokens), 0), (SELECT count(*) FROM units), (SELECT count(DISTINCT unit) FROM outcomes)
		FROM taken k JOIN outcomes o ON o.ord = k.twin`
	err := s.db.QueryRow(q).Scan(&sel.Items, &sel.ItemsTaken, &sel.ModelCallsAvoided, &sel.TokensAvoided, &sel.Units, &sel.UnitsExecuted)
	if err != nil {
		return fmt.Errorf("count the items taken from clean twins: %w", err)
	}
	meta, err := s.meta()
	if err != nil {
		return err
	}
	sel.RunsExecuted, _ = strconv.ParseInt(meta[metaRunsExecuted], 10, 64)
	sel.RunsServed, _ = strconv.ParseInt(meta[metaRunsServed], 10, 64)
	sel.RunsFromTrials, _ = strconv.ParseInt(meta[metaRunsFromTrials], 10, 64)
	return nil
}

// The meta keys of the runs the executed mutant items executed, the
// core runs served to them from their twins and the runs served to them
// from other trials, over every session.
const (
	metaRunsExecuted   = "mutant_runs_executed"
	metaRunsServed     = "mutant_runs_from_twin"
	metaRunsFromTrials = "mutant_runs_from_trials"
)

// addRunCounts adds a session's run counts to the store's.
func (s *store) addRunCounts(ran, served, fromTrials int64) error {
	meta, err := s.meta()
	if err != nil {
		return err
	}
	out := map[string]string{}
	for k, n := range map[string]int64{metaRunsExecuted: ran, metaRunsServed: served, metaRunsFromTrials: fromTrials} {
		had, _ := strconv.ParseInt(meta[k], 10, 64)
		out[k] = strconv.FormatInt(had+n, 10)
	}
	return s.setMeta(out)
}

// remoteSelect is coverage selection for a distributed sweep: the
// coordinator executes the clean units itself, probing them, then stores
// the mutant units taken whole from their twins, and marks both done in
// ses.done, so that only the units and items left are handed out (a
// mutant unit some items of which are taken is handed out for the rest).
// It returns the items stored before the hand-out, and whether it selects
// (some build may be taken from its twin).
func remoteSelect(ctx context.Context, ses *session, lv *live, sample float64, opt Options) (int, bool, error) {
	pl, s, done := ses.pl, ses.s, ses.done
	sel, err := newSelection(pl, s, done)
	if err != nil || sel == nil {
		return ses.skipped, false, err
	}
	clean := len(sel.twins) * pl.slots()
	if err := sweepUnits(ctx, pl, s, done, ses.skipped, ses.man.Workers, sample, lv, opt, sel, len(sel.twins)); err != nil {
		return 0, false, err
	}
	skipped := ses.skipped
	for i := range clean {
		if !done.has(i) {
			done.set(i)
			skipped++
		}
	}
	var progress func(int)
	if opt.Progress != nil {
		from := skipped
		progress = func(n int) { opt.Progress(from+n, pl.total()) }
	}
	var observe func([]row) error
	if lv != nil {
		observe = lv.observe
	}
	w := s.startWriter(opt.Batch, progress, observe)
	var (
		rows    []row
		scratch []byte
		memo    unitMemo
	)
	for i := len(sel.twins); i < pl.units() && ctx.Err() == nil; i++ {
		u := pl.unitAt(i)
		taken, err := sel.take(ctx, u, done, sample, !opt.SampleTracesOnly, &memo, &scratch)
		if err != nil {
			w.close()
			return 0, false, err
		}
		for slot, t := range taken {
			if !t.ok {
				continue // handed out
			}
			rows = append(rows, t.row)
			done.set(itemIndex(pl, i, slot))
			skipped++
		}
		if len(rows) >= sendRows {
			w.send(rows)
			rows = nil
		}
	}
	if len(rows) > 0 {
		w.send(rows)
	}
	if err := w.close(); err != nil {
		return 0, false, err
	}
	return skipped, true, ctx.Err()
}
