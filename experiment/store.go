package experiment

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/baton-lab/baton/reports"
)

// StoreSchema identifies the layout of runs.db. v10 has v9's tables and
// views that join fast: items and findings list executed and taken items
// in two arms, each keyed by a stored ord (see schemaTemplate), where
// v9's computed keys made a join of two views compare every row with
// every row. v9 stores an item taken
// from its clean twin as a reference to the twin's row (the taken table:
// its place, its kept trace and its checksum; its values and findings are
// the twin's, read through it), where v8 copied the twin's row and
// findings. v8 marks the items taken
// from their clean twin instead of executed (outcomes.from_twin, in the
// items view) and keeps each probed clean unit's coverage (coverage). v7
// keeps each distinct
// end-state hash once (the end_states dictionary; units name theirs by
// id: a default run's 30,720 units left 691 end states) and drops the
// unique indexes of the blame and finding dictionaries, which only the
// writer, with its own maps, needed. v6 adds the tokens the
// models read and wrote (tokens_in, tokens_out). v5 splits the sandbox
// resets into environment and fixture resets and adds the counters of
// emits, parses, contract checks and attribution steps. v4 stores each fact once
// (one row per executed unit, one per item with integer keys, dictionaries
// of blames, findings and traces), checks every row with a checksum and
// offers views for auditors (items, findings, item_flags, suite_runs,
// detection_cells). v3 kept one wide row per item, keyed by its place in
// the plan. An older store is refused, not migrated.
const StoreSchema = "baton.runs/v10"

// ObservationName is the name of the observation run in the designs table
// of runs.db.
const ObservationName = "observation run"

// schemaSQL is runs.db's layout for a plan. A unit's build, scenario and
// trial follow from its place in the plan (units.ord), and an item's unit
// and design (slot) from its own (outcomes.ord): they are generated
// columns, computed when read, never stored, and so are the four booleans
// packed in outcomes.flags. The views join by them. Booleans are 0/1; seeds are decimal text (SQLite integers
// are signed); blame and evidence are JSON. See the README's "The run
// store" for every table, view and column.
func schemaSQL(pl *plan) string {
	return strings.NewReplacer("{item_values}", itemValues, "{slots}", strconv.Itoa(pl.slots()), "{scenarios}", strconv.Itoa(len(pl.scenarios)),
		"{trials}", strconv.Itoa(pl.trials), "{clean}", reports.CleanBuild).Replace(schemaTemplate)
}

// itemValues are the items view's columns from flagged to trace_stored,
// the same in both of its arms: o is the outcomes row whose values the
// item has (its own, or its twin's), u its unit, tr its kept trace.
const itemValues = `o.flagged AS flagged, bl.blame AS blame, (SELECT count(*) FROM item_findings f WHERE f.item = o.ord) AS findings,
	o.model_calls AS model_calls, o.tool_calls AS tool_calls, o.tokens AS tokens, o.tokens_in AS tokens_in, o.tokens_out AS tokens_out,
	o.environment_resets AS environment_resets, o.fixture_resets AS fixture_resets,
	o.emits AS emits, o.parses AS parses, o.contract_checks AS contract_checks,
	o.attribution_steps AS attribution_steps, o.wall_ns AS wall_ns,
	o.slipped AS slipped, o.faulted AS faulted, o.reached AS reached, o.success AS success,
	o.match_n AS match_n, o.match_exact AS match_exact, o.match_name_only AS match_name_only,
	o.match_order_ignored AS match_order_ignored,
	CASE WHEN d.ord = 0 THEN u.run_sha256 ELSE '' END AS run_sha256,
	CASE WHEN d.ord = 0 THEN (SELECT e.sha256 FROM end_states e WHERE e.id = u.end_state) ELSE '' END AS end_sha256,
	coalesce(tr.sha256, '') AS trace_sha256,
	tr.data IS NOT NULL AS trace_stored`

