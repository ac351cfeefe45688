package experiment

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/baton-lab/baton/reports"
)

// TestReviewCandidateOrder checks that the review sample draws from the
// candidates in key order (build, scenario, trial), which the store does
// not keep (it keeps plan order, the clean build first), so that the
// sample a seed draws does not depend on how runs.db is laid out.
func TestReviewCandidateOrder(t *testing.T) {
	_, runDir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 2})
	finished(t, err)
	var got []reports.ReviewCandidate
	pick := func(c []reports.ReviewCandidate) []reports.ReviewCandidate {
		got = slices.Clone(c)
		return nil
	}
	if _, err := fakeStack().ReviewCandidates(runDir, pick); err != nil {
		t.Fatal(err)
	}
	if want := 3 * 3 * 3; len(got) != want { // builds × scenarios × trials
		t.Fatalf("%d candidates, want %d", len(got), want)
	}
	sorted := slices.IsSortedFunc(got, func(a, b reports.ReviewCandidate) int {
		return cmp.Or(strings.Compare(a.Build, b.Build), strings.Compare(a.Scenario, b.Scenario), cmp.Compare(a.Trial, b.Trial))
	})
	if !sorted || got[0].Build != "cl-currency" {
		t.Errorf("candidates start %s/%s/%d and are sorted: %v; want key order, cl-currency first", got[0].Build, got[0].Scenario, got[0].Trial, sorted)
	}
	for _, c := range got {
		if len(c.Flagged) != 3 { // designs A, B and C
			t.Errorf("%s/%s/%d: verdicts of %d designs, want 3", c.Build, c.Scenario, c.Trial, len(c.Flagged))
		}
	}
}
