package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/baton-lab/baton/reports"
)

// A sweep can execute its units in other processes, on other machines:
// Options.Remote hands them out (package distributed does it over NATS
// JetStream) and [Stack.OpenJob] executes them where they land. A unit
// travels as its key alone ([UnitKey]); the worker rebuilds the plan from
// the run folder's inputs (the [Job]), checked against the run's input
// tree, and answers with the unit's rows. The coordinator stores each
// answer through the same single writer as a local sweep, idempotently by
// item id, so results.json is the local run's byte for byte whatever the
// number of workers and whatever was delivered twice.

// A Remote executes a sweep's units elsewhere.
type Remote interface {
	// Sweep hands out sw.Units and passes every answer to sw.Sink, from
	// one goroutine, until the sink reports that every unit is accounted
	// for (stored or given up) or ctx ends. Answers that a previous
	// session of the same run left behind are welcome: the sink drops
	// what it already stores.
	Sweep(ctx context.Context, sw *RemoteSweep) error
}

// RemoteSweep is one session's distributed sweep.
type RemoteSweep struct {
	// Run identifies the run folder's run across sessions; Session this
	// session alone (a unit handed out by an earlier session is not this
	// one's to give up on).
	Run     string
	Session string
	Job     *Job
	// ReadFile returns the bytes of one of the job's files.
	ReadFile func(f JobFile) ([]byte, error)
	// Units are the keys of the units to execute, in plan order.
	Units []string
	Sink  Sink
}

// A Sink takes what workers answer.
type Sink interface {
	// Result takes the answer to a unit ([JobRunner.Execute]'s bytes) and
	// returns how many of its items were new (0 for an answer delivered
	// twice) and whether every unit is now accounted for. An answer that
	// cannot be read is recorded as the unit's infrastructure failure, not
	// returned as an error; an error stops the sweep.
	Result(unit string, data []byte) (stored int, done bool, err error)
	// Failed gives a unit up after deliveries attempts, for reason; a
	// unit already stored is not given up. It returns whether every unit
	// is now accounted for.
	Failed(unit string, deliveries int, reason string) (done bool, err error)
}

// JobSchema identifies a [Job]'s layout.
const JobSchema = "baton.job/v1"

// Job is what a worker needs to execute a run's units: the run folder's
// inputs, each by the SHA-256 of its bytes, and the settings the plan is
// rebuilt with. It holds no path of the coordinator's machine.
type Job struct {
	Schema string `json:"schema"`
	// Baton is the coordinator's version: a worker of another refuses
	// the job, since results are byte-identical only between equal builds.
	Baton string `json:"baton"`
	// Protocol is the protocol's file name as the input tree records it.
	Protocol       string   `json:"protocol"`
	ProtocolSHA256 string   `json:"protocol_sha256"`
	Seed           uint64   `json:"seed"`
	Trials         int      `json:"trials"`
	Designs        []string `json:"designs"`
	// Inputs are the manifest's input copies; Tree is the run's input
	// tree, which the worker's rebuilt plan must hash to.
	Inputs []Input    `json:"inputs"`
	Tree   InputTree  `json:"inputs_tree"`
	Files  []JobFile  `json:"files"`
	Traces JobTracing `json:"traces"`
}

// JobFile is one file of a run folder a job needs: its path relative to
// the folder (slash-separated) and its SHA-256.
type JobFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// JobTracing is what the run keeps of the traces (Options.TraceSample
// and Options.SampleTracesOnly).
type JobTracing struct {
	Sample  float64 `json:"sample"`
	Flagged bool    `json:"flagged"`
}

// UnitKey is a unit's key: build/scenario/trial.
func UnitKey(build, scenario string, trial int) string {
	return build + "/" + scenario + "/" + strconv.Itoa(trial)
}

// unitOf returns the plan's unit of a key.
func (pl *plan) unitOf(key string) (unit, error) {
	u, _, err := pl.unitSlotsOf(key)
	return u, err
}

