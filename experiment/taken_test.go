package experiment

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/reports"
)

// takenProtocol is a small protocol some of whose items taken from their
// clean twin have findings (the twin's false alarms, seed 7).
const takenProtocol = `name: taken
designs: [A, B, C]
trials: 3
seed: 7
scenarios:
  ids: [S10, S54]
mutants:
  ids: [ctl-boundary-payment-currency, da-boundary-payment-fresh-key, da-intake-register-no-key]
`

// TestTakenRowsReferToTwins: an item taken from its clean twin is stored
// as a reference to the twin's row, with no outcomes row and no findings
// of its own, and every view shows what it shows when the item is
// executed: the same rows as a run without selection.
func TestTakenRowsReferToTwins(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a small protocol twice")
	}
	st := realStack(t)
	_, on, err := runProtocol(t, st, takenProtocol, Options{Workers: 2})
	finished(t, err)
	_, off, err := runProtocol(t, st, takenProtocol, Options{Workers: 2, noSelection: true})
	finished(t, err)
	if !bytes.Equal(readFile(t, filepath.Join(on, ResultsFile)), readFile(t, filepath.Join(off, ResultsFile))) {
		t.Error("results.json differs with selection on and off")
	}
	if d := cmp.Diff(storedRows(t, off), storedRows(t, on)); d != "" {
		t.Errorf("items and findings views differ (-off +on):\n%s", d)
	}
	if d := cmp.Diff(suiteRows(t, off), suiteRows(t, on)); d != "" {
		t.Errorf("suite_runs and detection_cells differ (-off +on):\n%s", d)
	}
	for _, c := range []struct{ name, query, want string }{
		{"items taken", "SELECT count(*) > 0 FROM taken", "1"},
		{"taken items whose twin has findings", "SELECT count(DISTINCT k.ord) > 0 FROM taken k JOIN item_findings f ON f.item = k.twin", "1"},
		{"taken items with an outcomes row", "SELECT count(*) FROM taken k JOIN outcomes o ON o.ord = k.ord", "0"},
		{"taken items with findings rows", "SELECT count(*) FROM item_findings WHERE item IN (SELECT ord FROM taken)", "0"},
		{"items marked from_twin, against taken rows", "SELECT (SELECT count(*) FROM items WHERE from_twin = 1) = (SELECT count(*) FROM taken)", "1"},
		{"findings of taken items shown, against the twin's", `SELECT (SELECT count(*) FROM findings f JOIN taken k ON k.ord = f.ord)
			= (SELECT count(*) FROM taken k JOIN item_findings f ON f.item = k.twin)`, "1"},
	} {
		if got := queryRows(t, on, c.query); len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: %s = %v, want %s", c.name, c.query, got, c.want)
		}
	}
	if n := queryRows(t, off, "SELECT count(*) FROM taken"); n[0] != "0" {
		t.Errorf("without selection %s items are taken", n[0])
	}
}

// suiteRows returns the suite_runs and detection_cells views, in order.
func suiteRows(tb testing.TB, runDir string) []string {
	tb.Helper()
	return append(queryRows(tb, runDir, "SELECT * FROM suite_runs ORDER BY design, build, trial"),
		queryRows(tb, runDir, "SELECT * FROM detection_cells ORDER BY design, class")...)
}