const schemaTemplate = `
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE builds (
	ord         INTEGER PRIMARY KEY,
	id          TEXT NOT NULL UNIQUE,
	class       TEXT NOT NULL,
	location    TEXT NOT NULL,
	operator    TEXT NOT NULL,
	description TEXT NOT NULL,
	status      TEXT NOT NULL DEFAULT ''
);
CREATE TABLE scenarios (
	ord      INTEGER PRIMARY KEY,
	id       TEXT NOT NULL UNIQUE,
	category TEXT NOT NULL,
	tags     TEXT NOT NULL,
	title    TEXT NOT NULL
);
CREATE TABLE designs (
	ord  INTEGER PRIMARY KEY,
	id   TEXT NOT NULL UNIQUE,
	name TEXT NOT NULL
);
CREATE TABLE trials (
	scenario INTEGER NOT NULL,
	trial    INTEGER NOT NULL,
	seed     TEXT NOT NULL,
	PRIMARY KEY (scenario, trial)
) WITHOUT ROWID;
CREATE TABLE units (
	ord        INTEGER PRIMARY KEY,
	build      INTEGER GENERATED ALWAYS AS (ord / ({scenarios} * {trials})) VIRTUAL,
	scenario   INTEGER GENERATED ALWAYS AS (ord / {trials} % {scenarios}) VIRTUAL,
	trial      INTEGER GENERATED ALWAYS AS (ord % {trials} + 1) VIRTUAL,
	run_sha256 TEXT NOT NULL,
	end_state  INTEGER NOT NULL,
	checksum   INTEGER NOT NULL
);
CREATE TABLE coverage (
	unit     INTEGER PRIMARY KEY,
	builds   TEXT NOT NULL,
	checksum INTEGER NOT NULL
);
CREATE TABLE end_states (
	id       INTEGER PRIMARY KEY,
	sha256   TEXT NOT NULL UNIQUE,
	checksum INTEGER NOT NULL
);
CREATE TABLE outcomes (
	ord                 INTEGER PRIMARY KEY,
	unit                INTEGER GENERATED ALWAYS AS (ord / {slots}) VIRTUAL,
	design              INTEGER GENERATED ALWAYS AS (ord % {slots}) VIRTUAL,
	flags               INTEGER NOT NULL,
	flagged             INTEGER GENERATED ALWAYS AS (flags & 1) VIRTUAL,
	slipped             INTEGER GENERATED ALWAYS AS (flags >> 1 & 1) VIRTUAL,
	faulted             INTEGER GENERATED ALWAYS AS (flags >> 2 & 1) VIRTUAL,
	success             INTEGER GENERATED ALWAYS AS (flags >> 3 & 1) VIRTUAL,
	blame               INTEGER NOT NULL,
	model_calls         INTEGER NOT NULL,
	tool_calls          INTEGER NOT NULL,
	tokens              INTEGER NOT NULL,
	tokens_in           INTEGER NOT NULL,
	tokens_out          INTEGER NOT NULL,
	environment_resets  INTEGER NOT NULL,
	fixture_resets      INTEGER NOT NULL,
	emits               INTEGER NOT NULL,
	parses              INTEGER NOT NULL,
	contract_checks     INTEGER NOT NULL,
	attribution_steps   INTEGER NOT NULL,
	wall_ns             INTEGER NOT NULL,
	reached             INTEGER NOT NULL,
	match_n             INTEGER NOT NULL,
	match_exact         INTEGER NOT NULL,
	match_name_only     INTEGER NOT NULL,
	match_order_ignored INTEGER NOT NULL,
	trace               INTEGER,
	checksum            INTEGER NOT NULL
);
-- Items taken from their clean twin (see selection.go): a reference to
-- the twin's outcomes row (the clean build's unit of the same scenario and
-- trial, the same slot), whose values and findings the item has; only its
-- kept trace (NULL when none) and its checksum are its own.
CREATE TABLE taken (
	ord      INTEGER PRIMARY KEY,
	unit     INTEGER GENERATED ALWAYS AS (ord / {slots}) VIRTUAL,
	design   INTEGER GENERATED ALWAYS AS (ord % {slots}) VIRTUAL,
	twin     INTEGER GENERATED ALWAYS AS (ord / {slots} % ({scenarios} * {trials}) * {slots} + ord % {slots}) VIRTUAL,
	trace    INTEGER,
	checksum INTEGER NOT NULL
);
CREATE TABLE blames (
	id       INTEGER PRIMARY KEY,
	blame    TEXT NOT NULL,
	checksum INTEGER NOT NULL
);
CREATE TABLE finding_texts (
	id       INTEGER PRIMARY KEY,
	rule     TEXT NOT NULL,
	message  TEXT NOT NULL,
	location TEXT NOT NULL,
	evidence TEXT NOT NULL,
	checksum INTEGER NOT NULL
);
CREATE TABLE item_findings (
	item    INTEGER NOT NULL,
	seq     INTEGER NOT NULL,
	finding INTEGER NOT NULL,
	PRIMARY KEY (item, seq)
) WITHOUT ROWID;
CREATE TABLE traces (
	id       INTEGER PRIMARY KEY,
	sha256   TEXT NOT NULL UNIQUE,
	size     INTEGER NOT NULL,
	data     BLOB,
	checksum INTEGER NOT NULL
);

-- The items and findings views are each a UNION ALL of the executed
-- items' rows and the taken items' (read through the twin), so that each
-- arm's ord is a stored key: a query that joins a view (findings.item_id
-- = items.id, items.ord = item_flags.ord) materialises it once and
-- searches it by an automatic index, where a join of two computed keys
-- would compare every row with every row.
CREATE VIEW items AS
SELECT o.ord AS ord,
	b.id || '/' || d.id || '/' || s.id || '/' || u.trial AS id,
	b.id AS build, b.class AS class, d.id AS design, s.id AS scenario, u.trial AS trial, t.seed AS seed,
	{item_values},
	0 AS from_twin
FROM designs d
JOIN builds b
JOIN units u ON u.build = b.ord
JOIN outcomes o ON o.ord = u.ord * {slots} + d.ord
JOIN scenarios s ON s.ord = u.scenario
JOIN trials t ON t.scenario = u.scenario AND t.trial = u.trial
JOIN blames bl ON bl.id = o.blame
LEFT JOIN traces tr ON tr.id = o.trace
UNION ALL
SELECT k.ord,
	b.id || '/' || d.id || '/' || s.id || '/' || u.trial,
	b.id, b.class, d.id, s.id, u.trial, t.seed,
	{item_values},
	1
FROM designs d
JOIN builds b
JOIN units u ON u.build = b.ord
JOIN taken k ON k.ord = u.ord * {slots} + d.ord
JOIN outcomes o ON o.ord = k.twin
JOIN scenarios s ON s.ord = u.scenario
JOIN trials t ON t.scenario = u.scenario AND t.trial = u.trial
JOIN blames bl ON bl.id = o.blame
LEFT JOIN traces tr ON tr.id = k.trace;

CREATE VIEW findings AS
SELECT f.item AS ord, b.id || '/' || d.id || '/' || s.id || '/' || u.trial AS item_id, f.seq AS seq,
	x.rule AS rule, x.message AS message, x.location AS location, x.evidence AS evidence
FROM item_findings f
JOIN finding_texts x ON x.id = f.finding
JOIN units u ON u.ord = f.item / {slots}
JOIN builds b ON b.ord = u.build
JOIN scenarios s ON s.ord = u.scenario
JOIN designs d ON d.ord = f.item % {slots}
UNION ALL
SELECT k.ord, b.id || '/' || d.id || '/' || s.id || '/' || u.trial, f.seq,
	x.rule, x.message, x.location, x.evidence
FROM taken k
JOIN item_findings f ON f.item = k.twin
JOIN finding_texts x ON x.id = f.finding
JOIN units u ON u.ord = k.unit
JOIN builds b ON b.ord = u.build
JOIN scenarios s ON s.ord = u.scenario
JOIN designs d ON d.ord = k.design;

CREATE VIEW item_flags AS
SELECT u.ord * {slots} + d.ord AS ord, d.id AS design, b.id AS build, b.class AS class, b.location AS location,
	s.id AS scenario, u.trial AS trial, o.flagged AS flagged,
	coalesce(t.flagged, 0) AS twin_flagged,
	o.flagged AND NOT coalesce(t.flagged, 0) AS fresh,
	coalesce(json_extract(bl.blame, '$[0]'), '') AS top_blame,
	o.slipped AS slipped, o.faulted AS faulted, o.reached AS reached
FROM designs d
JOIN builds b
JOIN units u ON u.build = b.ord
-- a taken item's values are its twin's
LEFT JOIN taken k ON k.ord = u.ord * {slots} + d.ord
JOIN outcomes o ON o.ord = coalesce(k.twin, u.ord * {slots} + d.ord)
JOIN scenarios s ON s.ord = u.scenario
JOIN blames bl ON bl.id = o.blame
-- the clean twin: the clean build is builds.ord 0, so the unit of the same
-- scenario and trial is this unit's ord modulo the units per build
LEFT JOIN outcomes t ON t.ord = u.ord % ({scenarios} * {trials}) * {slots} + d.ord
WHERE d.ord > 0;

CREATE VIEW suite_runs AS
SELECT *,
	top_blame <> '' AND top_blame = location AS exact,
	top_blame <> '' AND location <> '' AND (top_blame = location
		OR (instr(location, '->') > 0 AND (top_blame = substr(location, 1, instr(location, '->') - 1) OR top_blame = substr(location, instr(location, '->') + 2)))
		OR (instr(top_blame, '->') > 0 AND (location = substr(top_blame, 1, instr(top_blame, '->') - 1) OR location = substr(top_blame, instr(top_blame, '->') + 2)))) AS adjacent
FROM (
	SELECT design, build, class, location, trial,
		count(*) AS scenarios, sum(flagged) AS flagged, sum(fresh) AS new_flags,
		max(flagged) AS raw, max(fresh) AS detected, sum(reached) AS reached,
		max(flagged AND slipped) AS slipped, max(flagged AND faulted) AS faulted,
		coalesce((SELECT f.top_blame FROM item_flags f
			WHERE f.design = i.design AND f.build = i.build AND f.trial = i.trial AND f.fresh
			GROUP BY f.top_blame ORDER BY count(*) DESC, min(f.scenario), f.top_blame LIMIT 1), '') AS top_blame
	FROM item_flags i
	GROUP BY design, build, class, location, trial
);

CREATE VIEW detection_cells AS
SELECT design, class, count(DISTINCT build) AS mutants, count(*) AS n,
	sum(detected) AS detected, sum(raw) AS raw_detected, sum(exact) AS exact, sum(adjacent) AS adjacent
FROM suite_runs
WHERE build <> '{clean}'
GROUP BY design, class;
`

