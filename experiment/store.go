package experiment

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/reports"
)

// StoreSchema identifies the layout of runs.db. v2 added the items'
// trajectory matcher counts (match_n, match_exact, match_name_only,
// match_order_ignored); v3 keys items by their place in the plan (ord),
// which the writer appends in, instead of (build, design, scenario,
// trial). An older store is refused, not migrated.
const StoreSchema = "baton.runs/v3"

// schema is runs.db's layout. Booleans are 0/1; seeds are decimal text
// (SQLite integers are signed); blame and evidence are JSON. An item's ord
// is its place in the plan (see [itemIndex]): workers finish items in
// nearly that order and the writer sorts each batch, so it appends. Keyed
// by (build, design, scenario, trial), inserted at four places at once,
// the default sweep's items cost the writer a sixth more CPU.
const schema = `
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS builds (
	id          TEXT PRIMARY KEY,
	ord         INTEGER NOT NULL,
	class       TEXT NOT NULL,
	location    TEXT NOT NULL,
	operator    TEXT NOT NULL,
	description TEXT NOT NULL,
	status      TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS scenarios (
	id       TEXT PRIMARY KEY,
	ord      INTEGER NOT NULL,
	category TEXT NOT NULL,
	tags     TEXT NOT NULL,
	title    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS items (
	ord            INTEGER PRIMARY KEY,
	id             TEXT NOT NULL,
	build          TEXT NOT NULL,
	design         TEXT NOT NULL,
	scenario       TEXT NOT NULL,
	trial          INTEGER NOT NULL,
	seed           TEXT NOT NULL,
	flagged        INTEGER NOT NULL,
	blame          TEXT NOT NULL,
	findings       INTEGER NOT NULL,
	model_calls    INTEGER NOT NULL,
	tool_calls     INTEGER NOT NULL,
	tokens         INTEGER NOT NULL,
	sandbox_resets INTEGER NOT NULL,
	wall_ns        INTEGER NOT NULL,
	slipped        INTEGER NOT NULL,
	faulted        INTEGER NOT NULL,
	reached        INTEGER NOT NULL,
	success        INTEGER NOT NULL,
	match_n             INTEGER NOT NULL,
	match_exact         INTEGER NOT NULL,
	match_name_only     INTEGER NOT NULL,
	match_order_ignored INTEGER NOT NULL,
	trace_hash     TEXT NOT NULL,
	trace          TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS findings (
	item_id  TEXT NOT NULL,
	seq      INTEGER NOT NULL,
	rule     TEXT NOT NULL,
	message  TEXT NOT NULL,
	location TEXT NOT NULL,
	evidence TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS traces (
	sha256 TEXT PRIMARY KEY,
	size   INTEGER NOT NULL,
	data   BLOB NOT NULL
);
`

// store is a run folder's runs.db.
type store struct {
	db   *sql.DB
	path string
}

// openStore opens (creating if needed) a run store. Results regenerate
// from the protocol, so durability is traded for speed: WAL with
// synchronous=OFF survives a killed process (a committed batch stays
// committed) but not necessarily a power loss. Temporary data (the
// statement journal of each multi-row insert) stays in memory.
func openStore(path string) (*store, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)&_pragma=busy_timeout(10000)" +
		"&_pragma=temp_store(MEMORY)&_pragma=wal_autocheckpoint(16384)" // statement journals of multi-row inserts: no temp file writes
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open run store: %w", err)
	}
	db.SetMaxOpenConns(1) // one writer; pragmas hold per connection
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("open run store %s: %w", path, err)
	}
	return &store{db: db, path: path}, nil
}

// openStoreExisting opens a run folder's runs.db, which must exist.
func openStoreExisting(runDir string) (*store, error) {
	path := filepath.Join(runDir, StoreFile)
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	return openStore(path)
}

// checkpoint copies the write-ahead log into the database file, so that
// close has little left to do.
func (s *store) checkpoint() error {
	if _, err := s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("checkpoint run store: %w", err)
	}
	return nil
}

// close checkpoints the WAL into the database file, leaves it as one file
// (journal_mode DELETE) for auditors, and closes it.
func (s *store) close() error {
	_, err1 := s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE")
	err2 := s.db.Close()
	if err1 != nil {
		return fmt.Errorf("close run store: %w", err1)
	}
	if err2 != nil {
		return fmt.Errorf("close run store: %w", err2)
	}
	return nil
}

