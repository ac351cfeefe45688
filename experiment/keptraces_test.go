package experiment

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/baton-lab/baton/reports"
)

// TestKeptTracesWritten: at the end of a run, traces/<build>.jsonl holds one
// line per item whose trace bytes the store keeps (the clean build's
// flagged and failed items and the seeded sample), each equal to the
// replayed trace; report.html's example items link there when listed.
func TestKeptTracesWritten(t *testing.T) {
	const sample = 0.2
	sum, runDir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 2, TraceSample: sample})
	finished(t, err)
	st := fakeStack()
	lines := 0
	var got []string
	for _, b := range []string{"cl-currency", "clean", "ctl-amount"} { // by name
		f, err := os.Open(TraceBuildFile(runDir, b))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var l struct {
				Item  string            `json:"item"`
				Trace []json.RawMessage `json:"trace"`
			}
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("%s line %d: %v", b, lines+1, err)
			}
			lines++
			got = append(got, l.Item)
			res, err := st.Replay(runDir, l.Item)
			if err != nil {
				t.Fatalf("Replay(%s): %v", l.Item, err)
			}
			var want [][]byte
			for line := range bytes.Lines(res.Trace) {
				want = append(want, bytes.TrimSpace(line))
			}
			if len(want) != len(l.Trace) {
				t.Fatalf("%s: %d events, replay has %d lines", l.Item, len(l.Trace), len(want))
			}
			for i := range want {
				if !bytes.Equal(want[i], l.Trace[i]) {
					t.Errorf("%s event %d: %s, replayed %s", l.Item, i, l.Trace[i], want[i])
				}
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	// Exactly the clean build's kept items and the seeded sample.
	s, err := openStore(filepath.Join(runDir, StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer s.db.Close()
	rows, err := s.db.Query("SELECT id, build, trace_sha256 FROM items ORDER BY build, ord") // files by name, lines in plan order
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for rows.Next() {
		var id, build, sha string
		if err := rows.Scan(&id, &build, &sha); err != nil {
			t.Fatal(err)
		}
		if sha != "" && (build == reports.CleanBuild || sampled(11, id, sample)) {
			want = append(want, id)
		}
	}
	rows.Close()
	if len(want) == 0 || !slices.Equal(want, got) {
		t.Errorf("traces/ holds %v, want %v", got, want)
	}
	// report.html links the listed example items to their build's file.
	r := sum.Results
	if r.TracePattern != TraceBuildPattern || len(r.TraceItems) == 0 {
		t.Fatalf("trace pattern %q, %d items", r.TracePattern, len(r.TraceItems))
	}
	for _, id := range r.TraceItems {
		if !slices.Contains(got, id) {
			t.Errorf("results list %s as traced, traces/ does not hold it", id)
		}
	}
	// report.html embeds their trace viewers, with their findings from
	// runs.db.
	html := readFile(t, filepath.Join(runDir, "report.html"))
	if n := bytes.Count(html, []byte(`<section class="viewer"`)); n != min(len(r.TraceItems), 30) {
		t.Errorf("report.html embeds %d trace viewers, want one per listed item (%d)", n, len(r.TraceItems))
	}
	if !bytes.Contains(html, []byte(`<h4>Findings</h4>`)) {
		t.Error("report.html's trace viewers show no findings")
	}
}
