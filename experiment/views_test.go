package experiment

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStoreViews: runs.db's suite_runs and detection_cells views, plain
// SQL over the stored rows, give exactly the suite runs, detection and
// localisation the reports computed.
func TestStoreViews(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real stack")
	}
	// Every scenario, so that some suite runs vote between locations for
	// their top blame, and a seed under which some mutated items are
	// flagged that their clean twins flag too.
	const protocol = `name: views
trials: 3
seed: 7
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

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
