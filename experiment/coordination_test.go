package experiment

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/reports"
)

// TestCoordinationFlags: every verdict of every dimension survives
// outcomes.flags, beside the four booleans, and within maxFlags.
func TestCoordinationFlags(t *testing.T) {
	if got := coordinationShift + 2*len(coordination.AllDimensions); maxFlags != 1<<got-1 {
		t.Fatalf("maxFlags %d: want %d bits for %d dimensions", maxFlags, got, len(coordination.AllDimensions))
	}
	for i := range coordination.AllDimensions {
		for _, v := range coordination.AllVerdicts {
			want := make([]coordination.Verdict, len(coordination.AllDimensions))
			for j := range want {
				want[j] = coordination.AllVerdicts[(i+j)%len(coordination.AllVerdicts)]
			}
			want[i] = v
			it := reports.Item{Flagged: true, Success: true, Coordination: want}
			flags := flagBits(&it)
			got, ok := coordinationVerdicts(flags)
			if !ok || flags > maxFlags || flags&9 != 9 {
				t.Fatalf("flags %d: ok %v, want at most %d with flagged and success kept", flags, ok, maxFlags)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("verdicts through flags (-want +got):\n%s", diff)
			}
		}
	}
	if _, ok := coordinationVerdicts(3 << coordinationShift); ok {
		t.Error("code 3 read as a verdict")
	}
}

// TestSweepCoordination: a sweep reports each build's coordination
// dimensions over all its observation runs.
func TestSweepCoordination(t *testing.T) {
	_, dir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 2})
	finished(t, err)
	var r reports.Results
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, ResultsFile)), &r); err != nil {
		t.Fatal(err)
	}
	runs := map[string]int{}
	for _, x := range r.Coordination {
		runs[x.Build] += x.Runs
		if x.N+x.NotApplicable != x.Runs {
			t.Errorf("%s %s: %d judged + %d n.a. != %d runs", x.Build, x.Dimension, x.N, x.NotApplicable, x.Runs)
		}
	}
	// 3 builds, each 3 scenarios x 3 trials, 8 dimensions.
	perBuild := 3 * 3 * len(coordination.AllDimensions)
	if len(runs) != 3 {
		t.Errorf("coordination rows for %d builds, want 3", len(runs))
	}
	for b, n := range runs {
		if n != perBuild {
			t.Errorf("%s: %d dimension-runs, want %d", b, n, perBuild)
		}
	}
}

// TestReplayCoordination: replaying an observation item derives its
// coordination record again, with the verdicts the run stored; a design
// item has none.
func TestReplayCoordination(t *testing.T) {
	_, dir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 1})
	finished(t, err)
	st := fakeStack()
	var r reports.Results
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, ResultsFile)), &r); err != nil {
		t.Fatal(err)
	}
	item := ItemID(r.Coordination[0].Build, ObservationDesign, "S1", 1)
	res, err := st.Replay(dir, item)
	if err != nil {
		t.Fatal(err)
	}
	if res.Coordination == nil || res.Coordination.Trial != item {
		t.Fatalf("replay %s: coordination record %+v, want one for the item", item, res.Coordination)
	}
	s := coordination.ScoreRecord(res.Coordination)
	var got []coordination.Verdict
	for _, d := range s.Dimensions {
		got = append(got, d.Verdict)
	}
	if diff := cmp.Diff(res.Stored.Coordination, got); diff != "" {
		t.Errorf("replayed record's verdicts (-stored +replayed):\n%s", diff)
	}
	design, err := st.Replay(dir, ItemID(r.Coordination[0].Build, "B", "S1", 1))
	if err != nil {
		t.Fatal(err)
	}
	if design.Coordination != nil {
		t.Error("a design item got a coordination record")
	}
}

// TestSweepCoordinationDerivedAlone: the verdicts a sweep stores, derived
// with the plan's one coordination.Deriver (which remembers hand-offs from
// run to run, on two workers), are those of each observation run's
// record derived alone, as replay derives it, for every observation item
// of a real protocol with mutants.
func TestSweepCoordinationDerivedAlone(t *testing.T) {
	st := realStack(t)
	_, dir, err := runProtocol(t, st, smallProtocol, Options{Workers: 2})
	finished(t, err)
	var r reports.Results
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, ResultsFile)), &r); err != nil {
		t.Fatal(err)
	}
	var builds []string
	for _, x := range r.Coordination {
		if !slices.Contains(builds, x.Build) {
			builds = append(builds, x.Build)
		}
	}
	if len(builds) != 4 {
		t.Fatalf("coordination rows for builds %v, want the clean build and 3 mutants", builds)
	}
	for _, b := range builds {
		for _, sc := range []string{"S01", "S14", "S25", "S49"} {
			for trial := 1; trial <= 2; trial++ {
				item := ItemID(b, ObservationDesign, sc, trial)
				res, err := st.Replay(dir, item)
				if err != nil {
					t.Fatal(err)
				}
				var alone []coordination.Verdict
				for _, d := range coordination.ScoreRecord(res.Coordination).Dimensions {
					alone = append(alone, d.Verdict)
				}
				if diff := cmp.Diff(res.Stored.Coordination, alone); diff != "" {
					t.Errorf("%s: stored verdicts (-sweep +alone):\n%s", item, diff)
				}
			}
		}
	}
}
