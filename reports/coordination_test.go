package reports

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/coordination"
)

// synthCoordination gives the synthetic observation runs coordination
// verdicts: efficiency never applies, contention not on S03; context loss
// fails information preservation, the duplicate action effect safety in
// even trials, the control coverage; the clean build fails a merge once.
func synthCoordination(build, sc string, trial int) []coordination.Verdict {
	vs := make([]coordination.Verdict, len(coordination.AllDimensions))
	for i, d := range coordination.AllDimensions {
		v := coordination.Pass
		switch {
		case d == coordination.DimEfficiency, d == coordination.DimStateContention && sc == "S03":
			v = coordination.NotApplicable
		case d == coordination.DimInformationKept && strings.HasPrefix(build, "ctx-"),
			d == coordination.DimEffectSafety && build == "dup-1" && trial%2 == 0,
			d == coordination.DimCoverage && build == "ctl-1",
			d == coordination.DimMergeCorrectness && build == CleanBuild && sc == "S03" && trial == 3:
			v = coordination.Fail
		}
		vs[i] = v
	}
	return vs
}

// TestCoordinationRows: the rates, their n and what each class moves
// follow from the verdicts streamed in.
func TestCoordinationRows(t *testing.T) {
	a := NewAggregator(Config{})
	add := func(build, class string, trial int, fail ...coordination.Dimension) {
		vs := make([]coordination.Verdict, len(coordination.AllDimensions))
		for i, d := range coordination.AllDimensions {
			vs[i] = coordination.Pass
			if d == coordination.DimEfficiency {
				vs[i] = coordination.NotApplicable
			}
			if slices.Contains(fail, d) {
				vs[i] = coordination.Fail
			}
		}
		a.Add(Item{Build: build, Class: class, Scenario: "S01", Category: "typical", Trial: trial, Coordination: vs})
	}
	for trial := range 20 {
		add(CleanBuild, "", trial)
	}
	for trial := range 20 {
		for _, b := range []string{"cl-1", "cl-2", "cl-3", "cl-4"} {
			add(b, "context_loss", trial, coordination.DimInformationKept)
		}
		var fail []coordination.Dimension
		if trial == 7 {
			fail = append(fail, coordination.DimCoverage)
		}
		add("dup-1", "duplicate_action", trial, fail...)
	}
	r := a.Results()
	byClass := map[string]CoordinationClassRow{}
	for _, x := range r.CoordinationByClass {
		byClass[x.Class+" "+x.Dimension] = x
	}
	got := map[string]any{
		"context_loss information": byClass["context_loss information_preservation"],
		"context_loss coverage":    byClass["context_loss coverage"].Moves,
		"duplicate_action coverage": []any{byClass["duplicate_action coverage"].Failed, byClass["duplicate_action coverage"].N,
			byClass["duplicate_action coverage"].Moves, byClass["duplicate_action coverage"].Example},
		"efficiency n.a.": byClass["context_loss efficiency"].NotApplicable,
		"rows":            len(r.Coordination),
	}
	lo, hi := Wilson(4, 4)
	want := map[string]any{
		"context_loss information": CoordinationClassRow{Class: "context_loss", Dimension: "information_preservation", Mutants: 4, Units: 4,
			FailRate: 1, CI95: ciOf(lo, hi), Failed: 80, N: 80, Moves: MoveRaises, Example: "cl-1/obs/S01/0"},
		"context_loss coverage":     MoveNone,
		"duplicate_action coverage": []any{1, 20, MoveNone, "dup-1/obs/S01/7"},
		"efficiency n.a.":           80,
		"rows":                      6 * len(coordination.AllDimensions),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("coordination rows (-want +got):\n%s", diff)
	}
	md, err := Render(r)
	if err != nil {
		t.Fatal(err)
	}
	report := string(md["report.md"])
	for _, line := range []string{"## Coordination evidence", "context_loss: raises failures of information_preservation.",
		"duplicate_action: moves no dimension.", "Not applicable in any run of any build: efficiency.",
		"- duplicate_action, coverage: `dup-1/obs/S01/7`"} {
		if !strings.Contains(report, line) {
			t.Errorf("report.md lacks %q", line)
		}
	}
}

// TestRecomputeCoordination recomputes every class's clustered
// coordination failure rate, its counts and its movement from the
// per-build rows of results.json.
func TestRecomputeCoordination(t *testing.T) {
	files, err := Render(synthResults())
	if err != nil {
		t.Fatal(err)
	}
	var back Results
	if err := json.Unmarshal(files["results.json"], &back); err != nil {
		t.Fatal(err)
	}
	clean := map[string]CoordinationRow{}
	for _, x := range back.Coordination {
		if x.Build == CleanBuild {
			clean[x.Dimension] = x
		}
	}
	for _, c := range back.CoordinationByClass {
		var cs []Cluster
		failed, n, na := 0, 0, 0
		for _, x := range back.Coordination {
			if x.Class == c.Class && x.Dimension == c.Dimension && x.Build != CleanBuild {
				cs = append(cs, Cluster{x.Failed, x.N})
				failed, n, na = failed+x.Failed, n+x.N, na+x.NotApplicable
			}
		}
		rate, m, lo, hi := ClusteredRate(cs)
		if float64(c.FailRate) != rate || c.Units != m || float64(c.CI95[0]) != lo || float64(c.CI95[1]) != hi ||
			c.Failed != failed || c.N != n || c.NotApplicable != na || c.Mutants != len(cs) {
			t.Errorf("%s %s = %+v, want %v [%v, %v] over %d, %d/%d, %d n.a.", c.Class, c.Dimension, c, rate, lo, hi, m, failed, n, na)
		}
		want := MoveNone
		if cl := clean[c.Dimension]; m > 0 && cl.N > 0 {
			switch {
			case lo > float64(cl.CI95[1]):
				want = MoveRaises
			case hi < float64(cl.CI95[0]):
				want = MoveLowers
			}
		}
		if c.Moves != want {
			t.Errorf("%s %s moves %s, want %s", c.Class, c.Dimension, c.Moves, want)
		}
	}
	if len(back.CoordinationByClass) == 0 {
		t.Error("no coordination rows to recompute")
	}
}
