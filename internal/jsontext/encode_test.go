package jsontext

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Objects are written with their keys in the order slices.Sort gives the
// strings, whatever prefixes the keys share and however many there are.
func TestObjectKeyOrder(t *testing.T) {
	many := make([]string, smallObject+5)
	for i := range many {
		many[i] = fmt.Sprintf("key_%03d", (i*37)%len(many))
	}
	for _, tc := range []struct {
		name string
		keys []string
	}{
		{"payload", []string{"invoice_number", "invoice_date", "email_id", "due_date", "gross", "net", "tax", "lines", "flags", "currency"}},
		{"shared prefixes", []string{"abcdefgh2", "abcdefgh", "abcdefgh1", "abcdefg", "abcdefgh\x00", "abcdefg\x00"}},
		{"short and empty", []string{"b", "", "a", "ab", "a\x00", "\x00"}},
		{"non-ASCII", []string{"é", "e", "z", "€uro", "euro"}},
		{"as many as sort on the stack", many[:smallObject]},
		{"more than sort on the stack", many},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := map[string]any{}
			for i, k := range tc.keys {
				m[k] = float64(i)
			}
			var want []byte
			want = append(want, '{')
			for i, k := range slices.Sorted(slices.Values(tc.keys)) {
				if i > 0 {
					want = append(want, ',')
				}
				want = AppendString(want, k, false)
				want = append(want, ':')
				want = strconv.AppendInt(want, int64(m[k].(float64)), 10)
			}
			want = append(want, '}')
			var e Encoder
			for range 2 { // sorted, then in the remembered order
				if got := e.Encode(map[string]any{"outer": m, "a": m}); string(got) != `{"a":`+string(want)+`,"outer":`+string(want)+`}` {
					t.Errorf("got  %s\nwant %s", got, want)
				}
			}
			if got := stdMarshal(t, m); got != string(want) {
				t.Errorf("encoding/json %s\nwant          %s", got, want)
			}
		})
	}
}

