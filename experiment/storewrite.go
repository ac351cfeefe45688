package experiment

import (
	"cmp"
	"database/sql"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/reports"
)

// row is one item as the writer stores it. ord is its place in the plan
// (see [itemIndex]); traceSHA names the item's kept trace ("" when none is
// kept) and traceLen its size; traceGZ carries its gzipped bytes the first
// time a unit sends it.
type row struct {
	ord      int
	id       string
	item     reports.Item
	findings []designs.Finding
	traceSHA string
	traceLen int
	traceGZ  []byte
	// traceLine is the item's line of traces/<build>.jsonl, when a fresh
	// sweep writes the kept traces as it goes (see [liveTraces]).
	traceLine []byte

	// What seal fills on the worker, so that the writer only looks up
	// and binds.
	sealed   bool
	blame    string   // the blame as JSON
	evidence []string // each finding's evidence as JSON
	keys     []string // each finding's key in the findings dictionary
	checksum int64
	// unit is set on the first item a unit stores (its observation run,
	// slot 0): the unit's units row goes with it.
	unit         bool
	unitChecksum int64

	// fromTwin marks a row taken from its clean twin, not executed (see [selection]), and twin is
	// the twin's ord; probed, on a clean unit's first row, that
	// coverage lists the builds whose seams could act in the unit.
	fromTwin bool
	twin     int
	probed   bool
	coverage []int
}

// seal prepares r for the writer: the JSON of its blame and evidence, its
// findings' dictionary keys (an executed row's) and its checksums. u is r's unit; scratch is
// the worker's buffer.
func (r *row) seal(u unit, scratch *[]byte) {
	it := &r.item
	r.blame = "[]"
	if len(it.Blame) > 0 {
		r.blame = string(appendStrings((*scratch)[:0], it.Blame))
	}
	r.evidence, r.keys = nil, nil
	if n := len(r.findings); n > 0 {
		r.evidence = make([]string, n)
		if !r.fromTwin { // a taken row's findings are its twin's rows
			r.keys = make([]string, n)
		}
		for i := range r.findings {
			f := &r.findings[i]
			r.evidence[i] = string(appendEvidence((*scratch)[:0], f.Evidence))
			if r.keys != nil {
				r.keys[i] = findingKey(f.Rule, f.Message, string(f.Location), r.evidence[i])
			}
		}
	}
	r.checksum = r.outcomeChecksum(scratch)
	if r.item.Design == "" {
		r.unit = true
		*scratch = appendUnitSum((*scratch)[:0], u.index, it.TraceHash, it.EndHash)
		r.unitChecksum = checksum(*scratch)
	}
	r.sealed = true
}

// outcomeChecksum is the checksum of r's outcomes row, its blame, its
// findings and its kept trace's hash: what a reader recomputes from the
// row and the dictionary rows it refers to.
func (r *row) outcomeChecksum(scratch *[]byte) int64 {
	it := &r.item
	b := (*scratch)[:0]
	b = append(b, 'o')
	var vs [32]int64
	v := append(vs[:0], int64(r.ord), b2n(it.Flagged), int64(it.Findings))
	v = appendCost(v, it.Cost)
	v = append(v, it.WallNS, b2n(it.Slipped), b2n(it.Faulted), int64(it.Reached), b2n(it.Success),
		int64(it.MatchN), int64(it.MatchExact), int64(it.MatchNameOnly), int64(it.MatchOrderIgnored))
	for _, x := range v {
		b = binary.AppendVarint(b, x)
	}
	if c := coordinationBits(it.Coordination); c != 0 {
		b = binary.AppendVarint(b, c)
	}
	b = appendField(b, r.blame)
	b = appendField(b, r.traceSHA)
	for i := range r.findings {
		f := &r.findings[i]
		b = appendField(appendField(appendField(appendField(b, f.Rule), f.Message), string(f.Location)), r.evidence[i])
	}
	*scratch = b
	return checksum(b)
}

