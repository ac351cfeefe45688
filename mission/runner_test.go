package mission

import (
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
