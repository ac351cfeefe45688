package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestProgressBarInterrupted: an interrupted run leaves its progress bar
// where it stopped (300 of 1000 items); only a finished one is completed
// (the bar's total set to what is done, which shows it full).
func TestProgressBarInterrupted(t *testing.T) {
	for _, done := range []bool{false, true} {
		var b bytes.Buffer
		bar := newProgressBar(&b)
		bar.update(300, 1000)
		bar.finish(done)
		out := b.String()
		full := strings.Contains(out, "300/300")
		if full != done {
			t.Errorf("finish(%v): the bar shows itself full: %v, want %v; last frame %q", done, full, done, lastFrame(out))
		}
		if !done && !strings.Contains(lastFrame(out), "300/1000") {
			t.Errorf("finish(false): last frame %q, want 300/1000", lastFrame(out))
		}
	}
}

func lastFrame(s string) string {
	s = strings.TrimRight(s, "\n\r ")
	if i := strings.LastIndexAny(s, "\r\n"); i >= 0 {
		return s[i+1:]
	}
	return s
}
