package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// forge changes a stored item with change and writes it back with its
// checksum made to match, as a forger who knows the checksum would.
func forge(tb testing.TB, runDir, id string, change func(*storedItem)) {
	tb.Helper()
	s, err := openStore(filepath.Join(runDir, StoreFile))
	if err != nil {
		tb.Fatal(err)
	}
	defer s.close()
	nm, err := s.checked()
	if err != nil {
		tb.Fatal(err)
	}
	var found *storedItem
	if err := s.scan(nm, "", nil, func(it *storedItem) error {
		if it.id() == id {
			cp := *it
			cp.findings, cp.evidence = slices.Clone(it.findings), slices.Clone(it.evidence)
			found = &cp
		}
		return nil
	}); err != nil || found == nil {
		tb.Fatalf("find %s: %v", id, err)
	}
	change(found)
	var blame string
	if err := s.db.QueryRow("SELECT b.blame FROM blames b JOIN outcomes o ON o.blame = b.id WHERE o.ord = ?", found.ord).Scan(&blame); err != nil {
		tb.Fatal(err)
	}
	r := row{ord: found.ord, item: found.item, findings: found.findings, evidence: found.evidence, traceSHA: found.traceSHA, blame: blame}
	var scratch []byte
	it := &found.item
	if _, err := s.db.Exec("UPDATE outcomes SET flags = ?, tokens = ?, checksum = ? WHERE ord = ?",
		flagBits(it), it.Cost.Tokens, r.outcomeChecksum(&scratch), found.ord); err != nil {
		tb.Fatal(err)
	}
}

// tamper runs SQL statements on a run's store, as an auditor's sqlite3
// session might.
func tamper(tb testing.TB, runDir string, stmts ...string) {
	tb.Helper()
	s, err := openStore(filepath.Join(runDir, StoreFile))
	if err != nil {
		tb.Fatal(err)
	}
	defer s.close()
	for _, q := range stmts {
		if _, err := s.db.Exec(q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
}

// TestStoreDamaged: a changed row of any table is refused, on resume and
// on read (replay), with an error naming the table and the row.
func TestStoreDamaged(t *testing.T) {
	_, clean, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 2, TraceSample: 0.5})
	finished(t, err)
	var withFindings string
	s, err := openStoreIn(clean)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRow("SELECT id FROM items WHERE findings > 0 ORDER BY ord LIMIT 1").Scan(&withFindings); err != nil {
		t.Fatal(err)
	}
	s.close()
	for _, tc := range []struct {
		name, sql string
		item      string // the item replayed, or the SQL of its ord (a replay reads the rows it needs)
		want      string
	}{
		{"flag", "UPDATE outcomes SET flags = (flags | 1) - (flags & 1) WHERE ord = 5", "clean/A/S1/2", "outcomes row 5 (clean/A/S1/2) does not match its checksum"},
		{"text in a count", "UPDATE outcomes SET tokens = 'x' WHERE ord = 6", "clean/B/S1/2", `outcomes row 6: column "tokens"`},
		{"flags", "UPDATE outcomes SET flags = 99 WHERE ord = 6", "clean/B/S1/2", `outcomes row 6: flags 99`},
		{"finding removed", "DELETE FROM item_findings WHERE item = (SELECT min(item) FROM item_findings) AND seq = 0", withFindings, "does not match its checksum: the row, or its item_findings rows, changed"},
		{"finding text", "UPDATE finding_texts SET message = 'nothing wrong' WHERE id = 0", "SELECT min(item) FROM item_findings WHERE finding = 0", "finding_texts row 0 (trajectory.exact) does not match its checksum"},
		{"blame", `UPDATE blames SET blame = '["nowhere"]' WHERE id = 1`, "SELECT min(ord) FROM outcomes WHERE blame = 1", "blames row 1"},
		{"seed", "UPDATE trials SET seed = 'x' WHERE scenario = 0 AND trial = 1", "clean/B/S2/2", `trials row`},
		{"run hash", "UPDATE units SET run_sha256 = 'beef' WHERE ord = 2", "clean/obs/S1/3", "units row 2 (clean/obs/S1/3) does not match its checksum"},
		{"end state swapped", "UPDATE units SET end_state = end_state + 1 WHERE ord = 2", "clean/obs/S1/3", "units row 2 (clean/obs/S1/3)"},
		{"end hash", "UPDATE end_states SET sha256 = 'beef' WHERE id = (SELECT end_state FROM units WHERE ord = 2)", "clean/obs/S1/3", "(beef) does not match its checksum"},
		{"end state removed", "DELETE FROM end_states WHERE id = (SELECT end_state FROM units WHERE ord = 2)", "clean/obs/S1/3", "names end state"},
		{"unit removed", "DELETE FROM units WHERE ord = 2", "clean/obs/S1/3", "outcomes row 8 (clean/obs/S1/3): units lacks its unit 2"},
		{"trace kept", "UPDATE traces SET data = NULL WHERE id = (SELECT min(id) FROM traces WHERE data IS NOT NULL)",
			"SELECT min(ord) FROM outcomes WHERE trace = (SELECT min(id) FROM traces WHERE data IS NOT NULL)", "does not match its checksum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.item, "SELECT") {
				tc.item = storedID(t, clean, tc.item)
			}
			dir := copyRun(t, clean)
			tamper(t, dir, tc.sql)
			_, err := fakeStack().Replay(dir, tc.item)
			if !errors.Is(err, ErrStoreDamaged) || !strings.Contains(err.Error(), "runs.db is damaged: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("replay = %v, want runs.db is damaged: …%s…", err, tc.want)
			}
			opt := Options{ProtocolPath: filepath.Join(filepath.Dir(clean), "p.yaml"), RunDir: dir, Resume: true, Stack: fakeStack(), Logger: zerolog.Nop()}
			_, err = Run(context.Background(), opt)
			if !errors.Is(err, ErrStoreDamaged) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("resume = %v, want runs.db is damaged: …%s…", err, tc.want)
			}
			if m, err := ReadManifest(dir); err != nil || !m.Complete || m.Sessions != 1 {
				t.Errorf("after a refused resume the manifest says complete %v, %d sessions (%v); want it as it was", m != nil && m.Complete, m.Sessions, err)
			}
		})
	}
}