// Sentinel errors of the run store.
var (
	// ErrStoreDamaged: a row of runs.db does not match its checksum, or a
	// value does not read as its column's type.
	ErrStoreDamaged = errors.New("runs.db is damaged")
	// ErrStoreSchema: runs.db has another layout than this baton's.
	ErrStoreSchema = errors.New("runs.db has another schema")
)

// damaged returns an ErrStoreDamaged error naming what is wrong.
func damaged(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrStoreDamaged, fmt.Sprintf(format, args...))
}

// store is a run folder's runs.db.
type store struct {
	db       *sql.DB
	path     string
	readOnly bool
	slots    int // items per unit, from meta
	// nm is what the reads have read of the plan tables and dictionaries;
	// full is set once it holds every dictionary row.
	nm   *names
	full bool
	// dictCache bounds the writer's trace and end-state caches; 0 is
	// dictionaryCache.
	dictCache int
	// stmts are the reads prepared so far, by query (see [store.prepared]).
	stmtsMu sync.Mutex
	stmts   map[string]*sql.Stmt
}

// prepared returns query prepared, once per store: a point read (replay,
// the report's example items) would otherwise spend most of its time
// parsing its query.
func (s *store) prepared(query string) (*sql.Stmt, error) {
	s.stmtsMu.Lock()
	defer s.stmtsMu.Unlock()
	if st, ok := s.stmts[query]; ok {
		return st, nil
	}
	st, err := s.db.Prepare(query)
	if err != nil {
		return nil, err
	}
	if s.stmts == nil {
		s.stmts = map[string]*sql.Stmt{}
	}
	s.stmts[query] = st
	return st, nil
}

