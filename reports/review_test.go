package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// candidates builds review candidates over the synthetic builds: every
// build × scenario × trial, flagged as the synthetic designs flag them.
func candidates() []ReviewCandidate {
	cfg := synthConfig()
	var out []ReviewCandidate
	for _, b := range cfg.Builds {
		for _, sc := range cfg.Scenarios {
			for trial := range 4 {
				c := ReviewCandidate{
					Build: b.ID, Class: b.Class, Scenario: sc.ID, Category: sc.Category, Trial: trial, Seed: uint64(trial),
					Flagged:  map[string]bool{},
					Emails:   []ReviewEmail{{ID: "E1", From: "ap@supplier.example", Subject: "Invoice " + sc.ID, Body: "Please pay " + evil}},
					Handoffs: []ReviewHandoff{{Edge: "intake->action", Raw: `{"item":"E1","payload":{"note":"` + strings.ReplaceAll(evil, `"`, `\"`) + `"}}`}},
					EndState: `{"payments":[]}`,
					Expected: `{"E1":"paid"}`,
				}
				for _, d := range cfg.Designs {
					c.Flagged[d], _, _, _ = synthFlag(d, b.ID, sc.ID, trial)
				}
				out = append(out, c)
			}
		}
	}
	return out
}

func readKey(tb testing.TB, dir string) reviewKey {
	tb.Helper()
	k, _, err := loadKey(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

func TestExportReview(t *testing.T) {
	dir := t.TempDir()
	cands := candidates()
	if err := ExportReview(dir, cands, 20, 7); err != nil {
		t.Fatal(err)
	}
	key := readKey(t, dir)
	if len(key.Samples) != 20 {
		t.Fatalf("%d samples, want 20", len(key.Samples))
	}
	t.Run("stratified", func(t *testing.T) {
		all := map[string]bool{}
		for _, c := range cands {
			all[stratum(c)] = true
		}
		got := map[string]bool{}
		for _, s := range key.Samples {
			got[s.Stratum] = true
		}
		if diff := cmp.Diff(all, got); diff != "" {
			t.Errorf("strata in the sample (-every stratum +sampled):\n%s", diff)
		}
	})
	t.Run("the key stays out of what reviewers receive", func(t *testing.T) {
		entries, err := os.ReadDir(filepath.Join(dir, "review"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if diff := cmp.Diff([]string{"pack.html", "sample.csv"}, names); diff != "" {
			t.Errorf("review/ holds (-want +got):\n%s", diff)
		}
		if _, err := os.Stat(filepath.Join(dir, ReviewKeyFile)); err != nil {
			t.Errorf("no key beside the review folder: %v", err)
		}
	})
	t.Run("blinded", func(t *testing.T) {
		sample, _ := os.ReadFile(filepath.Join(dir, "review", "sample.csv"))
		pack, _ := os.ReadFile(filepath.Join(dir, "review", "pack.html"))
		lines := strings.Split(strings.TrimSpace(string(sample)), "\n")
		if lines[0] != "sample_id,scenario,category,verdict" || len(lines) != 21 {
			t.Errorf("sample.csv header %q and %d rows, want sample_id,scenario,category,verdict and 20", lines[0], len(lines)-1)
		}
		for _, b := range synthConfig().Builds {
			for name, data := range map[string][]byte{"sample.csv": sample, "pack.html": pack} {
				if strings.Contains(string(data), b.ID) {
					t.Errorf("%s names build %s", name, b.ID)
				}
				if b.Class != "" && strings.Contains(string(data), b.Class) {
					t.Errorf("%s names class %s", name, b.Class)
				}
			}
		}
		if strings.Contains(string(pack), "<script") {
			t.Error("pack.html carries a live <script> element from an email or hand-off")
		}
		if !strings.Contains(string(pack), "&lt;script&gt;") {
			t.Error("pack.html does not show the email's markup as text")
		}
	})
	t.Run("shuffled: the whole set in another order under another seed", func(t *testing.T) {
		order := func(seed uint64) []string {
			d := t.TempDir()
			if err := ExportReview(d, cands, len(cands), seed); err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, s := range readKey(t, d).Samples {
				out = append(out, fmt.Sprintf("%s/%s/%d", s.Build, s.Scenario, s.Trial))
			}
			return out
		}
		a, b := order(1), order(2)
		if slices.Equal(a, b) {
			t.Error("seeds 1 and 2 give the same order")
		}
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) || len(a) != len(cands) {
			t.Error("taking every candidate does not give the same set under both seeds")
		}
	})
	t.Run("same seed same bytes, other seed other sample", func(t *testing.T) {
		again, other := t.TempDir(), t.TempDir()
		reversed := slices.Clone(cands)
		slices.Reverse(reversed)
		if err := ExportReview(again, reversed, 20, 7); err != nil {
			t.Fatal(err)
		}
		if err := ExportReview(other, cands, 20, 8); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"review/sample.csv", "review/pack.html", ReviewKeyFile} {
			a, _ := os.ReadFile(filepath.Join(dir, f))
			b, _ := os.ReadFile(filepath.Join(again, f))
			if string(a) != string(b) {
				t.Errorf("%s differs for the same seed and candidates in another order", f)
			}
		}
		a, _ := os.ReadFile(filepath.Join(dir, ReviewKeyFile))
		b, _ := os.ReadFile(filepath.Join(other, ReviewKeyFile))
		if string(a) == string(b) {
			t.Error("seed 8 drew the same sample as seed 7")
		}
	})
	t.Run("size above the candidates takes them all", func(t *testing.T) {
		d := t.TempDir()
		if err := ExportReview(d, cands[:5], 50, 1); err != nil {
			t.Fatal(err)
		}
		if n := len(readKey(t, d).Samples); n != 5 {
			t.Errorf("%d samples, want 5", n)
		}
	})
	t.Run("refuses to orphan imported labels", func(t *testing.T) {
		d := t.TempDir()
		if err := ExportReview(d, cands, 4, 1); err != nil {
			t.Fatal(err)
		}
		writeLabels(t, d, "ann", readKey(t, d).Samples[0].SampleID+",pass\n")
		if err := ExportReview(d, cands, 4, 2); !errors.Is(err, ErrReview) {
			t.Errorf("export over imported labels: %v, want ErrReview", err)
		}
	})
}

// writeLabels imports body (after a sample_id,verdict header) for reviewer.
func writeLabels(tb testing.TB, dir, reviewer, body string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), reviewer+".csv")
	if err := os.WriteFile(path, []byte("sample_id,verdict\n"+body), 0o644); err != nil {
		tb.Fatal(err)
	}
	if _, err := ImportReview(dir, reviewer, path, ImportOptions{Replace: true}); err != nil {
		tb.Fatal(err)
	}
}

