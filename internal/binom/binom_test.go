package binom

import (
	"math"
	"testing"
)

// The full tables of published values are in reports/stats_test.go, which
// tests these functions through reports.Wilson and reports.NewcombeDiff.
func TestPublished(t *testing.T) {
	near := func(got, want float64) bool { return math.Abs(got-want) <= 0.00005+1e-12 }
	// Newcombe (1998a), Table I, method 3.
	if lo, hi := Wilson(81, 263); !near(lo, 0.2553) || !near(hi, 0.3662) {
		t.Errorf("Wilson(81, 263) = [%.4f, %.4f], want [0.2553, 0.3662]", lo, hi)
	}
	if lo, hi := Wilson(0, 0); lo != 0 || hi != 1 {
		t.Errorf("Wilson(0, 0) = [%v, %v], want [0, 1]", lo, hi)
	}
	// Newcombe (1998b), Table II, method 10, example (a).
	if d, lo, hi := NewcombeDiff(56, 70, 48, 80); !near(d, 0.2) || !near(lo, 0.0524) || !near(hi, 0.3339) {
		t.Errorf("NewcombeDiff(56, 70, 48, 80) = %.4f [%.4f, %.4f], want 0.2000 [0.0524, 0.3339]", d, lo, hi)
	}
}

// TestWilsonZ: at Z975 it is the 95% interval; a larger z widens it
// around the same data.
func TestWilsonZ(t *testing.T) {
	lo, hi := WilsonF(81, 263)
	if zl, zh := WilsonZ(81, 263, Z975); zl != lo || zh != hi {
		t.Errorf("WilsonZ(81, 263, Z975) = [%v, %v], want WilsonF's [%v, %v]", zl, zh, lo, hi)
	}
	if wl, wh := WilsonZ(81, 263, 2.807); !(wl < lo && wh > hi) {
		t.Errorf("WilsonZ at z 2.807 = [%v, %v], want wider than [%v, %v]", wl, wh, lo, hi)
	}
}