// writeDSN opens runs.db for the sweep. Results regenerate from the
// protocol, so durability is traded for speed: WAL with synchronous=OFF
// survives a killed process (a committed batch stays committed) but not
// necessarily a power loss. Temporary data (the statement journal of each
// multi-row insert) stays in memory.
func writeDSN(path string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)&_pragma=busy_timeout(10000)" +
		"&_pragma=temp_store(MEMORY)&_pragma=wal_autocheckpoint(16384)"
}

// readDSN opens runs.db read-only: the file's bytes never change, no
// journal is made, and a store left in WAL mode by a killed run is read
// with its log.
func readDSN(path string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=ro&_pragma=busy_timeout(10000)&_pragma=query_only(1)"
}

func openDB(dsn string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one connection; pragmas hold per connection
	return db, nil
}

// createStore makes a new runs.db for a plan: the schema, the run's
// identity in meta and the plan's builds, scenarios, designs and trial
// seeds.
func createStore(path string, pl *plan) (*store, error) {
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("create run store: %s exists", path)
	}
	db, err := openDB(writeDSN(path))
	if err != nil {
		return nil, fmt.Errorf("create run store: %w", err)
	}
	s := &store{db: db, path: path, slots: pl.slots()}
	if err := s.create(pl); err != nil {
		db.Close()
		return nil, fmt.Errorf("create run store %s: %w", path, err)
	}
	return s, nil
}