// unitSlotsOf returns the plan's unit of a key and the slots the key
// names, in order (nil: every slot). A key names slots when some of the
// unit's items are stored already (taken from the twin, or by an earlier
// session): build/scenario/trial/1,3 (see [remoteSink.keys]).
func (pl *plan) unitSlotsOf(key string) (unit, []int, error) {
	parts := strings.Split(key, "/")
	if len(parts) != 3 && len(parts) != 4 {
		return unit{}, nil, fmt.Errorf("unit %q: want build/scenario/trial", key)
	}
	b, ok := pl.buildIdx[parts[0]]
	if !ok {
		return unit{}, nil, fmt.Errorf("unit %q: the run has no build %q", key, parts[0])
	}
	s, ok := pl.scenarioIdx[parts[1]]
	if !ok {
		return unit{}, nil, fmt.Errorf("unit %q: the run has no scenario %q", key, parts[1])
	}
	t, err := strconv.Atoi(parts[2])
	if err != nil || t < 1 || t > pl.trials || strconv.Itoa(t) != parts[2] {
		return unit{}, nil, fmt.Errorf("unit %q: trial %q: want 1 to %d", key, parts[2], pl.trials)
	}
	u := pl.unitAt(pl.unitIndex(b, s, t))
	if len(parts) == 3 {
		return u, nil, nil
	}
	var slots []int
	for f := range strings.SplitSeq(parts[3], ",") {
		slot, err := strconv.Atoi(f)
		if err != nil || slot < 0 || slot >= pl.slots() || strconv.Itoa(slot) != f || (len(slots) > 0 && slot <= slots[len(slots)-1]) {
			return unit{}, nil, fmt.Errorf("unit %q: slots %q: want increasing numbers from 0 to %d", key, parts[3], pl.slots()-1)
		}
		slots = append(slots, slot)
	}
	return u, slots, nil
}

// unitKey returns a unit's key.
func (pl *plan) unitKey(u unit) string {
	return UnitKey(pl.builds[u.build].Info.ID, pl.scenarios[u.scenario].ID, u.trial)
}

// slotsKey returns the key of u's slots (nil: every slot).
func (pl *plan) slotsKey(u unit, slots []int) string {
	key := pl.unitKey(u)
	for i, slot := range slots {
		sep := ","
		if i == 0 {
			sep = "/"
		}
		key += sep + strconv.Itoa(slot)
	}
	return key
}

// IncompleteError is what [Run] returns, after writing every output, when
// a distributed sweep gave units up (see [reports.InfraFailure]): the run
// is incomplete by their items, and Options.Resume executes them.
type IncompleteError struct {
	RunDir string
	Units  int
	Items  int
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("run %s is incomplete: %d work units (%d items) failed on the infrastructure on every delivery; resume it to execute them", e.RunDir, e.Units, e.Items)
}

// ErrIncomplete: a run is incomplete by units its workers gave up on.
var ErrIncomplete = errors.New("run incomplete")

// Is matches [ErrIncomplete].
func (e *IncompleteError) Is(target error) bool { return target == ErrIncomplete }

// runID is the id of a run folder's run on a remote: the same in every
// session (the input tree, seed, trials and start time of the run).
func runID(man *Manifest) string {
	return HashBytes([]byte(man.Tree.Root + "\n" + strconv.FormatUint(man.Seed, 10) + "\n" + strconv.Itoa(man.Trials) + "\n" + man.Started))[:16]
}

// job describes the session's run for workers.
func (ses *session) job(sample float64, flagged bool) (*Job, error) {
	man, pl := ses.man, ses.pl
	j := &Job{
		Schema: JobSchema, Baton: batonVersion(), Protocol: filepath.Base(pl.proto.Source), ProtocolSHA256: man.Protocol.SHA256,
		Seed: man.Seed, Trials: man.Trials, Designs: slices.Clone(pl.proto.Designs),
		Inputs: man.Inputs, Tree: man.Tree, Traces: JobTracing{Sample: sample, Flagged: flagged},
	}
	if e, ok := man.Tree.entry("protocol"); ok && e.Path != "" {
		j.Protocol = e.Path
	}
	paths := []string{ProtocolCopy}
	for _, in := range man.Inputs {
		names, dir, err := inputFiles(filepath.Join(ses.runDir, filepath.FromSlash(in.Copy)))
		if err != nil {
			return nil, fmt.Errorf("job: input %s: %w", in.Field, err)
		}
		if !dir {
			paths = append(paths, in.Copy)
		}
		for _, n := range names {
			paths = append(paths, in.Copy+"/"+n)
		}
	}
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(ses.runDir, filepath.FromSlash(p)))
		if err != nil {
			return nil, fmt.Errorf("job: %w", err)
		}
		j.Files = append(j.Files, JobFile{Path: p, SHA256: HashBytes(data)})
	}
	return j, nil
}

