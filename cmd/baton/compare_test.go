package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareGeneric: compare reads results.json generically: keys and
// fields added later (a variant column, a clustered interval, a new
// table) show up, rows are matched by their leading text fields, and
// changed, lost and new rows are marked.
func TestCompareGeneric(t *testing.T) {
	a := writeRun(t, `{"protocol": {"name": "p", "sha256": "aa"}, "detection": [
		{"design": "A", "class": "control", "detected": 80, "n": 80, "rate": 1, "ci95": [0.9542, 1]},
		{"design": "B", "class": "control", "detected": 70, "n": 80, "rate": 0.875, "ci95": [0.78, 0.93]},
		{"design": "C", "class": "control", "detected": 80, "n": 80, "rate": 1, "ci95": [0.9542, 1]}],
		"false_alarms": [{"design": "A", "flagged": 2, "n": 20}, {"design": "B", "flagged": 6, "n": 20}],
		"warnings": ["one"]}`)
	b := writeRun(t, `{"protocol": {"name": "p", "sha256": "bb"}, "detection": [
		{"design": "A", "class": "control", "variant": "strict", "detected": 80, "n": 80, "rate": 1, "ci95": [0.9542, 1], "ci95_clustered": [0.9, 1]},
		{"design": "A", "class": "control", "variant": "lenient", "detected": 80, "n": 80, "rate": 1, "ci95": [0.9542, 1], "ci95_clustered": [0.9, 1]},
		{"design": "B", "class": "control", "variant": "strict", "detected": 72, "n": 80, "rate": 0.9, "ci95": [0.81, 0.95], "ci95_clustered": [0.8, 0.96]}],
		"false_alarms": [{"design": "A", "flagged": 3, "n": 20}, {"design": "B", "flagged": 6, "n": 20}],
		"warnings": ["two"], "robustness": [{"design": "A", "share": 0.5}]}`)
	var out strings.Builder
	g := &globals{stdout: &out, stderr: &out}
	cmd := newCompareCmd(g)
	cmd.SetArgs([]string{a, b})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"*  sha256  aa → bb",
		"## detection (6 rows, 6 differ)", // keyed by design, class and the variant B added
		"ci95_clustered",                  // a field B added
		"-  B       control  -",           // A's rows have no variant
		"+  A       control  lenient",     // B's
		"## false_alarms (2 rows, 1 differ)",
		"*  A       2 → 3 (+1)  20", // matched by design
		"   B       6           20",
		"## robustness (1 rows, 1 differ)", // a table B added
		"-  one",
		"+  two",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("compare output lacks %q:\n%s", want, got)
		}
	}
}

func writeRun(tb testing.TB, results string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, data := range map[string]string{"results.json": results, "manifest.json": `{"schema": "baton.manifest/v1", "baton": "x"}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}
