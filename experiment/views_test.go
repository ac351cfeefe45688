package experiment

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/reports"
)

// TestStoreViews: runs.db's suite_runs and detection_cells views, plain
// SQL over the stored rows, give exactly the suite runs, detection and
// localisation the reports computed.
func TestStoreViews(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real stack")
	}
	// Scenarios and a seed under which some suite runs vote between
	// locations for their top blame, one on a tie and one where the
	// location most scenarios name is not the first scenario's, and some
	// mutated items are flagged that their clean twins flag too
	// (votesToTell checks it).
	const protocol = `name: views
trials: 2
seed: 7
scenarios:
  ids: [S02, S10, S31, S46, S47, S59]
mutants:
  ids: [ctl-boundary-payment-currency, cl-intake-action-currency, da-boundary-payment-fresh-key]
`
	sum, runDir, err := runProtocol(t, realStack(t), protocol, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Results
	s, err := openStoreIn(runDir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	votesToTell(t, s)

	var want []string
	for x := range r.SuiteRuns() {
		want = append(want, fmt.Sprint(x.Design, x.Build, x.Class, x.Trial, x.Scenarios, len(x.Flagged), len(x.NewFlags),
			x.Raw, x.Detected, x.TopBlame, x.Exact, x.Adjacent, x.Slipped, x.Faulted, x.Location, x.Reached))
	}
	var got []string
	err = eachRow(s.db, `SELECT design, build, class, trial, scenarios, flagged, new_flags, raw, detected, top_blame,
		exact, adjacent, slipped, faulted, location, reached FROM suite_runs`, func(scan func(...any) error) error {
		var d, b, c, top, loc string
		var trial, n, flagged, fresh, reached int
		var raw, det, exact, adj, slip, fault bool
		if err := scan(&d, &b, &c, &trial, &n, &flagged, &fresh, &raw, &det, &top, &exact, &adj, &slip, &fault, &loc, &reached); err != nil {
			return err
		}
		got = append(got, fmt.Sprint(d, b, c, trial, n, flagged, fresh, raw, det, top, exact, adj, slip, fault, loc, reached))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	slices.Sort(got)
	if len(want) == 0 {
		t.Fatal("no suite runs")
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("suite_runs (-reports +view):\n%s", d)
	}

	type cell struct {
		Design, Class                              string
		Mutants, N, Detected, Raw, Exact, Adjacent int
	}
	var wantCells []cell
	for i, d := range r.Detection {
		l := r.Localisation[i]
		if l.Design != d.Design || l.Class != d.Class {
			t.Fatalf("detection row %d is %s/%s, localisation %s/%s", i, d.Design, d.Class, l.Design, l.Class)
		}
		if d.N > 0 {
			wantCells = append(wantCells, cell{d.Design, d.Class, d.Mutants, d.N, d.Detected, d.RawDetected, l.Exact, l.Adjacent})
		}
	}
	var gotCells []cell
	err = eachRow(s.db, `SELECT design, class, mutants, n, detected, raw_detected, exact, adjacent FROM detection_cells`, func(scan func(...any) error) error {
		var c cell
		if err := scan(&c.Design, &c.Class, &c.Mutants, &c.N, &c.Detected, &c.Raw, &c.Exact, &c.Adjacent); err != nil {
			return err
		}
		gotCells = append(gotCells, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	byKey := func(a, b cell) int {
		if a.Design != b.Design {
			return cmpString(a.Design, b.Design)
		}
		return cmpString(a.Class, b.Class)
	}
	slices.SortFunc(wantCells, byKey)
	slices.SortFunc(gotCells, byKey)
	if d := cmp.Diff(wantCells, gotCells); d != "" {
		t.Errorf("detection_cells (-reports +view):\n%s", d)
	}
}

// votesToTell fails unless the stored items hold what TestStoreViews
// needs to tell a right view from a wrong one: a suite run whose freshly
// flagged scenarios tie between two locations, one where the location
// most of them name is not the one the first of them names, and a
// mutated item flagged that its clean twin flags too.
func votesToTell(tb testing.TB, s *store) {
	tb.Helper()
	type vote struct{ scenario, loc string }
	votes := map[string][]vote{}
	err := eachRow(s.db, "SELECT design || '/' || build || '/' || trial, scenario, top_blame FROM item_flags WHERE fresh ORDER BY scenario",
		func(scan func(...any) error) error {
			var run string
			var v vote
			if err := scan(&run, &v.scenario, &v.loc); err != nil {
				return err
			}
			votes[run] = append(votes[run], v)
			return nil
		})
	if err != nil {
		tb.Fatal(err)
	}
	var tie, outvoted bool
	for _, vs := range votes {
		count := map[string]int{}
		most := 0
		for _, v := range vs {
			count[v.loc]++
			most = max(most, count[v.loc])
		}
		atMost := 0
		for _, n := range count {
			if n == most {
				atMost++
			}
		}
		tie = tie || atMost > 1
		outvoted = outvoted || count[vs[0].loc] < most
	}
	var twinFlags int
	if err := s.db.QueryRow("SELECT count(*) FROM item_flags WHERE flagged AND NOT fresh AND build <> ?", reports.CleanBuild).Scan(&twinFlags); err != nil {
		tb.Fatal(err)
	}
	if !tie || !outvoted || twinFlags == 0 {
		tb.Fatalf("the protocol no longer tells views apart: a tie %v, the first scenario outvoted %v, items flagged as on their twin %d", tie, outvoted, twinFlags)
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
