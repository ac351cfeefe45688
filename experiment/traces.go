package experiment

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/internal/xxh64"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/reports"
	"github.com/baton-lab/baton/sandbox"
)

// What a run keeps of the traces lives in runs.db, not in one file per
// item: a default sweep flags tens of thousands of items, and creating a
// file costs far more here than appending to the store. Every flagged
// design item and every failed observation run has its trace pinned by
// hash (outcomes.trace names a traces row, one per distinct trace, with
// its hash: see [TraceHashAlgorithm]); the bytes themselves (traces.data,
// gzipped) are stored for the clean build's flagged and failed items (the
// false alarms) and for a seeded sample of every item. Replay regenerates any trace and checks it against the hash;
// ExportTraces writes traces/<item>.jsonl from the stored bytes or, where
// only the hash is stored, from a checked regeneration. The kept bytes of
// the clean build's and the sample's traces are also written to
// traces/<build>.jsonl: by a fresh sweep as each build completes (see
// liveTraces), by a resumed one at its end (see writeKeptTraces).

// TracesDir is the run folder's trace folder: the kept traces per build,
// written at the end of a run, and traces exported on demand.
const TracesDir = "traces"

// DefaultTraceSample is the share of items whose trace bytes a run stores
// whatever their verdict.
const DefaultTraceSample = 0.02

// TraceFile returns the path of an item's exported trace inside a run
// folder: traces/<id with "/" replaced by "_">.jsonl.
func TraceFile(runDir, itemID string) string {
	return filepath.Join(runDir, TracesDir, strings.ReplaceAll(itemID, "/", "_")+".jsonl")
}

// TracePattern is the exported trace file pattern, with {build}, {design},
// {scenario} and {trial} placeholders, relative to the run folder.
const TracePattern = TracesDir + "/{build}_{design}_{scenario}_{trial}.jsonl"

// sampled reports whether an item's trace is in the run's seeded sample:
// a draw keyed by the master seed and the item id, so it is the same on
// every run and resume.
func sampled(master uint64, itemID string, rate float64) bool {
	if rate <= 0 {
		return false
	}
	if rate >= 1 {
		return true
	}
	h := sandbox.HashSeed(master, "trace-sample", itemID)
	return float64(h>>11)/(1<<53) < rate
}

// keep is what a run keeps of an item's trace.
type keep int

const (
	keepNone  keep = iota
	keepHash       // the hash only: the trace regenerates exactly with Replay
	keepBytes      // the hash and the gzipped bytes
)

// keepTrace decides what the run keeps of an item's trace: the bytes of a
// seeded sample of all items and of the clean build's flagged design
// items and failed observation runs, and, when flagged is set, the hash of
// every other flagged design item and failed observation run.
func (o *outcome) keepTrace(master uint64, rate float64, flagged bool) keep {
	it := &o.row.item
	bad := (it.Design == "" && !it.Success) || (it.Design != "" && it.Flagged)
	switch {
	case sampled(master, o.row.id, rate):
		return keepBytes
	case bad && flagged && it.Build == reports.CleanBuild:
		return keepBytes
	case bad && flagged:
		return keepHash
	}
	return keepNone
}

// keptSum is what a unit knows of a trace it keeps: its hash and the size
// of its compact encoding (both functions of the trace alone, whatever
// part of it the run keeps).
type keptSum struct {
	sha  string
	size int
}

