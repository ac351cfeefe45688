package safecsv

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCell(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"EUR", "EUR"},
		{"=HYPERLINK(\"http://x\",\"y\")", "'=HYPERLINK(\"http://x\",\"y\")"},
		{"+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"},
		{"-2+3", "'-2+3"},
		{"@SUM(A1:A9)", "'@SUM(A1:A9)"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		{"-0.0224", "-0.0224"},
		{"-12", "-12"},
		{"+1e3", "+1e3"},
		{"a=b", "a=b"},
		{"-", "'-"},
	} {
		if got := Cell(tc.in); got != tc.want {
			t.Errorf("Cell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	rec := []string{"A", "=1+1", "-0.5"}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if d := cmp.Diff("A,'=1+1,-0.5\n", b.String()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if rec[1] != "=1+1" {
		t.Error("Write changed its record")
	}
}

func FuzzCell(f *testing.F) {
	f.Add("=1")
	f.Add("-0.1")
	f.Fuzz(func(t *testing.T, s string) {
		c := Cell(s)
		if c != s && c != "'"+s {
			t.Fatalf("Cell(%q) = %q", s, c)
		}
		if c != "" {
			switch c[0] {
			case '=', '+', '-', '@', '\t', '\r':
				if c == s {
					if _, err := strconv.ParseFloat(s, 64); err != nil {
						t.Fatalf("Cell(%q) left a formula", s)
					}
				}
			}
		}
	})
}
