// Package reports turns the experiment's stream of work items into
// everything a researcher, an architect or an auditor reads: detection and
// localisation rates with the mutant as the unit ([ClusteredRate]) and the
// trial-level rates beside them, false alarms, pass^k reliability, cost,
// paired comparisons of designs on the same mutants ([ClusteredPaired],
// [MutantMcNemar], [Holm]), the mutant status table, the verdicts on
// hypotheses H1–H3, the blinded human review with Cohen's kappa and its
// interval ([KappaCI]), and a methods and limitations section.
//
// An [Aggregator] takes [Item]s one at a time and [Aggregator.Results]
// computes a [Results], which [WriteAll] renders as results.json
// (baton.results/v3), report.md, report.html and tidy CSVs. The report is
// built once as a document (sections, captions, tables of typed cells,
// figures) and rendered to Markdown and to HTML, so the HTML has
// everything the Markdown has; the HTML adds heat maps, a drill-down and a
// trace viewer ([WriteTracePage]) of the kept traces of the run folder. Memory does not
// follow the items: the Aggregator keeps interned ids and about 200 bytes
// per suite run (design, build, trial), and WriteAll renders one file at a
// time, streaming it to disk.
//
// results.json holds aggregates only, each of a size set by the designs,
// builds and scenarios, never by the trials: the suite runs go to
// suite_runs.csv alone ([Results.SuiteRuns]; runs.db has every item),
// pass^k keeps every k only up to 20 trials ([PassKRow]; pass_k.csv has
// every k), and report.html's drill-down shows a few example runs per
// design and mutant ([SuiteExample]). A Results read back with
// [LoadResults] re-renders every file but suite_runs.csv, which it leaves
// in place.
//
// The validity gate discards a run ([ErrDiscarded]) unless every design
// catches every control mutant in every trial by the rule detection counts
// by (a scenario flagged that the clean twin does not flag), and a run
// without a control mutant is discarded too: nothing validates its harness.
//
// The review key, which says what each blinded sample stands for, lives in
// the run folder as review-key.json ([ReviewKeyFile]), outside review/,
// the folder reviewers receive.
//
// results.json keeps every float at full precision ([F4]); only the
// renderers round, and every verdict is computed from unrounded values.
//
// Nothing here is keyed by an expected figure: every number is computed from
// the items. The statistics are small and written by hand in stats.go and
// cluster.go (whose comment says why the mutant is the unit and which
// published method each interval is), each tested against published
// reference values.
package reports
