// Package e2e holds tests that cross packages: a mutant switched on in the
// mission, evaluated by the designs, the way an experiment does it; the
// kernel's freedom from any one mission (no package outside mission/<name>/
// names the reference mission's records); and a toy two-agent mission,
// defined in a test file alone, run through designs A, B and C and a sweep.
// It has no code of its own; designs stay blind because only these tests,
// never the designs package, see the mutants.
package e2e
