package score

import "strings"

// OutputVerdict is the deterministic verdict on a run's answer.
type OutputVerdict string

// The output verdicts.
const (
	OutputCorrect     OutputVerdict = "correct"
	OutputIncorrect   OutputVerdict = "incorrect"
	OutputUnscoreable OutputVerdict = "unscoreable" // no recorded truth
)

// AllOutputVerdicts lists every output verdict.
var AllOutputVerdicts = []OutputVerdict{OutputCorrect, OutputIncorrect, OutputUnscoreable}

// String returns the verdict's name.
func (v OutputVerdict) String() string { return string(v) }

// NormaliseAnswer collapses runs of white space to one space, trims the
// ends and lower-cases s: the form in which answers are compared.
func NormaliseAnswer(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// Output judges a run's answer against its recorded truth: unscoreable
// without one, else correct when both are equal after [NormaliseAnswer].
func Output(r Run) OutputVerdict {
	if r.ExpectedAnswer == nil {
		return OutputUnscoreable
	}
	if NormaliseAnswer(*r.ExpectedAnswer) == NormaliseAnswer(r.Answer) {
		return OutputCorrect
	}
	return OutputIncorrect
}
