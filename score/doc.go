// Package score scores recorded agent runs the way a careful reviewer would,
// and refuses to hide what a single accuracy number hides.
//
// A run (one line of a JSON Lines file, see [Run] and [ReadRuns]) records
// the tool calls an agent was expected to make, the calls it made, the
// expected answer if one is known, and the answer it gave. [Score] reports:
//
//   - tool-call accuracy under three matchers side by side ([Trajectory]):
//     exact (names and arguments, in order), name-only (names in order,
//     arguments ignored) and order-ignored (the same multiset of name and
//     arguments), with n, each weaker matcher's gap to exact and the runs it
//     forgives;
//   - output accuracy, correct / (correct + incorrect) after normalising
//     whitespace and case, with runs that have no recorded truth in their own
//     unscoreable column, never in the denominator;
//   - optionally a model judge ([LLMJudge], talking to an OpenAI-compatible
//     chat-completions endpoint through a [model.Client]) for the
//     unscoreable runs only, validated first on the runs that do have a
//     truth ([Report.ApplyJudge]); a failed judge request loses no verdict
//     already obtained.
//
// With another [Kind] (`baton score --kind`), [Main] scores observations
// from systems baton does not run, each read strictly ([ReadSkills],
// [ReadVoice], [ReadKnowledge], [ReadCoordination]) and reported as rates
// with count, n and a 95% Wilson interval ([Rate], [Figure]): skill
// selection, loading and execution ([ScoreSkills]); ordering constraints
// over event timelines with timestamp bounds ([ScoreVoice]); the stage at
// which a knowledge-to-action attempt failed, per interface
// ([ScoreKnowledge]); and the eight coordination dimensions of package
// coordination ([ScoreCoordination]).
//
// [Main] is the entry point of `baton score`. Design A of the harness uses
// [Trajectory] directly for its per-agent scorecards.
package score