// TestTakenRowsDamaged: a changed taken row, or a changed or missing twin
// row, is refused on replay of the taken item and on resume, naming the
// row.
func TestTakenRowsDamaged(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a small protocol")
	}
	st := realStack(t)
	_, run, err := runProtocol(t, st, takenProtocol, Options{Workers: 2})
	finished(t, err)
	const first = "SELECT min(ord) FROM taken WHERE twin IN (SELECT item FROM item_findings)"
	ord := queryRows(t, run, first)[0]
	item := storedID(t, run, first)
	for _, tc := range []struct{ name, sql, want string }{
		{"checksum", "UPDATE taken SET checksum = checksum + 1 WHERE ord = " + ord, "taken row " + ord + " (" + item + ") does not match its checksum"},
		{"trace", "UPDATE taken SET trace = (SELECT min(id) FROM traces WHERE id IS NOT taken.trace) WHERE ord = " + ord, "taken row " + ord + " (" + item + ") does not match its checksum"},
		{"twin's finding", "DELETE FROM item_findings WHERE item = (SELECT twin FROM taken WHERE ord = " + ord + ")", "does not match its checksum"},
		{"twin removed", "DELETE FROM outcomes WHERE ord = (SELECT twin FROM taken WHERE ord = " + ord + ")", "taken row " + ord + ": its clean twin's outcomes row is not stored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyRun(t, run)
			tamper(t, dir, tc.sql)
			_, err := st.Replay(dir, item)
			if !errors.Is(err, ErrStoreDamaged) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("replay = %v, want runs.db is damaged: …%s…", err, tc.want)
			}
			opt := Options{ProtocolPath: filepath.Join(filepath.Dir(run), "p.yaml"), RunDir: dir, Resume: true, Stack: st, Logger: zerolog.Nop()}
			if _, err = Run(context.Background(), opt); !errors.Is(err, ErrStoreDamaged) {
				t.Errorf("resume = %v, want runs.db is damaged", err)
			}
		})
	}
}

// TestSelectionResumeTaken interrupts a run after it stored items taken
// from their twins and resumes it: the same results.json and views as
// the uninterrupted run, and the taken items stored once.
func TestSelectionResumeTaken(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a small protocol twice")
	}
	st := realStack(t)
	_, full, err := runProtocol(t, st, takenProtocol, Options{Workers: 2})
	finished(t, err)

	// One worker goes in plan order: the clean build's 18 design items,
	// then two mutants whose items are all taken but one, then the
	// control's 18, the first few of which it stores.
	opt := interruptedRun(t, st, takenProtocol, 1, 7, 25)
	half := queryRows(t, opt.RunDir, "SELECT (SELECT count(*) FROM taken) > 0, (SELECT count(*) FROM outcomes) + (SELECT count(*) FROM taken) < 4 * 24")
	if d := cmp.Diff([]string{"1, 1"}, half); d != "" {
		t.Fatalf("after the interrupt (some taken, not every item stored) (-want +got):\n%s", d)
	}
	resumeMatches(t, opt, full)
	if d := cmp.Diff(storedRows(t, full), storedRows(t, opt.RunDir)); d != "" {
		t.Errorf("stored rows differ (-uninterrupted +resumed):\n%s", d)
	}
	if want, got := takenCount(t, full), takenCount(t, opt.RunDir); want == 0 || got != want {
		t.Errorf("items taken from the twin: resumed %d, uninterrupted %d", got, want)
	}
}

