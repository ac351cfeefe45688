package score

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Input errors; a [*LineError] wraps one of them.
var (
	ErrNotJSON     = errors.New("not JSON")
	ErrBadField    = errors.New("bad field")
	ErrMissingID   = errors.New("missing run id")
	ErrDuplicateID = errors.New("duplicate run id")
	ErrNoName      = errors.New("call without a name")
	ErrNoRuns      = errors.New("no runs")
)

// LineError is a bad line of a runs file.
type LineError struct {
	File  string
	Line  int
	Field string // JSON path of the offending field, "" for the whole line
	Msg   string
	Err   error // one of the Err* sentinels
}

// Error returns "file:line: field: message".
func (e *LineError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the sentinel describing the kind of problem.
func (e *LineError) Unwrap() error { return e.Err }

// ReadRuns reads JSON Lines, one [Run] per line; name is the file name used
// in errors. Blank lines are ignored. Unknown keys are errors, so that a
// misspelt "expected_answer" cannot silently turn runs unscoreable.
//
// A bad line (not a JSON object, a field of the wrong type, a run without an
// id, a duplicate id, a call without a name) is an error naming the line;
// with keepGoing it is skipped and counted in skipped instead. Read errors
// of r are returned either way.
func ReadRuns(r io.Reader, name string, keepGoing bool) (runs []Run, skipped int, err error) {
	br := bufio.NewReader(r)
	first := map[string]int{} // run id -> line
	for lineNo := 1; ; lineNo++ {
		line, rerr := br.ReadBytes('\n')
		if rerr != nil && rerr != io.EOF {
			return runs, skipped, fmt.Errorf("read %s: %w", name, rerr)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			run, lerr := parseRun(line, first)
			if lerr != nil {
				lerr.File, lerr.Line = name, lineNo
				if !keepGoing {
					return runs, skipped, lerr
				}
				skipped++
			} else {
				run.Line = lineNo
				first[run.ID] = lineNo
				runs = append(runs, run)
			}
		}
		if rerr == io.EOF {
			return runs, skipped, nil
		}
	}
}

// parseRun decodes and checks one non-blank line; first maps the ids seen
// so far to their lines.
func parseRun(line []byte, first map[string]int) (Run, *LineError) {
	var run Run
	// Strictly: a byte order mark, a key given twice, invalid UTF-8 or a
	// number beyond float64 is refused, as in every other score input.
	if _, lerr := decodeStrict(bytes.TrimRight(line, "\r\n"), &run, false); lerr != nil {
		return run, lerr
	}
	if run.ID == "" {
		return run, &LineError{Field: "run", Msg: "missing run id", Err: ErrMissingID}
	}
	if l, dup := first[run.ID]; dup {
		return run, &LineError{Field: "run", Msg: fmt.Sprintf("duplicate run id %q (first on line %d)", run.ID, l), Err: ErrDuplicateID}
	}
	for _, list := range []struct {
		field string
		calls []Call
	}{{"expected_calls", run.ExpectedCalls}, {"calls", run.Calls}} {
		for i, c := range list.calls {
			if c.Name == "" {
				return run, &LineError{Field: fmt.Sprintf("%s[%d].name", list.field, i), Msg: "call without a name", Err: ErrNoName}
			}
		}
	}
	return run, nil
}

// jsonType names the JSON type a Go kind decodes from.
func jsonType(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "slice", "array":
		return "array"
	case "map", "struct":
		return "object"
	case "bool":
		return "boolean"
	case "ptr":
		return "string or null"
	}
	return goKind
}
