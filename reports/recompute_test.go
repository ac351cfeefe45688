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

// rateSpecs covers every trial-level rate and interval key of
// results.json; clusteredKeys the keys computed on the mutants, which
// TestRecomputeResults recomputes from detection_by_mutant and
// paired_by_mutant. A key ending in "rate" or "ci95" that neither covers
// fails the test, so a new rate cannot escape the check.
var rateSpecs = map[string][]rateSpec{
	"detection":             {{"detected", "n", "trial_rate", "trial_ci95"}, {"raw_detected", "n", "raw_trial_rate", "raw_trial_ci95"}},
	"detection_by_mutant":   {{"detected", "n", "rate", "ci95"}, {"raw_detected", "n", "raw_rate", "raw_ci95"}},
	"detection_by_scenario": {{"detected", "n", "rate", "ci95"}, {"raw_detected", "n", "raw_rate", "raw_ci95"}},
	"localisation":          {{"exact", "flagged", "exact_trial_rate", "exact_trial_ci95"}, {"adjacent", "flagged", "adjacent_trial_rate", "adjacent_trial_ci95"}},
	"false_alarms":          {{"flagged", "n", "rate", "ci95"}, {"unexplained", "n", "unexplained_rate", "unexplained_ci95"}},
	"pass_k":                {{"c", "n", "rate", "ci95"}},
	"trajectory_matchers": {{"exact", "n", "exact_rate", "exact_ci95"}, {"name_only", "n", "name_only_rate", "name_only_ci95"},
		{"order_ignored", "n", "order_ignored_rate", "order_ignored_ci95"}},
	"agreement":                   {{"agree", "n", "rate", "ci95"}},
	"detection_harmful":           {{"detected", "n", "trial_rate", "trial_ci95"}, {"benign_detected", "benign_n", "benign_rate", "benign_ci95"}},
	"detection_by_mutant_harmful": {{"detected", "harmful", "rate", "ci95"}},
}

