package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

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
