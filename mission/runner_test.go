package mission

import (
	"strconv"
	"testing"
	"time"
)

// parseDate reads what time.Parse reads with time.DateOnly, and refuses
// what it refuses.
func TestParseDate(t *testing.T) {
	for _, s := range dateCases {
		checkParseDate(t, s)
	}
}

var dateCases = []string{"2026-03-04", "0000-01-01", "9999-12-31", "2024-02-29", "2026-02-29", "2026-02-30",
	"2026-13-01", "2026-00-10", "2026-01-00", "2026-1-01", "2026-01-1", "20260-1-01", "2026/01/01", "", "2026-01-01 ",
	"+026-01-01", "2026-0a-01", "2026-04-31", "1900-02-29", "2000-02-29"}

func checkParseDate(tb testing.TB, s string) {
	tb.Helper()
	want, err := time.Parse(time.DateOnly, s)
	got, ok := parseDate(s)
	if ok != (err == nil) || ok && !got.Equal(want) || ok && got.Location() != want.Location() {
		tb.Errorf("parseDate(%q) = %v, %v; time.Parse gives %v, %v", s, got, ok, want, err)
	}
}

func FuzzParseDate(f *testing.F) {
	for _, s := range dateCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkParseDate(t, s) })
}

// The transport finds every key delivered before, in its list and past
// it, and only those.
func TestTransportDeliveredBefore(t *testing.T) {
	var tr transport
	key := func(i int) dedupKey {
		return dedupKey{edge: Edge{From: "a", To: Agent("b" + strconv.Itoa(i%3))}, key: "k" + strconv.Itoa(i)}
	}
	for i := range 3 * seenList {
		if tr.deliveredBefore(key(i)) {
			t.Fatalf("key %d: delivered before, the first time", i)
		}
		for j := range i + 1 {
			if !tr.deliveredBefore(key(j)) {
				t.Fatalf("after %d keys: key %d not delivered before", i+1, j)
			}
		}
		// Key 0's key on another edge, once each time.
		if other := (dedupKey{edge: Edge{From: "a", To: Agent("c" + strconv.Itoa(i))}, key: "k0"}); tr.deliveredBefore(other) {
			t.Fatalf("after %d keys: key 0 on another edge delivered before", i+1)
		}
	}
}
