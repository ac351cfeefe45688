package reports

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPassKPoints(t *testing.T) {
	tests := []struct {
		n    int
		want []int
	}{
		{0, []int{}},
		{1, []int{1}},
		{20, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}},
		{21, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 21}},
		{50, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 50}},
		{137, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 50, 100, 137}},
		{200, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 50, 100, 200}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, passKPoints(tt.n)); diff != "" {
			t.Errorf("passKPoints(%d) (-want +got):\n%s", tt.n, diff)
		}
	}
}

// TestPassKBoundedInResults: with many trials results.json keeps pass^k
// at a bounded set of k while pass_k.csv has every k = 1..n.
func TestPassKBoundedInResults(t *testing.T) {
	const n = 137
	a := NewAggregator(Config{Scenarios: []ScenarioInfo{{ID: "S01", Category: "typical"}, {ID: "S02", Category: "typical"}}})
	for trial := 1; trial <= n; trial++ {
		a.Add(Item{Build: CleanBuild, Scenario: "S01", Category: "typical", Trial: trial, Success: trial%20 != 0}) // c = 131
		a.Add(Item{Build: CleanBuild, Scenario: "S02", Category: "typical", Trial: trial, Success: trial%50 != 0}) // c = 135
	}
	r := a.Results()
	p := r.PassK[0]
	if p.N != n || p.C != 131 {
		t.Fatalf("S01: n %d c %d, want %d and 131", p.N, p.C, n)
	}
	if diff := cmp.Diff(passKPoints(n), p.K); diff != "" {
		t.Errorf("k kept (-want +got):\n%s", diff)
	}
	for _, k := range []int{1, 10, 20, 50, 100, n} {
		if got, ok := p.At(k); !ok || got != f4(PassK(n, 131, k)) {
			t.Errorf("pass^%d = %v (kept %v), want %v", k, got, ok, f4(PassK(n, 131, k)))
		}
	}
	if _, ok := p.At(11); ok {
		t.Error("results.json keeps pass^11 for 137 trials")
	}

	files := renderAll(t, r)
	rows, err := csv.NewReader(strings.NewReader(string(files["pass_k.csv"]))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+2*n {
		t.Fatalf("pass_k.csv has %d rows, want a header and %d", len(rows), 2*n)
	}
	// Row k = 37 of S01.
	want := []string{"clean", "S01", "typical", "137", "131", "37", f4(PassK(n, 131, 37)).String()}
	if diff := cmp.Diff(want, rows[37]); diff != "" {
		t.Errorf("pass_k.csv S01 k=37 (-want +got):\n%s", diff)
	}
	cats, err := csv.NewReader(strings.NewReader(string(files["pass_k_by_category.csv"]))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	mean := f4((PassK(n, 131, 37) + PassK(n, 135, 37)) / 2).String()
	if len(cats) != 1+n || cats[37][4] != "37" || cats[37][5] != mean {
		t.Errorf("pass_k_by_category.csv: %d rows, k=37 row %v; want %d rows and mean %s", len(cats), cats[min(37, len(cats)-1)], 1+n, mean)
	}
	if !strings.Contains(string(files["report.md"]), "results.json keeps pass^k for every k = 1..n when n ≤ 20") {
		t.Error("report.md does not say which k results.json keeps")
	}
}
