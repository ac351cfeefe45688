package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/reports"
)

// loopRemote executes a sweep's units in this process, as workers on
// other machines would: each worker opens the job from the files alone,
// into its own folder. It answers every unit twice (the second copy must
// be dropped), shuffles the order, and gives up the units in fail.
type loopRemote struct {
	st      *Stack
	workers int
	fail    map[string]bool
	dir     string

	stored, dups int
}

func (r *loopRemote) Sweep(ctx context.Context, sw *RemoteSweep) error {
	type answer struct {
		unit string
		data []byte
		err  error
	}
	answers := make(chan answer)
	units := make(chan string)
	var wg sync.WaitGroup
	for w := range r.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir := filepath.Join(r.dir, "worker", string(rune('a'+w)))
			job, err := r.st.OpenJob(ctx, dir, sw.Job, func(_ context.Context, f JobFile) ([]byte, error) { return sw.ReadFile(f) })
			for u := range units {
				if err != nil {
					answers <- answer{u, nil, err}
					continue
				}
				if r.fail[u] {
					answers <- answer{u, nil, errors.New("worker lost\nsecond line")}
					continue
				}
				data, err := job.Execute(ctx, u)
				answers <- answer{u, data, err}
				answers <- answer{u, data, err}
			}
		}()
	}
	go func() {
		// Last first: the mutated builds arrive before the clean one.
		for i := len(sw.Units) - 1; i >= 0; i-- {
			units <- sw.Units[i]
		}
		close(units)
		wg.Wait()
		close(answers)
	}()
	// Every answer reaches the sink, even after it is done: the copies
	// that arrive late must be dropped too.
	done := false
	for a := range answers {
		var err error
		switch {
		case a.err != nil:
			var d bool
			d, err = sw.Sink.Failed(a.unit, 3, a.err.Error())
			done = done || d
		default:
			var n int
			var d bool
			n, d, err = sw.Sink.Result(a.unit, a.data)
			done = done || d
			if n == 0 {
				r.dups++
			}
			r.stored += n
		}
		if err != nil {
			return err
		}
	}
	if !done {
		return errors.New("loop remote: answers ran out before the sink was done")
	}
	return nil
}

func TestRemoteSweepMatchesLocal(t *testing.T) {
	_, localDir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 1})
	finished(t, err)
	remote := &loopRemote{st: fakeStack(), workers: 3, dir: t.TempDir()}
	sum, remoteDir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Remote: remote})
	finished(t, err)
	if remote.stored != sum.Items || remote.dups != 27 {
		t.Errorf("stored %d items and dropped %d answers, want %d and 27 (each unit answered twice)", remote.stored, remote.dups, sum.Items)
	}
	// report.md shows wall-clock times; results.json holds none.
	files := []string{ResultsFile}
	traces, err := os.ReadDir(filepath.Join(localDir, TracesDir))
	if err != nil || len(traces) < 2 {
		t.Fatalf("local traces: %d files (%v), want one per build", len(traces), err)
	}
	for _, e := range traces {
		files = append(files, filepath.Join(TracesDir, e.Name()))
	}
	for _, f := range files {
		if d := cmp.Diff(string(readFile(t, filepath.Join(localDir, f))), string(readFile(t, filepath.Join(remoteDir, f)))); d != "" {
			t.Errorf("%s differs between the local and the remote sweep (-local +remote):\n%s", f, d)
		}
	}
}