// TestWriterHoldsTakenRows: the writer stores a taken row only once its
// twin's row is stored, by it or by an earlier session (a trigger refuses
// any other order), and fails, storing nothing of it, a taken row whose
// twin never comes; a row held between ready ones leaves them whole.
func TestWriterHoldsTakenRows(t *testing.T) {
	pl := benchPlan(1) // 20 units a build, 4 items a unit
	pl.builds = append(pl.builds, BuildSpec{Info: reports.BuildInfo{ID: "m", Class: "c", Location: "intake"}})
	s, err := createStore(filepath.Join(t.TempDir(), StoreFile), pl)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if _, err := s.db.Exec(`CREATE TRIGGER twin_first BEFORE INSERT ON taken
		WHEN NOT EXISTS (SELECT 1 FROM outcomes WHERE ord = NEW.ord / 4 % 20 * 4 + NEW.ord % 4)
		BEGIN SELECT RAISE(ABORT, 'taken before its twin'); END`); err != nil {
		t.Fatal(err)
	}
	var scratch []byte
	item := func(ord int, taken bool) row {
		u := pl.unitAt(ord / 4)
		b, sc := pl.builds[u.build].Info, pl.scenarios[u.scenario]
		design := []string{"", "A", "B", "C"}[ord%4]
		r := row{ord: ord, id: ItemID(b.ID, design, sc.ID, u.trial), fromTwin: taken, twin: ord/4%20*4 + ord%4,
			item: reports.Item{Build: b.ID, Design: design, Scenario: sc.ID, Trial: u.trial, Flagged: true}}
		if design != "" {
			r.findings = []designs.Finding{{Rule: "r", Message: "m" + strconv.Itoa(ord%4), Location: "intake"}}
			r.item.Findings = 1
		} else {
			r.item.Coordination, _ = coordinationVerdicts(0)
			r.item.TraceHash, r.item.EndHash = "run", "end"
		}
		r.seal(u, &scratch)
		return r
	}
	w := s.startWriter(1, nil, nil)
	w.send([]row{item(80+1, true)}) // build 1, unit 0, design A: its twin is item 1
	for ord := range 4 {
		w.send([]row{item(ord, false)})
	}
	if err := w.close(); err != nil {
		t.Fatalf("writer: %v", err)
	}
	w = s.startWriter(1, nil, nil) // a resumed session: the twin was stored before
	w.send([]row{item(80+2, true)})
	if err := w.close(); err != nil {
		t.Fatalf("writer of a later session: %v", err)
	}
	w = s.startWriter(1, nil, nil)
	w.send([]row{item(84+1, true)}) // the twin, item 5, never comes
	if err := w.close(); err == nil || !strings.Contains(err.Error(), "whose row was never stored") {
		t.Errorf("writer of a taken row without its twin: %v, want an error", err)
	}
	// A held row between ready ones: in key order 4, 5, 7, 85, 86 (held
	// until item 6 comes), 87.
	w = s.startWriter(5, nil, nil)
	w.send([]row{item(84+3, true), item(4, false), item(84+1, true), item(84+2, true), item(5, false), item(7, false)})
	w.send([]row{item(6, false)})
	if err := w.close(); err != nil {
		t.Fatalf("writer of a held row among ready ones: %v", err)
	}
	got := queryRows(t, filepath.Dir(s.path), "SELECT ord, twin FROM taken ORDER BY ord")
	if d := cmp.Diff([]string{"81, 1", "82, 2", "85, 5", "86, 6", "87, 7"}, got); d != "" {
		t.Errorf("taken rows (-want +got):\n%s", d)
	}
	n := 0
	if err := s.stream(func(it reports.Item) error {
		n++
		if it.Build == "m" && it.Findings != 1 {
			t.Errorf("taken item %s/%s read back with %d findings, want its twin's 1", it.Build, it.Design, it.Findings)
		}
		return nil
	}); err != nil || n != 13 {
		t.Errorf("read back %d items (%v), want 13", n, err)
	}
}

// keySearch is the line of a query plan that searches a view by its key.
var keySearch = regexp.MustCompile(`SEARCH \w+ USING AUTOMATIC (COVERING )?INDEX \((ord|id|item|item_id)=\?\)`)

// TestViewJoinsUseIndexes: a join of two views on their keys, as an
// auditor writes it, searches one side by an index (SQLite's automatic
// one over the materialised view), never compares every row of one with
// every row of the other; and it counts what the same question asked
// without a join counts. v9's computed keys made such a join on the
// default run take minutes.
func TestViewJoinsUseIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a small protocol")
	}
	_, dir, err := runProtocol(t, realStack(t), takenProtocol, Options{Workers: 2})
	finished(t, err)
	for _, c := range []struct{ name, join, alone string }{
		{"findings of C's items by id",
			"SELECT count(*) FROM findings f JOIN items i ON i.id = f.item_id WHERE i.design = 'C'",
			"SELECT count(*) FROM findings WHERE item_id LIKE '%/C/%'"},
		{"findings of taken items by ord",
			"SELECT count(*) FROM items i JOIN findings f ON f.ord = i.ord WHERE i.from_twin",
			"SELECT count(*) FROM findings WHERE ord IN (SELECT ord FROM taken)"},
		{"fresh flags' items by ord",
			"SELECT count(*) FROM item_flags g JOIN items i ON i.ord = g.ord WHERE g.fresh",
			"SELECT count(*) FROM item_flags WHERE fresh"},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan := strings.Join(queryRows(t, dir, "EXPLAIN QUERY PLAN "+c.join), "\n")
			if !keySearch.MatchString(plan) {
				t.Errorf("the join searches no view by an index:\n%s", plan)
			}
			if got, want := queryRows(t, dir, c.join), queryRows(t, dir, c.alone); !cmp.Equal(got, want) || want[0] == "0" {
				t.Errorf("the join counts %v, the query without it %v (want equal and not 0)", got, want)
			}
		})
	}
}