// An Encoder remembers the key sets of the objects it wrote; objects with
// as many keys but other keys are still written with their own, sorted,
// however the shapes alternate.
func TestObjectRememberedShapes(t *testing.T) {
	shapes := []map[string]any{
		{"a": 1, "b": 2, "c": 3},
		{"a": 1, "b": 2, "d": 4},
		{"x": "\u00e9\"", "b": 2, "a": 1},
		{"a": 1, "c": 3, "b": map[string]any{"b": 2, "a": 1, "d": 4}},
		{"c": 3, "b": 2},
		{"b": 2, "c": 3, "d": 4},
		{"b": 2, "c": 3, "e": 5},
		{"b": 2, "c": 3, "f": 6},
	}
	var e Encoder
	for round := range 3 {
		for i := range shapes {
			m := shapes[(i*(round+1))%len(shapes)]
			if got, want := string(e.Encode(m)), stdMarshal(t, m); got != want {
				t.Errorf("round %d: got %s, want %s", round, got, want)
			}
		}
	}
	// More shapes of one size than an Encoder remembers, one with keys
	// too long to remember among them.
	var seq []map[string]any
	for i := range orderWays + 2 {
		seq = append(seq, map[string]any{"a": i, strconv.Itoa(i): i})
		if i == orderWays {
			seq = append(seq, map[string]any{strings.Repeat("k", 1<<16): 1, "b": 2})
		}
	}
	for _, m := range append(seq, seq...) {
		if got, want := string(e.Encode(m)), stdMarshal(t, m); got != want {
			t.Errorf("got %.40s, want %.40s", got, want)
		}
	}
	// An object of a known shape holding more new shapes of its own size
	// than an Encoder remembers: its order is not reused while it is
	// being written.
	outer := func(v func(i int) any) map[string]any {
		m := map[string]any{}
		for i := range orderWays + 2 {
			m[strconv.Itoa(i)] = v(i)
		}
		return m
	}
	for _, m := range []map[string]any{
		outer(func(i int) any { return i }),
		outer(func(i int) any { return outer(func(j int) any { return strconv.Itoa(i) + strconv.Itoa(j) }) }),
		outer(func(i int) any {
			return map[string]any{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, strings.Repeat("x", i+1): i}
		}),
	} {
		if got, want := string(e.Encode(m)), stdMarshal(t, m); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

func BenchmarkEncodeEnvelope(b *testing.B) {
	payload := map[string]any{"invoice_number": "INV-1", "invoice_date": "2026-01-02", "email_id": "e-1", "due_date": "2026-02-01",
		"gross": 119.0, "net": 100.0, "tax": 19.0, "lines": []any{map[string]any{"sku": "a", "qty": 2.0}}, "currency": "EUR"}
	msg := map[string]any{
		"id": "m-inv-1-intake->match-1", "edge": "intake->match", "kind": "invoice", "schema_version": "1",
		"idempotency_key": "inv-1:invoice", "next_owner": []any{"match"}, "escalation": "none",
		"escalation_ref": "", "item": "inv-1", "payload": payload,
	}
	e := GetEncoder()
	defer PutEncoder(e)
	for b.Loop() {
		_ = e.Encode(msg)
	}
}

// shapeKeys are the keys objectsOf draws from: shared prefixes (longer and
// shorter than the eight bytes compared first), escapes, non-ASCII.
var shapeKeys = func() []string {
	keys := []string{"", "a", "ab", "é", "€", "q\"uote", "tab\t", "<html>", "abcdefgh", "abcdefgh1", "abcdefgh\x00"}
	for i := len(keys); i < 90; i++ {
		keys = append(keys, fmt.Sprintf("field_%02d", (i*53)%90))
	}
	return keys
}()

// objectsOf reads a sequence of objects from data: per object a byte for
// its size (up to 80 keys, so the orders of every size are used and some
// objects are larger than an Encoder sorts on the stack), then a byte per
// key choosing it from shapeKeys. A key byte with the top bit set holds
// one of the last objects' keys (with numbers for values) as its value,
// so that objects of one size and shape are written inside each other.
func objectsOf(data []byte) []map[string]any {
	var out []map[string]any
	var flats []map[string]any // the last objects, without objects inside
	for len(data) > 0 {
		n := int(data[0]) % 81
		data = data[1:]
		m, f := make(map[string]any, n), make(map[string]any, n)
		for i := 0; i < n && len(data) > 0; i++ {
			c := data[0]
			data = data[1:]
			k := shapeKeys[int(c&0x7f)%len(shapeKeys)]
			m[k], f[k] = float64(i), float64(i)
			if c&0x80 != 0 && len(flats) > 0 {
				m[k] = flats[i%len(flats)]
			}
		}
		out = append(out, m)
		if flats = append(flats, f); len(flats) > 8 {
			flats = flats[1:]
		}
	}
	return out
}

// checkShapes writes objs one after another with one Encoder, twice over,
// and compares each with encoding/json.
func checkShapes(tb testing.TB, objs []map[string]any) {
	tb.Helper()
	e := GetEncoder()
	defer PutEncoder(e)
	for round := range 2 {
		for i, m := range objs {
			if got, want := string(e.Encode(m)), stdMarshal(tb, m); got != want {
				tb.Fatalf("round %d, object %d of %d keys:\ngot  %.200s\nwant %.200s", round, i, len(m), got, want)
			}
		}
	}
}

// Objects of recurring and of new shapes, of every size up to more than
// an Encoder sorts on the stack, nested in each other, are written as
// encoding/json writes them, whatever shapes the Encoder remembers.
func TestEncoderShapesMatchStd(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 4 {
		data := make([]byte, 1000)
		for i := range data {
			data[i] = byte(rnd.Uint32())
		}
		// Few distinct shapes: each object repeats one of a handful of
		// key sets, with one key changed now and then.
		base := make([][]byte, 6)
		for i := range base {
			base[i] = data[i*81 : (i+1)*81]
			base[i][0] = byte(rnd.IntN(81))
		}
		var seq []byte
		for range 30 {
			s := slices.Clone(base[rnd.IntN(len(base))])
			if rnd.IntN(3) == 0 {
				s[1+rnd.IntN(80)] = byte(rnd.Uint32())
			}
			seq = append(seq, s...)
		}
		checkShapes(t, objectsOf(seq))
		checkShapes(t, objectsOf(data))
	}
}

func FuzzEncoderShapes(f *testing.F) {
	f.Add([]byte{3, 1, 2, 3, 3, 1, 2, 4, 3, 1, 2, 0x83})
	f.Add(append([]byte{20}, []byte("abcdefghijklmnopqrst\x14abcdefghijklmnopqrsu\x14abcdefghijklmnopq\x80\x81\x82")...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		checkShapes(t, objectsOf(data))
	})
}

// BenchmarkEncodeResult writes a result of 20 keys, as the mission cores
// return: above the size whose values an Encoder looks up on the stack.
func BenchmarkEncodeResult(b *testing.B) {
	m := map[string]any{"lines": []any{map[string]any{"sku": "a", "qty": 2.0}}}
	for i := range 19 {
		m[fmt.Sprintf("field_%02d", i)] = float64(i)
	}
	e := GetEncoder()
	defer PutEncoder(e)
	b.ReportAllocs()
	for b.Loop() {
		_ = e.Encode(m)
	}
}

// TestEncodeKept: EncodeKept writes what Encode writes, for more objects
// than it remembers, asked again and again in turn; an object asked again
// gets the bytes it got; a lossy object is written (and marks the encoder)
// every time.
func TestEncodeKept(t *testing.T) {
	objs := make([]map[string]any, 3*keptSlots)
	for i := range objs {
		objs[i] = map[string]any{"id": "R-" + strconv.Itoa(i), "n": float64(i), "lines": []any{map[string]any{"sku": "A", "qty": 1.5}}}
	}
	e := GetEncoder()
	defer PutEncoder(e)
	first := make([][]byte, len(objs))
	for round := range 3 {
		for i, m := range objs {
			got := e.EncodeKept(m)
			if want := e.Encode(m); string(got) != string(want) {
				t.Fatalf("round %d object %d: EncodeKept wrote %s, Encode %s", round, i, got, want)
			}
			if round == 0 {
				first[i] = got
			} else if string(got) != string(first[i]) {
				t.Fatalf("round %d object %d: %s, first %s", round, i, got, first[i])
			}
		}
	}
	hits := 0
	for i := range objs[:keptSlots] {
		again := e.EncodeKept(objs[i])
		if len(again) > 0 && &again[0] == &e.EncodeKept(objs[i])[0] {
			hits++
		}
	}
	if hits == 0 {
		t.Error("no object's encoding was remembered")
	}
	nan := map[string]any{"x": math.NaN()}
	for range 2 {
		f := GetEncoder()
		if got := f.EncodeKept(nan); string(got) != `{"x":null}` || !f.Lossy() {
			t.Errorf("NaN object: %s, lossy %v", got, f.Lossy())
		}
		PutEncoder(f)
	}
}
