package experiment

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/reports"
)

// runProtocol runs a protocol file's content into a fresh run folder.
func runProtocol(tb testing.TB, st *Stack, protocol string, opt Options) (*Summary, string, error) {
	tb.Helper()
	dir := tb.TempDir()
	pf := filepath.Join(dir, "p.yaml")
	writeFile(tb, pf, protocol)
	opt.ProtocolPath = pf
	if opt.RunDir == "" {
		opt.RunDir = filepath.Join(dir, "run")
	}
	opt.Stack = st
	opt.Logger = zerolog.Nop()
	sum, err := Run(context.Background(), opt)
	return sum, opt.RunDir, err
}

// finished accepts a completed run: valid, or discarded after writing
// everything (fakes cannot detect anything, so their runs are discarded).
func finished(tb testing.TB, err error) {
	tb.Helper()
	var de *reports.DiscardedError
	if err != nil && !errors.As(err, &de) {
		tb.Fatalf("Run: %v", err)
	}
}

func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

const fakeProtocol = "name: fake\ntrials: 3\nseed: 11\n"

func TestSweepFakeWorkersAgree(t *testing.T) {
	sum1, dir1, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 1})
	finished(t, err)
	_, dir4, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 4, Batch: 7})
	finished(t, err)
	// 3 builds x 3 scenarios x 3 trials x (3 designs + observation).
	if sum1.Items != 108 {
		t.Errorf("items = %d, want 108", sum1.Items)
	}
	r1, r4 := readFile(t, filepath.Join(dir1, ResultsFile)), readFile(t, filepath.Join(dir4, ResultsFile))
	if !bytes.Equal(r1, r4) {
		t.Error("results.json differs between 1 and 4 workers")
	}
	assertWallNull(t, r1)
}

// TestDiscarded: fakes never detect the control mutant, so the run is
// discarded, with every output written.
func TestDiscarded(t *testing.T) {
	sum, dir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 2})
	var de *reports.DiscardedError
	if !errors.As(err, &de) {
		t.Fatalf("Run = %v, want a *reports.DiscardedError", err)
	}
	if !errors.Is(err, reports.ErrDiscarded) {
		t.Errorf("Run = %v, want it to wrap reports.ErrDiscarded", err)
	}
	if sum == nil || sum.Valid || de.Reason == "" || de.Reason != sum.Reason {
		t.Errorf("summary %+v, error reason %q: want invalid with the reason", sum, de.Reason)
	}
	for _, f := range []string{ResultsFile, "report.md", StoreFile, ManifestFile, ProtocolCopy} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Complete || m.Valid == nil || *m.Valid || m.Finished == "" || m.Reason != de.Reason {
		t.Errorf("manifest complete %v valid %v finished %q reason %q", m.Complete, m.Valid, m.Finished, m.Reason)
	}
}

// interrupting returns a copy of st whose designs cancel ctx once n
// design items have been evaluated, as a Ctrl-C in the middle of a sweep.
func interrupting(st *Stack, n int64, cancel context.CancelFunc) *Stack {
	c := *st
	var count atomic.Int64
	c.Design = func(id string) (designs.Design, bool) {
		d, ok := st.Design(id)
		if !ok {
			return d, ok
		}
		eval := d.Evaluate
		d.Evaluate = func(in designs.Input) (designs.Verdict, error) {
			if count.Add(1) == n {
				cancel()
			}
			return eval(in)
		}
		return d, true
	}
	return &c
}

// interruptedRun runs protocol in a new folder on st with workers and
// batch, cancelled once n items were evaluated, and returns the options
// that resume it.
func interruptedRun(tb testing.TB, st *Stack, protocol string, workers, batch int, n int64) Options {
	tb.Helper()
	dir := tb.TempDir()
	pf := filepath.Join(dir, "p.yaml")
	writeFile(tb, pf, protocol)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt := Options{ProtocolPath: pf, RunDir: filepath.Join(dir, "run"), Workers: workers, Batch: batch,
		Stack: interrupting(st, n, cancel), Logger: zerolog.Nop()}
	if _, err := Run(ctx, opt); !errors.Is(err, context.Canceled) {
		tb.Fatalf("interrupted Run = %v, want context.Canceled", err)
	}
	opt.Resume, opt.Stack = true, st
	return opt
}

