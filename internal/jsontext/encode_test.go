package jsontext

import (
	"fmt"
	"slices"
	"strconv"
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
			if got := e.Encode(map[string]any{"outer": m, "a": m}); string(got) != `{"a":`+string(want)+`,"outer":`+string(want)+`}` {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			if got := stdMarshal(t, m); got != string(want) {
				t.Errorf("encoding/json %s\nwant          %s", got, want)
			}
		})
	}
}