// meta reads the meta table.
func (s *store) meta() (map[string]string, error) {
	rows, err := s.db.Query("SELECT key, value FROM meta")
	if err != nil {
		return nil, fmt.Errorf("read run store meta: %w", err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("read run store meta: %w", err)
		}
		m[k] = v
	}
	return m, rows.Err()
}

// setMeta writes meta entries.
func (s *store) setMeta(kv map[string]string) error {
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("write run store meta: %w", err)
	}
	defer tx.Rollback()
	for k, v := range kv {
		if _, err := tx.Exec("INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", k, v); err != nil {
			return fmt.Errorf("write run store meta: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write run store meta: %w", err)
	}
	return nil
}

// describe writes the plan's builds and scenarios (again, on resume).
func (s *store) describe(pl *plan) error {
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("write run store: %w", err)
	}
	defer tx.Rollback()
	for i, b := range pl.builds {
		if _, err := tx.Exec(`INSERT INTO builds(id, ord, class, location, operator, description) VALUES(?, ?, ?, ?, ?, ?)
			ON CONFLICT(id) DO UPDATE SET ord = excluded.ord, class = excluded.class, location = excluded.location,
			operator = excluded.operator, description = excluded.description`,
			b.Info.ID, i, b.Info.Class, b.Info.Location, b.Info.Operator, b.Info.Description); err != nil {
			return fmt.Errorf("write run store builds: %w", err)
		}
	}
	for i, sc := range pl.scenarios {
		tags, _ := json.Marshal(sc.Tags)
		if _, err := tx.Exec(`INSERT INTO scenarios(id, ord, category, tags, title) VALUES(?, ?, ?, ?, ?)
			ON CONFLICT(id) DO UPDATE SET ord = excluded.ord, category = excluded.category, tags = excluded.tags, title = excluded.title`,
			sc.ID, i, string(sc.Category), string(tags), sc.Title); err != nil {
			return fmt.Errorf("write run store scenarios: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write run store: %w", err)
	}
	return nil
}

// index adds the indexes aggregation, auditors and replay read by, once the
// sweep's inserts are done (maintaining them during the sweep would slow
// it).
func (s *store) index() error {
	// Sorting every finding may spill: to disk, so memory stays flat in the
	// size of the run (openStore keeps temporary data in memory for the
	// writer's statement journals).
	if _, err := s.db.Exec(`PRAGMA temp_store=FILE`); err != nil {
		return fmt.Errorf("index run store: %w", err)
	}
	if _, err := s.db.Exec(`CREATE INDEX IF NOT EXISTS findings_item ON findings(item_id)`); err != nil {
		return fmt.Errorf("index run store: %w", err)
	}
	return nil
}

// setStatus records each mutant's status from the results.
func (s *store) setStatus(rows []reports.MutantRow) error {
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("write mutant status: %w", err)
	}
	defer tx.Rollback()
	for _, r := range rows {
		if _, err := tx.Exec("UPDATE builds SET status = ? WHERE id = ?", r.Status, r.ID); err != nil {
			return fmt.Errorf("write mutant status: %w", err)
		}
	}
	return tx.Commit()
}

// bitset marks done items by plan index.
type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }

// itemIndex is the place in the plan of unit u's item in slot s (0 the
// observation run, then the designs in protocol order): units in plan
// order, then slots. runs.db keys items by it (items.ord).
func itemIndex(pl *plan, u, s int) int { return u*pl.slots() + s }

