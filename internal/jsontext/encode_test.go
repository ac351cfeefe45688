package jsontext

import (
	"fmt"
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