// attachTrace fills the row's trace fields and, when line is set and k
// keeps the bytes, the row's line of traces/<build>.jsonl. A trace that
// several items of the unit share (the observation run and design B's,
// A's and C's core runs) is hashed, serialised and compressed once, and
// serialised only when its bytes are kept.
func (o *outcome) attachTrace(k keep, line bool) error {
	if k == keepNone {
		return nil
	}
	line = line && k == keepBytes
	m := o.memo
	m.tkey = o.appendTracesKey(m.tkey[:0])
	sum, known := m.kept[string(m.tkey)] // no string is made to look up
	if !known {
		var ok bool
		if sum, ok = o.traceSum(); !ok {
			return nil
		}
		m.kept[string(m.tkey)] = sum
	}
	o.row.traceSHA, o.row.traceLen = sum.sha, sum.size
	if !line && (k == keepHash || m.sent[sum.sha]) {
		return nil
	}
	b, ok, err := o.traceBytes()
	if err != nil {
		return fmt.Errorf("trace of %s: %w", o.row.id, err)
	}
	if !ok {
		return nil
	}
	if line {
		o.row.traceLine = appendTraceLine(nil, o.row.id, b)
	}
	if k == keepHash || m.sent[sum.sha] || m.stored.has(sum.sha) {
		return nil
	}
	m.sent[sum.sha] = true
	gz, err := m.gzip(b)
	if err != nil {
		return fmt.Errorf("trace of %s: %w", o.row.id, err)
	}
	o.row.traceGZ = gz
	return nil
}

// TraceHashAlgorithm names how this baton hashes traces: XXH64 of their
// compact encoding (see [mission.Trace.AppendCompact]), 16 hex digits.
// runs.db records it (meta key trace_hash); a store without the key was
// made by an older baton, which hashed with [legacyTraceHash].
const TraceHashAlgorithm = "xxh64-compact-1"

// legacyTraceHash is what a store without a trace_hash key hashed traces
// with: SHA-256 of their JSON Lines (and, for a unit's run, of the end
// state's JSON after them).
const legacyTraceHash = "sha256-jsonl"

// hash64 returns b's XXH64 as 16 lower-case hex digits.
func hash64(b []byte) string { return hex64(xxh64.Sum64(b)) }

// hex64 returns h as 16 lower-case hex digits, big-endian.
func hex64(h uint64) string {
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], h)
	return hex.EncodeToString(sum[:])
}

// traceSum returns the hash and compact size of what the item's trace
// file holds (see [outcome.traceBytes]), without serialising it: the runs'
// compact encodings, each introduced by its name when there are several.
// ok is false when the item kept no trace.
func (o *outcome) traceSum() (_ keptSum, ok bool) {
	names := o.traceNames()
	if len(names) == 0 {
		return keptSum{}, false
	}
	m := o.memo
	m.digest.Reset()
	if len(names) == 1 && names[0] == "integrated" {
		m.trace = o.traces["integrated"].WriteCompact(&m.digest, m.trace)
	} else {
		for _, n := range names {
			m.trace = mission.AppendCompactRun(m.trace[:0], n)
			m.digest.Write(m.trace)
			m.trace = o.traces[n].WriteCompact(&m.digest, m.trace)
		}
	}
	return digestSum(&m.digest), true
}

// digestSum is the keptSum of what d digested.
func digestSum(d *xxh64.Digest) keptSum {
	return keptSum{hex64(d.Sum64()), d.Len()}
}

// traceAlgorithm returns how the store's traces were hashed: its meta
// trace_hash, or legacyTraceHash when it has none.
func (s *store) traceAlgorithm() (string, error) {
	var alg string
	err := s.db.QueryRow("SELECT value FROM meta WHERE key = 'trace_hash'").Scan(&alg)
	if errors.Is(err, sql.ErrNoRows) {
		return legacyTraceHash, nil
	}
	if err != nil {
		return "", fmt.Errorf("read run store meta: %w", err)
	}
	return alg, nil
}

// sameTraceHash refuses a store whose traces this baton would hash
// differently: what it regenerates (a resumed unit, a replayed item, a
// review candidate) could not be checked against what the store holds.
func (s *store) sameTraceHash() error {
	alg, err := s.traceAlgorithm()
	if err != nil {
		return err
	}
	if alg != TraceHashAlgorithm {
		return fmt.Errorf("%w: %s hashes traces with %s, this baton with %s: resume or replay it with the baton that made it, or start a new run",
			ErrTraceHash, s.path, alg, TraceHashAlgorithm)
	}
	return nil
}

// HashTrace returns the hash that runs.db keeps for a trace file's JSON
// Lines (an exported or stored trace, or a replayed one), with
// [TraceHashAlgorithm].
func HashTrace(jsonl []byte) (string, error) {
	b, err := mission.AppendCompactJSONL(nil, jsonl)
	if err != nil {
		return "", err
	}
	return hash64(b), nil
}

