package coordination

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzKeysOf: reading only the keys of a hand-off gives the fields that
// decoding it whole gives, whenever the key reader accepts it.
func FuzzKeysOf(f *testing.F) {
	for _, s := range []string{
		`{"id":"m-1","edge":"a->b","next_owner":["b"],"payload":{"amount":1.5,"lines":[{"x":"}"}],"note":"a \"q\" b"},"item":"E1"}`,
		`{"payload":[],"x":null}`, `{}`, `{"a":{"b":{"c":[1,2,{"d":"]"}]}},"payload":{}}`, `[1]`, `{"a\u0062":1}`, `{"a":tru`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := keysOf(raw, newFieldCache())
		m := jsonObject(raw)
		if !ok {
			return
		}
		if m == nil {
			t.Fatalf("keysOf read %q, which is not a JSON object", raw)
		}
		if diff := cmp.Diff(fieldNames(m, newFieldCache()), got); diff != "" {
			t.Errorf("keysOf(%q) (-decoded +keys):\n%s", raw, diff)
		}
	})
}

// TestMemoBounded: a memo holds at most memoBytes of keys, forgetting
// everything when the next would not fit, and gives back what it keeps.
func TestMemoBounded(t *testing.T) {
	var c memo[int]
	key := func(i int) string { return strings.Repeat(string(rune('a'+i)), memoBytes/4) }
	for i := range 6 {
		c.keep(key(i), i)
		if c.held > memoBytes {
			t.Fatalf("after %d keys: holds %d bytes, want at most %d", i+1, c.held, memoBytes)
		}
	}
	var got []int
	for _, i := range []int{4, 5, 0} {
		got = append(got, remember(&c, []byte(key(i)), func([]byte) int { return -1 }))
	}
	// Full after four keys, it forgot them to keep the fifth.
	if diff := cmp.Diff([]int{4, 5, -1}, got); diff != "" {
		t.Errorf("remembered after six keys of a quarter each (-want +got):\n%s", diff)
	}
}

// TestLostSorted: the one-walk comparison of sorted field lists finds
// what the judge's general loop finds, and declines lists not sorted so.
func TestLostSorted(t *testing.T) {
	general := func(sent, read []string) []string {
		var lost []string
		for _, f := range read {
			if !slices.Contains(sent, f) && !slices.Contains(lost, f) {
				lost = append(lost, f)
			}
		}
		return lost
	}
	tests := []struct {
		name       string
		sent, read []string
		ok         bool
	}{
		{"all sent", []string{"a", "b", "c"}, []string{"a", "c"}, true},
		{"some lost", []string{"b", "d"}, []string{"a", "b", "c", "d", "e"}, true},
		{"none sent", nil, []string{"a"}, true},
		{"none read", []string{"a"}, nil, true},
		{"sent repeats", []string{"a", "a", "b"}, []string{"a", "c"}, true},
		{"sent unsorted", []string{"a", "z", "b"}, []string{"b"}, false},
		{"read unsorted", []string{"a", "b"}, []string{"b", "a"}, false},
		{"read repeats", []string{"a"}, []string{"b", "b"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lost, ok := lostSorted(tt.sent, tt.read)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if diff := cmp.Diff(general(tt.sent, tt.read), lost); ok && diff != "" {
				t.Errorf("lost (-general +walk):\n%s", diff)
			}
		})
	}
}
