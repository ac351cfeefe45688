package reports

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// rateSpec says which count and n a rate and its interval are computed
// from in one results.json section.
type rateSpec struct{ count, n, rate, ci string }

// rateSpecs covers every rate and interval key of results.json. A key
// ending in "rate" or "ci95" that no spec covers fails the test, so a new
// rate cannot escape the check.
var rateSpecs = map[string][]rateSpec{
	"detection":             {{"detected", "n", "rate", "ci95"}, {"raw_detected", "n", "raw_rate", "raw_ci95"}},
	"detection_by_mutant":   {{"detected", "n", "rate", "ci95"}, {"raw_detected", "n", "raw_rate", "raw_ci95"}},
	"detection_by_scenario": {{"detected", "n", "rate", "ci95"}, {"raw_detected", "n", "raw_rate", "raw_ci95"}},
	"localisation":          {{"exact", "flagged", "exact_rate", "exact_ci95"}, {"adjacent", "flagged", "adjacent_rate", "adjacent_ci95"}},
	"false_alarms":          {{"flagged", "n", "rate", "ci95"}, {"unexplained", "n", "unexplained_rate", "unexplained_ci95"}},
	"pass_k":                {{"c", "n", "rate", "ci95"}},
	"trajectory_matchers": {{"exact", "n", "exact_rate", "exact_ci95"}, {"name_only", "n", "name_only_rate", "name_only_ci95"},
		{"order_ignored", "n", "order_ignored_rate", "order_ignored_ci95"}},
	"agreement": {{"agree", "n", "rate", "ci95"}},
}

func num(tb testing.TB, row map[string]any, key string) float64 {
	tb.Helper()
	v, ok := row[key].(float64)
	if !ok {
		tb.Fatalf("row %v: %s is %T, want a number", row, key, row[key])
	}
	return v
}

// TestRecomputeResults reads results.json and recomputes every rate, every
// Wilson interval, every pass^k and every McNemar p-value from the counts
// beside it.
func TestRecomputeResults(t *testing.T) {
	r := synthResults()
	k := F4(0.4)
	r.SetAgreement([]AgreementRow{
		AgreementRow{A: "A", AKind: "design", B: "ann", BKind: "reviewer", N: 50, BothFail: 20, OnlyA: 5, OnlyB: 10, BothPass: 15, Agree: 35, Rate: 0.7, CI95: wilsonCI(35, 50), Kappa: &k},
	})
	files, err := Render(r)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(files["results.json"], &doc); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for section, v := range doc {
		rows, ok := v.([]any)
		if !ok {
			continue
		}
		for i, x := range rows {
			row, ok := x.(map[string]any)
			if !ok {
				continue
			}
			where := fmt.Sprintf("%s[%d]", section, i)
			covered := map[string]bool{}
			for _, s := range rateSpecs[section] {
				covered[s.rate], covered[s.ci] = true, true
				kk, n := int(num(t, row, s.count)), int(num(t, row, s.n))
				if got, want := num(t, row, s.rate), Round4(ratio(kk, n)); got != want {
					t.Errorf("%s: %s = %v, want %d/%d = %v", where, s.rate, got, kk, n, want)
				}
				ci := row[s.ci].([]any)
				lo, hi := Wilson(kk, n)
				if ci[0].(float64) != Round4(lo) || ci[1].(float64) != Round4(hi) {
					t.Errorf("%s: %s = %v, want Wilson(%d, %d) = [%v, %v]", where, s.ci, ci, kk, n, Round4(lo), Round4(hi))
				}
				if ci[0].(float64) > num(t, row, s.rate) || ci[1].(float64) < num(t, row, s.rate) {
					t.Errorf("%s: %s %v does not contain %s", where, s.ci, ci, s.rate)
				}
				checked++
			}
			for key := range row {
				if (strings.HasSuffix(key, "rate") || strings.HasSuffix(key, "ci95")) && !covered[key] {
					t.Errorf("%s: key %q has no recomputation spec", where, key)
				}
			}
			switch section {
			case "pass_k":
				n, c := int(num(t, row, "n")), int(num(t, row, "c"))
				vals, ks := row["pass_k"].([]any), row["k"].([]any)
				if len(vals) != n || len(ks) != n {
					t.Errorf("%s: %d pass^k values at %d k, want every k up to n = %d", where, len(vals), len(ks), n)
				}
				for j, p := range vals {
					k := int(ks[j].(float64))
					if want := Round4(PassK(n, c, k)); k != j+1 || p.(float64) != want {
						t.Errorf("%s: k[%d] = %d, pass^k = %v, want k = %d, %v", where, j, k, p, j+1, want)
					}
				}
			case "paired":
				a, b := int(num(t, row, "only_a")), int(num(t, row, "only_b"))
				if got, want := num(t, row, "p_value"), Round4(McNemarExact(a, b)); got != want {
					t.Errorf("%s: p_value = %v, want %v", where, got, want)
				}
				sum := num(t, row, "both") + num(t, row, "neither") + float64(a+b)
				if sum != num(t, row, "n") {
					t.Errorf("%s: cells sum to %v, want n = %v", where, sum, num(t, row, "n"))
				}
				checked++
			case "agreement":
				yy, yn := int(num(t, row, "both_fail")), int(num(t, row, "only_a_fail"))
				ny, nn := int(num(t, row, "only_b_fail")), int(num(t, row, "both_pass"))
				if kv, ok := Kappa(yy, yn, ny, nn); ok && num(t, row, "kappa") != Round4(kv) {
					t.Errorf("%s: kappa = %v, want %v", where, row["kappa"], Round4(kv))
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("checked %d rates, want the whole synthetic run (> 100)", checked)
	}
	// The pass_k_by_category means come from pass_k rows.
	byCat := map[string][]float64{}
	count := map[string]int{}
	for _, p := range r.PassK {
		key := p.Build + "/" + p.Category
		if byCat[key] == nil {
			byCat[key] = make([]float64, p.N)
		}
		for j := range p.N {
			byCat[key][j] += PassK(p.N, p.C, j+1)
		}
		count[key]++
	}
	for _, c := range r.PassKByCategory {
		key := c.Build + "/" + c.Category
		for j, p := range c.PassK {
			k := c.K[j]
			if want := Round4(byCat[key][k-1] / float64(count[key])); float64(p) != want {
				t.Errorf("pass_k_by_category %s k=%d = %v, want %v", key, k, p, want)
			}
		}
	}
}
