//go:build race

package experiment

// raceEnabled reports whether the tests run under the race detector,
// which makes the largest end-to-end tests several times slower.
const raceEnabled = true
