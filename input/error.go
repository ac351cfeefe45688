package input

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pos is a place in an input file: 1-based line and column, 0 when not
// known.
type Pos struct {
	Line, Column int
}

// Error is one problem with an input file: where it is (file, line,
// column), which field (a path such as "faults.transport.redelivery" or
// "S03.emails[1].attachment.gross"), what is wrong, and, when the value
// had to be one of a known set, the valid choices and the closest of them.
// It is the one error type of baton's input readers.
type Error struct {
	File string
	Pos
	Field string
	// Problem says what is wrong, with the value when it helps
	// ("0: want at least 1", `want a string, got boolean true`).
	Problem string
	// Choices are the valid values, when the value had to be one of them.
	Choices []string
	// Suggest is the choice closest to what was written ("did you mean").
	Suggest string
	// Note places the problem ("family fam member F2 at s.yaml:19").
	Note string
	// Err, when set, is the underlying error.
	Err error
}

// maxChoices bounds the choices an error lists.
const maxChoices = 24

// Error returns the one-line form "file:line:col: field: problem".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
		if e.Column > 0 {
			b.WriteString(":" + strconv.Itoa(e.Column))
		}
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	if e.Problem != "" || e.Err == nil {
		b.WriteString(": " + e.Problem)
	}
	if e.Suggest != "" {
		fmt.Fprintf(&b, ", did you mean %s?", Quote(e.Suggest))
	}
	if len(e.Choices) > 0 {
		b.WriteString(" (want " + choiceList(e.Choices) + ")")
	}
	if e.Note != "" {
		b.WriteString(" (" + e.Note + ")")
	}
	s := oneLine(b.String())
	if e.Err != nil {
		// The underlying error keeps its lines: a file's problems that a
		// protocol's field led to are listed one per line.
		sep := " "
		if e.Problem != "" {
			sep = ": "
		}
		s += sep + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

func choiceList(cs []string) string {
	if len(cs) == 1 {
		return cs[0]
	}
	shown := cs
	more := ""
	if len(cs) > maxChoices {
		shown = cs[:maxChoices]
		more = fmt.Sprintf(", … and %d more", len(cs)-maxChoices)
	}
	return "one of " + strings.Join(shown, ", ") + more
}

// oneLine replaces line breaks and other control characters, so an error
// is always one line.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// List is the problems found in one or more input files, in file order and
// then by position, at most a limit of them; More counts the problems found
// beyond it. It unwraps to its errors, so errors.As finds the first
// [*Error].
type List struct {
	Errs []*Error
	More int
}

// Error writes one problem per line, and "… and N more problems" last when
// some were left out.
func (l *List) Error() string {
	var b strings.Builder
	for i, e := range l.Errs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	if l.More > 0 {
		fmt.Fprintf(&b, "\n… and %d more %s", l.More, plural(l.More, "problem"))
	}
	return b.String()
}

// Unwrap returns the problems.
func (l *List) Unwrap() []error {
	out := make([]error, len(l.Errs))
	for i, e := range l.Errs {
		out[i] = e
	}
	return out
}

// sort orders the problems by file (in the order files first appear) and
// position.
func (l *List) sort() {
	first := map[string]int{}
	for i, e := range l.Errs {
		if _, ok := first[e.File]; !ok {
			first[e.File] = i
		}
	}
	slices.SortStableFunc(l.Errs, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(first[a.File], first[b.File]), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// Collector gathers problems up to a limit and counts the rest: a reader
// of a hostile file reports a few dozen problems and a count, never a
// flood. The zero value collects [DefaultMaxErrors].
type Collector struct {
	// Max is the most problems kept; 0 means DefaultMaxErrors.
	Max  int
	list List
}

// DefaultMaxErrors is how many problems a reader reports before it only
// counts them.
const DefaultMaxErrors = 25

// Add records a problem; nil is ignored. An error that is a [*List] or
// joins several errors is added one problem at a time.
func (c *Collector) Add(err error) {
	switch e := err.(type) {
	case nil:
		return
	case *Error:
		c.add(e)
	case *List:
		for _, x := range e.Errs {
			c.add(x)
		}
		c.list.More += e.More
	case interface{ Unwrap() []error }:
		for _, x := range e.Unwrap() {
			c.Add(x)
		}
	default:
		c.add(&Error{Err: err})
	}
}

func (c *Collector) add(e *Error) {
	if len(c.list.Errs) >= cmp.Or(c.Max, DefaultMaxErrors) {
		c.list.More++
		return
	}
	c.list.Errs = append(c.list.Errs, e)
}

// Keeps reports whether e, just added, is among the problems kept rather
// than only counted: what only a shown problem needs (a suggestion, an edit
// distance against every choice) is worked out for a kept one alone.
func (c *Collector) Keeps(e *Error) bool {
	n := len(c.list.Errs)
	return n > 0 && c.list.Errs[n-1] == e
}

// Full reports whether the collector has stopped keeping problems.
func (c *Collector) Full() bool { return len(c.list.Errs) >= cmp.Or(c.Max, DefaultMaxErrors) }

// Len is the number of problems seen, kept or counted.
func (c *Collector) Len() int { return len(c.list.Errs) + c.list.More }

// Err returns the problems as a [*List] sorted by file and position, or
// nil when there were none.
func (c *Collector) Err() error {
	if c.Len() == 0 {
		return nil
	}
	l := &List{Errs: slices.Clone(c.list.Errs), More: c.list.More}
	l.sort()
	return l
}

// maxQuote bounds how much of a value an error echoes.
const maxQuote = 64

// Quote returns s quoted for an error message, cut to a few dozen
// characters with an ellipsis and its length when longer: a megabyte-long
// value is never echoed whole.
func Quote(s string) string {
	if len(s) <= maxQuote {
		return strconv.Quote(s)
	}
	cut := maxQuote
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%d bytes)", len(s))
}

// Clip returns s cut like [Quote], without the quotes: for text already
// known to be printable, such as a number as written.
func Clip(s string) string {
	if len(s) <= maxQuote && !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	return Quote(s)
}

// Suggest returns the choice closest to s when one is close enough to be
// what was meant (a letter or two apart, or differing only in case), or
// "".
func Suggest(s string, choices []string) string {
	if len(s) > 64 {
		return ""
	}
	best, bestD, tie := "", 0, false
	for _, c := range choices {
		if c == s {
			return ""
		}
		d := distance(strings.ToLower(s), strings.ToLower(c))
		if d < bestD || best == "" {
			best, bestD, tie = c, d, false
		} else if d == bestD {
			tie = true
		}
	}
	limit := max(1, min(len(s), len(best))/3)
	if best == "" || tie || bestD > limit {
		return ""
	}
	return best
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
