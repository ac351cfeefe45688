package reports

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// golden compares got with testdata/name.golden, rewriting it with -update.
func golden(tb testing.TB, name string, got []byte) {
	tb.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run go test ./reports -update)", err)
	}
	if !bytes.Equal(want, got) {
		tb.Errorf("%s differs from %s; run go test ./reports -update and review the diff\n%s", name, path, firstDiff(want, got))
	}
}

// firstDiff shows the first differing line.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + itoa(i+1) + ":\n-want " + a + "\n+got  " + b
		}
	}
	return ""
}

func TestGolden(t *testing.T) {
	files, err := Render(synthResults())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if name == "report.html" {
			continue // checked by TestHTML*, too large to review as a golden file
		}
		t.Run(name, func(t *testing.T) { golden(t, name, files[name]) })
	}
}

// TestResultsJSONStreamsMarshalIndent: results.json, written a row at a
// time, has exactly the bytes json.MarshalIndent gives for the whole.
func TestResultsJSONStreamsMarshalIndent(t *testing.T) {
	k := F4(0.25)
	withAgreement := synthResults()
	withAgreement.SetAgreement([]AgreementRow{{A: "A", AKind: "design", B: "ann", BKind: "reviewer", N: 2, Kappa: &k}})
	withPattern := evilResults() // markup in strings, a trace pattern set
	empty := &Results{Schema: Schema}
	for name, r := range map[string]*Results{"synthetic": withAgreement, "evil": withPattern, "empty": empty} {
		t.Run(name, func(t *testing.T) {
			r = r.normalised()
			want, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, '\n')
			var got bytes.Buffer
			if err := writeJSON(&got, r); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, got.Bytes()) {
				t.Errorf("streamed results.json differs from json.MarshalIndent\n%s", firstDiff(want, got.Bytes()))
			}
		})
	}
}
