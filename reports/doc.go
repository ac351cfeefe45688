// Package reports turns the experiment's stream of work items into
// everything a researcher, an architect or an auditor reads: detection,
// localisation and false-alarm rates with 95% Wilson intervals, pass^k
// reliability, cost, paired McNemar tests, the mutant status table, the
// verdicts on hypotheses H1–H3, and the blinded human review with Cohen's
// kappa.
//
// An [Aggregator] takes [Item]s one at a time (memory grows with the number
// of suite runs, not with the number of items) and [Aggregator.Results]
// computes a [Results], which [WriteAll] renders as results.json
// (baton.results/v1), report.md, report.html and tidy CSVs.
//
// Nothing here is keyed by an expected figure: every number is computed from
// the items. The statistics are small and written by hand in stats.go, each
// tested against published reference values.
package reports