// done reads which of the plan's items are stored. The set is one bit per
// planned item, so it stays small however many items a run has.
func (s *store) done(pl *plan) (bitset, int, error) {
	set := newBitset(pl.total())
	rows, err := s.db.Query("SELECT ord, build, design, scenario, trial FROM items")
	if err != nil {
		return nil, 0, fmt.Errorf("read stored items: %w", err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var b, d, sc string
		var ord, t int
		if err := rows.Scan(&ord, &b, &d, &sc, &t); err != nil {
			return nil, 0, fmt.Errorf("read stored items: %w", err)
		}
		bi, ok1 := pl.buildIdx[b]
		si, ok2 := pl.scenarioIdx[sc]
		di, ok3 := pl.designIdx[d]
		if !ok1 || !ok2 || !ok3 || t < 1 || t > pl.trials {
			return nil, 0, fmt.Errorf("%w: stored item %s is not in this protocol's plan", ErrForeignRun, ItemID(b, d, sc, t))
		}
		i := itemIndex(pl, pl.unitIndex(bi, si, t), di)
		if i != ord {
			return nil, 0, fmt.Errorf("%w: stored item %s has ord %d, this protocol's plan places it at %d", ErrForeignRun, ItemID(b, d, sc, t), ord, i)
		}
		set.set(i) // ord is the table's key: each item is stored once
		n++
	}
	return set, n, rows.Err()
}

// row is one item as the writer stores it. ord is its place in the plan
// (see [itemIndex]); traceSHA names the item's kept trace ("" when none is
// kept); traceGZ carries its gzipped bytes the first time a unit sends it.
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
	w := &writer{s: s, ch: make(chan []row, writerQueue), batch: batch, progress: progress, observe: observe, done: make(chan struct{})}
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

const (
	itemColumns    = "ord, id, build, design, scenario, trial, seed, flagged, blame, findings, model_calls, tool_calls, tokens, sandbox_resets, wall_ns, slipped, faulted, reached, success, match_n, match_exact, match_name_only, match_order_ignored, trace_hash, trace"
	itemParams     = 25
	findingColumns = "item_id, seq, rule, message, location, evidence"
	findingParams  = 6
	insertTrace    = `INSERT INTO traces(sha256, size, data) VALUES(?, ?, ?) ON CONFLICT(sha256) DO NOTHING`
	// chunk is the rows per multi-row INSERT: one statement step binds
	// many rows, which costs much less per row than one step each.
	chunk = 32
)

// insertSQL returns a multi-row INSERT of n rows.
func insertSQL(table, columns string, params, n int) string {
	one := "(" + strings.Repeat("?, ", params-1) + "?)"
	return "INSERT INTO " + table + "(" + columns + ") VALUES " + strings.TrimSuffix(strings.Repeat(one+", ", n), ", ")
}

// stmts are the writer's prepared statements.
type stmts struct {
	item, items, finding, findings, trace *sql.Stmt
}

func (w *writer) prepare() (*stmts, error) {
	st := &stmts{}
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&st.item, insertSQL("items", itemColumns, itemParams, 1)},
		{&st.items, insertSQL("items", itemColumns, itemParams, chunk)},
		{&st.finding, insertSQL("findings", findingColumns, findingParams, 1)},
		{&st.findings, insertSQL("findings", findingColumns, findingParams, chunk)},
		{&st.trace, insertTrace},
	} {
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
	for _, s := range []*sql.Stmt{st.item, st.items, st.finding, st.findings, st.trace} {
		if s != nil {
			s.Close()
		}
	}
}

func (w *writer) loop() {
	defer close(w.done)
	st, err := w.prepare()
	if err != nil {
		w.err = fmt.Errorf("run store writer: %w", err)
	} else {
		defer st.close()
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
		pending = append(pending, rows...)
		w.written += len(rows)
		if len(pending) >= w.batch {
			w.err = w.flush(st, pending)
			clear(pending)
			pending = pending[:0]
		}
		if w.progress != nil && w.err == nil {
			w.progress(w.written)
		}
	}
	if w.err == nil && len(pending) > 0 {
		w.err = w.flush(st, pending)
	}
}

