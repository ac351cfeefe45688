package experiment

import (
	"runtime/debug"
	"testing"
)

// tuneGC sets the collector's target for a run and restores the previous
// one; the GOGC environment variable and a negative setting win.
func TestTuneGC(t *testing.T) {
	prev := debug.SetGCPercent(150)
	defer debug.SetGCPercent(prev)
	for _, tc := range []struct {
		name    string
		percent int
		env     string // "" leaves GOGC unset
		want    int
	}{
		{"default", 0, "", DefaultGCPercent},
		{"explicit", 250, "", 250},
		{"GOGC set", 0, "100", 150},
		{"explicit over GOGC", 300, "100", 300},
		{"left alone", -1, "", 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("GOGC", tc.env)
			}
			pacer, restore := tuneGC(tc.percent)
			if (pacer != nil) != (tc.name == "default") {
				t.Errorf("pacer = %v, want one only with the default target", pacer)
			}
			got := debug.SetGCPercent(-1)
			debug.SetGCPercent(got)
			restore()
			if got != tc.want {
				t.Errorf("during the run GC percent = %d, want %d", got, tc.want)
			}
			if after := debug.SetGCPercent(150); after != 150 {
				t.Errorf("after the run GC percent = %d, want 150 restored", after)
			}
		})
	}
}

// limitMemory sets the soft memory limit for a run and restores the
// previous one; 0 and a negative setting leave it.
func TestLimitMemory(t *testing.T) {
	const prev = 1 << 40
	old := debug.SetMemoryLimit(prev)
	defer debug.SetMemoryLimit(old)
	for _, tc := range []struct {
		name  string
		limit int64
		want  int64
	}{
		{"set", 300 << 20, 300 << 20},
		{"left alone", 0, prev},
		{"negative: left alone", -1, prev},
	} {
		t.Run(tc.name, func(t *testing.T) {
			restore := limitMemory(tc.limit)
			got := debug.SetMemoryLimit(-1)
			restore()
			if got != tc.want {
				t.Errorf("during the run the memory limit = %d, want %d", got, tc.want)
			}
			if after := debug.SetMemoryLimit(-1); after != prev {
				t.Errorf("after the run the memory limit = %d, want %d restored", after, int64(prev))
			}
		})
	}
}
