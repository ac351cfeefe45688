package experiment

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mission/triage"
	"github.com/baton-lab/baton/reports"
)

// takenCount is how many items of a run were taken from their twin.
func takenCount(tb testing.TB, runDir string) int {
	tb.Helper()
	rows := queryRows(tb, runDir, "SELECT count(*) FROM items WHERE from_twin = 1")
	n, err := strconv.Atoi(rows[0])
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestSelectionMatchesFullExecution runs protocols with coverage-based
// selection and with every unit executed: results.json, the kept traces
// and every stored field but wall time and from_twin are the same.
func TestSelectionMatchesFullExecution(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the default protocols twice")
	}
	reg, err := mission.NewRegistry(invoice.New(), triage.New())
	if err != nil {
		t.Fatal(err)
	}
	st := NewStack(reg)
	invoiceDefault, triageDefault := "name: sel\ntrials: 2\n", "name: sel\nmission:\n  name: triage\ntrials: 2\n"
	if raceEnabled {
		// The whole catalogue and every design on three scenarios of each
		// category: under the race detector on a loaded machine the
		// invoice mission's 64 scenarios took 11 minutes, the triage
		// mission's 49 seven (the size is not what it checks).
		invoiceDefault += "scenarios:\n  ids: [S01, S02, S03, S14, S15, S16, S25, S26, S27, S38, S39, S40, S49, S50, S51, S57, S58, S59]\n"
		triageDefault += "scenarios:\n  ids: [S01, S02, S03, S10, S11, S12, S20, S21, S22, S30, S31, S32, S36, S37, S38, S44, S45, S46]\n"
	}
	for _, tc := range []struct {
		name, protocol string
		want           string // a string results.json must hold, so the case tests what it names
	}{
		{"invoice default", invoiceDefault, `"benign"`},
		{"triage default", triageDefault, `"killed"`},
		{"generated space", "name: sel\ntrials: 2\nscenarios:\n  ids: [S01, S07, S14, S25, S33, S49]\nmutants:\n  space: both\n  per_class: 6\n  seed: 4\n", `"no_coverage"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Every twin's core runs held: executed mutant items are
			// served every run their mutant could not reach.
			sum, on, err := runProtocol(t, st, tc.protocol, Options{Workers: 2, heldBudget: 1 << 40})
			finished(t, err)
			_, off, err := runProtocol(t, st, tc.protocol, Options{Workers: 2, noSelection: true})
			finished(t, err)
			res := readFile(t, filepath.Join(on, ResultsFile))
			if !bytes.Equal(res, readFile(t, filepath.Join(off, ResultsFile))) {
				t.Error("results.json differs with selection on and off")
			}
			if !bytes.Contains(res, []byte(tc.want)) {
				t.Errorf("results.json holds no %s", tc.want)
			}
			if d := cmp.Diff(storedRows(t, off), storedRows(t, on)); d != "" {
				t.Errorf("stored rows differ (-off +on):\n%s", d)
			}
			if d := cmp.Diff(traceFiles(t, off), traceFiles(t, on)); d != "" {
				t.Errorf("kept traces differ (-off +on):\n%s", d)
			}
			taken := takenCount(t, on)
			if taken == 0 || takenCount(t, off) != 0 {
				t.Errorf("items taken from the twin: %d with selection, %d without; want some, none", taken, takenCount(t, off))
			}
			sel := sum.Manifest.Selection
			if sel == nil || sel.Mode != "coverage" || sel.ItemsTaken != taken || sel.Items != sum.Items || sel.UnitsExecuted >= sel.Units {
				t.Errorf("manifest selection = %+v; want coverage, %d of %d items taken", sel, taken, sum.Items)
			}
			if sel != nil && (sel.RunsServed == 0 || sel.RunsExecuted == 0) {
				t.Errorf("manifest selection = %+v; want runs executed and runs served from twins", sel)
			}
		})
	}
}

// oneAgentProtocol has a control and a mutant that act at one agent's
// tool calls (boundary's payments; the second on retries only): the
// control's units are executed, and in designs A and C the other agents'
// core runs are served from the twin.
var oneAgentProtocol = strings.Replace(smallProtocol, " cl-intake-action-currency,", "", 1)

// TestSelectionServesRuns runs a mutant that acts in one agent's core
// runs only, holding every twin's runs and holding none: results.json,
// the kept traces and every stored row are the same, and only the first
// serves runs from the twins. Replay executes every design item of the
// mutant, served runs and all, and reproduces its row.
func TestSelectionServesRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a protocol twice and replays its items")
	}
	st := realStack(t)
	sum, on, err := runProtocol(t, st, oneAgentProtocol, Options{Workers: 2, heldBudget: 1 << 40})
	finished(t, err)
	none, off, err := runProtocol(t, st, oneAgentProtocol, Options{Workers: 2, heldBudget: -1})
	finished(t, err)
	if !bytes.Equal(readFile(t, filepath.Join(on, ResultsFile)), readFile(t, filepath.Join(off, ResultsFile))) {
		t.Error("results.json differs with runs served and without")
	}
	if d := cmp.Diff(storedRows(t, off), storedRows(t, on)); d != "" {
		t.Errorf("stored rows differ (-none held +all held):\n%s", d)
	}
	if d := cmp.Diff(traceFiles(t, off), traceFiles(t, on)); d != "" {
		t.Errorf("kept traces differ (-none held +all held):\n%s", d)
	}
	sel, selNone := sum.Manifest.Selection, none.Manifest.Selection
	if sel.RunsServed == 0 || selNone.RunsServed != 0 ||
		sel.RunsExecuted+sel.RunsServed+sel.RunsFromTrials != selNone.RunsExecuted+selNone.RunsFromTrials {
		t.Errorf("selection all held %+v, none held %+v: want runs served only when held, "+
			"the runs executed and served adding up to those executed without", sel, selNone)
	}
	// A budget that holds some twins' runs holds the same ones whatever
	// the workers' order.
	var partly []int64
	for _, workers := range []int{1, 2} {
		sum, _, err := runProtocol(t, st, oneAgentProtocol, Options{Workers: workers, heldBudget: 100 << 10})
		finished(t, err)
		partly = append(partly, sum.Manifest.Selection.RunsServed)
	}
	if partly[0] != partly[1] || partly[0] == 0 || partly[0] >= sel.RunsServed {
		t.Errorf("runs served within a budget at 1 and 2 workers: %v; want the same, some, fewer than the %d with every twin held",
			partly, sel.RunsServed)
	}
	n := replayEach(t, st, on, "SELECT id FROM items WHERE from_twin = 0 AND id LIKE 'ctl-%' AND id NOT LIKE '%/obs/%' ORDER BY id",
		func(id string, res *ReplayResult) {
			if !res.Match() {
				t.Errorf("replay %s differs from its row: %v", id, res.Differences)
			}
		})
	if n == 0 {
		t.Fatal("no design item of the control was executed")
	}
}

// replayEach replays every item whose id query q returns, hands each
// replay to check and returns how many there were.
func replayEach(tb testing.TB, st *Stack, dir, q string, check func(id string, res *ReplayResult)) int {
	tb.Helper()
	ids := queryRows(tb, dir, q)
	for _, quoted := range ids {
		id, err := strconv.Unquote(quoted)
		if err != nil {
			tb.Fatal(err)
		}
		res, err := st.Replay(dir, id)
		if err != nil {
			tb.Errorf("replay %s: %v", id, err)
			continue
		}
		check(id, res)
	}
	return len(ids)
}

// TestSelectionReplaysTaken replays an item a run took from its clean
// twin of every build and slot that has one: executed, each matches its
// stored row, findings and trace hash. (Every stored field of every taken
// item is checked against full execution by
// TestSelectionMatchesFullExecution; a replay costs a protocol load.)
func TestSelectionReplaysTaken(t *testing.T) {
	if testing.Short() {
		t.Skip("replays taken items")
	}
	st := realStack(t)
	_, dir, err := runProtocol(t, st, smallProtocol, Options{Workers: 2})
	finished(t, err)
	slots := queryRows(t, dir, "SELECT count(DISTINCT design) FROM items")
	const q = "SELECT min(id) FROM items WHERE from_twin = 1 GROUP BY build, design ORDER BY 1"
	if got := queryRows(t, dir, "SELECT count(DISTINCT design) FROM items WHERE from_twin = 1"); got[0] != slots[0] {
		t.Fatalf("items taken in %s slots of %s: want some of each", got[0], slots[0])
	}
	n := replayEach(t, st, dir, q, func(id string, res *ReplayResult) {
		if strings.HasPrefix(id, "clean/") || res.Stored == nil {
			t.Errorf("replay %s: a clean item taken, or nothing stored", id)
		}
	})
	if n == 0 {
		t.Fatal("the run took no item from a twin")
	}
}

// TestSelectionOffKey runs a protocol with selection: off: every item is
// executed, and the manifest says so.
func TestSelectionOffKey(t *testing.T) {
	sum, dir, err := runProtocol(t, realStack(t), smallProtocol+"selection: off\n", Options{Workers: 2})
	finished(t, err)
	if n := takenCount(t, dir); n != 0 {
		t.Errorf("selection: off took %d items from their twins", n)
	}
	if sel := sum.Manifest.Selection; sel == nil || sel.Mode != "off" || sel.UnitsExecuted != sel.Units {
		t.Errorf("manifest selection = %+v, want off with every unit executed", sel)
	}
}

// TestSelectionResume interrupts a run once its clean units are done and
// resumes it: the resumed session takes its mutant units' rows from the
// stored twins and their stored coverage, as the uninterrupted run does.
// The interrupted session has one worker, which goes in plan order: with
// two, the interrupt can fall while one worker is still in the last clean
// unit (the other having gone on to mutant units), and a clean unit stored
// in part is never probed (TestSelectionResumeMidClean).
func TestSelectionResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the small protocol twice")
	}
	st := realStack(t)
	_, full, err := runProtocol(t, st, smallProtocol, Options{Workers: 2})
	finished(t, err)

	// The clean build is 8 units of 3 design items; cancel well after.
	opt := interruptedRun(t, st, smallProtocol, 1, 10, 40)
	if got := queryRows(t, opt.RunDir, "SELECT count(*) FROM coverage"); got[0] != "8" {
		t.Fatalf("coverage rows after the interrupt = %s, want 8", got[0])
	}
	opt.Workers = 2
	resumeMatches(t, opt, full)
	want, got := takenCount(t, full), takenCount(t, opt.RunDir)
	if want == 0 || got != want {
		t.Errorf("items taken from the twin: resumed %d, uninterrupted %d", got, want)
	}
}

// TestSelectionResumeMidClean interrupts a run about when its clean units
// end: with two workers wherever each is, and with one worker inside the
// last clean unit, which is then stored in part. Every clean unit stored
// whole has its coverage row (nothing finished is lost). The resumed run
// probes a clean unit stored in part again, so that it executes and takes
// the units and items the uninterrupted run does; it stores each clean
// unit's coverage once, also for a unit whose coverage was stored with
// only some of its rows (a session stopped between two commits), and its
// results are the uninterrupted run's.
func TestSelectionResumeMidClean(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the small protocol four times")
	}
	st := realStack(t)
	_, full, err := runProtocol(t, st, smallProtocol, Options{Workers: 2})
	finished(t, err)
	wantSel := selectionCounts(t, full)
	// 8 clean units of 3 design items: the 22nd evaluation is the last
	// unit's first.
	for _, tc := range []struct {
		name    string
		workers int
		n       int64  // design evaluations before the interrupt
		whole   int    // clean units stored whole after it (0: any)
		tamper  string // then run on the store
	}{
		{"two workers", 2, 24, 0, ""},
		{"one worker, the last clean unit in part", 1, 22, 7, ""},
		{"one worker, the last clean unit in part with its coverage", 1, 30, 8, "DELETE FROM item_findings WHERE item = 31; DELETE FROM outcomes WHERE ord = 31"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := interruptedRun(t, st, smallProtocol, tc.workers, 10, tc.n)
			whole := queryRows(t, opt.RunDir, "SELECT unit FROM outcomes WHERE unit < 8 GROUP BY unit HAVING count(*) = 4")
			covered := queryRows(t, opt.RunDir, "SELECT unit FROM coverage ORDER BY unit")
			if d := cmp.Diff(whole, covered); d != "" {
				t.Fatalf("coverage rows after the interrupt (-clean units stored whole +covered):\n%s", d)
			}
			if tc.whole != 0 && len(whole) != tc.whole {
				t.Fatalf("clean units stored whole after the interrupt: %v", whole)
			}
			if tc.tamper != "" {
				tamper(t, opt.RunDir, tc.tamper)
			}
			opt.Workers = 2
			resumeMatches(t, opt, full)
			if d := cmp.Diff(wantSel, selectionCounts(t, opt.RunDir)); d != "" {
				t.Errorf("manifest selection (-uninterrupted +resumed):\n%s", d)
			}
			if got := queryRows(t, opt.RunDir, "SELECT count(*) FROM coverage"); got[0] != "8" {
				t.Errorf("coverage rows after the resume = %s, want 8", got[0])
			}
		})
	}
}

// selectionCounts is the manifest's selection of the run in runDir but
// for its run counts: a resumed session holds no core runs of the twins
// stored before it, so it executes more of them, and its workers hold
// other runs of other trials.
func selectionCounts(tb testing.TB, runDir string) reports.Selection {
	tb.Helper()
	man, err := ReadManifest(runDir)
	if err != nil {
		tb.Fatal(err)
	}
	if man.Selection == nil || man.Selection.ItemsTaken == 0 {
		tb.Fatalf("manifest selection = %+v, want items taken", man.Selection)
	}
	sel := *man.Selection
	sel.RunsExecuted, sel.RunsServed, sel.RunsFromTrials = 0, 0, 0
	return sel
}

// resumeMatches resumes the run of opt and checks that its results.json
// is the uninterrupted run's in full.
func resumeMatches(tb testing.TB, opt Options, full string) {
	tb.Helper()
	if _, err := Run(context.Background(), opt); err != nil {
		finished(tb, err)
	}
	if !bytes.Equal(readFile(tb, filepath.Join(full, ResultsFile)), readFile(tb, filepath.Join(opt.RunDir, ResultsFile))) {
		tb.Error("results.json of the resumed run differs")
	}
}

// TestSelectionRemote runs the small protocol through workers in this
// process: the coordinator executes the clean units and hands out only the
// mutant units and items that cannot be taken from their twins, with the
// local run's results and its selection counts.
func TestSelectionRemote(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the small protocol twice")
	}
	st := realStack(t)
	sum, local, err := runProtocol(t, st, smallProtocol, Options{Workers: 2})
	finished(t, err)
	remote := &loopRemote{st: st, workers: 2, dir: t.TempDir()}
	rsum, dir, err := runProtocol(t, st, smallProtocol, Options{Remote: remote})
	finished(t, err)
	if !bytes.Equal(readFile(t, filepath.Join(local, ResultsFile)), readFile(t, filepath.Join(dir, ResultsFile))) {
		t.Error("results.json differs between the local and the remote sweep")
	}
	if d := cmp.Diff(storedRows(t, local), storedRows(t, dir)); d != "" {
		t.Errorf("stored rows differ (-local +remote):\n%s", d)
	}
	cleanItems := sum.Items / 4 // the clean build and three mutants
	taken := takenCount(t, dir)
	if taken == 0 || remote.stored != sum.Items-cleanItems-taken {
		t.Errorf("workers stored %d items, %d were taken; want the %d items neither clean nor taken", remote.stored, taken, sum.Items-cleanItems-taken)
	}
	if sel := rsum.Manifest.Selection; sel == nil || sel.Mode != "coverage" || sel.ItemsTaken != taken {
		t.Errorf("manifest selection = %+v, want coverage with %d items taken", sel, taken)
	}
	// The local run's selection, but for the runs served from twins and
	// other trials: the workers hold none, so they executed them.
	want := *sum.Manifest.Selection
	want.RunsExecuted, want.RunsServed, want.RunsFromTrials = want.RunsExecuted+want.RunsServed+want.RunsFromTrials, 0, 0
	want.Note = rsum.Manifest.Selection.Note
	if d := cmp.Diff(want, *rsum.Manifest.Selection); d != "" || want.RunsExecuted == 0 {
		t.Errorf("manifest selection (-local +remote):\n%s", d)
	}
}

func TestSeamsOnly(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    mission.Mission
		want bool
	}{
		{"invoice, a wrapper that unwraps", invoice.New(), true},
		{"triage", triage.New(), true},
		{"a fake: runs depend on scenario and seed only", fakeMission{}, false},
		{"a wrapper that does not unwrap", struct{ mission.Mission }{invoice.New()}, false},
	} {
		if got := mission.SeamsOnly(tc.m); got != tc.want {
			t.Errorf("%s: SeamsOnly = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSelectionModelCores runs the small protocol with every core a model
// (the scripted player over HTTP), with selection and without: the same
// results.json, and the calls selection avoided are the calls the run
// without it made more.
func TestSelectionModelCores(t *testing.T) {
	if testing.Short() {
		t.Skip("runs model cores over HTTP twice")
	}
	if raceEnabled {
		t.Skip("too many model calls for the race detector")
	}
	st := realStack(t)
	ts := missionEndpoint(t, invoice.New())
	proto := modelCores(smallProtocol, ts.URL, "invoice-policy")
	sum, on, err := runProtocol(t, st, proto, Options{Workers: 2})
	finished(t, err)
	_, off, err := runProtocol(t, st, proto, Options{Workers: 2, noSelection: true})
	finished(t, err)
	if !bytes.Equal(readFile(t, filepath.Join(on, ResultsFile)), readFile(t, filepath.Join(off, ResultsFile))) {
		t.Error("results.json differs with selection on and off")
	}
	calls := func(dir string) int64 {
		n := int64(0)
		for _, u := range modelUse(t, dir) {
			n += u.Made + u.Served
		}
		return n
	}
	avoided := sum.Manifest.Selection.ModelCallsAvoided
	if avoided == 0 || calls(off)-calls(on) != avoided {
		t.Errorf("calls made or served: %d with selection, %d without; selection says it avoided %d", calls(on), calls(off), avoided)
	}
}
