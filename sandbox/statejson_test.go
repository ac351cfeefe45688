package sandbox

import (
	"encoding/json"
	"math"
	"testing"
)

// AppendJSON writes what json.Marshal writes, for states with every kind
// of record, odd strings and numbers, and nil and empty lists.
func TestStateAppendJSON(t *testing.T) {
	full := newSandbox(t, nil)
	cleanDay(t, full)
	publish(t, full, baseReport...)
	odd := fixture()
	odd.Suppliers[0].Name = "<Acme & \"Sons\">\n\t\x01\u2028é\xff"
	odd.PurchaseOrders[0].Lines[0].UnitPrice = 1e-7
	odd.PurchaseOrders[0].Lines[0].Qty = 1e21
	odd.GoodsReceipts[0].Qty = math.Copysign(0, -1)
	odd.Invoices = []Invoice{}
	odd.Reports = []Report{{ID: "R1", Day: "2025-03-03"}, {ID: "R2", Entries: []ReportEntry{}}}
	odd.Log = []LogEntry{{Seq: 1, At: -3, Key: "k"}, {Seq: 2, Code: "c", Effect: "e"}}
	for _, tc := range []struct {
		name string
		st   *State
	}{
		{"empty", &State{}},
		{"fixture", fixture()},
		{"a clean day", full.Snapshot()},
		{"odd values", odd},
		{"nil", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(tc.st)
			if err != nil {
				t.Fatal(err)
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
	bad := fixture()
	bad.GoodsReceipts[0].Qty = math.NaN()
	if _, err := json.Marshal(bad); err == nil {
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
		st := fixture()
		st.Suppliers[0].Name, st.Suppliers[0].Email = s1, s2
		st.GoodsReceipts[0].Qty, st.PurchaseOrders[0].Lines[0].UnitPrice = x, y
		st.Log = []LogEntry{{Seq: 1, Key: s1, Code: s2}}
		want, wantErr := json.Marshal(st)
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
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			json.Marshal(st)
		}
	})
}