// checkTrace reports whether jsonl hashes to sha with algorithm (a
// store's trace_hash).
func checkTrace(algorithm string, jsonl []byte, sha string) (got string, ok bool) {
	if algorithm == legacyTraceHash {
		got = HashBytes(jsonl)
	} else if h, err := HashTrace(jsonl); err == nil {
		got = h
	}
	return got, got == sha
}

// runHashes returns the hash of an integrated run (its trace's compact
// encoding, then its end state: the records' JSON and the call log) and the
// SHA-256 of its end-state records alone: two runs with the same run hash
// left the same record. On the way it records, under the integrated run's
// traces key, the hash of the trace alone: what attachTrace needs when the
// observation run failed or design B, which shares the run, flags. Nothing
// is serialised but the records.
func runHashes(run *mission.Trace, end *sandbox.State, memo *unitMemo) (runHash, endHash string, err error) {
	if memo == nil {
		memo = &unitMemo{}
	}
	records := append(memo.end[:0], "{}"...)
	if end.Records != nil {
		if mr, ok := end.Records.(memoJSONRecords); ok {
			records, err = mr.AppendJSONMemo(memo.end[:0], &memo.records)
		} else {
			records, err = end.Records.AppendJSON(memo.end[:0])
		}
		if err != nil {
			return "", "", fmt.Errorf("end state: %w", err)
		}
	}
	memo.end = records
	sum := sha256.Sum256(records)
	d := &memo.digest
	d.Reset()
	b := run.WriteCompact(d, memo.trace)
	if memo.kept != nil {
		trace := *d // the trace alone, while d goes on
		memo.kept[integratedKey(run)] = digestSum(&trace)
	}
	d.Write(binary.AppendUvarint(append(b[:0], 'S'), uint64(len(records))))
	d.Write(records)
	b = appendCompactLog(b[:0], end.Log)
	d.Write(b)
	memo.trace = b[:0]
	return hex64(d.Sum64()), hex.EncodeToString(sum[:]), nil
}

// memoJSONRecords are records that write their JSON (the same bytes as
// AppendJSON) faster with a memo of their own, which the caller keeps
// between calls.
type memoJSONRecords interface {
	AppendJSONMemo(b []byte, memo *any) ([]byte, error)
}

// appendCompactLog appends the compact encoding of a call log: each entry's
// fields in order, integers as varints, strings as a length and the bytes.
func appendCompactLog(b []byte, log []sandbox.LogEntry) []byte {
	str := func(b []byte, s string) []byte { return append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	b = binary.AppendUvarint(b, uint64(len(log)))
	for i := range log {
		e := &log[i]
		b = binary.AppendVarint(b, int64(e.Seq))
		b = binary.AppendVarint(b, e.At)
		b = str(str(str(str(b, e.Agent), e.Tool), e.Item), e.Key)
		b = str(str(str(b, e.Outcome), e.Code), e.Effect)
	}
	return b
}

// gzip compresses b with the worker's compressor (a new one allocates
// about a megabyte, and a sync.Pool loses its compressors at every garbage
// collection, which a sweep runs hundreds of).
func (m *unitMemo) gzip(b []byte) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, len(b)/4+64))
	if m.zw == nil {
		zw, err := gzip.NewWriterLevel(buf, gzip.BestSpeed)
		if err != nil {
			return nil, err
		}
		m.zw = zw
	} else {
		m.zw.Reset(buf)
	}
	m.zw.Write(b)
	if err := m.zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ExportTraces writes kept traces of a run of one of missions with
// [NewStack]; see [Stack.ExportTraces].
func ExportTraces(missions *mission.Registry, runDir string, ids ...string) ([]string, error) {
	return NewStack(missions).ExportTraces(runDir, ids...)
}