func TestRemoteFailedUnits(t *testing.T) {
	_, localDir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 1})
	finished(t, err)
	fail := map[string]bool{"clean/S2/1": true, "ctl-amount/S3/3": true}
	remote := &loopRemote{st: fakeStack(), workers: 2, fail: fail, dir: t.TempDir()}
	sum, runDir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Remote: remote})
	var ie *IncompleteError
	if !errors.As(err, &ie) || !errors.Is(err, ErrIncomplete) || ie.Units != 2 || ie.Items != 8 {
		t.Fatalf("Run = %v, want an *IncompleteError of 2 units, 8 items", err)
	}
	want := []reports.InfraFailure{
		{Unit: "clean/S2/1", Build: "clean", Scenario: "S2", Trial: 1, Items: 4, Deliveries: 3, Reason: "worker lost"},
		{Unit: "ctl-amount/S3/3", Build: "ctl-amount", Scenario: "S3", Trial: 3, Items: 4, Deliveries: 3, Reason: "worker lost"},
	}
	var res struct {
		Infrastructure []reports.InfraFailure `json:"infrastructure_failures"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(runDir, ResultsFile)), &res); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, res.Infrastructure); d != "" {
		t.Errorf("results.json infrastructure_failures (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, sum.Results.Infrastructure); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	if md := string(readFile(t, filepath.Join(runDir, "report.md"))); !strings.Contains(md, "Infrastructure failures") || !strings.Contains(md, "clean/S2/1") {
		t.Error("report.md has no infrastructure failures section naming the failed unit")
	}
	m, err := ReadManifest(runDir)
	if err != nil || m.Complete {
		t.Fatalf("manifest complete = %v (%v), want false for an incomplete run", m != nil && m.Complete, err)
	}

	// A resume with healthy workers executes the failed units alone and
	// ends with the local run's results.
	remote = &loopRemote{st: fakeStack(), workers: 2, dir: t.TempDir()}
	opt := Options{ProtocolPath: filepath.Join(filepath.Dir(runDir), "p.yaml"), RunDir: runDir, Resume: true, Remote: remote, Stack: fakeStack(), Logger: zerolog.Nop()}
	sum, err = Run(context.Background(), opt)
	finished(t, err)
	if remote.stored != 8 || sum.Skipped != sum.Items-8 {
		t.Errorf("resume stored %d items, skipped %d; want 8 and %d", remote.stored, sum.Skipped, sum.Items-8)
	}
	if !bytes.Equal(readFile(t, filepath.Join(localDir, ResultsFile)), readFile(t, filepath.Join(runDir, ResultsFile))) {
		t.Error("results.json of the resumed remote run differs from the local run")
	}
}

func TestOpenJobRefuses(t *testing.T) {
	_, runDir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 1})
	finished(t, err)
	man, err := ReadManifest(runDir)
	if err != nil {
		t.Fatal(err)
	}
	ses := &session{runDir: runDir, man: man}
	ses.pl, _, err = openRun(runDir, fakeStack())
	if err != nil {
		t.Fatal(err)
	}
	good, err := ses.job(0.02, true)
	if err != nil {
		t.Fatal(err)
	}
	fetch := func(_ context.Context, f JobFile) ([]byte, error) { return ses.readJobFile(f) }
	if _, err := fakeStack().OpenJob(context.Background(), t.TempDir(), good, fetch); err != nil {
		t.Fatalf("OpenJob of a good job: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func(j *Job)
		fetch  func(context.Context, JobFile) ([]byte, error)
		want   string
	}{
		{"another baton", func(j *Job) { j.Baton = "v0.0.1 other" }, fetch, "another baton"},
		{"another tree", func(j *Job) { j.Tree.Root = strings.Repeat("0", 64) }, fetch, "inputs hash to tree"},
		{"a file outside", func(j *Job) { j.Files = append(j.Files, JobFile{Path: "../escape.yaml", SHA256: j.Files[0].SHA256}) }, fetch, "not a path inside"},
		{"a changed file", func(*Job) {}, func(_ context.Context, f JobFile) ([]byte, error) { return []byte("seed: 12\n"), nil }, "hashes to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := *good
			j.Files = append([]JobFile(nil), good.Files...)
			tc.change(&j)
			dir := t.TempDir()
			_, err := fakeStack().OpenJob(context.Background(), dir, &j, tc.fetch)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("OpenJob = %v, want an error containing %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.yaml")); err == nil {
				t.Error("a job wrote outside its folder")
			}
		})
	}
}

// FuzzUnitKey: a unit key from the wire is the key of a unit of the
// plan, or refused.
func FuzzUnitKey(f *testing.F) {
	_, runDir, err := runProtocol(f, fakeStack(), fakeProtocol, Options{Workers: 1})
	finished(f, err)
	pl, _, err := openRun(runDir, fakeStack())
	if err != nil {
		f.Fatal(err)
	}
	for _, k := range []string{"clean/S1/1", "ctl-amount/S3/3", "clean/S1/01", "clean/S1/4", "clean/S1/0", "clean//1", "a/b/c/d",
		"clean/S1/1/0,2", "clean/S1/1/2,1", "clean/S1/1/", "clean/S1/1/3,3", "clean/S1/1/4", "clean/S1/1/-1", "clean/S1/1/01", ""} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		u, slots, err := pl.unitSlotsOf(key)
		if err != nil {
			return
		}
		if got := pl.slotsKey(u, slots); got != key {
			t.Fatalf("unitSlotsOf(%q) is the unit's slots %q", key, got)
		}
		if slots != nil && len(slots) == 0 {
			t.Fatalf("unitSlotsOf(%q) names no slot", key)
		}
	})
}

// FuzzUnitAnswer: an answer from the wire is decoded into the unit's
// items, or refused, and never stores anything when refused.
func FuzzUnitAnswer(f *testing.F) {
	_, runDir, err := runProtocol(f, fakeStack(), fakeProtocol, Options{Workers: 1})
	finished(f, err)
	man, err := ReadManifest(runDir)
	if err != nil {
		f.Fatal(err)
	}
	ses := &session{runDir: runDir, man: man}
	if ses.pl, _, err = openRun(runDir, fakeStack()); err != nil {
		f.Fatal(err)
	}
	job, err := ses.job(1, true)
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	r, err := fakeStack().OpenJob(ctx, f.TempDir(), job, func(_ context.Context, jf JobFile) ([]byte, error) { return ses.readJobFile(jf) })
	if err != nil {
		f.Fatal(err)
	}
	const key = "clean/S1/1"
	good, err := r.Execute(ctx, key)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"schema":"baton.unit-result/v2","unit":"clean/S1/1","rows":[]}`))
	u, err := r.pl.unitOf(key)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		k := newRemoteSink(r.pl, newBitset(r.pl.total()), true)
		rows, _, err := k.decode(u, data)
		if err != nil {
			if k.missing(u.index) != r.pl.slots() {
				t.Fatalf("a refused answer (%v) marked items stored", err)
			}
			return
		}
		if len(rows) != r.pl.slots() || k.missing(u.index) != 0 {
			t.Fatalf("an accepted answer gave %d rows, left %d items missing; the unit has %d", len(rows), k.missing(u.index), r.pl.slots())
		}
	})
}
