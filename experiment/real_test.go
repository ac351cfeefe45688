package experiment

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/reports"
)

// smallProtocol runs the real stack on a few scenarios and mutants (one
// per class it needs: the control, a context loss, a duplicate action).
const smallProtocol = `name: small
designs: [A, B, C]
trials: 2
seed: 3
scenarios:
  ids: [S01, S14, S25, S49]
mutants:
  ids: [ctl-boundary-payment-currency, cl-intake-action-currency, da-boundary-payment-fresh-key]
`

func realStack(tb testing.TB) *Stack {
	tb.Helper()
	st, err := NewStack(testMissions()), error(nil)
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// storedRows dumps the items table (wall time aside) and the findings, for
// comparing runs row by row.
func storedRows(tb testing.TB, runDir string) []string {
	tb.Helper()
	s, err := openStoreIn(runDir)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.db.Close()
	var out []string
	for _, q := range []string{
		`SELECT id, seed, flagged, blame, findings, model_calls, tool_calls, tokens, environment_resets + fixture_resets, slipped, faulted, reached, success, run_sha256, trace_sha256 FROM items ORDER BY id`,
		`SELECT item_id, seq, rule, message, location, evidence, '', '', '', '', '', '', '', '', '' FROM findings ORDER BY item_id, seq`,
	} {
		rows, err := s.db.Query(q)
		if err != nil {
			tb.Fatal(err)
		}
		for rows.Next() {
			v := make([]any, 15)
			p := make([]any, 15)
			for i := range v {
				p[i] = &v[i]
			}
			if err := rows.Scan(p...); err != nil {
				tb.Fatal(err)
			}
			out = append(out, fmt.Sprint(v...))
		}
		rows.Close()
	}
	return out
}

func TestSweepRealDeterminism(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real stack")
	}
	st := realStack(t)
	sum1, dir1, err := runProtocol(t, st, smallProtocol, Options{Workers: 1})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !sum1.Valid {
		t.Fatalf("the small real run is discarded: %s", sum1.Reason)
	}
	res1 := readFile(t, filepath.Join(dir1, ResultsFile))

	t.Run("workers=4", func(t *testing.T) {
		_, dir, err := runProtocol(t, st, smallProtocol, Options{Workers: 4, Batch: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(res1, readFile(t, filepath.Join(dir, ResultsFile))) {
			t.Error("results.json differs between 1 and 4 workers")
		}
		if d := cmp.Diff(traceFiles(t, dir1), traceFiles(t, dir)); d != "" {
			t.Errorf("kept traces differ between 1 and 4 workers (-1 +4):\n%s", d)
		}
	})

	t.Run("no sharing", func(t *testing.T) {
		_, dir, err := runProtocol(t, st, smallProtocol, Options{Workers: 2, noShare: true})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(res1, readFile(t, filepath.Join(dir, ResultsFile))) {
			t.Error("results.json differs with sharing off")
		}
		if d := cmp.Diff(storedRows(t, dir1), storedRows(t, dir)); d != "" {
			t.Errorf("stored rows differ with sharing off (-shared +unshared):\n%s", d)
		}
	})

	t.Run("interrupted and resumed", func(t *testing.T) {
		opt := interruptedRun(t, st, smallProtocol, 2, 10, int64(sum1.Items/4))
		sum, err := Run(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Skipped == 0 || sum.Skipped >= sum.Items {
			t.Errorf("resume skipped %d of %d items", sum.Skipped, sum.Items)
		}
		if !bytes.Equal(res1, readFile(t, filepath.Join(opt.RunDir, ResultsFile))) {
			t.Error("results.json of the resumed run differs")
		}
		if d := cmp.Diff(storedRows(t, dir1), storedRows(t, opt.RunDir)); d != "" {
			t.Errorf("stored rows differ after resume (-uninterrupted +resumed):\n%s", d)
		}
		// The uninterrupted run wrote its kept traces as it went, the
		// resumed one from the store.
		if d := cmp.Diff(traceFiles(t, dir1), traceFiles(t, opt.RunDir)); d != "" {
			t.Errorf("kept traces differ after resume (-uninterrupted +resumed):\n%s", d)
		}
	})
}

// TestReplayReal regenerates stored items, including ones whose runs the
// sweep shared within their unit, and compares row, findings and trace.
func TestReplayReal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real stack")
	}
	st := realStack(t)
	_, runDir, err := runProtocol(t, st, smallProtocol, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	s, err := openStoreIn(runDir)
	if err != nil {
		t.Fatal(err)
	}
	// Every flagged design item, and a spread of the rest.
	rows, err := s.db.Query(`SELECT id, flagged, trace_sha256 FROM items WHERE flagged = 1 OR (trial = 2 AND scenario = 'S14') ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	type stored struct {
		id, sha string
		flagged bool
	}
	var items []stored
	for rows.Next() {
		var x stored
		rows.Scan(&x.id, &x.flagged, &x.sha)
		items = append(items, x)
	}
	rows.Close()
	s.db.Close()
	if len(items) < 10 {
		t.Fatalf("only %d items to replay", len(items))
	}
	var hashOnly []string
	for _, x := range items {
		if x.flagged && x.sha == "" {
			t.Errorf("flagged item %s kept no trace hash", x.id)
		}
		res, err := st.Replay(runDir, x.id)
		if err != nil {
			t.Errorf("Replay(%s): %v", x.id, err)
			continue
		}
		if got, err := HashTrace(res.Trace); x.sha != "" && (err != nil || got != x.sha) {
			t.Errorf("Replay(%s): trace hashes to %s (%v), stored %s", x.id, got, err, x.sha)
		}
		if res.StoredTrace != nil && !bytes.Equal(res.StoredTrace, res.Trace) {
			t.Errorf("Replay(%s): stored trace %d bytes, replayed %d bytes", x.id, len(res.StoredTrace), len(res.Trace))
		}
		if x.sha != "" && res.StoredTrace == nil {
			hashOnly = append(hashOnly, x.id)
		}
	}
	if len(hashOnly) == 0 {
		t.Fatal("no flagged mutated item kept its trace as a hash only")
	}
	files, err := st.ExportTraces(runDir, hashOnly[0])
	if err != nil || len(files) != 1 {
		t.Fatalf("ExportTraces = %v, %v", files, err)
	}
	res, _ := st.Replay(runDir, hashOnly[0])
	if !bytes.Equal(readFile(t, files[0]), res.Trace) {
		t.Error("exported trace differs from the replayed one")
	}
}

// TestReplayStoredBytes: with every trace stored, the replayed trace
// equals the stored bytes, byte for byte.
func TestReplayStoredBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real stack")
	}
	st := realStack(t)
	_, runDir, err := runProtocol(t, st, smallProtocol, Options{Workers: 2, TraceSample: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"clean/obs/S01/1", "cl-intake-action-currency/C/S14/2", "ctl-boundary-payment-currency/B/S01/1", "da-boundary-payment-fresh-key/A/S25/2"} {
		res, err := st.Replay(runDir, id)
		if err != nil {
			t.Fatalf("Replay(%s): %v", id, err)
		}
		if res.StoredTrace == nil || !bytes.Equal(res.StoredTrace, res.Trace) {
			t.Errorf("Replay(%s): stored trace %d bytes, replayed %d bytes", id, len(res.StoredTrace), len(res.Trace))
		}
	}
}

func TestReviewCandidates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real stack")
	}
	st := realStack(t)
	sum, runDir, err := runProtocol(t, st, smallProtocol, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var all int
	pick := func(c []reports.ReviewCandidate) []reports.ReviewCandidate {
		all = len(c)
		var out []reports.ReviewCandidate
		for _, x := range c {
			if x.Trial == 1 && (x.Build == "clean" || x.Class == "control") {
				out = append(out, x)
			}
		}
		return out
	}
	cands, err := st.ReviewCandidates(runDir, pick)
	if err != nil {
		t.Fatal(err)
	}
	if want := sum.Items / 4; all != want {
		t.Errorf("candidates = %d, want one per (build, scenario, trial) = %d", all, want)
	}
	if len(cands) != 8 {
		t.Fatalf("picked %d candidates, want 8", len(cands))
	}
	for _, c := range cands {
		if len(c.Flagged) != 3 || c.EndState == "" || c.Expected == "" || len(c.Emails) == 0 {
			t.Errorf("candidate %s/%s/%d: flagged %v, %d emails, end state %d bytes", c.Build, c.Scenario, c.Trial, c.Flagged, len(c.Emails), len(c.EndState))
		}
		if c.Class == "control" && !(c.Flagged["A"] || c.Flagged["B"] || c.Flagged["C"]) && c.Scenario == "S01" {
			t.Errorf("control candidate %s/%s flagged by no design", c.Build, c.Scenario)
		}
	}
	if err := reports.ExportReview(runDir, cands, len(cands), 3); err != nil {
		t.Fatalf("ExportReview: %v", err)
	}
}

// TestRealBadInputFiles: a catalogue or contract file that fails to load
// stops the run before any work, naming the protocol's line and the
// file's own.
func TestRealBadInputFiles(t *testing.T) {
	st := realStack(t)
	tests := []struct {
		name, protocol, file, content string
		want                          []string
	}{
		{"catalogue", "name: bad\nmutants:\n  catalogue: cat.yaml\n", "cat.yaml", "mutants:\n  - id: x\n    class: nonsense\n",
			[]string{"p.yaml:3:14: mutants.catalogue: load: ", "cat.yaml:3"}},
		{"contracts", "name: bad\ncontracts:\n  files: [c.yaml]\n", "c.yaml", "edge: intake->action\nunknown_key: 1\n",
			[]string{"p.yaml:3:10: contracts.files: load: ", "c.yaml:"}},
		{"scenarios", "name: bad\nscenarios:\n  files: [s.yaml]\n", "s.yaml", "scenarios:\n  - id: X1\n    bogus: 1\n",
			[]string{"p.yaml:3:10: scenarios.files: load: ", "s.yaml:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, tt.file), tt.content)
			pf := filepath.Join(dir, "p.yaml")
			writeFile(t, pf, tt.protocol)
			runDir := filepath.Join(dir, "run")
			_, err := Run(context.Background(), Options{ProtocolPath: pf, RunDir: runDir, Stack: st, Logger: zerolog.Nop()})
			if err == nil {
				t.Fatal("Run = nil error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if _, err := os.Stat(runDir); err == nil {
				t.Error("a run that failed to load made its folder")
			}
		})
	}
}

// traceFiles reads a run folder's kept-trace files, by name; it fails on
// a run that kept none.
func traceFiles(tb testing.TB, runDir string) map[string]string {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(runDir, TracesDir, "*"))
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range paths {
		out[filepath.Base(p)] = string(readFile(tb, p))
	}
	if len(out) == 0 {
		tb.Fatalf("%s: no kept traces", runDir)
	}
	return out
}