func (s *store) create(pl *plan) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(schemaSQL(pl)); err != nil {
		return err
	}
	meta := [][2]string{
		{"schema", StoreSchema},
		{"protocol_sha256", pl.proto.SHA256},
		{"seed", strconv.FormatUint(pl.seed, 10)},
		{"trials", strconv.Itoa(pl.trials)},
		{"slots", strconv.Itoa(pl.slots())},
		{"items", strconv.Itoa(pl.total())},
		{"trace_hash", TraceHashAlgorithm},
	}
	for _, kv := range meta {
		if _, err := tx.Exec("INSERT INTO meta(key, value) VALUES(?, ?)", kv[0], kv[1]); err != nil {
			return err
		}
	}
	stmts := map[string]*sql.Stmt{} // each insert parsed once: a plan has thousands of trials
	for _, r := range planRows(pl) {
		st, ok := stmts[r.insert]
		if !ok {
			if st, err = tx.Prepare(r.insert); err != nil {
				return fmt.Errorf("%s: %w", r.table, err)
			}
			defer st.Close()
			stmts[r.insert] = st
		}
		if _, err := st.Exec(r.args...); err != nil {
			return fmt.Errorf("%s: %w", r.table, err)
		}
	}
	if _, err := tx.Exec("INSERT INTO blames(id, blame, checksum) VALUES(0, '[]', ?)", blameChecksum(0, "[]")); err != nil {
		return err
	}
	return tx.Commit()
}

// planRow is one row of the tables a plan fills: builds, scenarios,
// designs and trials.
type planRow struct {
	table, insert string
	args          []any
}

