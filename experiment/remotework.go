package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/baton-lab/baton/model"
)

// Errors of a worker's jobs.
var (
	// ErrJobVersion: a job was made by another baton than the worker's.
	ErrJobVersion = errors.New("job made by another baton")
	// ErrUnboundModels: a job with model cores was asked to execute a
	// unit before [JobRunner.BindModels].
	ErrUnboundModels = errors.New("the job's model cores are not bound to an endpoint")
)

// JobRunner executes the units of one job, on any number of goroutines
// at once.
type JobRunner struct {
	pl     *plan
	dir    string
	traces JobTracing

	mu    sync.Mutex
	memos []*unitMemo // free memos, one per goroutine at work
}

// OpenJob rebuilds a job's plan in dir, a folder of the worker's: it
// writes each of the job's files there (fetch returns its bytes, which
// must hash to the job's SHA-256), parses the protocol, resolves it
// against the stack and checks that the run's input tree (the files and
// this baton's embedded scenarios, catalogue, contracts and mission)
// hashes as the job's, then records the scenarios' golden expectations.
func (st *Stack) OpenJob(ctx context.Context, dir string, job *Job, fetch func(context.Context, JobFile) ([]byte, error)) (*JobRunner, error) {
	switch {
	case job.Schema != JobSchema:
		return nil, fmt.Errorf("open job: schema %q, want %q", job.Schema, JobSchema)
	case job.Baton != batonVersion():
		return nil, fmt.Errorf("open job: %w: the job's is %s, this worker is %s", ErrJobVersion, job.Baton, batonVersion())
	}
	var protocol []byte
	for _, f := range job.Files {
		data, err := fetchJobFile(ctx, dir, f, fetch)
		if err != nil {
			return nil, fmt.Errorf("open job: %w", err)
		}
		if f.Path == ProtocolCopy {
			protocol = data
		}
	}
	if protocol == nil || HashBytes(protocol) != job.ProtocolSHA256 {
		return nil, fmt.Errorf("open job: no %s hashing to %s", ProtocolCopy, short(job.ProtocolSHA256))
	}
	name := filepath.Base(filepath.FromSlash(job.Protocol))
	p, err := ParseProtocol(protocol, filepath.Join(dir, name), dir, st.Missions)
	if err != nil {
		return nil, fmt.Errorf("open job: %w", err)
	}
	p.Seed, p.Trials = job.Seed, job.Trials
	pl, _, err := preflight(p, st, inputResolver(dir, job.Inputs), "", lockState{}, dir, &Manifest{Tree: job.Tree})
	if err != nil {
		return nil, fmt.Errorf("open job: %w", err)
	}
	if !slices.Equal(pl.proto.Designs, job.Designs) {
		return nil, fmt.Errorf("open job: %w: designs %v, the job's %v", ErrProtocolChanged, pl.proto.Designs, job.Designs)
	}
	if err := pl.prepare(); err != nil {
		return nil, fmt.Errorf("open job: %w", err)
	}
	return &JobRunner{pl: pl, dir: dir, traces: job.Traces}, nil
}

// fetchJobFile fetches one file of a job into dir and returns its bytes.
func fetchJobFile(ctx context.Context, dir string, f JobFile, fetch func(context.Context, JobFile) ([]byte, error)) ([]byte, error) {
	rel := filepath.FromSlash(f.Path)
	if !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("file %q: not a path inside the run folder", f.Path)
	}
	data, err := fetch(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", f.Path, err)
	}
	if got := HashBytes(data); got != f.SHA256 {
		return nil, fmt.Errorf("fetch %s: hashes to %s, the job records %s", f.Path, short(got), short(f.SHA256))
	}
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return data, writeAtomic(path, data)
}

// Units returns the keys of every unit of the job's plan, in plan order.
func (r *JobRunner) Units() []string {
	keys := make([]string, r.pl.units())
	for i := range keys {
		keys[i] = r.pl.unitKey(r.pl.unitAt(i))
	}
	return keys
}

// Execute runs every item of a unit, or those its key names, as a local
// sweep's worker does, and returns the unit's answer for the
// coordinator's [Sink].
func (r *JobRunner) Execute(ctx context.Context, key string) ([]byte, error) {
	pl := r.pl
	u, slots, err := pl.unitSlotsOf(key)
	if err != nil {
		return nil, err
	}
	if r.unbound() {
		return nil, fmt.Errorf("unit %s: %w", key, ErrUnboundModels)
	}
	if slots == nil {
		slots = make([]int, pl.slots())
		for i := range slots {
			slots[i] = i
		}
	}
	memo := r.memo()
	defer r.release(memo)
	memo.reset()
	outs := make([]*outcome, len(slots))
	lines := make([]bool, len(slots))
	um := r.unitModels()
	if um != nil {
		ctx = model.WithKeyLog(ctx, &um.log)
	}
	for i, slot := range slots {
		sctx, h := um.slot(ctx)
		out, err := pl.evaluate(sctx, u, slot, memo)
		if err != nil {
			return nil, err
		}
		um.count(pl, slot, h)
		k := out.keepTrace(pl.seed, r.traces.Sample, r.traces.Flagged)
		if err := out.attachTrace(k, false); err != nil {
			return nil, err
		}
		outs[i], lines[i] = out, k == keepBytes
	}
	return encodeUnit(pl.unitKey(u), slots, outs, lines, memo.ran, um.done(r.pl.cores))
}

func (r *JobRunner) memo() *unitMemo {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.memos); n > 0 {
		m := r.memos[n-1]
		r.memos = r.memos[:n-1]
		return m
	}
	return newUnitMemo(true)
}

func (r *JobRunner) release(m *unitMemo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.memos = append(r.memos, m)
}
