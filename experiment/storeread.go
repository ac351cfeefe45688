package experiment

import (
	"bytes"
	"compress/gzip"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/reports"
)

// Every read of runs.db checks what it reads: each row against its
// checksum (recomputed from the row and the dictionary rows it refers
// to), each unit against its place in the plan, and each value against
// its column's type. What does not check is an error wrapping
// [ErrStoreDamaged] that names the table and the row; nothing damaged is
// used.

// storedItem is one item as read back from runs.db, checked.
type storedItem struct {
	ord      int
	item     reports.Item
	findings []designs.Finding
	// The item's kept trace: its hash ("" when none), size and whether
	// its bytes are stored (else only its hash).
	traceSHA    string
	traceSize   int
	traceStored bool
	// unit is the item's place among the units (outcomes.unit).
	unit int
	// source is the ord of the outcomes row holding the item's values:
	// its own, or its clean twin's when it was taken from it.
	source int
	// evidence is each finding's evidence and blame the item's blame, as
	// stored (JSON).
	evidence []string
	blame    string
}

// id returns the item's id, build/design/scenario/trial.
func (r *storedItem) id() string {
	return ItemID(r.item.Build, r.item.Design, r.item.Scenario, r.item.Trial)
}

// names are what the store's keys stand for, read from its builds,
// scenarios, designs and trials tables, and its dictionaries (each row
// checked and its JSON read once).
type names struct {
	builds    []reports.BuildInfo
	scenarios []struct{ id, category string }
	designs   []string // "" for the observation run
	seeds     map[[2]int]uint64
	trials    int

	blames   map[int64]blameEntry
	findings map[int64]findingEntry
	traces   map[int64]traceEntry
	ends     map[int64]string // end_states
}

type blameEntry struct {
	text  string
	blame []string
}

type findingEntry struct {
	f        designs.Finding
	evidence string // as stored
}

type traceEntry struct {
	sha    string
	size   int
	stored bool
}

// readNames reads the store's plan tables. A resumed sweep has compared
// them with its plan first (checkPlanRows).
func (s *store) readNames() (*names, error) {
	n := &names{seeds: map[[2]int]uint64{}}
	err := eachRow(s.db, "SELECT ord, id, class, location FROM builds ORDER BY ord", func(scan func(...any) error) error {
		var b reports.BuildInfo
		var ord int
		if err := scan(&ord, &b.ID, &b.Class, &b.Location); err != nil {
			return err
		}
		if ord != len(n.builds) {
			return fmt.Errorf("builds row %d: want ord %d", ord, len(n.builds))
		}
		n.builds = append(n.builds, b)
		return nil
	})
	if err == nil {
		err = eachRow(s.db, "SELECT ord, id, category FROM scenarios ORDER BY ord", func(scan func(...any) error) error {
			var sc struct{ id, category string }
			var ord int
			if err := scan(&ord, &sc.id, &sc.category); err != nil {
				return err
			}
			if ord != len(n.scenarios) {
				return fmt.Errorf("scenarios row %d: want ord %d", ord, len(n.scenarios))
			}
			n.scenarios = append(n.scenarios, sc)
			return nil
		})
	}
	if err == nil {
		err = eachRow(s.db, "SELECT ord, id FROM designs ORDER BY ord", func(scan func(...any) error) error {
			var d string
			var ord int
			if err := scan(&ord, &d); err != nil {
				return err
			}
			if ord != len(n.designs) {
				return fmt.Errorf("designs row %d: want ord %d", ord, len(n.designs))
			}
			if d == ObservationDesign {
				d = ""
			}
			n.designs = append(n.designs, d)
			return nil
		})
	}
	if err == nil {
		err = eachRow(s.db, "SELECT scenario, trial, seed FROM trials", func(scan func(...any) error) error {
			var sc, t int
			var seed string
			if err := scan(&sc, &t, &seed); err != nil {
				return err
			}
			v, err := strconv.ParseUint(seed, 10, 64)
			if err != nil {
				return fmt.Errorf("trials row (%d, %d): seed %q is not a whole number", sc, t, seed)
			}
			n.seeds[[2]int{sc, t}] = v
			n.trials = max(n.trials, t)
			return nil
		})
	}
	if err != nil {
		return nil, damaged("%v", err)
	}
	if len(n.designs) != s.slots {
		return nil, damaged("designs has %d rows, meta slots says %d", len(n.designs), s.slots)
	}
	return n, nil
}