func planRows(pl *plan) []planRow {
	var out []planRow
	for i, b := range pl.builds {
		out = append(out, planRow{"builds", "INSERT INTO builds(ord, id, class, location, operator, description) VALUES(?, ?, ?, ?, ?, ?)",
			[]any{int64(i), b.Info.ID, b.Info.Class, b.Info.Location, b.Info.Operator, b.Info.Description}})
	}
	for i, sc := range pl.scenarios {
		out = append(out, planRow{"scenarios", "INSERT INTO scenarios(ord, id, category, tags, title) VALUES(?, ?, ?, ?, ?)",
			[]any{int64(i), sc.ID, string(sc.Category), string(appendStrings(nil, sc.Tags)), sc.Title}})
	}
	out = append(out, planRow{"designs", "INSERT INTO designs(ord, id, name) VALUES(?, ?, ?)", []any{int64(0), ObservationDesign, ObservationName}})
	for i, d := range pl.designs {
		out = append(out, planRow{"designs", "INSERT INTO designs(ord, id, name) VALUES(?, ?, ?)", []any{int64(i + 1), d.ID, d.Name}})
	}
	for i, sc := range pl.scenarios {
		for t := 1; t <= pl.trials; t++ {
			out = append(out, planRow{"trials", "INSERT INTO trials(scenario, trial, seed) VALUES(?, ?, ?)",
				[]any{int64(i), int64(t), strconv.FormatUint(TrialSeed(pl.seed, sc.ID, t), 10)}})
		}
	}
	return out
}

// openStore opens an existing runs.db for resuming its sweep: the schema
// must be this baton's (checked read-only first, so an older store is
// left as it was).
func openStore(path string) (*store, error) {
	r, err := openStoreRead(path)
	if err != nil {
		return nil, err
	}
	slots := r.slots
	r.close()
	db, err := openDB(writeDSN(path))
	if err != nil {
		return nil, fmt.Errorf("open run store: %w", err)
	}
	return &store{db: db, path: path, slots: slots}, nil
}