var clusteredKeys = map[string][]string{
	"detection":    {"rate", "ci95", "raw_rate", "raw_ci95"},
	"localisation": {"exact_rate", "exact_ci95", "adjacent_rate", "adjacent_ci95"},
	"paired":       {"diff_ci95"},
	"agreement":    {"kappa_ci95"},
	// Recomputed from detection_by_mutant_harmful and
	// paired_by_mutant_harmful.
	"detection_harmful": {"rate", "ci95"},
	"paired_harmful":    {"diff_ci95"},
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
	r.SetAgreement([]AgreementRow{
		AgreementRow{A: "A", AKind: "design", B: "ann", BKind: "reviewer", N: 50, BothFail: 20, OnlyA: 5, OnlyB: 10, BothPass: 15, Sample: 50}.finish(),
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
			for _, k := range clusteredKeys[section] {
				covered[k] = true
			}
			for _, s := range rateSpecs[section] {
				covered[s.rate], covered[s.ci] = true, true
				kk, n := int(num(t, row, s.count)), int(num(t, row, s.n))
				if got, want := num(t, row, s.rate), ratio(kk, n); got != want {
					t.Errorf("%s: %s = %v, want %d/%d = %v", where, s.rate, got, kk, n, want)
				}
				ci := row[s.ci].([]any)
				lo, hi := Wilson(kk, n)
				if ci[0].(float64) != lo || ci[1].(float64) != hi {
					t.Errorf("%s: %s = %v, want Wilson(%d, %d) = [%v, %v]", where, s.ci, ci, kk, n, lo, hi)
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
					if want := PassK(n, c, k); k != j+1 || p.(float64) != want {
						t.Errorf("%s: k[%d] = %d, pass^k = %v, want k = %d, %v", where, j, k, p, j+1, want)
					}
				}
			case "paired":
				a, b := int(num(t, row, "only_a")), int(num(t, row, "only_b"))
				if got, want := num(t, row, "trial_p_value"), McNemarExact(a, b); got != want {
					t.Errorf("%s: trial_p_value = %v, want %v", where, got, want)
				}
				sum := num(t, row, "both") + num(t, row, "neither") + float64(a+b)
				if sum != num(t, row, "n") {
					t.Errorf("%s: cells sum to %v, want n = %v", where, sum, num(t, row, "n"))
				}
				checked++
			case "agreement":
				yy, yn := int(num(t, row, "both_fail")), int(num(t, row, "only_a_fail"))
				ny, nn := int(num(t, row, "only_b_fail")), int(num(t, row, "both_pass"))
				if kv, se, lo, hi, ok := KappaCI(yy, yn, ny, nn); ok {
					ci := row["kappa_ci95"].([]any)
					if num(t, row, "kappa") != kv || num(t, row, "kappa_se") != se || ci[0].(float64) != lo || ci[1].(float64) != hi {
						t.Errorf("%s: kappa %v, se %v, ci %v; want %v, %v, [%v, %v]", where, row["kappa"], row["kappa_se"], ci, kv, se, lo, hi)
					}
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("checked %d rates, want the whole synthetic run (> 100)", checked)
	}
	recomputeClustered(t, r)
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
			if want := byCat[key][k-1] / float64(count[key]); float64(p) != want {
				t.Errorf("pass_k_by_category %s k=%d = %v, want %v", key, k, p, want)
			}
		}
	}
}

// recomputeClustered recomputes every clustered figure of results.json —
// detection, localisation and the paired comparisons with their Holm
// adjustments — from the per-mutant rows beside them.
func recomputeClustered(t *testing.T, r *Results) {
	t.Helper()
	files, err := Render(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Results
	if err := json.Unmarshal(files["results.json"], &back); err != nil {
		t.Fatal(err)
	}
	check := func(where string, rate F4, c CI, m int, cs []Cluster) {
		t.Helper()
		want, wm, lo, hi := ClusteredRate(cs)
		if float64(rate) != want || m != wm || float64(c[0]) != lo || float64(c[1]) != hi {
			t.Errorf("%s = %v %v over %d, want %v [%v, %v] over %d", where, rate, c, m, want, lo, hi, wm)
		}
	}
	for _, d := range back.Detection {
		var det, raw []Cluster
		for _, m := range back.DetectionByMutant {
			if m.Design == d.Design && m.Class == d.Class {
				det, raw = append(det, Cluster{m.Detected, m.N}), append(raw, Cluster{m.RawDetected, m.N})
			}
		}
		check("detection "+d.Design+" "+d.Class, d.Rate, d.CI95, d.Units, det)
		check("raw detection "+d.Design+" "+d.Class, d.RawRate, d.RawCI95, d.Units, raw)
	}
	for _, l := range back.Localisation {
		var exact, adj []Cluster
		for _, m := range back.DetectionByMutant {
			if m.Design == l.Design && m.Class == l.Class {
				exact, adj = append(exact, Cluster{m.Exact, m.Detected}), append(adj, Cluster{m.Adjacent, m.Detected})
			}
		}
		check("exact localisation "+l.Design+" "+l.Class, l.ExactRate, l.ExactCI95, l.Units, exact)
		check("adjacent localisation "+l.Design+" "+l.Class, l.AdjacentRate, l.AdjacentCI95, l.Units, adj)
	}
	for _, d := range back.DetectionHarmful {
		var det []Cluster
		for _, m := range back.DetectionByMutantHarmful {
			if m.Design == d.Design && m.Class == d.Class {
				det = append(det, Cluster{m.Detected, m.Harmful})
			}
		}
		check("harmful detection "+d.Design+" "+d.Class, d.Rate, d.CI95, d.Units, det)
	}
	recomputePaired(t, back.Paired, back.PairedByMutant)
	recomputePaired(t, back.PairedHarmful, back.PairedByMutantHarmful)
	if len(back.Paired) == 0 || len(back.Detection) == 0 || len(back.DetectionHarmful) == 0 {
		t.Error("no clustered rows to recompute")
	}
}

// recomputePaired recomputes each paired row from the per-mutant rows.
func recomputePaired(t *testing.T, rows []PairedRow, byMutant []PairedMutant) {
	t.Helper()
	var mutantP, trialP []float64
	for _, p := range rows {
		var ps []Pair
		for _, m := range byMutant {
			if m.A == p.A && m.B == p.B && m.Class == p.Class {
				ps = append(ps, m.detection())
			}
		}
		d, units, lo, hi := ClusteredPaired(ps)
		moreA, moreB, pv := MutantMcNemar(ps)
		if float64(p.Diff) != d || p.Units != units || float64(p.DiffCI95[0]) != lo || float64(p.DiffCI95[1]) != hi ||
			p.MoreA != moreA || p.MoreB != moreB || float64(p.PValue) != pv {
			t.Errorf("paired %s %s-%s = %+v, want diff %v [%v, %v] over %d, %d/%d, p %v", p.Class, p.A, p.B, p, d, lo, hi, units, moreA, moreB, pv)
		}
		mutantP, trialP = append(mutantP, float64(p.PValue)), append(trialP, float64(p.TrialPValue))
	}
	mutantP, trialP = Holm(mutantP), Holm(trialP)
	for i, p := range rows {
		if float64(p.PHolm) != mutantP[i] || float64(p.TrialPHolm) != trialP[i] {
			t.Errorf("paired %s %s-%s Holm = %v, %v; want %v, %v", p.Class, p.A, p.B, p.PHolm, p.TrialPHolm, mutantP[i], trialP[i])
		}
	}
}