func TestResumeFake(t *testing.T) {
	_, fullDir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 2})
	finished(t, err)

	dir := t.TempDir()
	pf := filepath.Join(dir, "p.yaml")
	writeFile(t, pf, fakeProtocol)
	runDir := filepath.Join(dir, "run")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt := Options{ProtocolPath: pf, RunDir: runDir, Workers: 2, Batch: 5, Stack: interrupting(fakeStack(), 20, cancel), Logger: zerolog.Nop()}
	if _, err := Run(ctx, opt); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Run = %v, want context.Canceled", err)
	}
	s, err := openStore(filepath.Join(runDir, StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := s.count()
	s.db.Close()
	if err != nil || stored < 20 || stored >= 108 {
		t.Fatalf("stored after interrupt = %d, %v; want between 20 and 107", stored, err)
	}
	if _, err := os.Stat(filepath.Join(runDir, ResultsFile)); err == nil {
		t.Error("an interrupted run wrote results.json")
	}

	// Without resume the folder is refused; with it the run completes.
	opt.Stack = fakeStack()
	if _, err := Run(context.Background(), opt); !errors.Is(err, ErrRunExists) {
		t.Fatalf("Run on a used folder without resume = %v, want ErrRunExists", err)
	}
	opt.Resume = true
	var first atomic.Int64
	first.Store(-1)
	opt.Progress = func(done, total int) { first.CompareAndSwap(-1, int64(done)) }
	sum, err := Run(context.Background(), opt)
	finished(t, err)
	if sum.Skipped != stored || first.Load() != int64(stored) {
		t.Errorf("resume skipped %d, first progress %d; want %d", sum.Skipped, first.Load(), stored)
	}
	if !bytes.Equal(readFile(t, filepath.Join(fullDir, ResultsFile)), readFile(t, filepath.Join(runDir, ResultsFile))) {
		t.Error("results.json of the resumed run differs from the uninterrupted one")
	}
	m, err := ReadManifest(runDir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Sessions != 2 {
		t.Errorf("manifest sessions = %d, want 2", m.Sessions)
	}
}

func TestForeignRunRefused(t *testing.T) {
	_, runDir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 2})
	finished(t, err)
	before := readFile(t, filepath.Join(runDir, ResultsFile))

	other := filepath.Join(t.TempDir(), "other.yaml")
	writeFile(t, other, "name: fake\ntrials: 2\nseed: 11\n")
	for _, tc := range []struct {
		name string
		opt  Options
	}{
		{"other protocol", Options{ProtocolPath: other}},
		{"other seed", Options{ProtocolPath: filepath.Join(filepath.Dir(runDir), "p.yaml"), Seed: new(uint64(12))}},
		{"other trials", Options{ProtocolPath: filepath.Join(filepath.Dir(runDir), "p.yaml"), Trials: 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			opt.RunDir, opt.Resume, opt.Stack, opt.Logger = runDir, true, fakeStack(), zerolog.Nop()
			if _, err := Run(context.Background(), opt); !errors.Is(err, ErrForeignRun) {
				t.Fatalf("Run = %v, want ErrForeignRun", err)
			}
		})
	}
	if !bytes.Equal(before, readFile(t, filepath.Join(runDir, ResultsFile))) {
		t.Error("a refused run changed the folder's results")
	}

	// A folder holding something else entirely is refused too.
	junk := t.TempDir()
	writeFile(t, filepath.Join(junk, "notes.txt"), "mine")
	opt := Options{ProtocolPath: other, RunDir: junk, Resume: true, Stack: fakeStack(), Logger: zerolog.Nop()}
	if _, err := Run(context.Background(), opt); !errors.Is(err, ErrForeignRun) {
		t.Fatalf("Run into a non-run folder = %v, want ErrForeignRun", err)
	}
	if got := string(readFile(t, filepath.Join(junk, "notes.txt"))); got != "mine" {
		t.Errorf("notes.txt = %q: a refused run touched the folder", got)
	}
}

