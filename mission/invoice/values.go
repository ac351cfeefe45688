package invoice

import (
	"math"
	"math/bits"

	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/sandbox"
)

// Readers for decoded JSON values (tool results, hand-off payloads). They
// never fail: a missing or unreadable value reads as the zero value.

func str(v any) string                 { return jsontext.Str(v) }
func num(v any) (float64, bool)        { return jsontext.Num(v) }
func list(v any) []any                 { return jsontext.List(v) }
func object(v any) map[string]any      { return jsontext.Object(v) }
func hasString(l []any, s string) bool { return jsontext.HasString(l, s) }

// strValue is [str] of v as a value to put in a result or in arguments:
// v itself when it holds a string, so that it is not boxed again.
func strValue(v any) any {
	if _, ok := v.(string); ok {
		return v
	}
	return ""
}

// floatValue is v when it holds a float64, else 0, as a value to put in a
// result or in arguments (v, _ := x.(float64), without boxing it again).
func floatValue(v any) any {
	if _, ok := v.(float64); ok {
		return v
	}
	return 0.0
}

// round2 rounds to cents.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

// cents returns x in integer cents.
func cents(x float64) int64 { return int64(math.Round(x * 100)) }

// failedForGood reports whether err is a failure the core must report: any
// error except not_found, which is a business answer.
func failedForGood(err *sandbox.Error) bool {
	return err != nil && err.Kind != sandbox.ErrNotFound
}

// failureFlag is the flag an item gets when a call failed for good: the
// system was unavailable (retries ran out), or the call was refused.
func failureFlag(err *sandbox.Error) string {
	if err.Retryable() {
		return FlagSystemUnavailable
	}
	return FlagToolRefused
}

// failureReason is the escalation reason for a call that failed for good.
func failureReason(err *sandbox.Error) string {
	if err.Retryable() {
		return ReasonSystemUnavailable
	}
	return ReasonToolRefused
}

// exceptionKind classifies a failure for good.
func exceptionKind(err *sandbox.Error) string {
	if err.Retryable() {
		return ExceptionToolFailure
	}
	return ExceptionRefusal
}

// containsFold reports whether s contains sub, ignoring ASCII case and
// treating a space in sub as any run of white space (so a phrase broken
// over lines still matches); sub must be lower case.
func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	lower, upper := sub[0], sub[0]
	if lower >= 'a' && lower <= 'z' {
		upper -= 'a' - 'A'
	}
	for i := 0; i < len(s); i++ {
		// Only a position whose byte can match sub's first one can start
		// a match (a leading space in sub matches white space only).
		if c := s[i]; lower != ' ' && c != lower && c != upper || lower == ' ' && !isSpace(c) {
			continue
		}
		if matchFoldAt(s, i, sub) {
			return true
		}
	}
	return false
}

func matchFoldAt(s string, i int, sub string) bool {
	for j := 0; j < len(sub); j++ {
		if sub[j] == ' ' {
			if i >= len(s) || !isSpace(s[i]) {
				return false
			}
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			continue
		}
		if i >= len(s) {
			return false
		}
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != sub[j] {
			return false
		}
		i++
	}
	return true
}

// foldSet is a set of lower-case phrases, each matched as [containsFold]
// matches it, all of them in one pass over a text.
type foldSet struct {
	phrases []string
	empty   bool // a phrase is "": every text matches
	// start holds, per byte, the phrases (bit i for phrases[i]) a match
	// can start with at that byte.
	start [256]uint64
}

// newFoldSet returns the set of phrases, at most 64 of them.
func newFoldSet(phrases ...string) *foldSet {
	if len(phrases) > 64 {
		panic("foldSet: more than 64 phrases")
	}
	f := &foldSet{phrases: phrases}
	for i, p := range phrases {
		bit := uint64(1) << i
		switch c := p[:min(len(p), 1)]; {
		case c == "":
			f.empty = true
		case c == " ":
			for _, w := range []byte(" \t\n\r") {
				f.start[w] |= bit
			}
		default:
			f.start[c[0]] |= bit
			if c[0] >= 'a' && c[0] <= 'z' {
				f.start[c[0]-('a'-'A')] |= bit
			}
		}
	}
	return f
}

// in reports whether s contains any of the set's phrases.
func (f *foldSet) in(s string) bool {
	if f.empty {
		return true
	}
	for i := 0; i < len(s); i++ {
		for m := f.start[s[i]]; m != 0; m &= m - 1 {
			if matchFoldAt(s, i, f.phrases[bits.TrailingZeros64(m)]) {
				return true
			}
		}
	}
	return false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
