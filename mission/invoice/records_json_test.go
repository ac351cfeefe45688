package invoice

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/baton-lab/baton/sandbox"
)

// flat is what a state encodes as: the records' fields, then the log,
// through encoding/json's reflection (the reference AppendJSON must match).
type flat struct {
	*Records
	Log []sandbox.LogEntry `json:"log"`
}

func flatOf(st *sandbox.State) any {
	if st == nil {
		return nil
	}
	r, _ := st.Records.(*Records)
	return flat{r, st.Log}
}

// AppendJSON writes what json.Marshal writes, for states with every kind
// of record, odd strings and numbers, and nil and empty lists.
func TestStateAppendJSON(t *testing.T) {
	full := newSandbox(t, nil)
	cleanDay(t, full)
	publish(t, full, baseReport...)
	odd := fixtureState()
	recs(odd).Suppliers[0].Name = "<Acme & \"Sons\">\n\t\x01\u2028é\xff"
	recs(odd).PurchaseOrders[0].Lines[0].UnitPrice = 1e-7
	recs(odd).PurchaseOrders[0].Lines[0].Qty = 1e21
	recs(odd).GoodsReceipts[0].Qty = math.Copysign(0, -1)
	recs(odd).Invoices = []Invoice{}
	recs(odd).Reports = []Report{{ID: "R1", Day: "2025-03-03"}, {ID: "R2", Entries: []ReportEntry{}}}
	odd.Log = []sandbox.LogEntry{{Seq: 1, At: -3, Key: "k"}, {Seq: 2, Code: "c", Effect: "e"}}
	for _, tc := range []struct {
		name string
		st   *sandbox.State
	}{
		{"empty", &sandbox.State{}},
		{"no records", &sandbox.State{Records: &Records{}}},
		{"fixture", fixtureState()},
		{"a clean day", full.Snapshot()},
		{"odd values", odd},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(flatOf(tc.st))
			if err != nil {
				t.Fatal(err)
			}
			if viaMarshal, err := json.Marshal(tc.st); err != nil || string(viaMarshal) != string(want) {
				t.Errorf("json.Marshal of the state = %s, %v; want %s", viaMarshal, err, want)
			}
			got, err := tc.st.AppendJSON([]byte("x"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "x"+string(want) {
				t.Errorf("AppendJSON:\n%s\njson.Marshal:\n%s", got[1:], want)
			}
		})
	}
	bad := fixtureState()
	recs(bad).GoodsReceipts[0].Qty = math.NaN()
	if _, err := json.Marshal(flatOf(bad)); err == nil {
		t.Fatal("json.Marshal accepts NaN")
	}
	if got, err := bad.AppendJSON([]byte("x")); err == nil || string(got) != "x" {
		t.Errorf("AppendJSON with NaN = %q, %v; want x and an error", got, err)
	}
}

func FuzzStateAppendJSON(f *testing.F) {
	f.Add("Acme", "<&>", 1.5, 1e-9)
	f.Add("\xff\u2028", "\x00", math.Copysign(0, -1), 1e300)
	f.Fuzz(func(t *testing.T, s1, s2 string, x, y float64) {
		st := fixtureState()
		recs(st).Suppliers[0].Name, recs(st).Suppliers[0].Email = s1, s2
		recs(st).GoodsReceipts[0].Qty, recs(st).PurchaseOrders[0].Lines[0].UnitPrice = x, y
		st.Log = []sandbox.LogEntry{{Seq: 1, Key: s1, Code: s2}}
		want, wantErr := json.Marshal(flatOf(st))
		got, gotErr := st.AppendJSON(nil)
		if (wantErr == nil) != (gotErr == nil) || wantErr == nil && string(got) != string(want) {
			t.Fatalf("AppendJSON = %s, %v\njson.Marshal = %s, %v", got, gotErr, want, wantErr)
		}
	})
}

func BenchmarkStateJSON(b *testing.B) {
	s := newSandbox(b, nil)
	cleanDay(b, s)
	publish(b, s, baseReport...)
	st := s.Snapshot()
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf, _ = st.AppendJSON(buf[:0])
		}
	})
	r := st.Records.(*Records)
	b.Run("Records", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf, _ = r.AppendJSON(buf[:0])
		}
	})
	b.Run("RecordsMemo", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		var memo any
		for b.Loop() {
			buf, _ = r.AppendJSONMemo(buf[:0], &memo)
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			json.Marshal(st)
		}
	})
}