// flush writes rows in one transaction.
func (w *writer) flush(st *stmts, rows []row) error {
	tx, err := w.s.db.Begin()
	if err != nil {
		return fmt.Errorf("run store writer: %w", err)
	}
	defer tx.Rollback()
	args := make([]any, 0, chunk*itemParams)
	items, one := tx.Stmt(st.items), tx.Stmt(st.item)
	// Items go in in key order: two workers' rows interleave, and
	// inserting at two places of the table costs more than appending.
	order := make([]int32, len(rows))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(rows[a].ord, rows[b].ord) })
	for i := 0; i < len(rows); {
		n := min(chunk, len(rows)-i)
		if n < chunk {
			n = 1
		}
		args = args[:0]
		for _, k := range order[i : i+n] {
			args = appendItemArgs(args, &rows[k])
		}
		s := items
		if n == 1 {
			s = one
		}
		if _, err := s.Exec(args...); err != nil {
			return fmt.Errorf("run store writer: items from %s: %w", rows[i].id, err)
		}
		i += n
	}
	// Findings, chunk rows to a statement like the items; evidence is JSON.
	type ref struct{ row, seq int }
	var refs []ref
	for i := range rows {
		for j := range rows[i].findings {
			refs = append(refs, ref{i, j})
		}
	}
	findings, fone := tx.Stmt(st.findings), tx.Stmt(st.finding)
	var ev []byte
	for i := 0; i < len(refs); {
		n := min(chunk, len(refs)-i)
		if n < chunk {
			n = 1
		}
		args = args[:0]
		for _, rf := range refs[i : i+n] {
			r := &rows[rf.row]
			f := &r.findings[rf.seq]
			ev = appendEvidence(ev[:0], f.Evidence)
			args = append(args, r.id, int64(rf.seq), f.Rule, f.Message, string(f.Location), string(ev))
		}
		s := findings
		if n == 1 {
			s = fone
		}
		if _, err := s.Exec(args...); err != nil {
			return fmt.Errorf("run store writer: findings of %s: %w", rows[refs[i].row].id, err)
		}
		i += n
	}
	trace := tx.Stmt(st.trace)
	for _, r := range rows {
		if r.traceGZ != nil {
			if _, err := trace.Exec(r.traceSHA, r.traceLen, r.traceGZ); err != nil {
				return fmt.Errorf("run store writer: trace of %s: %w", r.id, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("run store writer: commit: %w", err)
	}
	return nil
}

// appendItemArgs appends the itemColumns values of r. Integers go as
// int64, the driver's own type, which database/sql passes on unconverted.
func appendItemArgs(args []any, r *row) []any {
	it := &r.item
	blame := "[]"
	if len(it.Blame) > 0 {
		blame = string(appendStrings(nil, it.Blame))
	}
	i := func(n int) any { return int64(n) }
	return append(args, int64(r.ord), r.id, it.Build, it.Design, it.Scenario, i(it.Trial), strconv.FormatUint(it.Seed, 10),
		b2i(it.Flagged), blame, i(it.Findings),
		i(it.Cost.ModelCalls), i(it.Cost.ToolCalls), i(it.Cost.Tokens), i(it.Cost.SandboxResets), it.WallNS,
		b2i(it.Slipped), b2i(it.Faulted), i(it.Reached), b2i(it.Success),
		i(it.MatchN), i(it.MatchExact), i(it.MatchNameOnly), i(it.MatchOrderIgnored), it.TraceHash, r.traceSHA)
}

// appendEvidence appends e as json.Marshal writes it (TestStoreJSON).
func appendEvidence(b []byte, e designs.Evidence) []byte {
	b = append(b, `{"run":`...)
	b = jsontext.AppendString(b, e.Run, true)
	if e.Seq != 0 {
		b = strconv.AppendInt(append(b, `,"seq":`...), int64(e.Seq), 10)
	}
	if e.Item != "" {
		b = jsontext.AppendString(append(b, `,"item":`...), e.Item, true)
	}
	if e.Field != "" {
		b = jsontext.AppendString(append(b, `,"field":`...), e.Field, true)
	}
	return append(b, '}')
}

// appendStrings appends ss as json.Marshal writes a non-nil []string.
func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, s, true)
	}
	return append(b, ']')
}

func b2i(b bool) any {
	if b {
		return int64(1)
	}
	return int64(0)
}

// streamQuery reads items in plan order (ord), without sorting (a large
// run's rows would take memory in proportion to them): the clean build,
// first in every plan, before the mutants, the order aggregation needs
// whatever order the items were written in.
const streamQuery = `SELECT build, design, scenario, trial, seed, flagged, blame, findings,
	model_calls, tool_calls, tokens, sandbox_resets, wall_ns, slipped, faulted, reached, success,
	match_n, match_exact, match_name_only, match_order_ignored, trace_hash
	FROM items ORDER BY ord`