// ExportTraces writes the kept traces of a run's items to
// traces/<item>.jsonl: the listed items, or every item with a kept trace
// when ids is empty. A trace kept as a hash only is regenerated and
// checked against its hash first. It returns the files written.
func (st *Stack) ExportTraces(runDir string, ids ...string) ([]string, error) {
	for _, id := range ids {
		if _, _, _, _, err := ParseItemID(id); err != nil {
			return nil, fmt.Errorf("export traces: %w", err)
		}
	}
	s, err := openStoreIn(runDir)
	if err != nil {
		return nil, fmt.Errorf("export traces: %w", err)
	}
	defer s.close()
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	found := map[string]string{} // id -> trace hash, "" for none kept
	refs, err := s.traceRefs("", func(it *storedItem) bool {
		id := it.id()
		if len(ids) > 0 {
			if !want[id] {
				return false
			}
			found[id] = it.traceSHA
		}
		return it.traceSHA != ""
	})
	if err != nil {
		return nil, fmt.Errorf("export traces: %w", err)
	}
	if len(ids) > 0 {
		byID := map[string]traceItem{}
		for _, r := range refs {
			byID[r.id] = r
		}
		refs = refs[:0]
		for _, id := range ids {
			sha, ok := found[id]
			if !ok {
				return nil, fmt.Errorf("export traces: item %s: not in the run", id)
			}
			if sha == "" {
				return nil, fmt.Errorf("export traces: item %s: no trace kept (regenerate it with replay)", id)
			}
			refs = append(refs, byID[id])
		}
	} else {
		slices.SortFunc(refs, func(a, b traceItem) int { return strings.Compare(a.id, b.id) })
	}
	if err := os.MkdirAll(filepath.Join(runDir, TracesDir), 0o755); err != nil {
		return nil, fmt.Errorf("export traces: %w", err)
	}
	var out []string
	for _, r := range refs {
		b, err := s.trace(r.sha)
		if err != nil {
			return out, fmt.Errorf("export traces: item %s: %w", r.id, err)
		}
		if b == nil {
			res, err := st.Replay(runDir, r.id)
			if err != nil {
				return out, fmt.Errorf("export traces: %w", err)
			}
			b = res.Trace
		}
		f := TraceFile(runDir, r.id)
		if err := writeAtomic(f, b); err != nil {
			return out, fmt.Errorf("export traces: %w", err)
		}
		out = append(out, f)
	}
	return out, nil
}

// writeAtomic writes data to path through a temporary file in the same
// folder and a rename, so a reader never sees half a file.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, 0o644) // CreateTemp makes it 0600
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// traceItem is an item with a kept trace.
type traceItem struct {
	build, id, sha string
	stored         bool // the bytes are stored, not only the hash
}

// traceRefs lists, in plan order, the items with a kept trace that where
// (a condition, see [store.scan]) selects and want accepts,
// checked.
func (s *store) traceRefs(where string, want func(it *storedItem) bool) ([]traceItem, error) {
	nm, err := s.checked()
	if err != nil {
		return nil, err
	}
	var out []traceItem
	err = s.scan(nm, where, nil, func(it *storedItem) error {
		if want(it) && it.traceSHA != "" {
			out = append(out, traceItem{build: it.item.Build, id: it.id(), sha: it.traceSHA, stored: it.traceStored})
		}
		return nil
	})
	return out, err
}

// keptTraces calls fn, in store order (plan order: outcomes.ord), with
// every item that want accepts whose trace bytes the store keeps, and those
// bytes (JSON Lines), checked against their hash. The bytes are only valid
// during the call. The items want accepts are listed first (the store has
// one connection), then their traces read one at a time.
func (s *store) keptTraces(want func(build, id string) bool, fn func(build, id string, trace []byte) error) error {
	refs, err := s.traceRefs("{i}.trace IN (SELECT id FROM traces WHERE data IS NOT NULL)",
		func(it *storedItem) bool { return it.traceStored && want(it.item.Build, it.id()) })
	if err != nil {
		return fmt.Errorf("read kept traces: %w", err)
	}
	var (
		b       []byte
		lastSHA string
	)
	for _, r := range refs {
		if r.sha != lastSHA { // items of a unit often share a trace
			if b, err = s.trace(r.sha); err != nil {
				return fmt.Errorf("read kept trace of %s: %w", r.id, err)
			}
			lastSHA = r.sha
		}
		if err := fn(r.build, r.id, b); err != nil {
			return err
		}
	}
	return nil
}

