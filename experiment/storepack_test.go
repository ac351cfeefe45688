package experiment

import (
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// packingTable creates p's table in a new database, every column typeless
// so that a value stored as another type than bound would show.
func packingTable(t *testing.T, p *packing) *sql.DB {
	t.Helper()
	db, err := openDB(writeDSN(filepath.Join(t.TempDir(), "t.db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("CREATE TABLE " + p.table + "(" + p.columns() + ")"); err != nil {
		t.Fatal(err)
	}
	return db
}

// tableRows returns every row of table, each value quoted with its type.
func tableRows(t *testing.T, db *sql.DB, p *packing) []string {
	t.Helper()
	cols := make([]string, len(p.cols))
	for i, c := range p.cols {
		cols[i] = "typeof(" + c.name + ") || ':' || quote(" + c.name + ")"
	}
	rows, err := db.Query("SELECT " + strings.Join(cols, " || ' ' || ") + " FROM " + p.table + " ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// packingValue draws a column's value: mostly one that fits its bits
// (the largest and 0 among them), now and then NULL or one that does not
// fit, which sends its chunk plain.
func packingValue(rng *rand.Rand, c packedColumn) int64 {
	bits := c.bits
	if bits == 0 {
		bits = 62
	}
	switch k := rng.IntN(40); {
	case k == 0:
		return 0
	case k == 1:
		return 1<<bits - 1 - b2n(c.null)
	case k == 2 && c.null:
		return -1
	case k == 3 && c.bits > 0:
		return []int64{1 << c.bits, -2, math.MaxInt64, math.MinInt64}[rng.IntN(4)]
	}
	return rng.Int64N(1<<bits - 1)
}

// TestPackedInsert stores rows through each writer table's packed
// inserts, chunks with a value too wide among them, and one by one
// through the plain insert: both tables hold the same values, of the same
// types.
func TestPackedInsert(t *testing.T) {
	for _, p := range writerPackings {
		t.Run(p.table, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(p.table))))
			const n = 5*chunk + 7
			ints := make([][]int64, n)
			others := make([][]any, n)
			for k := range n {
				for _, c := range p.cols {
					if c.other {
						ints[k] = append(ints[k], 0)
						others[k] = append(others[k], otherValue(rng))
						continue
					}
					v := packingValue(rng, c)
					if k < 2*chunk && c.bits > 0 { // two chunks all packed
						v = min(max(v, -b2n(c.null)), 1<<c.bits-1-b2n(c.null))
					}
					ints[k] = append(ints[k], v)
				}
			}
			vals := func(k int, v []int64, s []any) ([]int64, []any) {
				return append(v, ints[k]...), append(s, others[k]...)
			}

			packed := packingTable(t, p)
			b := bulkInsert{p: p}
			texts2 := b.sql()
			for i, dst := range b.statements() {
				st, err := packed.Prepare(texts2[i])
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				*dst = st
			}
			tx, err := packed.Begin()
			if err != nil {
				t.Fatal(err)
			}
			if err := b.insert(tx, &rowBuffers{}, n, vals); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}

			plain := packingTable(t, p)
			for k := range n {
				if _, err := plain.Exec(p.plainSQL(1), p.appendPlain(nil, ints[k], others[k])...); err != nil {
					t.Fatal(err)
				}
			}
			got, want := tableRows(t, packed, p), tableRows(t, plain, p)
			if len(want) != n || !slices.Equal(got, want) {
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Fatalf("row %d: packed %s, plain %s", i, got[i], want[i])
					}
				}
				t.Fatalf("packed %d rows, plain %d, want %d", len(got), len(want), n)
			}
		})
	}
}

// TestPackedFits checks where a packed row stops fitting: at each
// column's largest value it still packs, one past it or below 0 (-1 for
// NULL apart) it does not.
func TestPackedFits(t *testing.T) {
	for _, p := range writerPackings {
		ints := make([]int64, len(p.cols))
		var others []any
		for i, c := range p.cols {
			if c.other {
				others = append(others, "x")
			} else if c.bits > 0 {
				ints[i] = 1<<c.bits - 1 - b2n(c.null)
			}
		}
		if args, ok := p.appendPacked(nil, ints, others); !ok || len(args) != p.params {
			t.Errorf("%s: largest values: packed %v (%d parameters), want true (%d)", p.table, ok, len(args), p.params)
		}
		for i, c := range p.cols {
			if c.bits == 0 || c.other {
				continue
			}
			for _, v := range []int64{1<<c.bits - b2n(c.null), -1 - b2n(c.null)} {
				bad := slices.Clone(ints)
				bad[i] = v
				if _, ok := p.appendPacked(nil, bad, others); ok {
					t.Errorf("%s.%s = %d packed in %d bits", p.table, c.name, v, c.bits)
				}
			}
		}
	}
	if outcomePacking.params >= len(outcomePacking.cols)/2 {
		t.Errorf("outcomes: %d parameters for %d columns", outcomePacking.params, len(outcomePacking.cols))
	}
}

// otherValue draws an other column's value: a text, a blob or NULL.
func otherValue(rng *rand.Rand) any {
	switch rng.IntN(3) {
	case 0:
		return fmt.Sprintf("%064x", rng.Uint64())
	case 1:
		return []byte(fmt.Sprint(rng.Uint64()))
	}
	return nil
}