// readJobFile reads a job's file from the run folder, checking its hash.
func (ses *session) readJobFile(f JobFile) ([]byte, error) {
	if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
		return nil, fmt.Errorf("job file %q: not inside the run folder", f.Path)
	}
	data, err := os.ReadFile(filepath.Join(ses.runDir, filepath.FromSlash(f.Path)))
	if err != nil {
		return nil, fmt.Errorf("job file: %w", err)
	}
	if got := HashBytes(data); got != f.SHA256 {
		return nil, fmt.Errorf("job file %s: %w: hashes to %s, the job records %s", f.Path, ErrProtocolChanged, short(got), short(f.SHA256))
	}
	return data, nil
}

// remoteSweep runs the units not yet stored on opt.Remote; live, if not
// nil, is handed every row as the writer receives it. It returns the
// units the remote gave up on.
func remoteSweep(ctx context.Context, ses *session, lv *live, sample float64, opt Options) ([]reports.InfraFailure, error) {
	pl, s := ses.pl, ses.s
	job, err := ses.job(sample, !opt.SampleTracesOnly)
	if err != nil {
		return nil, err
	}
	skipped, selecting := ses.skipped, false
	if mode, _ := selectionOf(pl, opt); mode == SelectCoverage {
		if skipped, selecting, err = remoteSelect(ctx, ses, lv, sample, opt); err != nil {
			return nil, err
		}
	}
	k := newRemoteSink(pl, ses.done, lv != nil)
	if len(k.units) == 0 {
		return nil, nil
	}
	k.countRuns = selecting
	if k.models, err = newSinkModels(ctx, pl.cores, opt.Remote); err != nil {
		return nil, err
	}
	total := pl.total()
	var progress func(int)
	if opt.Progress != nil {
		progress = func(n int) { opt.Progress(skipped+n, total) }
		opt.Progress(skipped, total)
	}
	var observe func([]row) error
	if lv != nil {
		observe = lv.observe
	}
	k.w = s.startWriter(opt.Batch, progress, observe)
	err = opt.Remote.Sweep(ctx, &RemoteSweep{
		Run: runID(ses.man), Session: uuid.NewString(), Job: job,
		ReadFile: ses.readJobFile, Units: k.keys(), Sink: k,
	})
	werr := k.w.close()
	switch {
	case err != nil:
		return nil, err
	case werr != nil:
		return nil, werr
	}
	if selecting {
		// The workers hold no twin's runs nor other trials': they serve none.
		if err := s.addRunCounts(k.ran, 0, 0); err != nil {
			return nil, err
		}
	}
	failed := k.failures()
	if lv != nil {
		for _, f := range failed {
			if err := lv.skip(f.Build, f.Items); err != nil {
				return nil, err
			}
		}
	}
	return failed, nil
}

// unitState is where a remote unit stands.
type unitState uint8

const (
	unitPending unitState = iota
	unitStored
	unitFailed
)

// remoteSink stores what workers answer: each item once, through the
// writer, on the remote's goroutine.
type remoteSink struct {
	pl    *plan
	done  bitset
	w     *writer
	lines bool // build the kept traces' lines (a fresh sweep's)

	// countRuns sums the runs the mutant units' answers executed into
	// ran, as a local sweep with coverage selection counts them.
	countRuns bool
	ran       int64

	models  *sinkModels       // nil without model cores
	units   map[int]unitState // the session's units by index
	order   []int
	left    int
	failed  map[int]reports.InfraFailure
	scratch []byte
}

var _ Sink = (*remoteSink)(nil)

