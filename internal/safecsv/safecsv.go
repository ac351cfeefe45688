// Package safecsv writes CSV that a spreadsheet opens as data, never as a
// formula: a cell that begins with "=", "+", "-", "@", a tab or a carriage
// return is written after a single quote, as OWASP's CSV injection advice
// and spreadsheet-safe exporters do, unless the whole cell is a number
// (a negative rate such as -0.0224 stays a number).
package safecsv

import (
	"encoding/csv"
	"io"
	"strconv"
)

// Cell returns s as a spreadsheet reads it as text: s itself, or s after
// a single quote when a spreadsheet would take it for a formula.
func Cell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
	default:
		return s
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil && s[0] != '\t' && s[0] != '\r' {
		return s
	}
	return "'" + s
}

// Writer is a [csv.Writer] that guards every cell with [Cell].
type Writer struct {
	*csv.Writer
	buf []string
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{Writer: csv.NewWriter(w)} }

// Write writes one record, each cell guarded; record is not changed.
func (w *Writer) Write(record []string) error {
	w.buf = w.buf[:0]
	for _, c := range record {
		w.buf = append(w.buf, Cell(c))
	}
	return w.Writer.Write(w.buf)
}
