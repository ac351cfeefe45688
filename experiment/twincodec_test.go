package experiment

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/designs"
)

// fill sets every field of v to a value that is not its zero value and
// differs from field to field (n counts), so a field the codec missed or
// swapped shows.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + string(rune('a'+*n%26)) + "\u00e9\x00")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(-*n * 1000))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n) << 40)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.25)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), n)
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), n)
		}
	}
}

// TestTwinRowsRoundTrip checks that a twin's rows read back as they were
// kept, every field of every type they hold, and tells a nil slice from
// an empty one.
func TestTwinRowsRoundTrip(t *testing.T) {
	var full twinItem
	n := 0
	fill(reflect.ValueOf(&full).Elem(), &n)
	empty := twinItem{Findings: []designs.Finding{}}
	for _, want := range [][]twinItem{nil, {}, {full}, {{}, full, empty}} {
		b, err := appendTwin(nil, reflect.ValueOf(want))
		if err != nil {
			t.Fatal(err)
		}
		var got []twinItem
		r := twinReader{b: b}
		r.read(reflect.ValueOf(&got).Elem())
		if r.err != nil || len(r.b) != 0 {
			t.Fatalf("read: %v, %d bytes left", r.err, len(r.b))
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("rows read back (-want +got):\n%s", d)
		}
		if (want == nil) != (got == nil) || len(want) == 3 && got[2].Findings == nil {
			t.Error("a nil slice and an empty one read back the same")
		}
		for cut := range len(b) {
			var short []twinItem
			r := twinReader{b: b[:cut]}
			r.read(reflect.ValueOf(&short).Elem())
			if r.err == nil && cut < len(b) && len(want) > 0 {
				t.Fatalf("rows cut at %d of %d bytes read without an error", cut, len(b))
			}
		}
	}
}

// FuzzTwinRows checks that reading any bytes as twin rows returns rows or
// an error, never panics.
func FuzzTwinRows(f *testing.F) {
	var full twinItem
	n := 0
	fill(reflect.ValueOf(&full).Elem(), &n)
	b, err := appendTwin(nil, reflect.ValueOf([]twinItem{full, {}}))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		var got []twinItem
		r := twinReader{b: b}
		r.read(reflect.ValueOf(&got).Elem())
	})
}

// BenchmarkUnpackTwin reads back a clean twin's rows, as every mutant
// unit taken from it does: four items, one of them with six findings.
func BenchmarkUnpackTwin(b *testing.B) {
	rows := make([]row, 4)
	for i := range rows {
		n := i
		fill(reflect.ValueOf(&rows[i].item).Elem(), &n)
		rows[i].traceSHA, rows[i].traceLen = "0123456789abcdef", 2048
	}
	for range 6 {
		var f designs.Finding
		n := 0
		fill(reflect.ValueOf(&f).Elem(), &n)
		f.Message = "intake INV-1041: result differs from the golden one at field amount: 1200 against 1250"
		rows[1].findings = append(rows[1].findings, f)
	}
	m := newUnitMemo(true)
	data, err := packTwin(m, rows)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(data)), "B/twin")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := unpackTwin(m, data); err != nil {
			b.Fatal(err)
		}
	}
}