// crcTable is the Castagnoli polynomial's table: CRC-32C, which the CPU
// computes (SSE 4.2, ARMv8), is the checksum of every row of runs.db.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

// checksum is the CRC-32C of b.
func checksum(b []byte) int64 { return int64(crc32.Checksum(b, crcTable)) }

// appendField appends s, its length first.
func appendField(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendUnitSum(b []byte, ord int, runSHA, endSHA string) []byte {
	b = binary.AppendVarint(append(b, 'u'), int64(ord))
	return appendField(appendField(b, runSHA), endSHA)
}

func endStateChecksum(id int64, sha string) int64 {
	return checksum(appendField(binary.AppendVarint([]byte{'e'}, id), sha))
}

func blameChecksum(id int64, blame string) int64 {
	return checksum(appendField(binary.AppendVarint([]byte{'b'}, id), blame))
}

func findingChecksum(id int64, rule, message, location, evidence string) int64 {
	b := binary.AppendVarint([]byte{'f'}, id)
	return checksum(appendField(appendField(appendField(appendField(b, rule), message), location), evidence))
}

func traceChecksum(id int64, sha string, size int64, stored bool) int64 {
	b := binary.AppendVarint([]byte{'t'}, id)
	b = appendField(b, sha)
	b = binary.AppendVarint(b, size)
	return checksum(binary.AppendVarint(b, b2n(stored)))
}

// findingKey is a finding's key in the writer's dictionary: its four
// texts, each after its length.
func findingKey(rule, message, location, evidence string) string {
	b := make([]byte, 0, len(rule)+len(message)+len(location)+len(evidence)+8)
	return string(appendField(appendField(appendField(appendField(b, rule), message), location), evidence))
}

func b2n(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// writer is the single goroutine that owns inserts: workers send it the
// rows of a unit; it commits every batch rows.
type writer struct {
	s        *store
	ch       chan []row
	batch    int
	progress func(n int)
	observe  func(rows []row) error
	done     chan struct{}
	err      error
	written  int
	dict     *dictionaries
	// executed marks the ords of the outcomes rows the store holds, as
	// far as the writer knows (see [writer.ready]).
	executed bitset
	// order and sorted are the buffers of [writer.sortByOrd], buf those
	// of the inserts.
	order  []int32
	sorted []row
	buf    rowBuffers
	// stored are the traces whose bytes this writer has been handed,
	// which the sweep's workers need not compress again.
	stored *storedTraces
}

// storedTraces is a set of trace hashes whose bytes a writer has been
// handed, shared with the workers that feed it: a worker compresses a kept
// trace's bytes only when the store may lack them (403 of the 2,422
// trace compressions of the default run with designs A, B and C were of
// traces handed over already).
// The writer adds a hash when it receives the row that carries the bytes,
// so a row sent without them after that is stored in the same batch or a
// later one: when it comes first in key order, the trace's row is
// inserted with the hash alone and given its bytes by the other, as when
// an item that keeps only the hash precedes one that keeps the bytes. The
// rows are the same as if every row carried the bytes. (An interrupted
// sweep may commit the first and not the other, whose item a resume runs
// again with the bytes.)
type storedTraces struct {
	mu sync.RWMutex
	m  map[string]struct{}
}

// storedTracesMax bounds the set (some 100 bytes a hash): full, it is
// emptied, and the workers compress again what it forgot.
const storedTracesMax = 1 << 16

func newStoredTraces() *storedTraces { return &storedTraces{m: map[string]struct{}{}} }

// has reports whether the bytes of trace sha are stored; a nil set knows
// of none.
func (t *storedTraces) has(sha string) bool {
	if t == nil {
		return false
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	_, ok := t.m[sha]
	return ok
}

func (t *storedTraces) add(sha string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.m) >= storedTracesMax {
		clear(t.m)
	}
	t.m[sha] = struct{}{}
}

// dictionaries are the writer's maps of what runs.db's dictionary tables
// hold, so that each distinct blame, finding, trace and end state is
// stored once. Blames and findings are few (hundreds in a default run,
// whatever its trials) and held whole; traces and end states grow with
// the units, so the writer holds a bounded cache of them and looks a key
// it lacks up in runs.db (both tables index sha256).
type dictionaries struct {
	blames   map[string]int64
	findings map[string]int64
	traces   boundedCache[traceRef]
	ends     boundedCache[int64]
	next     struct{ blame, finding, trace, end int64 }
}

// dictionaryCache is how many trace and how many end-state keys the run store
// writer holds at most (about 130 bytes each): a unit's items and its
// neighbours' share most of theirs, and a key seen again after it was
// dropped costs an INSERT that does nothing and an indexed SELECT.
const dictionaryCache = 1 << 12

// boundedCache maps keys to values, holding at most max keys: full, it is
// emptied and starts again.
type boundedCache[V any] struct {
	m   map[string]V
	max int
}

func newBoundedCache[V any](max int) boundedCache[V] {
	return boundedCache[V]{m: make(map[string]V), max: max}
}

func (c *boundedCache[V]) get(k string) (V, bool) { v, ok := c.m[k]; return v, ok }

func (c *boundedCache[V]) put(k string, v V) {
	if _, ok := c.m[k]; !ok && len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[k] = v
}

// traceRef is a trace's row in the traces table.
type traceRef struct {
	id     int64
	stored bool // the bytes are stored, not only the hash
}

// DefaultBatch is the rows per run store transaction when Options.Batch is
// 0: fewer commits cost the writer less (each rewrites the pages it
// touched into the write-ahead log), and an interrupted sweep loses at
// most one batch, which a resume re-runs.
const DefaultBatch = 4000

// writerQueue is how many hand-overs of rows (sendRows each) wait for the
// writer: about 1,000 rows, enough that a lone worker goes on computing
// while the writer commits a batch (about 30 ms for DefaultBatch rows, in
// which it finishes some 600 items), and few enough that the rows waiting
// for a writer that competes with two workers for two cores hold little.
const writerQueue = 16

// startWriter starts the writer. progress, if not nil, is called from the
// writer goroutine with the count of rows received so far; observe, if not
// nil, is handed every batch of rows received, on the same goroutine,
// before they are stored: an error from it stops the writer like a failed
// insert.
func (s *store) startWriter(batch int, progress func(n int), observe func(rows []row) error) *writer {
	if batch < 1 {
		batch = DefaultBatch
	}
	s.nm, s.full = nil, false // the dictionaries grow
	w := &writer{s: s, ch: make(chan []row, writerQueue), batch: batch, progress: progress, observe: observe, done: make(chan struct{}),
		stored: newStoredTraces()}
	go w.loop()
	return w
}

// send hands rows to the writer. It never blocks on a failed writer for
// long: after a failure the writer drains and drops.
func (w *writer) send(rows []row) { w.ch <- rows }

// close stops the writer after every sent row is committed.
func (w *writer) close() error {
	close(w.ch)
	<-w.done
	return w.err
}

// chunk is the rows per multi-row INSERT: one statement step binds many
// rows, which costs much less per row than one step each.
const chunk = 32

// The packings of the tables the sweep appends to (see [packing]): the
// widths fit every value a sweep stores but the unusual (an ord past
// 2^31, a count past 255), whose chunk is bound plain.
var (
	unitPacking = newPacking("units", []packedColumn{
		{name: "ord", bits: 31}, {name: "checksum", bits: 32}, {name: "run_sha256", other: true}, {name: "end_state"}})
	outcomePacking = newPacking("outcomes", slices.Concat([]packedColumn{
		{name: "ord", bits: 31}, {name: "checksum", bits: 32},
		{name: "wall_ns", bits: 40}, {name: "blame", bits: 23},
		{name: "trace", bits: 31, null: true}, {name: "flags", bits: 32},
	}, costPacking(), []packedColumn{
		{name: "reached", bits: 7}, {name: "match_n", bits: 8},
		{name: "match_exact", bits: 8}, {name: "match_name_only", bits: 8}, {name: "match_order_ignored", bits: 8},
	}))
	takenPacking   = newPacking("taken", []packedColumn{{name: "ord", bits: 31}, {name: "checksum", bits: 32}, {name: "trace", null: true}})
	findingPacking = newPacking("item_findings", []packedColumn{{name: "item", bits: 31}, {name: "seq", bits: 8}, {name: "finding", bits: 24}})
	writerPackings = []*packing{unitPacking, outcomePacking, takenPacking, findingPacking}
)

// insertSQL returns a multi-row INSERT of n rows.
func insertSQL(table, columns string, params, n int) string {
	one := "(" + strings.Repeat("?, ", params-1) + "?)"
	return "INSERT INTO " + table + "(" + columns + ") VALUES " + strings.TrimSuffix(strings.Repeat(one+", ", n), ", ")
}

// stmts are the writer's prepared statements: a single-row and a chunk-row
// insert per table the sweep appends to, and the dictionaries' inserts.
type stmts struct {
	units, outcomes, taken, findings bulkInsert
	blame, finding, trace, stored    *sql.Stmt
	coverage, findOutcome            *sql.Stmt
	end, findTrace, findEnd          *sql.Stmt
}

func (w *writer) prepare() (*stmts, error) {
	st := &stmts{units: bulkInsert{p: unitPacking}, outcomes: bulkInsert{p: outcomePacking},
		taken: bulkInsert{p: takenPacking}, findings: bulkInsert{p: findingPacking}}
	type prep struct {
		dst **sql.Stmt
		sql string
	}
	var bulk []prep
	for _, b := range []*bulkInsert{&st.units, &st.outcomes, &st.taken, &st.findings} {
		texts := b.sql()
		for i, dst := range b.statements() {
			bulk = append(bulk, prep{dst, texts[i]})
		}
	}
	for _, p := range append(bulk, []prep{
		{&st.blame, "INSERT INTO blames(id, blame, checksum) VALUES(?, ?, ?)"},
		{&st.finding, "INSERT INTO finding_texts(id, rule, message, location, evidence, checksum) VALUES(?, ?, ?, ?, ?, ?)"},
		{&st.trace, "INSERT INTO traces(id, sha256, size, data, checksum) VALUES(?, ?, ?, ?, ?) ON CONFLICT(sha256) DO NOTHING"},
		{&st.stored, "UPDATE traces SET data = ?, checksum = ? WHERE id = ?"},
		{&st.coverage, "INSERT INTO coverage(unit, builds, checksum) VALUES(?, ?, ?)"},
		{&st.end, "INSERT INTO end_states(id, sha256, checksum) VALUES(?, ?, ?) ON CONFLICT(sha256) DO NOTHING"},
		{&st.findTrace, "SELECT id, data IS NOT NULL FROM traces WHERE sha256 = ?"},
		{&st.findEnd, "SELECT id FROM end_states WHERE sha256 = ?"},
		{&st.findOutcome, "SELECT count(*) FROM outcomes WHERE ord = ?"},
	}...) {
		s, err := w.s.db.Prepare(p.sql)
		if err != nil {
			st.close()
			return nil, err
		}
		*p.dst = s
	}
	return st, nil
}

func (st *stmts) close() {
	all := []*sql.Stmt{st.blame, st.finding, st.trace, st.stored, st.end, st.findTrace, st.findEnd,
		st.coverage, st.findOutcome}
	for _, b := range []*bulkInsert{&st.units, &st.outcomes, &st.taken, &st.findings} {
		all = append(all, b.packed[0], b.packed[1], b.plain[0], b.plain[1])
	}
	for _, s := range all {
		if s != nil {
			s.Close()
		}
	}
}

func (w *writer) loop() {
	defer close(w.done)
	st, err := w.prepare()
	if err == nil {
		defer st.close()
		w.dict, err = w.s.writerDictionaries()
	}
	if err != nil {
		w.err = fmt.Errorf("run store writer: %w", err)
	}
	var pending []row
	for rows := range w.ch {
		if w.err != nil {
			continue // drain so workers never block
		}
		if w.observe != nil {
			if w.err = w.observe(rows); w.err != nil {
				continue
			}
		}
		for i := range rows {
			if rows[i].traceGZ != nil {
				w.stored.add(rows[i].traceSHA)
			}
		}
		pending = append(pending, rows...)
		w.written += len(rows)
		if len(pending) >= w.batch {
			pending, w.err = w.flush(st, pending)
		}
		if w.progress != nil && w.err == nil {
			w.progress(w.written)
		}
	}
	if w.err == nil && len(pending) > 0 {
		if pending, w.err = w.flush(st, pending); w.err == nil && len(pending) > 0 {
			w.err = fmt.Errorf("run store writer: %d items taken from a clean twin whose row was never stored, from %s", len(pending), pending[0].id)
		}
	}
}

// writerDictionaries reads what the blame and finding dictionaries hold,
// and the next trace and end-state ids (a resumed sweep adds to them).
func (s *store) writerDictionaries() (*dictionaries, error) {
	n := cmp.Or(s.dictCache, dictionaryCache)
	d := &dictionaries{blames: map[string]int64{}, findings: map[string]int64{},
		traces: newBoundedCache[traceRef](n), ends: newBoundedCache[int64](n)}
	err := eachRow(s.db, "SELECT id, blame FROM blames", func(sc func(...any) error) error {
		var id int64
		var blame string
		if err := sc(&id, &blame); err != nil {
			return err
		}
		d.blames[blame], d.next.blame = id, max(d.next.blame, id+1)
		return nil
	})
	if err == nil {
		err = eachRow(s.db, "SELECT id, rule, message, location, evidence FROM finding_texts", func(sc func(...any) error) error {
			var id int64
			var rule, msg, loc, ev string
			if err := sc(&id, &rule, &msg, &loc, &ev); err != nil {
				return err
			}
			d.findings[findingKey(rule, msg, loc, ev)], d.next.finding = id, max(d.next.finding, id+1)
			return nil
		})
	}
	if err == nil {
		err = s.db.QueryRow("SELECT coalesce(max(id) + 1, 0) FROM traces").Scan(&d.next.trace)
	}
	if err == nil {
		err = s.db.QueryRow("SELECT coalesce(max(id) + 1, 0) FROM end_states").Scan(&d.next.end)
	}
	if err != nil {
		return nil, fmt.Errorf("read dictionaries: %w", err)
	}
	return d, nil
}

// eachRow runs query and calls fn with a scanner for each row.
func eachRow(db *sql.DB, query string, fn func(scan func(...any) error) error, args ...any) error {
	rows, err := db.Query(query, args...)
	return eachOf(rows, err, fn)
}

// eachStmtRow is [eachRow] of a prepared statement.
func eachStmtRow(st *sql.Stmt, fn func(scan func(...any) error) error, args ...any) error {
	rows, err := st.Query(args...)
	return eachOf(rows, err, fn)
}

// eachOf calls fn with a scanner for each of rows, the result of a query
// that returned err.
func eachOf(rows *sql.Rows, err error, fn func(scan func(...any) error) error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

// refs are a batch's dictionary ids, by position in the batch.
type refs struct {
	blame, trace []int64 // trace: -1 for none
	findings     []int64 // every row's finding ids, in order
	end          []int64 // a unit's first row's end-state id
}

// flush writes rows in one transaction: first the dictionary entries the
// rows bring, then units, outcomes, taken items and item findings, each
// in key order (two workers' rows interleave, and inserting at two places
// of a table costs more than appending). A taken row whose twin's row is
// not stored yet is held back: flush returns the rows held, at the start
// of rows, for the next flush.
func (w *writer) flush(st *stmts, rows []row) ([]row, error) {
	tx, err := w.s.db.Begin()
	if err != nil {
		return nil, fmt.Errorf("run store writer: %w", err)
	}
	defer tx.Rollback()
	sorted := w.sortByOrd(rows)
	defer clear(sorted) // the writer's copy holds no row past the flush
	now, held, err := w.ready(tx, st, sorted)
	if err != nil {
		return nil, fmt.Errorf("run store writer: %w", err)
	}
	if len(now) > 0 {
		if err := w.insert(tx, st, now); err != nil {
			return nil, err
		}
		if err := tx.Commit(); err != nil {
			return nil, fmt.Errorf("run store writer: commit: %w", err)
		}
	}
	out := append(rows[:0], held...)
	clear(rows[len(out):cap(rows)])
	return out, nil
}

// sortByOrd returns rows in key order, in the writer's own buffer: it
// sorts their places and copies each row once (a row is some 600 bytes,
// which a sort's swaps would copy many times over).
func (w *writer) sortByOrd(rows []row) []row {
	idx := w.order[:0]
	for i := range rows {
		idx = append(idx, int32(i))
	}
	slices.SortFunc(idx, func(a, b int32) int { return cmp.Compare(rows[a].ord, rows[b].ord) })
	out := w.sorted[:0]
	for _, i := range idx {
		out = append(out, rows[i])
	}
	w.order, w.sorted = idx, out
	return out
}

// ready splits rows, in order, into those to store now and the taken rows
// whose twin's row the store does not hold yet (a worker that took them
// can hand them over before the worker that ran the twin does). It marks
// the executed rows as stored.
func (w *writer) ready(tx *sql.Tx, st *stmts, rows []row) (now, held []row, err error) {
	for i := range rows {
		if !rows[i].fromTwin {
			w.executed.mark(rows[i].ord)
		}
	}
	n := 0
	for i := range rows {
		r := &rows[i]
		if r.fromTwin && !w.executed.holds(r.twin) {
			var k int
			if err := tx.Stmt(st.findOutcome).QueryRow(int64(r.twin)).Scan(&k); err != nil {
				return nil, nil, fmt.Errorf("twin of %s: %w", r.id, err)
			}
			if k == 0 {
				held = append(held, *r)
				continue
			}
			w.executed.mark(r.twin) // stored by an earlier session
		}
		if n != i { // a row is some 600 bytes: copied only to close a gap
			rows[n] = *r
		}
		n++
	}
	return rows[:n], held, nil
}

// insert writes rows, in key order, within tx.
func (w *writer) insert(tx *sql.Tx, st *stmts, rows []row) error {
	var rf refs
	if err := w.lookup(tx, st, rows, &rf); err != nil {
		return fmt.Errorf("run store writer: %w", err)
	}
	buf := &w.buf
	var units, executed, taken []int
	for i := range rows {
		if rows[i].unit {
			units = append(units, i)
		}
		if rows[i].fromTwin {
			taken = append(taken, i)
		} else {
			executed = append(executed, i)
		}
	}
	err := st.units.insert(tx, buf, len(units), func(k int, v []int64, t []any) ([]int64, []any) {
		i := units[k]
		r := &rows[i]
		return append(v, int64(r.ord/w.s.slots), r.unitChecksum, 0, rf.end[i]), append(t, r.item.TraceHash)
	})
	if err != nil {
		return fmt.Errorf("run store writer: units from %s: %w", rows[0].id, err)
	}
	if err := insertCoverage(tx.Stmt(st.coverage), rows, w.s.slots); err != nil {
		return fmt.Errorf("run store writer: coverage from %s: %w", rows[0].id, err)
	}
	err = st.outcomes.insert(tx, buf, len(executed), func(k int, v []int64, t []any) ([]int64, []any) {
		i := executed[k]
		return appendOutcomeInts(v, &rows[i], rf.blame[i], rf.trace[i]), t
	})
	if err != nil {
		return fmt.Errorf("run store writer: items from %s: %w", rows[0].id, err)
	}
	err = st.taken.insert(tx, buf, len(taken), func(k int, v []int64, t []any) ([]int64, []any) {
		i := taken[k]
		return append(v, int64(rows[i].ord), rows[i].checksum, rf.trace[i]), t
	})
	if err != nil {
		return fmt.Errorf("run store writer: taken items from %s: %w", rows[0].id, err)
	}
	type fref struct{ row, seq int }
	var frefs []fref
	for _, i := range executed {
		for j := range rows[i].findings {
			frefs = append(frefs, fref{i, j})
		}
	}
	err = st.findings.insert(tx, buf, len(frefs), func(k int, v []int64, t []any) ([]int64, []any) {
		return append(v, int64(rows[frefs[k].row].ord), int64(frefs[k].seq), rf.findings[k]), t
	})
	if err != nil {
		return fmt.Errorf("run store writer: findings from %s: %w", rows[0].id, err)
	}
	return nil
}

// lookup finds, in key order, each row's blame, finding and trace ids,
// adding to the dictionaries what is new.
func (w *writer) lookup(tx *sql.Tx, st *stmts, rows []row, rf *refs) error {
	d := w.dict
	rf.blame, rf.trace = make([]int64, len(rows)), make([]int64, len(rows))
	rf.end = make([]int64, len(rows))
	for i := range rows {
		r := &rows[i]
		if !r.sealed {
			return fmt.Errorf("item %s: row not sealed", r.id)
		}
		tid, err := w.traceID(tx, st, r)
		if err != nil {
			return fmt.Errorf("trace of %s: %w", r.id, err)
		}
		rf.trace[i] = tid
		if r.unit {
			if rf.end[i], err = w.endID(tx, st, r.item.EndHash); err != nil {
				return fmt.Errorf("end state of %s: %w", r.id, err)
			}
		}
		if r.fromTwin {
			continue // the twin's row names its blame and findings
		}
		id, ok := d.blames[r.blame]
		if !ok {
			id = d.next.blame
			d.next.blame++
			if _, err := tx.Stmt(st.blame).Exec(id, r.blame, blameChecksum(id, r.blame)); err != nil {
				return fmt.Errorf("blame of %s: %w", r.id, err)
			}
			d.blames[r.blame] = id
		}
		rf.blame[i] = id
		for j, key := range r.keys {
			id, ok := d.findings[key]
			if !ok {
				f := &r.findings[j]
				id = d.next.finding
				d.next.finding++
				sum := findingChecksum(id, f.Rule, f.Message, string(f.Location), r.evidence[j])
				if _, err := tx.Stmt(st.finding).Exec(id, f.Rule, f.Message, string(f.Location), r.evidence[j], sum); err != nil {
					return fmt.Errorf("finding of %s: %w", r.id, err)
				}
				d.findings[key] = id
			}
			rf.findings = append(rf.findings, id)
		}
	}
	return nil
}

// endID returns the id of an end-state hash in the end_states
// dictionary, adding it when new.
func (w *writer) endID(tx *sql.Tx, st *stmts, sha string) (int64, error) {
	d := w.dict
	if id, ok := d.ends.get(sha); ok {
		return id, nil
	}
	id := d.next.end
	inserted, err := insertNew(tx.Stmt(st.end), id, sha, endStateChecksum(id, sha))
	switch {
	case err != nil:
		return 0, err
	case inserted:
		d.next.end++
	default: // stored before, dropped from the cache
		if err := tx.Stmt(st.findEnd).QueryRow(sha).Scan(&id); err != nil {
			return 0, err
		}
	}
	d.ends.put(sha, id)
	return id, nil
}

// insertNew runs a dictionary's INSERT, which does nothing when the key
// is stored already, and reports whether it inserted the row.
func insertNew(stmt *sql.Stmt, args ...any) (bool, error) {
	res, err := stmt.Exec(args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// traceID returns the id of r's kept trace (-1 for none), storing its
// hash, and its bytes when r carries them and they are not stored yet.
func (w *writer) traceID(tx *sql.Tx, st *stmts, r *row) (int64, error) {
	if r.traceSHA == "" {
		return -1, nil
	}
	d := w.dict
	stored := r.traceGZ != nil
	ref, ok := d.traces.get(r.traceSHA)
	if !ok {
		// Not in the cache: new, or stored before and dropped from it.
		ref = traceRef{d.next.trace, stored}
		var data any // NULL: the hash only
		if stored {
			data = r.traceGZ
		}
		sum := traceChecksum(ref.id, r.traceSHA, int64(r.traceLen), stored)
		if inserted, err := insertNew(tx.Stmt(st.trace), ref.id, r.traceSHA, int64(r.traceLen), data, sum); err != nil || inserted {
			if inserted {
				d.next.trace++
				d.traces.put(r.traceSHA, ref)
			}
			return ref.id, err
		}
		if err := tx.Stmt(st.findTrace).QueryRow(r.traceSHA).Scan(&ref.id, &ref.stored); err != nil {
			return 0, err
		}
		d.traces.put(r.traceSHA, ref)
	}
	if stored && !ref.stored {
		sum := traceChecksum(ref.id, r.traceSHA, int64(r.traceLen), true)
		if _, err := tx.Stmt(st.stored).Exec(r.traceGZ, sum, ref.id); err != nil {
			return 0, err
		}
		ref.stored = true
		d.traces.put(r.traceSHA, ref)
	}
	return ref.id, nil
}

// appendOutcomeInts appends r's values in outcomePacking's order.
func appendOutcomeInts(v []int64, r *row, blame, trace int64) []int64 {
	it := &r.item
	v = append(v, int64(r.ord), r.checksum, it.WallNS, blame, trace, flagBits(it))
	v = appendCost(v, it.Cost)
	return append(v, int64(it.Reached), int64(it.MatchN), int64(it.MatchExact), int64(it.MatchNameOnly), int64(it.MatchOrderIgnored))
}

// flagBits packs an item's booleans as outcomes.flags holds them: flagged
// 1, slipped 2, faulted 4, success 8, and from bit 4 an observation run's
// coordination verdicts (see coordinationShift).
func flagBits(it *reports.Item) int64 {
	return b2n(it.Flagged) | b2n(it.Slipped)<<1 | b2n(it.Faulted)<<2 | b2n(it.Success)<<3 |
		coordinationBits(it.Coordination)<<coordinationShift
}

// appendEvidence appends e as encoding/json writes it with HTML escaping
// off (TestStoreJSON): "intake->action", not "intake-\u003eaction".
func appendEvidence(b []byte, e designs.Evidence) []byte {
	b = append(b, `{"run":`...)
	b = jsontext.AppendString(b, e.Run, false)
	if e.Seq != 0 {
		b = strconv.AppendInt(append(b, `,"seq":`...), int64(e.Seq), 10)
	}
	if e.Item != "" {
		b = jsontext.AppendString(append(b, `,"item":`...), e.Item, false)
	}
	if e.Field != "" {
		b = jsontext.AppendString(append(b, `,"field":`...), e.Field, false)
	}
	return append(b, '}')
}

// appendStrings appends ss as encoding/json writes a non-nil []string
// with HTML escaping off.
func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, s, false)
	}
	return append(b, ']')
}

// insertCoverage stores the coverage of the probed clean units among rows.
func insertCoverage(stmt *sql.Stmt, rows []row, slots int) error {
	for i := range rows {
		r := &rows[i]
		if !r.probed {
			continue
		}
		u := int64(r.ord / slots)
		b := appendInts(nil, r.coverage)
		if _, err := stmt.Exec(u, string(b), coverageChecksum(u, b)); err != nil {
			return err
		}
	}
	return nil
}

// appendInts appends xs as a JSON array.
func appendInts(b []byte, xs []int) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}

func coverageChecksum(unit int64, builds []byte) int64 {
	b := binary.AppendVarint([]byte{'v'}, unit)
	return checksum(append(b, builds...))
}
