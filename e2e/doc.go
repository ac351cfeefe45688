// Package e2e holds tests that cross packages: a mutant switched on in the
// mission, evaluated by the designs, the way an experiment does it. It has
// no code of its own; designs stay blind because only these tests, never
// the designs package, see the mutants.
package e2e