func TestLockedProtocolRun(t *testing.T) {
	dir := t.TempDir()
	pf := filepath.Join(dir, "p.yaml")
	writeFile(t, pf, fakeProtocol)
	tree, err := Lock(pf, LockOptions{Stack: fakeStack()})
	if err != nil {
		t.Fatal(err)
	}
	sha := tree.Entries[0].SHA256
	opt := Options{ProtocolPath: pf, RunDir: filepath.Join(dir, "run"), Workers: 2, Stack: fakeStack(), Logger: zerolog.Nop()}
	sum, err := Run(context.Background(), opt)
	finished(t, err)
	if sum.Manifest.Protocol.SHA256 != sha || !sum.Manifest.Protocol.Locked || sum.Results.Protocol.SHA256 != sha || sum.Manifest.Tree.Root != tree.Root {
		t.Errorf("manifest protocol %+v, results sha %s; want locked with %s", sum.Manifest.Protocol, sum.Results.Protocol.SHA256, sha)
	}
	if _, err := VerifyRun(opt.RunDir); err != nil {
		t.Errorf("VerifyRun on an unchanged protocol: %v", err)
	}

	// The protocol changes after the run: the lock refuses a new run, and
	// VerifyRun accepts the old one, whose copy is intact, noting the
	// change.
	writeFile(t, pf, fakeProtocol+"review_sample: 10\n")
	opt.RunDir = filepath.Join(dir, "run2")
	if _, err := Run(context.Background(), opt); !errors.Is(err, ErrLockMismatch) {
		t.Errorf("Run with a stale lock = %v, want ErrLockMismatch", err)
	}
	if _, err := os.Stat(opt.RunDir); err == nil {
		t.Error("a refused run made its folder")
	}
	m, err := VerifyRun(filepath.Join(dir, "run"))
	if err != nil {
		t.Errorf("VerifyRun after the original changed = %v, want the intact copy accepted", err)
	}
	if notes := OriginalChanges(m); len(notes) != 1 || !strings.Contains(notes[0], "the original protocol "+pf+" changed since the run started") {
		t.Errorf("OriginalChanges = %q, want the changed protocol noted", notes)
	}
	// Once the original is gone the run folder's copy is the record.
	os.Remove(pf)
	if m, err := VerifyRun(filepath.Join(dir, "run")); err != nil || len(OriginalChanges(m)) != 0 {
		t.Errorf("VerifyRun with the original removed: %v, notes %q", err, OriginalChanges(m))
	}
	// A tampered copy is refused.
	writeFile(t, filepath.Join(dir, "run", ProtocolCopy), "name: forged\n")
	if _, err := VerifyRun(filepath.Join(dir, "run")); !errors.Is(err, ErrProtocolChanged) {
		t.Errorf("VerifyRun with a changed copy = %v, want ErrProtocolChanged", err)
	}
}

// TestRunDirNaming: a new run folder under OutDir is named from the
// protocol's name, seed and hash, so reruns find their folder.
func TestRunDirNaming(t *testing.T) {
	dir := t.TempDir()
	pf := filepath.Join(dir, "p.yaml")
	writeFile(t, pf, fakeProtocol)
	p, err := LoadProtocol(pf, testMissions())
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), Options{ProtocolPath: pf, OutDir: filepath.Join(dir, "out"), Workers: 1, Stack: fakeStack(), Logger: zerolog.Nop()})
	finished(t, err)
	want := filepath.Join(dir, "out", "fake-11-"+p.SHA256[:8])
	if sum.RunDir != want {
		t.Errorf("run folder = %s, want %s", sum.RunDir, want)
	}
	sum, err = Run(context.Background(), Options{ProtocolPath: pf, OutDir: filepath.Join(dir, "out"), Trials: 2, Workers: 1, Stack: fakeStack(), Logger: zerolog.Nop()})
	finished(t, err)
	if !strings.HasSuffix(sum.RunDir, "-t2") {
		t.Errorf("run folder with a trials override = %s, want a -t2 suffix", sum.RunDir)
	}
}

func TestReplayFake(t *testing.T) {
	_, runDir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 2, TraceSample: 1})
	finished(t, err)
	st := fakeStack()
	for _, id := range []string{"clean/obs/S1/1", "ctl-amount/A/S2/3", "cl-currency/B/S3/2", "clean/C/S2/1"} {
		res, err := st.Replay(runDir, id)
		if err != nil {
			t.Fatalf("Replay(%s): %v", id, err)
		}
		if res.StoredTrace == nil || !bytes.Equal(res.StoredTrace, res.Trace) {
			t.Errorf("Replay(%s): stored trace %d bytes, replayed %d bytes", id, len(res.StoredTrace), len(res.Trace))
		}
	}
	if _, err := st.Replay(runDir, "nope/A/S1/1"); err == nil {
		t.Error("Replay of an unknown build = nil error")
	}
	// A run whose stored row differs (its checksum made to match) is
	// reported as a mismatch.
	forge(t, runDir, "clean/A/S1/1", func(it *storedItem) { it.item.Flagged = !it.item.Flagged })
	res, err := st.Replay(runDir, "clean/A/S1/1")
	if !errors.Is(err, ErrReplayMismatch) || res == nil || res.Match() {
		t.Errorf("Replay of a forged row = %v (match %v), want ErrReplayMismatch", err, res != nil && res.Match())
	}
}

// TestRunInterruptedWhileLoading: Ctrl-C before the sweep starts (while
// the protocol and its files load) makes no run folder.
func TestRunInterruptedWhileLoading(t *testing.T) {
	dir := t.TempDir()
	pf := filepath.Join(dir, "p.yaml")
	writeFile(t, pf, fakeProtocol)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	runDir := filepath.Join(dir, "run")
	_, err := Run(ctx, Options{ProtocolPath: pf, RunDir: runDir, Stack: fakeStack(), Logger: zerolog.Nop()})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted while loading") {
		t.Errorf("Run = %v, want interrupted while loading", err)
	}
	if _, err := os.Stat(runDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("run folder: %v, want none", err)
	}
}