func TestImportReviewErrors(t *testing.T) {
	dir := t.TempDir()
	if err := ExportReview(dir, candidates(), 6, 3); err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, s := range readKey(t, dir).Samples {
		ids = append(ids, s.SampleID)
	}
	slices.Sort(ids)
	writeLabels(t, dir, "ann", ids[0]+",pass\n")
	labelsPath := filepath.Join(dir, "review", "labels-ann.csv")
	before, _ := os.ReadFile(labelsPath)

	tests := []struct {
		name     string
		reviewer string
		body     string
		want     []string // substrings of the error: file, line and value
	}{
		{"unknown sample id", "ann", "sample_id,verdict\n" + ids[1] + ",pass\nR999,fail\n", []string{":3:", `"R999"`, "unknown sample id"}},
		{"duplicate row", "ann", "sample_id,verdict\n" + ids[1] + ",pass\n" + ids[1] + ",fail\n", []string{":3:", ids[1], "duplicate", "line 2"}},
		{"bad verdict", "ann", "sample_id,verdict\n" + ids[1] + ",maybe\n", []string{":2:", `"maybe"`, "not pass or fail"}},
		{"empty verdict", "ann", "sample_id,verdict\n" + ids[1] + ",\n", []string{":2:", `""`}},
		{"missing header", "ann", ids[1] + ",pass\n", []string{":1:", "missing header", ids[1]}},
		{"empty file", "ann", "", []string{":1:", "missing header"}},
		{"short row", "ann", "sample_id,verdict\n" + ids[1] + "\n", []string{":2:", "want columns"}},
		{"reviewer imported twice without replace", "ann", "sample_id,verdict\n" + ids[0] + ",fail\n", []string{"already imported", "--replace", "labels-ann.csv"}},
		{"no labels", "bob", "sample_id,verdict\n", []string{"no labels"}},
		{"bad reviewer name", "../ann", "sample_id,verdict\n" + ids[1] + ",pass\n", []string{`"../ann"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "labels.csv")
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ImportReview(dir, tt.reviewer, path, ImportOptions{})
			if err == nil {
				t.Fatal("import succeeded, want an error")
			}
			if !errors.Is(err, ErrReview) {
				t.Errorf("error %v does not wrap ErrReview", err)
			}
			for _, s := range append(tt.want, path) {
				if (tt.reviewer == "../ann" || strings.Contains(tt.name, "twice")) && s == path {
					continue
				}
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %q", err, s)
				}
			}
			after, _ := os.ReadFile(labelsPath)
			if string(after) != string(before) {
				t.Errorf("failed import changed labels-ann.csv:\n%s", after)
			}
		})
	}
	t.Run("re-import with replace replaces the labels whole", func(t *testing.T) {
		// Extra columns (a filled-in sample.csv) are ignored.
		path := filepath.Join(t.TempDir(), "more.csv")
		os.WriteFile(path, []byte("sample_id,scenario,category,verdict\n"+ids[1]+",S02,typical,fail\n"+ids[2]+",S01,typical,PASS\n"), 0o644)
		sum, err := ImportReview(dir, "ann", path, ImportOptions{Replace: true})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(labelsPath)
		want := "sample_id,verdict\n" + ids[1] + ",fail\n" + ids[2] + ",pass\n"
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Errorf("labels-ann.csv (-want +got):\n%s", diff)
		}
		// Two labels of a sample of six: accepted, with a warning saying so.
		if wantSum := (ImportSummary{Reviewer: "ann", Labelled: 2, Sample: 6, Replaced: true}); sum != wantSum || !sum.Partial() ||
			!strings.Contains(sum.Warning(), "labelled 2 of the 6 samples") {
			t.Errorf("summary %+v, warning %q; want %+v, partial", sum, sum.Warning(), wantSum)
		}
	})
	t.Run("a full import has no warning", func(t *testing.T) {
		var body strings.Builder
		body.WriteString("sample_id,verdict\n")
		for _, id := range ids {
			body.WriteString(id + ",pass\n")
		}
		path := filepath.Join(t.TempDir(), "all.csv")
		os.WriteFile(path, []byte(body.String()), 0o644)
		sum, err := ImportReview(dir, "cyd", path, ImportOptions{})
		if err != nil || sum.Partial() || sum.Warning() != "" || sum.Replaced {
			t.Errorf("full import: %+v, %v; want no warning", sum, err)
		}
	})
	t.Run("no export", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "l.csv")
		os.WriteFile(path, []byte("sample_id,verdict\n"), 0o644)
		if _, err := ImportReview(t.TempDir(), "ann", path, ImportOptions{}); !errors.Is(err, ErrReview) {
			t.Errorf("import without an export: %v, want ErrReview", err)
		}
	})
}

func TestAgreement(t *testing.T) {
	// Four candidates; design A flags the first two. Reviewer ann fails
	// 1 and 3, bob fails 1 and 2:
	//   A vs ann: both fail 1, only A 1, only ann 1, both pass 1 -> kappa 0
	//   A vs bob: 2, 0, 0, 2 -> kappa 1
	//   ann vs bob: 1, 1, 1, 1 -> kappa 0
	var cands []ReviewCandidate
	for i := range 4 {
		cands = append(cands, ReviewCandidate{Build: "clean", Scenario: fmt.Sprintf("S%02d", i+1), Flagged: map[string]bool{"A": i < 2}})
	}
	dir := t.TempDir()
	if err := ExportReview(dir, cands, 4, 1); err != nil {
		t.Fatal(err)
	}
	id := map[string]string{} // scenario -> sample id
	for _, s := range readKey(t, dir).Samples {
		id[s.Scenario] = s.SampleID
	}
	if rows, err := Agreement(dir); err != nil || len(rows) != 0 {
		t.Errorf("Agreement before any import = %v, %v; want no rows", rows, err)
	}
	writeLabels(t, dir, "ann", id["S01"]+",fail\n"+id["S02"]+",pass\n"+id["S03"]+",fail\n"+id["S04"]+",pass\n")
	writeLabels(t, dir, "bob", id["S01"]+",fail\n"+id["S02"]+",fail\n"+id["S03"]+",pass\n"+id["S04"]+",pass\n")
	rows, err := Agreement(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Kappa 0 on 1, 1, 1, 1 has SE √(A + B − C)/((1 − pe)√n) with pe 0.5,
	// A = 2·0.25·(1 − 1·1)² = 0, B = 2·0.25·1² = 0.5, C = (0 − 0.5)² =
	// 0.25: √0.25 / (0.5·2) = 0.5, interval ±0.98; kappa 1 has SE 0.
	zero, one, se0, se1 := F4(0), F4(1), F4(0.5), F4(0)
	half := CI{F4(-z975 * 0.5), F4(z975 * 0.5)}
	want := []AgreementRow{
		{A: "A", AKind: "design", B: "ann", BKind: "reviewer", N: 4, BothFail: 1, OnlyA: 1, OnlyB: 1, BothPass: 1, Agree: 2, Rate: 0.5, CI95: wilsonCI(2, 4), Kappa: &zero, KappaSE: &se0, KappaCI95: half, Sample: 4},
		{A: "A", AKind: "design", B: "bob", BKind: "reviewer", N: 4, BothFail: 2, BothPass: 2, Agree: 4, Rate: 1, CI95: wilsonCI(4, 4), Kappa: &one, KappaSE: &se1, KappaCI95: CI{1, 1}, Sample: 4},
		{A: "ann", AKind: "reviewer", B: "bob", BKind: "reviewer", N: 4, BothFail: 1, OnlyA: 1, OnlyB: 1, BothPass: 1, Agree: 2, Rate: 0.5, CI95: wilsonCI(2, 4), Kappa: &zero, KappaSE: &se0, KappaCI95: half, Sample: 4},
	}
	approx := cmp.Comparer(func(a, b F4) bool { return math.Abs(float64(a-b)) < 1e-12 })
	if diff := cmp.Diff(want, rows, approx); diff != "" {
		t.Errorf("agreement (-want +got):\n%s", diff)
	}
	// The rows render.
	r := synthResults()
	r.SetAgreement(rows)
	files := renderAll(t, r)
	if !strings.Contains(string(files["report.md"]), "| design A | reviewer bob | 4 | 1.00 [0.51–1.00] (4/4) | 1.00 [1.00–1.00] (SE 0: the large-sample interval is a point) |") {
		t.Errorf("report.md agreement table missing the A vs bob row:\n%s", files["report.md"])
	}
	var doc struct{ Agreement []map[string]any }
	json.Unmarshal(files["results.json"], &doc)
	if len(doc.Agreement) != 3 {
		t.Errorf("results.json has %d agreement rows, want 3", len(doc.Agreement))
	}
	t.Run("refresh re-renders the run folder", func(t *testing.T) {
		if err := WriteAll(dir, synthResults()); err != nil {
			t.Fatal(err)
		}
		suites, err := os.ReadFile(filepath.Join(dir, "suite_runs.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if err := RefreshAgreement(dir, nil); err != nil {
			t.Fatal(err)
		}
		// results.json has no suite runs: the refresh leaves suite_runs.csv
		// as the run wrote it.
		if again, err := os.ReadFile(filepath.Join(dir, "suite_runs.csv")); err != nil || string(again) != string(suites) {
			t.Errorf("suite_runs.csv after the refresh: %v, changed %v", err, string(again) != string(suites))
		}
		back, err := LoadResults(filepath.Join(dir, "results.json"))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, back.Agreement, approx); diff != "" {
			t.Errorf("agreement after refresh (-want +got):\n%s", diff)
		}
		csv, _ := os.ReadFile(filepath.Join(dir, "agreement.csv"))
		if n := strings.Count(string(csv), "\n"); n != 4 {
			t.Errorf("agreement.csv has %d lines, want header and 3 rows", n)
		}
	})
}

func TestReviewKeyFromAnOlderExport(t *testing.T) {
	// Exports before review-key.json kept the key at review/key.json:
	// import and agreement still read it, and a new export removes it.
	dir := t.TempDir()
	cands := candidates()
	if err := ExportReview(dir, cands, 4, 1); err != nil {
		t.Fatal(err)
	}
	legacy := filepath.Join(dir, "review", "key.json")
	if err := os.Rename(filepath.Join(dir, ReviewKeyFile), legacy); err != nil {
		t.Fatal(err)
	}
	writeLabels(t, dir, "ann", readKey(t, dir).Samples[0].SampleID+",fail\n")
	if rows, err := Agreement(dir); err != nil || len(rows) != 3 {
		t.Errorf("Agreement with review/key.json = %d rows, %v; want 3 (one per design)", len(rows), err)
	}
	d2 := t.TempDir()
	os.MkdirAll(filepath.Join(d2, "review"), 0o755)
	b, _ := os.ReadFile(legacy)
	os.WriteFile(filepath.Join(d2, "review", "key.json"), b, 0o644)
	if err := ExportReview(d2, cands, 4, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(d2, "review", "key.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a new export left review/key.json in the reviewers' folder: %v", err)
	}
}

func FuzzParseLabels(f *testing.F) {
	f.Add("sample_id,verdict\nR001,pass\n")
	f.Add("sample_id,verdict\nR001,pass\nR001,fail\n")
	f.Add("verdict,sample_id\nfail,R002\n")
	f.Add("\ufeffsample_id,verdict\n\"R001\",\"pass\"\n")
	f.Add("R001,pass")
	f.Fuzz(func(t *testing.T, body string) {
		known := map[string]bool{"R001": true, "R002": true}
		got, err := parseLabels("f.csv", strings.NewReader(body), known)
		if err != nil {
			if !strings.Contains(err.Error(), "f.csv") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		for id, l := range got {
			if !known[id] || (l.verdict != "pass" && l.verdict != "fail") || l.line < 2 {
				t.Errorf("accepted %q = %+v", id, l)
			}
		}
	})
}