// dictIDs are the dictionary rows a read needs, by table.
type dictIDs struct{ blames, findings, traces, ends []int64 }

// readDictionaries reads the blames, finding_texts, traces and end_states
// tables into nm, checking every row against its checksum: every row when
// ids is nil, else the rows ids lists.
func (s *store) readDictionaries(nm *names, ids *dictIDs) error {
	if nm.blames == nil {
		nm.blames, nm.findings, nm.traces, nm.ends = map[int64]blameEntry{}, map[int64]findingEntry{}, map[int64]traceEntry{}, map[int64]string{}
	}
	all := ids == nil
	if all {
		ids = &dictIDs{}
	}
	for _, d := range []struct {
		query string
		ids   []int64
		row   func(scan func(...any) error) error
	}{
		{"SELECT id, blame, checksum FROM blames", ids.blames, nm.blameRow},
		{"SELECT id, rule, message, location, evidence, checksum FROM finding_texts", ids.findings, nm.findingRow},
		{"SELECT id, sha256, size, data IS NOT NULL, checksum FROM traces", ids.traces, nm.traceRow},
		{"SELECT id, sha256, checksum FROM end_states", ids.ends, nm.endRow},
	} {
		var err error
		switch {
		case all:
			err = eachRow(s.db, d.query, d.row)
		case len(d.ids) > 0:
			args := make([]any, len(d.ids))
			for i, id := range d.ids {
				args[i] = id
			}
			var st *sql.Stmt
			if st, err = s.prepared(d.query + " WHERE id IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(d.ids)), ", ") + ")"); err == nil {
				err = eachStmtRow(st, d.row, args...)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (nm *names) blameRow(scan func(...any) error) error {
	var id, sum int64
	var e blameEntry
	if err := scan(&id, &e.text, &sum); err != nil {
		return damaged("blames: %v", scanProblem(err))
	}
	if blameChecksum(id, e.text) != sum {
		return damaged("blames row %d (%s) does not match its checksum", id, e.text)
	}
	if e.text != "[]" {
		if err := json.Unmarshal([]byte(e.text), &e.blame); err != nil {
			return damaged("blames row %d: %q does not read: %v", id, e.text, err)
		}
	}
	nm.blames[id] = e
	return nil
}

func (nm *names) findingRow(scan func(...any) error) error {
	var id, sum int64
	var e findingEntry
	var loc string
	if err := scan(&id, &e.f.Rule, &e.f.Message, &loc, &e.evidence, &sum); err != nil {
		return damaged("finding_texts: %v", scanProblem(err))
	}
	if findingChecksum(id, e.f.Rule, e.f.Message, loc, e.evidence) != sum {
		return damaged("finding_texts row %d (%s) does not match its checksum", id, e.f.Rule)
	}
	e.f.Location = mission.Location(loc)
	if err := json.Unmarshal([]byte(e.evidence), &e.f.Evidence); err != nil {
		return damaged("finding_texts row %d: evidence %q does not read: %v", id, e.evidence, err)
	}
	nm.findings[id] = e
	return nil
}

func (nm *names) traceRow(scan func(...any) error) error {
	var id, size, sum int64
	var e traceEntry
	if err := scan(&id, &e.sha, &size, &e.stored, &sum); err != nil {
		return damaged("traces: %v", scanProblem(err))
	}
	if traceChecksum(id, e.sha, size, e.stored) != sum {
		return damaged("traces row %d (%s) does not match its checksum", id, short(e.sha))
	}
	e.size = int(size)
	nm.traces[id] = e
	return nil
}

func (nm *names) endRow(scan func(...any) error) error {
	var id, sum int64
	var sha string
	if err := scan(&id, &sha, &sum); err != nil {
		return damaged("end_states: %v", scanProblem(err))
	}
	if endStateChecksum(id, sha) != sum {
		return damaged("end_states row %d (%s) does not match its checksum", id, short(sha))
	}
	nm.ends[id] = sha
	return nil
}

// scanProblem shortens database/sql's Scan error to the column and the
// value that did not read.
func scanProblem(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "name "); strings.HasPrefix(msg, "sql: Scan error on column index") && i >= 0 {
		msg = "column " + msg[i+len("name "):]
	}
	return msg
}

// scanArms read items, a row per finding (or one for an item without):
// the executed items (outcomes) and the items taken from their twin
// (taken, whose values and findings are its twin's outcomes row's, o),
// each in plan order, merged by SQLite in plan order; integers only but
// for the run hash of an observation run's unit; the dictionaries are read
// once, before ([names]). In a condition on them, {i} is the item's own
// row (ord, unit, design, trace) and {v} the row of its values.
var scanArms = [2]string{`SELECT o.ord, o.ord, o.flags, ` + costNames("o.") + `, o.wall_ns,
	o.reached, o.match_n, o.match_exact, o.match_name_only, o.match_order_ignored, o.checksum, o.blame, o.trace,
	u.ord, u.run_sha256, u.end_state, u.checksum, f.seq, f.finding
FROM outcomes o
LEFT JOIN units u ON u.ord = o.unit AND o.design = 0
LEFT JOIN item_findings f ON f.item = o.ord`, `SELECT k.ord, o.ord, o.flags, ` + costNames("o.") + `, o.wall_ns,
	o.reached, o.match_n, o.match_exact, o.match_name_only, o.match_order_ignored, k.checksum, o.blame, k.trace,
	u.ord, u.run_sha256, u.end_state, u.checksum, f.seq, f.finding
FROM taken k
LEFT JOIN outcomes o ON o.ord = k.twin
LEFT JOIN units u ON u.ord = k.unit AND k.design = 0
LEFT JOIN item_findings f ON f.item = o.ord`}

// scanArmNames are what {i} and {v} stand for in each arm's condition.
var scanArmNames = [2]*strings.Replacer{strings.NewReplacer("{i}", "o", "{v}", "o"), strings.NewReplacer("{i}", "k", "{v}", "o")}

// scanQuery is the query of [store.scan] for a condition on its arms.
func scanQuery(where string) string {
	var q strings.Builder
	for i, arm := range scanArms {
		if i > 0 {
			q.WriteString("\nUNION ALL\n")
		}
		q.WriteString(arm)
		if where != "" {
			q.WriteString(" WHERE " + scanArmNames[i].Replace(where))
		}
	}
	q.WriteString("\nORDER BY 1, " + strconv.Itoa(17+len(costColumns))) // ord, seq
	return q.String()
}

// scanned is one row of a scan.
type scanned struct {
	ord                                                  int64
	source                                               sql.NullInt64 // the row holding the values: the item's or its twin's
	flags, wallNS                                        int64
	cost                                                 [16]int64 // costColumns, in order
	reached, matchN, exact, nameOnly, orderIgn, checksum int64
	blameID                                              int64
	traceID, unitOrd, unitSum, seq, finding              sql.NullInt64
	runSHA                                               sql.NullString
	endState                                             sql.NullInt64
}

func (c *scanned) dest() []any {
	d := []any{&c.ord, &c.source, &c.flags}
	for i := range costColumns {
		d = append(d, &c.cost[i])
	}
	return append(d, &c.wallNS,
		&c.reached, &c.matchN, &c.exact, &c.nameOnly, &c.orderIgn, &c.checksum, &c.blameID, &c.traceID,
		&c.unitOrd, &c.runSHA, &c.endState, &c.unitSum, &c.seq, &c.finding)
}

// costOf reads the scanned cost counters.
func (c *scanned) costOf() mission.Cost {
	var out mission.Cost
	for i, col := range costColumns {
		*col.get(&out) = int(c.cost[i])
	}
	return out
}

// scan reads the items whose rows where (a condition on {i}, the item's
// own row, and {v}, the row of its values, see [scanArms]; "" for every
// item) selects, in plan order, checks each and hands it to fn. The item
// is only valid during the call.
func (s *store) scan(nm *names, where string, args []any, fn func(*storedItem) error) error {
	if where != "" {
		args = append(slices.Clip(args), args...) // once for each arm
	}
	st, err := s.prepared(scanQuery(where))
	if err != nil {
		return fmt.Errorf("read stored items: %w", err)
	}
	rows, err := st.Query(args...)
	if err != nil {
		return fmt.Errorf("read stored items: %w", err)
	}
	defer rows.Close()
	var (
		head    scanned // the current item's first row
		cur     storedItem
		have    bool
		scratch []byte
		c       scanned
		dest    = c.dest()
	)
	finish := func() error {
		if !have {
			return nil
		}
		have = false
		if err := s.checkItem(&cur, &head, &scratch); err != nil {
			return err
		}
		return fn(&cur)
	}
	for rows.Next() {
		c = scanned{}
		if err := rows.Scan(dest...); err != nil {
			if !c.source.Valid {
				return damaged("taken row %d: its clean twin's outcomes row is not stored", c.ord)
			}
			return damaged("outcomes row %d: %s", c.source.Int64, scanProblem(err))
		}
		if !have || c.ord != head.ord {
			if err := finish(); err != nil {
				return err
			}
			head, have = c, true
			if err := s.startItem(nm, &cur, &c); err != nil {
				return err
			}
		}
		if !c.seq.Valid {
			continue
		}
		e, ok := nm.findings[c.finding.Int64]
		if !ok {
			return damaged("item_findings row (%d, %d) names finding %d, which finding_texts lacks", c.ord, c.seq.Int64, c.finding.Int64)
		}
		if c.seq.Int64 != int64(len(cur.findings)) {
			return damaged("item_findings row (%d, %d): want seq %d", c.ord, c.seq.Int64, len(cur.findings))
		}
		cur.findings = append(cur.findings, e.f)
		cur.evidence = append(cur.evidence, e.evidence)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read stored items: %w", err)
	}
	return finish()
}

// startItem fills it from an item's first row, naming its keys: its
// unit's build, scenario and trial follow from the unit's place.
func (s *store) startItem(nm *names, it *storedItem, c *scanned) error {
	*it = storedItem{ord: int(c.ord), unit: int(c.ord) / s.slots, source: int(c.source.Int64), findings: it.findings[:0], evidence: it.evidence[:0]}
	perBuild := len(nm.scenarios) * nm.trials
	b, sc, d, t := it.unit/max(perBuild, 1), it.unit/max(nm.trials, 1)%max(len(nm.scenarios), 1), int(c.ord)%s.slots, it.unit%max(nm.trials, 1)+1
	if c.ord < 0 || b >= len(nm.builds) || perBuild == 0 {
		return damaged("outcomes row %d is outside the run's %d builds", c.ord, len(nm.builds))
	}
	if c.flags < 0 || c.flags > maxFlags {
		return damaged("outcomes row %d: flags %d: want 0 to %d", c.ord, c.flags, maxFlags)
	}
	seed, ok := nm.seeds[[2]int{sc, t}]
	if !ok {
		return damaged("trials lacks scenario %d, trial %d", sc, t)
	}
	bi := nm.builds[b]
	x := &it.item
	*x = reports.Item{Build: bi.ID, Class: bi.Class, Location: bi.Location, Design: nm.designs[d],
		Scenario: nm.scenarios[sc].id, Category: nm.scenarios[sc].category, Trial: t, Seed: seed,
		Flagged: c.flags&1 != 0, Slipped: c.flags&2 != 0, Faulted: c.flags&4 != 0, Success: c.flags&8 != 0,
		Cost:   c.costOf(),
		WallNS: c.wallNS, Reached: int(c.reached),
		MatchN: int(c.matchN), MatchExact: int(c.exact), MatchNameOnly: int(c.nameOnly), MatchOrderIgnored: int(c.orderIgn)}
	if d == 0 {
		if !c.unitOrd.Valid {
			return damaged("outcomes row %d (%s): units lacks its unit %d", c.ord, it.id(), it.unit)
		}
		x.TraceHash = c.runSHA.String
		if x.EndHash, ok = nm.ends[c.endState.Int64]; !ok {
			return damaged("units row %d (%s) names end state %d, which end_states lacks", it.unit, it.id(), c.endState.Int64)
		}
		if x.Coordination, ok = coordinationVerdicts(c.flags); !ok {
			return damaged("outcomes row %d: flags %d: observation run %s: no coordination verdict has that code", c.ord, c.flags, it.id())
		}
	} else if c.flags>>coordinationShift != 0 {
		return damaged("outcomes row %d: flags %d: design item %s has no coordination verdicts", c.ord, c.flags, it.id())
	}
	bl, ok := nm.blames[c.blameID]
	if !ok {
		return damaged("outcomes row %d (%s) names blame %d, which blames lacks", c.ord, it.id(), c.blameID)
	}
	x.Blame, it.blame = bl.blame, bl.text
	if c.traceID.Valid {
		tr, ok := nm.traces[c.traceID.Int64]
		if !ok {
			return damaged("outcomes row %d (%s) names trace %d, which traces lacks", c.ord, it.id(), c.traceID.Int64)
		}
		it.traceSHA, it.traceSize, it.traceStored = tr.sha, tr.size, tr.stored
	}
	return nil
}

// checkItem checks an item read whole against its checksums: its
// outcomes row's (which covers its blame, findings and kept trace's hash)
// and, for an observation run, its unit's.
func (s *store) checkItem(it *storedItem, c *scanned, scratch *[]byte) error {
	x := &it.item
	x.Findings = len(it.findings)
	r := row{ord: it.ord, item: *x, findings: it.findings, traceSHA: it.traceSHA, blame: it.blame, evidence: it.evidence}
	if r.outcomeChecksum(scratch) != c.checksum {
		if it.source != it.ord {
			return damaged("taken row %d (%s) does not match its checksum: the row, or its twin's outcomes row %d or item_findings rows, changed",
				it.ord, it.id(), it.source)
		}
		return damaged("outcomes row %d (%s) does not match its checksum: the row, or its item_findings rows, changed", it.ord, it.id())
	}
	if x.Design == "" {
		*scratch = appendUnitSum((*scratch)[:0], it.unit, x.TraceHash, x.EndHash)
		if checksum(*scratch) != c.unitSum.Int64 {
			return damaged("units row %d (%s) does not match its checksum", it.unit, it.id())
		}
	}
	return nil
}

// checked opens the way to reading every item: the store's names and
// dictionaries, every dictionary row checked. They are read once and kept
// until the store is written to again (see [store.startWriter]).
func (s *store) checked() (*names, error) {
	if s.nm != nil && s.full {
		return s.nm, nil
	}
	nm, err := s.planNames()
	if err != nil {
		return nil, err
	}
	if err := s.readDictionaries(nm, nil); err != nil {
		return nil, err
	}
	s.full = true
	return nm, nil
}

// planNames returns the store's plan tables, read once.
func (s *store) planNames() (*names, error) {
	if s.nm == nil {
		nm, err := s.readNames()
		if err != nil {
			return nil, err
		}
		s.nm = nm
	}
	return s.nm, nil
}

// pointSQL reads the row holding the values of the item at ?1 (its own,
// or its twin's when it was taken), its blame, its kept trace and its
// unit's end state.
const pointSQL = `SELECT o.ord, o.blame, o.trace, u.end_state FROM outcomes o
	LEFT JOIN units u ON u.ord = o.unit AND o.design = 0 WHERE o.ord = ?1
	UNION ALL
	SELECT o.ord, o.blame, k.trace, u.end_state FROM taken k JOIN outcomes o ON o.ord = k.twin
	LEFT JOIN units u ON u.ord = k.unit AND k.design = 0 WHERE k.ord = ?1`

// pointNames opens the way to reading the item at ord alone: the store's
// names and the dictionary rows the item refers to, each checked. A
// reference that does not read as a key falls back to reading every
// dictionary row ([store.checked]), so that the scan names the damage as
// it would there.
func (s *store) pointNames(ord int) (*names, error) {
	nm, err := s.planNames()
	if err != nil || s.full {
		return nm, err
	}
	var (
		source, blame int64
		trace, end    sql.NullInt64
		ids           dictIDs
	)
	st, err := s.prepared(pointSQL)
	if err == nil {
		err = st.QueryRow(int64(ord)).Scan(&source, &blame, &trace, &end)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nm, nil
	}
	if err == nil {
		st, err = s.prepared("SELECT finding FROM item_findings WHERE item = ?")
	}
	if err == nil {
		err = eachStmtRow(st, func(scan func(...any) error) error {
			var f int64
			if err := scan(&f); err != nil {
				return err
			}
			if _, ok := nm.findings[f]; !ok {
				ids.findings = append(ids.findings, f)
			}
			return nil
		}, source)
	}
	if err != nil {
		return s.checked()
	}
	if _, ok := nm.blames[blame]; !ok {
		ids.blames = append(ids.blames, blame)
	}
	if _, ok := nm.traces[trace.Int64]; trace.Valid && !ok {
		ids.traces = append(ids.traces, trace.Int64)
	}
	if _, ok := nm.ends[end.Int64]; end.Valid && !ok {
		ids.ends = append(ids.ends, end.Int64)
	}
	return nm, s.readDictionaries(nm, &ids)
}

// done checks every stored item and reports which of the plan's items
// are stored. The set is one bit per planned item, so it stays small
// however many items a run has.
func (s *store) done(pl *plan) (bitset, int, error) {
	nm, err := s.checked()
	if err != nil {
		return nil, 0, err
	}
	set := newBitset(pl.total())
	n := 0
	err = s.scan(nm, "", nil, func(it *storedItem) error {
		if it.ord < 0 || it.ord >= pl.total() {
			return damaged("outcomes row %d is outside the plan's %d items", it.ord, pl.total())
		}
		set.set(it.ord) // ord is the table's key: each item is stored once
		n++
		return nil
	})
	return set, n, err
}

// stream reads every stored item in plan order (the clean build, first
// in every plan, before the mutants: the order aggregation needs whatever
// order the items were written in), checks it and hands it to fn. Only one
// row is held at a time.
func (s *store) stream(fn func(reports.Item) error) error {
	nm, err := s.checked()
	if err != nil {
		return err
	}
	return s.scan(nm, "", nil, func(it *storedItem) error { return fn(it.item) })
}

// count returns how many items are stored: executed and taken.
func (s *store) count() (int, error) {
	var n int
	err := s.db.QueryRow("SELECT (SELECT count(*) FROM outcomes) + (SELECT count(*) FROM taken)").Scan(&n)
	return n, err
}

// item reads item id, stored at ord, checked; nil when it is not stored.
// Only the dictionary rows it refers to are read.
func (s *store) item(ord int, id string) (*storedItem, error) {
	nm, err := s.pointNames(ord)
	if err != nil {
		return nil, err
	}
	var out *storedItem
	err = s.scan(nm, "{i}.ord = ?", []any{int64(ord)}, func(it *storedItem) error {
		if got := it.id(); got != id {
			return damaged("outcomes row %d holds %s, the plan places %s there", ord, got, id)
		}
		cp := *it
		cp.findings = append([]designs.Finding(nil), it.findings...)
		out = &cp
		return nil
	})
	return out, err
}

// trace reads a stored trace by hash and checks it against the hash; nil
// when only the hash is kept.
func (s *store) trace(sha string) ([]byte, error) {
	var gz []byte
	var id int64
	err := s.db.QueryRow("SELECT id, data FROM traces WHERE sha256 = ?", sha).Scan(&id, &gz)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && gz == nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read trace %s: %w", short(sha), err)
	}
	var buf bytes.Buffer
	if err := gunzip(&buf, nil, gz); err != nil {
		return nil, damaged("traces row %d (%s): %v", id, short(sha), err)
	}
	alg, err := s.traceAlgorithm()
	if err != nil {
		return nil, err
	}
	if got, ok := checkTrace(alg, buf.Bytes(), sha); !ok {
		return nil, damaged("traces row %d: its bytes hash to %s, the row says %s", id, short(got), short(sha))
	}
	return buf.Bytes(), nil
}

// gunzip decompresses gz into buf with zr (a new reader when nil).
func gunzip(buf *bytes.Buffer, zr *gzip.Reader, gz []byte) error {
	var err error
	if zr == nil {
		zr, err = gzip.NewReader(bytes.NewReader(gz))
	} else {
		err = zr.Reset(bytes.NewReader(gz))
	}
	if err != nil {
		return err
	}
	buf.Reset()
	_, err = io.Copy(buf, zr)
	return err
}