// openStoreRead opens an existing runs.db read-only and checks its schema.
func openStoreRead(path string) (*store, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open run store: %w", err)
	}
	db, err := openDB(readDSN(path))
	if err != nil {
		return nil, fmt.Errorf("open run store: %w", err)
	}
	s := &store{db: db, path: path, readOnly: true}
	if err := s.checkSchema(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// openStoreIn opens a run folder's runs.db read-only.
func openStoreIn(runDir string) (*store, error) {
	return openStoreRead(filepath.Join(runDir, StoreFile))
}

// checkSchema refuses a store of another schema, naming both, and reads
// the store's items per unit.
func (s *store) checkSchema() error {
	var schema string
	err := s.db.QueryRow("SELECT value FROM meta WHERE key = 'schema'").Scan(&schema)
	if err != nil {
		var n int
		if s.db.QueryRow("SELECT count(*) FROM sqlite_schema").Scan(&n) != nil {
			return fmt.Errorf("open run store %s: not an SQLite database", s.path)
		}
		return fmt.Errorf("%w: %s has no baton schema (%v), this baton reads %s", ErrStoreSchema, s.path, err, StoreSchema)
	}
	if schema != StoreSchema {
		return fmt.Errorf("%w: %s is %s, this baton reads %s only: finish it with the baton that started it, or start a new run",
			ErrStoreSchema, s.path, schema, StoreSchema)
	}
	var slots string
	if err := s.db.QueryRow("SELECT value FROM meta WHERE key = 'slots'").Scan(&slots); err != nil {
		return damaged("meta has no slots: %v", err)
	}
	n, err := strconv.Atoi(slots)
	if err != nil || n < 1 {
		return damaged("meta slots %q: want a whole number from 1", slots)
	}
	s.slots = n
	return nil
}

// storeExists reports whether a run folder has a runs.db.
func storeExists(runDir string) (bool, error) {
	_, err := os.Stat(filepath.Join(runDir, StoreFile))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// checkpoint copies the write-ahead log into the database file, so that
// close has little left to do.
func (s *store) checkpoint() error {
	if _, err := s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("checkpoint run store: %w", err)
	}
	return nil
}

// close closes the store. A writable store is first checkpointed and left
// as one file (journal_mode DELETE) for auditors.
func (s *store) close() error {
	s.stmtsMu.Lock()
	for _, st := range s.stmts {
		st.Close()
	}
	s.stmts = nil
	s.stmtsMu.Unlock()
	var err1 error
	if !s.readOnly {
		_, err1 = s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE")
	}
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

// checkMeta refuses a store that holds another run than the plan's.
func (s *store) checkMeta(pl *plan) error {
	meta, err := s.meta()
	if err != nil {
		return err
	}
	want := map[string]string{
		"protocol_sha256": pl.proto.SHA256,
		"seed":            strconv.FormatUint(pl.seed, 10),
		"trials":          strconv.Itoa(pl.trials),
		"slots":           strconv.Itoa(pl.slots()),
		"items":           strconv.Itoa(pl.total()),
	}
	for _, k := range []string{"protocol_sha256", "seed", "trials", "slots", "items"} {
		if meta[k] != want[k] {
			return fmt.Errorf("%w: %s holds %s %q, this run has %q", ErrForeignRun, StoreFile, k, meta[k], want[k])
		}
	}
	if err := s.sameTraceHash(); err != nil {
		return err
	}
	return s.checkPlanRows(pl)
}

// checkPlanRows compares the builds, scenarios, designs and trials tables
// with the plan, row by row: the run's hashes matched, so a difference is
// damage.
func (s *store) checkPlanRows(pl *plan) error {
	for _, t := range []struct{ table, query string }{
		{"builds", "SELECT ord, id, class, location, operator, description FROM builds ORDER BY ord"},
		{"scenarios", "SELECT ord, id, category, tags, title FROM scenarios ORDER BY ord"},
		{"designs", "SELECT ord, id, name FROM designs ORDER BY ord"},
		{"trials", "SELECT scenario, trial, seed FROM trials ORDER BY scenario, trial"},
	} {
		var want [][]any
		for _, r := range planRows(pl) {
			if r.table == t.table {
				want = append(want, r.args)
			}
		}
		got, err := queryStrings(s.db, t.query)
		if err != nil {
			return damaged("%s: %v", t.table, err)
		}
		if len(got) != len(want) {
			return damaged("%s has %d rows, this run's plan %d", t.table, len(got), len(want))
		}
		for i := range got {
			if w := rowText(want[i]); got[i] != w {
				return damaged("%s row %d is (%s), this run's plan has (%s)", t.table, i, got[i], w)
			}
		}
	}
	return nil
}

// queryStrings returns each row of a query as [rowText] prints it.
func queryStrings(db *sql.DB, query string) ([]string, error) {
	rows, err := db.Query(query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		v := make([]any, len(cols))
		p := make([]any, len(cols))
		for i := range v {
			p[i] = &v[i]
		}
		if err := rows.Scan(p...); err != nil {
			return nil, err
		}
		for i, x := range v {
			if b, ok := x.([]byte); ok {
				v[i] = string(b)
			}
		}
		out = append(out, rowText(v))
	}
	return out, rows.Err()
}

// rowText prints a row's values, each in Go syntax: 7, "clean".
func rowText(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = fmt.Sprintf("%#v", v)
	}
	return strings.Join(parts, ", ")
}

// index adds what the views and readers need beyond the keys, once the
// sweep's inserts are done (maintaining an index during the sweep would
// slow it): units by build, trial and scenario (a suite run's items), and
// the statistics SQLite's planner reads (ANALYZE).
func (s *store) index() error {
	if _, err := s.db.Exec(`CREATE UNIQUE INDEX IF NOT EXISTS units_key ON units(build, trial, scenario)`); err != nil {
		return fmt.Errorf("index run store: %w", err)
	}
	if _, err := s.db.Exec(`ANALYZE`); err != nil {
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

// mark sets bit i, growing b as needed.
func (b *bitset) mark(i int) {
	if n := i/64 + 1; n > len(*b) {
		*b = append(*b, make(bitset, n-len(*b))...)
	}
	b.set(i)
}

// holds reports whether bit i is set; b may be shorter than i.
func (b bitset) holds(i int) bool { return i/64 < len(b) && b.has(i) }

// itemIndex is the place in the plan of unit u's item in slot s (0 the
// observation run, then the designs in protocol order): units in plan
// order, then slots. runs.db keys items by it (outcomes.ord).
func itemIndex(pl *plan, u, s int) int { return u*pl.slots() + s }

// nowUTC formats a wall-clock time for the manifest.
func nowUTC(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