func newRemoteSink(pl *plan, done bitset, lines bool) *remoteSink {
	k := &remoteSink{pl: pl, done: done, lines: lines, units: map[int]unitState{}, failed: map[int]reports.InfraFailure{}}
	for i := range pl.units() {
		if k.missing(i) > 0 {
			k.units[i] = unitPending
			k.order = append(k.order, i)
		}
	}
	k.left = len(k.order)
	return k
}

// missing is how many items of unit i are not stored.
func (k *remoteSink) missing(i int) int {
	n := 0
	for slot := range k.pl.slots() {
		if !k.done.has(itemIndex(k.pl, i, slot)) {
			n++
		}
	}
	return n
}

// keys are the units to hand out, in plan order, each naming the slots
// to execute when some of its items are stored.
func (k *remoteSink) keys() []string {
	keys := make([]string, len(k.order))
	for j, i := range k.order {
		var slots []int
		if k.missing(i) < k.pl.slots() {
			for slot := range k.pl.slots() {
				if !k.done.has(itemIndex(k.pl, i, slot)) {
					slots = append(slots, slot)
				}
			}
		}
		keys[j] = k.pl.slotsKey(k.pl.unitAt(i), slots)
	}
	return keys
}

// Result decodes an answer and sends the items not yet stored to the
// writer.
func (k *remoteSink) Result(key string, data []byte) (int, bool, error) {
	u, err := k.pl.unitOf(key)
	if err != nil {
		return 0, k.left == 0, nil // not this run's unit: nothing to store
	}
	st, ok := k.units[u.index]
	if !ok || st == unitStored {
		return 0, k.left == 0, nil // stored before this session, or already
	}
	rows, runs, err := k.decode(u, data)
	if err != nil {
		done, _ := k.Failed(key, 0, "unreadable answer: "+err.Error())
		return 0, done, nil
	}
	if k.countRuns && u.build > 0 && len(rows) > 0 {
		k.ran += int64(runs)
	}
	if len(rows) > 0 {
		k.w.send(rows)
	}
	if k.missing(u.index) == 0 {
		if st == unitPending {
			k.left--
		}
		k.units[u.index] = unitStored
		delete(k.failed, u.index)
	}
	return len(rows), k.left == 0, nil
}

// Failed records a unit given up on.
func (k *remoteSink) Failed(key string, deliveries int, reason string) (bool, error) {
	u, err := k.pl.unitOf(key)
	if err != nil {
		return k.left == 0, nil
	}
	if st, ok := k.units[u.index]; !ok || st != unitPending {
		return k.left == 0, nil
	}
	k.units[u.index] = unitFailed
	k.left--
	b, sc := k.pl.builds[u.build].Info.ID, k.pl.scenarios[u.scenario].ID
	k.failed[u.index] = reports.InfraFailure{Unit: k.pl.unitKey(u), Build: b, Scenario: sc, Trial: u.trial,
		Items: k.missing(u.index), Deliveries: deliveries, Reason: firstLineOf(reason)}
	return k.left == 0, nil
}

// failures are the units given up on, in plan order.
func (k *remoteSink) failures() []reports.InfraFailure {
	var out []reports.InfraFailure
	for _, i := range k.order {
		if f, ok := k.failed[i]; ok {
			out = append(out, f)
		}
	}
	return out
}

// firstLineOf is a reason's first line, at most 300 bytes.
func firstLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = strings.ToValidUTF8(s[:300], "") + "…"
	}
	return s
}

// skip counts n items of build that will never arrive (a failed unit's)
// as arrived: the clean build's let the mutated items waiting for it in,
// and a build whose other items all arrived gets its traces file.
func (l *live) skip(build string, n int) error {
	a := &l.aggregation
	if build == reports.CleanBuild && a.cleanLeft > 0 {
		if a.cleanLeft -= n; a.cleanLeft == 0 {
			for _, e := range a.early {
				a.add(e)
			}
			a.early = nil
		}
	}
	t := &l.traces
	if t.seen[build] += n; t.seen[build] == t.pl.perBuild() {
		return t.write(build)
	}
	return nil
}

// failedItems is how many items failures leave missing.
func failedItems(failed []reports.InfraFailure) int {
	n := 0
	for _, f := range failed {
		n += f.Items
	}
	return n
}
