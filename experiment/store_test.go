package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/reports"
)

// TestStoreKeysItemsByPlace checks that runs.db keys every item by its
// place in the plan, that a resume refuses a store whose places disagree
// with the plan, and that the key keeps an item from being stored twice.
func TestStoreKeysItemsByPlace(t *testing.T) {
	_, runDir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 2})
	finished(t, err)
	pl, _, err := openRun(runDir, fakeStack())
	if err != nil {
		t.Fatal(err)
	}
	s, err := openStoreIn(runDir)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.db.Query("SELECT ord, id FROM items ORDER BY ord")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var ord int
		var id string
		if err := rows.Scan(&ord, &id); err != nil {
			t.Fatal(err)
		}
		u := pl.unitAt(ord / pl.slots())
		design := ""
		if slot := ord % pl.slots(); slot > 0 {
			design = pl.designs[slot-1].ID
		}
		want := ItemID(pl.builds[u.build].Info.ID, design, pl.scenarios[u.scenario].ID, u.trial)
		if ord != n || id != want {
			t.Errorf("row %d: ord %d holds %s, the plan places %s there", n, ord, id, want)
		}
		n++
	}
	rows.Close()
	if n != pl.total() {
		t.Fatalf("%d items stored, the plan has %d", n, pl.total())
	}

	// The same item twice: the writer fails on the key.
	s.close()
	if s, err = openStore(filepath.Join(runDir, StoreFile)); err != nil {
		t.Fatal(err)
	}
	w := s.startWriter(0, nil, nil)
	dup := row{ord: 1, id: "clean/A/S1/1", item: reports.Item{Build: "clean", Design: "A", Scenario: "S1", Trial: 1}}
	var scratch []byte
	dup.seal(pl.unitAt(0), &scratch)
	w.send([]row{dup})
	if err := w.close(); err == nil || !strings.Contains(err.Error(), "UNIQUE") {
		t.Errorf("storing an item twice: writer error %v, want a UNIQUE constraint failure", err)
	}

	// A row out of its place: a resume refuses the store.
	if _, err := s.db.Exec("UPDATE outcomes SET ord = ? WHERE ord = 1", pl.total()+7); err != nil {
		t.Fatal(err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	opt := Options{ProtocolPath: filepath.Join(filepath.Dir(runDir), "p.yaml"), RunDir: runDir, Resume: true,
		Stack: fakeStack(), Logger: zerolog.Nop()}
	_, err = Run(context.Background(), opt)
	if !errors.Is(err, ErrStoreDamaged) || !strings.Contains(err.Error(), "outcomes row") {
		t.Fatalf("resume over a misplaced row = %v, want ErrStoreDamaged naming the row", err)
	}
}

// TestStoreJSON checks the writer's JSON for evidence and blame against
// encoding/json with HTML escaping off, field by field, escapes included.
func TestStoreJSON(t *testing.T) {
	if n := reflect.TypeFor[designs.Evidence]().NumField(); n != 4 {
		t.Fatalf("designs.Evidence has %d fields: appendEvidence writes 4", n)
	}
	texts := []string{"", "integrated", "emit:intake->action:E1", `a "quoted" \ path`, "<b>&</b>", "é\u2028\x01", "\xff"}
	for _, run := range texts {
		for _, item := range texts {
			for _, seq := range []int{0, 12, -3} {
				e := designs.Evidence{Run: run, Seq: seq, Item: item, Field: run + item}
				want := marshalNoHTML(t, e)
				if got := appendEvidence(nil, e); string(got) != want {
					t.Errorf("appendEvidence(%+v) = %s, json.Marshal %s", e, got, want)
				}
			}
		}
		blame := []string{run, "intake->action", run}
		want := marshalNoHTML(t, blame)
		if got := appendStrings(nil, blame); string(got) != want {
			t.Errorf("appendStrings(%q) = %s, json.Marshal %s", blame, got, want)
		}
	}
}

// marshalNoHTML is json.Marshal with HTML escaping off.
func marshalNoHTML(tb testing.TB, v any) string {
	tb.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TestWriterDictionariesBounded: the writer holds at most dictCache trace
// and end-state keys, however many units it stores, and still stores each
// distinct trace and end state once (a key it no longer holds is looked
// up in runs.db); every item reads back with its hashes.
func TestWriterDictionariesBounded(t *testing.T) {
	pl := benchPlan(5) // 100 units, 400 items
	s, err := createStore(filepath.Join(t.TempDir(), StoreFile), pl)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	s.dictCache = 4
	w := s.startWriter(16, nil, nil)
	var scratch []byte
	want := map[int]reports.Item{}
	for i := range pl.total() {
		u := pl.unitAt(i / pl.slots())
		design := []string{"", "A", "B", "C"}[i%pl.slots()]
		b, sc := pl.builds[0].Info, pl.scenarios[u.scenario]
		it := reports.Item{Build: b.ID, Class: b.Class, Location: b.Location, Design: design, Scenario: sc.ID, Category: string(sc.Category),
			Trial: u.trial, Seed: TrialSeed(pl.seed, sc.ID, u.trial)}
		r := row{ord: i, id: ItemID(it.Build, design, it.Scenario, it.Trial), item: it}
		if design == "" {
			r.item.TraceHash, r.item.EndHash = fmt.Sprintf("run-%d", u.index%10), fmt.Sprintf("end-%d", u.index%9)
			r.item.Coordination, _ = coordinationVerdicts(0) // none: every dimension not applicable
		} else {
			r.traceSHA, r.traceLen = fmt.Sprintf("trace-%d", i%7), 10
			if i%5 == 0 {
				r.traceGZ = []byte("bytes")
			}
		}
		want[i] = r.item
		r.seal(u, &scratch)
		w.send([]row{r})
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	if n, m := len(w.dict.ends.m), len(w.dict.traces.m); n > 4 || m > 4 {
		t.Errorf("the writer holds %d end-state and %d trace keys, want at most 4 each", n, m)
	}
	for _, c := range []struct {
		query string
		want  int
	}{
		{"SELECT count(*) FROM end_states", 9},
		{"SELECT count(DISTINCT sha256) FROM end_states", 9},
		{"SELECT count(*) FROM traces", 7},
		{"SELECT count(*) FROM traces WHERE data IS NOT NULL", 7},
	} {
		var n int
		if err := s.db.QueryRow(c.query).Scan(&n); err != nil || n != c.want {
			t.Errorf("%s = %d (%v), want %d", c.query, n, err, c.want)
		}
	}
	got := 0
	if err := s.stream(func(it reports.Item) error {
		if diff := cmp.Diff(want[got], it); diff != "" {
			t.Errorf("item %d read back (-want +got):\n%s", got, diff)
		}
		got++
		return nil
	}); err != nil || got != pl.total() {
		t.Errorf("read back %d items (%v), want %d", got, err, pl.total())
	}
}

// TestWriterStoresBytesSentLater: a kept trace whose bytes reach the
// writer on a row that comes after, in key order, a row with the hash
// alone (a worker sends no bytes the writer has been handed) is stored
// as if every row carried them: its bytes and its checksum, in one batch
// or two.
func TestWriterStoresBytesSentLater(t *testing.T) {
	for _, batch := range []int{1, 100} {
		t.Run(fmt.Sprintf("batch %d", batch), func(t *testing.T) {
			pl := benchPlan(1)
			s, err := createStore(filepath.Join(t.TempDir(), StoreFile), pl)
			if err != nil {
				t.Fatal(err)
			}
			defer s.db.Close()
			gz := []byte("the trace's gzipped bytes")
			var scratch []byte
			item := func(ord int, withBytes bool) row {
				u := pl.unitAt(ord / 4)
				design := []string{"", "A", "B", "C"}[ord%4]
				r := row{ord: ord, id: ItemID(pl.builds[0].Info.ID, design, pl.scenarios[0].ID, u.trial),
					item:     reports.Item{Build: pl.builds[0].Info.ID, Design: design, Scenario: pl.scenarios[0].ID, Trial: u.trial, TraceHash: "0b67e8184f6f3491"},
					traceSHA: "5ca1ab1e5ca1ab1e", traceLen: 40}
				if withBytes {
					r.traceGZ = gz
				}
				r.seal(u, &scratch)
				return r
			}
			w := s.startWriter(batch, nil, nil)
			w.send([]row{item(1, true)})
			w.send([]row{item(0, false), item(2, false)})
			if err := w.close(); err != nil {
				t.Fatal(err)
			}
			if !w.stored.has("5ca1ab1e5ca1ab1e") {
				t.Error("the writer did not note the trace whose bytes it was handed")
			}
			var id, sum int64
			var data []byte
			if err := s.db.QueryRow("SELECT id, data, checksum FROM traces WHERE sha256 = '5ca1ab1e5ca1ab1e'").Scan(&id, &data, &sum); err != nil {
				t.Fatal(err)
			}
			if string(data) != string(gz) || sum != traceChecksum(id, "5ca1ab1e5ca1ab1e", 40, true) {
				t.Errorf("trace row: data %q checksum %d, want %q and %d", data, sum, gz, traceChecksum(id, "5ca1ab1e5ca1ab1e", 40, true))
			}
			if n := queryRowsDB(t, s, "SELECT count(*) FROM outcomes WHERE trace = "+fmt.Sprint(id)); n != "3" {
				t.Errorf("%s items name the trace, want 3", n)
			}
		})
	}
}

// queryRowsDB returns the one value of a query on s.
func queryRowsDB(tb testing.TB, s *store, q string) string {
	tb.Helper()
	rows, err := queryStrings(s.db, q)
	if err != nil || len(rows) != 1 {
		tb.Fatalf("%s: %v %v", q, rows, err)
	}
	return rows[0]
}

// TestWriterTraceIDs: the writer numbers the kept traces in the order the
// rows, in key order, first name them, whether it finds a hash in its
// cache, in runs.db (dropped from the cache, or stored by an earlier
// writer, as when a sweep resumes) or nowhere; each trace row has its
// bytes when some row carried them, and a checksum that matches.
func TestWriterTraceIDs(t *testing.T) {
	pl := benchPlan(5) // 400 items
	s, err := createStore(filepath.Join(t.TempDir(), StoreFile), pl)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	s.dictCache = 3
	var scratch []byte
	var order []string // hashes by first naming row
	seen := map[string]bool{}
	withBytes := map[string]bool{}
	send := func(w *writer, from, to int) {
		for i := from; i < to; i++ {
			u := pl.unitAt(i / pl.slots())
			design := []string{"", "A", "B", "C"}[i%pl.slots()]
			r := row{ord: i, id: ItemID(pl.builds[0].Info.ID, design, pl.scenarios[u.scenario].ID, u.trial),
				item: reports.Item{Build: pl.builds[0].Info.ID, Design: design, Scenario: pl.scenarios[u.scenario].ID, Trial: u.trial, TraceHash: "0b67"}}
			if i%3 != 0 {
				r.traceSHA = fmt.Sprintf("trace-%d", (i*7919)%61)
				r.traceLen = len(r.traceSHA) // the same for every row of a hash
				if !seen[r.traceSHA] {
					seen[r.traceSHA] = true
					order = append(order, r.traceSHA)
				}
				if i%11 == 0 {
					r.traceGZ = []byte("bytes of " + r.traceSHA)
					withBytes[r.traceSHA] = true
				}
			}
			r.seal(u, &scratch)
			w.send([]row{r})
		}
	}
	w := s.startWriter(25, nil, nil)
	send(w, 0, 200)
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	w = s.startWriter(40, nil, nil) // a resumed sweep's writer
	send(w, 200, pl.total())
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	rows, err := queryStrings(s.db, "SELECT id, sha256, size, data IS NOT NULL, checksum FROM traces ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(order) {
		t.Fatalf("%d trace rows, want %d", len(rows), len(order))
	}
	for i, sha := range order {
		want := rowText([]any{int64(i), sha, int64(len(sha)), b2n(withBytes[sha]), traceChecksum(int64(i), sha, int64(len(sha)), withBytes[sha])})
		if rows[i] != want {
			t.Errorf("trace row %d: (%s), want (%s)", i, rows[i], want)
		}
	}
	n := queryRowsDB(t, s, "SELECT count(*) FROM outcomes o JOIN traces t ON t.id = o.trace")
	if want := fmt.Sprint(pl.total() - (pl.total()+2)/3); n != want {
		t.Errorf("%s items name a stored trace, want %s", n, want)
	}
}