// TraceBuildPattern is report.html's link to a kept trace: the JSON Lines
// file of its build, relative to the run folder.
const TraceBuildPattern = TracesDir + "/{build}.jsonl"

// TraceBuildFile returns the path of a build's kept traces inside a run
// folder: traces/<build>.jsonl.
func TraceBuildFile(runDir, build string) string {
	return filepath.Join(runDir, TracesDir, build+".jsonl")
}

// writeKeptTraces writes every trace whose bytes the store keeps for an
// item want accepts (the clean build's flagged and failed items and the
// seeded sample) into traces/<build>.jsonl, one line per item in store
// order: {"item":"<id>","trace":[<event>,...]} (a core run's
// {"run":"<name>"} lines stay in the array, in place). One file per item
// would cost several times more (about 0.6 s against 0.18 s for the
// default protocol's 2,400 kept traces). It reports, of the ids in
// examples, those whose trace it wrote. A fresh sweep writes the same
// files as it goes instead (see [liveTraces]); a resumed one reads them
// back here.
func writeKeptTraces(runDir string, s *store, want func(build, id string) bool, examples map[string]bool) error {
	var (
		f    *traceFile
		line []byte
	)
	err := s.keptTraces(want, func(build, id string, trace []byte) error {
		if f == nil || f.build != build {
			if err := f.commit(); err != nil {
				return err
			}
			var err error
			if f, err = createTraceFile(runDir, build); err != nil {
				return err
			}
		}
		line = appendTraceLine(line[:0], id, trace)
		if err := f.write(line); err != nil {
			return err
		}
		if _, ok := examples[id]; ok {
			examples[id] = true
		}
		return nil
	})
	if err != nil {
		f.abort()
		return err
	}
	return f.commit()
}

// traceFile is a build's kept-trace file being written: a temporary file
// in traces/ that commit renames into place.
type traceFile struct {
	runDir, build string
	f             *os.File
	w             *bufio.Writer
}

func createTraceFile(runDir, build string) (*traceFile, error) {
	dir := filepath.Join(runDir, TracesDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write traces: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+build+".jsonl.*")
	if err != nil {
		return nil, fmt.Errorf("write traces of %s: %w", build, err)
	}
	return &traceFile{runDir: runDir, build: build, f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

func (t *traceFile) write(line []byte) error {
	if _, err := t.w.Write(line); err != nil {
		return fmt.Errorf("write traces of %s: %w", t.build, err)
	}
	return nil
}

// commit puts the file in place as traces/<build>.jsonl; a nil file
// commits nothing.
func (t *traceFile) commit() error {
	if t == nil {
		return nil
	}
	name := t.f.Name()
	err := t.w.Flush()
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, 0o644)
	}
	if err == nil {
		err = os.Rename(name, TraceBuildFile(t.runDir, t.build))
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("write traces of %s: %w", t.build, err)
	}
	return nil
}

// abort removes the unfinished file; a nil file does nothing.
func (t *traceFile) abort() {
	if t != nil {
		t.f.Close()
		os.Remove(t.f.Name())
	}
}

// appendTraceLine appends {"item":"<id>","trace":[...]} and a newline to
// dst, the array made of trace's JSON Lines (the id escaped as
// json.Marshal escapes it, the lines without their line ends, empty ones
// left out).
func appendTraceLine(dst []byte, id string, trace []byte) []byte {
	dst = slices.Grow(dst, len(id)+len(trace)+32)
	dst = append(dst, `{"item":`...)
	dst = jsontext.AppendString(dst, id, true)
	dst = append(dst, `,"trace":[`...)
	sep := false
	for len(trace) > 0 {
		l := trace
		if i := bytes.IndexByte(trace, '\n'); i >= 0 {
			l, trace = trace[:i], trace[i+1:]
		} else {
			trace = nil
		}
		if l = bytes.TrimRight(l, "\r"); len(l) == 0 {
			continue
		}
		if sep {
			dst = append(dst, ',')
		}
		sep = true
		dst = append(dst, l...)
	}
	return append(dst, "]}\n"...)
}