// stream reads every stored item in plan order and hands it to fn, with
// the class and location of its build and the category of its scenario
// from the plan. Only one row is held at a time.
func (s *store) stream(pl *plan, fn func(reports.Item) error) error {
	rows, err := s.db.Query(streamQuery)
	if err != nil {
		return fmt.Errorf("read stored items: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var it reports.Item
		var seed, blame string
		var flagged, slipped, faulted, success int
		if err := rows.Scan(&it.Build, &it.Design, &it.Scenario, &it.Trial, &seed,
			&flagged, &blame, &it.Findings, &it.Cost.ModelCalls, &it.Cost.ToolCalls, &it.Cost.Tokens, &it.Cost.SandboxResets,
			&it.WallNS, &slipped, &faulted, &it.Reached, &success,
			&it.MatchN, &it.MatchExact, &it.MatchNameOnly, &it.MatchOrderIgnored, &it.TraceHash); err != nil {
			return fmt.Errorf("read stored items: %w", err)
		}
		bi, ok1 := pl.buildIdx[it.Build]
		si, ok2 := pl.scenarioIdx[it.Scenario]
		if !ok1 || !ok2 {
			return fmt.Errorf("%w: stored item %s is not in this protocol's plan", ErrForeignRun, ItemID(it.Build, it.Design, it.Scenario, it.Trial))
		}
		it.Class, it.Location = pl.builds[bi].Info.Class, pl.builds[bi].Info.Location
		it.Category = string(pl.scenarios[si].Category)
		if it.Seed, err = strconv.ParseUint(seed, 10, 64); err != nil {
			return fmt.Errorf("read stored items: seed %q: %w", seed, err)
		}
		if blame != "[]" && blame != "" {
			if err := json.Unmarshal([]byte(blame), &it.Blame); err != nil {
				return fmt.Errorf("read stored items: blame %q: %w", blame, err)
			}
		}
		it.Flagged, it.Slipped, it.Faulted, it.Success = flagged == 1, slipped == 1, faulted == 1, success == 1
		if err := fn(it); err != nil {
			return err
		}
	}
	return rows.Err()
}

// count returns how many items are stored.
func (s *store) count() (int, error) {
	var n int
	err := s.db.QueryRow("SELECT count(*) FROM items").Scan(&n)
	return n, err
}

// storedItem reads item id, stored at ord, its findings and the hash of
// its kept trace ("" when none was kept), for replay. A missing item is
// (nil, nil, "", nil).
func (s *store) storedItem(ord int, id string) (*reports.Item, []designs.Finding, string, error) {
	var it reports.Item
	var seed, blame, trace string
	var flagged, slipped, faulted, success int
	err := s.db.QueryRow(`SELECT build, design, scenario, trial, seed, flagged, blame, findings,
		model_calls, tool_calls, tokens, sandbox_resets, slipped, faulted, reached, success,
		match_n, match_exact, match_name_only, match_order_ignored, trace_hash, trace
		FROM items WHERE ord = ? AND id = ?`, ord, id).Scan(&it.Build, &it.Design, &it.Scenario, &it.Trial, &seed, &flagged, &blame,
		&it.Findings, &it.Cost.ModelCalls, &it.Cost.ToolCalls, &it.Cost.Tokens, &it.Cost.SandboxResets,
		&slipped, &faulted, &it.Reached, &success,
		&it.MatchN, &it.MatchExact, &it.MatchNameOnly, &it.MatchOrderIgnored, &it.TraceHash, &trace)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, "", nil
	}
	if err != nil {
		return nil, nil, "", fmt.Errorf("read item %s: %w", id, err)
	}
	if it.Seed, err = strconv.ParseUint(seed, 10, 64); err != nil {
		return nil, nil, "", fmt.Errorf("read item %s: seed %q: %w", id, seed, err)
	}
	if blame != "[]" && blame != "" {
		if err := json.Unmarshal([]byte(blame), &it.Blame); err != nil {
			return nil, nil, "", fmt.Errorf("read item %s: blame %q: %w", id, blame, err)
		}
	}
	it.Flagged, it.Slipped, it.Faulted, it.Success = flagged == 1, slipped == 1, faulted == 1, success == 1
	rows, err := s.db.Query("SELECT rule, message, location, evidence FROM findings WHERE item_id = ? ORDER BY seq", id)
	if err != nil {
		return nil, nil, "", fmt.Errorf("read findings of %s: %w", id, err)
	}
	defer rows.Close()
	var fs []designs.Finding
	for rows.Next() {
		var f designs.Finding
		var loc, ev string
		if err := rows.Scan(&f.Rule, &f.Message, &loc, &ev); err != nil {
			return nil, nil, "", fmt.Errorf("read findings of %s: %w", id, err)
		}
		f.Location = mission.Location(loc)
		if err := json.Unmarshal([]byte(ev), &f.Evidence); err != nil {
			return nil, nil, "", fmt.Errorf("read findings of %s: evidence: %w", id, err)
		}
		fs = append(fs, f)
	}
	return &it, fs, trace, rows.Err()
}

// nowUTC formats a wall-clock time for the manifest.
func nowUTC(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