// storedID returns the id of the item whose ord query selects.
func storedID(tb testing.TB, runDir, query string) string {
	tb.Helper()
	s, err := openStoreIn(runDir)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.close()
	var id string
	if err := s.db.QueryRow("SELECT id FROM items WHERE ord = (" + query + ")").Scan(&id); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return id
}

// copyRun copies a run folder into a new temporary folder.
func copyRun(tb testing.TB, runDir string) string {
	tb.Helper()
	dst := filepath.Join(tb.TempDir(), "run")
	if err := os.CopyFS(dst, os.DirFS(runDir)); err != nil {
		tb.Fatal(err)
	}
	return dst
}

// TestResumeFinishedInterrupted: a resume of a finished run that is
// interrupted (or fails) leaves the run's manifest as it was: complete,
// with its results fields.
func TestResumeFinishedInterrupted(t *testing.T) {
	_, runDir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 2})
	finished(t, err)
	before := readFile(t, filepath.Join(runDir, ManifestFile))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opt := Options{ProtocolPath: filepath.Join(filepath.Dir(runDir), "p.yaml"), RunDir: runDir, Resume: true, Stack: fakeStack(), Logger: zerolog.Nop()}
	if _, err := Run(ctx, opt); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted resume = %v, want context.Canceled", err)
	}
	if after := readFile(t, filepath.Join(runDir, ManifestFile)); string(after) != string(before) {
		t.Errorf("an interrupted resume of a finished run changed its manifest:\n%s\nwas:\n%s", after, before)
	}
}

// TestReplayReadsItsRows: replay reads, and checks, the dictionary rows
// its item refers to, not every row: a damaged finding text that the item
// does not use leaves its replay alone, and refuses a reader of every item.
func TestReplayReadsItsRows(t *testing.T) {
	_, clean, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 2})
	finished(t, err)
	other := storedID(t, clean, "SELECT min(ord) FROM outcomes WHERE ord NOT IN (SELECT item FROM item_findings WHERE finding = 0)")
	dir := copyRun(t, clean)
	tamper(t, dir, "UPDATE finding_texts SET message = 'nothing wrong' WHERE id = 0")
	if _, err := fakeStack().Replay(dir, other); err != nil {
		t.Errorf("replay of %s, which does not use finding 0: %v", other, err)
	}
	err = Items(dir, ItemFilter{}, func(*StoredItem) error { return nil })
	if !errors.Is(err, ErrStoreDamaged) || !strings.Contains(err.Error(), "finding_texts row 0") {
		t.Errorf("items = %v, want runs.db is damaged: finding_texts row 0 …", err)
	}
}
