package experiment

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/reports"
)

// ReplayResult is a work item regenerated from its run folder and compared
// with what the run stored.
type ReplayResult struct {
	ItemID string
	// Item is the regenerated item; Stored is the run's row (nil when the
	// run has not stored the item, e.g. an interrupted run).
	Item   reports.Item
	Stored *reports.Item
	// Verdict is the regenerated verdict of a design item (nil for an
	// observation item).
	Verdict *designs.Verdict
	// Trace is the regenerated trace as the run keeps it. TraceSHA is the
	// hash the run kept of it ("" when it kept none) and StoredTrace its
	// bytes (nil when the run kept the hash only).
	Trace       []byte
	TraceSHA    string
	StoredTrace []byte
	// Differences lists every way the regenerated item departs from the
	// stored one (wall time aside); empty when the replay is exact.
	Differences []string
}

// Match reports whether the replay reproduced the stored item exactly.
func (r *ReplayResult) Match() bool { return len(r.Differences) == 0 }

// Replay regenerates one work item of a run folder with [DefaultStack].
func Replay(runDir, itemID string) (*ReplayResult, error) {
	st, err := DefaultStack()
	if err != nil {
		return nil, err
	}
	return st.Replay(runDir, itemID)
}

// Replay regenerates one work item exactly from the run folder: the
// protocol copy, the input copies and the item's key (build, design,
// scenario, trial; the seed follows from the master seed). It compares the
// result with the stored row, findings and kept trace, and returns
// [ErrReplayMismatch] (with the result) when they differ.
func (st *Stack) Replay(runDir, itemID string) (*ReplayResult, error) {
	build, design, scenario, trial, err := ParseItemID(itemID)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	pl, _, err := openRun(runDir, st)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	bi, ok := pl.buildIdx[build]
	if !ok {
		return nil, fmt.Errorf("replay: item %s: the run has no build %q", itemID, build)
	}
	si, ok := pl.scenarioIdx[scenario]
	if !ok {
		return nil, fmt.Errorf("replay: item %s: the run has no scenario %q", itemID, scenario)
	}
	slot, ok := pl.designIdx[design]
	if !ok {
		return nil, fmt.Errorf("replay: item %s: the run has no design %q", itemID, design)
	}
	if trial > pl.trials {
		return nil, fmt.Errorf("replay: item %s: the run has %d trials", itemID, pl.trials)
	}
	if err := pl.prepareOne(si); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	out, err := pl.evaluate(pl.unitAt(pl.unitIndex(bi, si, trial)), slot, nil)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	res := &ReplayResult{ItemID: itemID, Item: out.row.item, Verdict: out.verdict}
	if b, ok, err := out.traceBytes(); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	} else if ok {
		res.Trace = b
	}

	s, err := openStoreIn(runDir)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer s.close()
	stored, err := s.item(itemIndex(pl, pl.unitIndex(bi, si, trial), slot), itemID)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if stored == nil {
		res.Differences = append(res.Differences, "the run has not stored this item")
		return res, fmt.Errorf("replay: item %s: %w: not stored", itemID, ErrReplayMismatch)
	}
	res.Stored = &stored.item
	res.TraceSHA = stored.traceSHA
	findings := stored.findings
	if stored.traceStored {
		if res.StoredTrace, err = s.trace(stored.traceSHA); err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
	}
	res.Differences = compareReplay(res, out, findings)
	if !res.Match() {
		return res, fmt.Errorf("replay: item %s: %w: %s", itemID, ErrReplayMismatch, res.Differences[0])
	}
	return res, nil
}

// compareReplay lists the differences between a regenerated item and the
// stored one.
func compareReplay(res *ReplayResult, out *outcome, findings []designs.Finding) []string {
	var diffs []string
	got, want := res.Item, *res.Stored
	got.WallNS, want.WallNS = 0, 0
	// The stream fills these from the builds and scenarios tables.
	want.Class, want.Location, want.Category = got.Class, got.Location, got.Category
	if d := cmp.Diff(want, got); d != "" {
		diffs = append(diffs, "item (-stored +replayed):\n"+d)
	}
	if d := cmp.Diff(findings, out.row.findings); d != "" && !(len(findings) == 0 && len(out.row.findings) == 0) {
		diffs = append(diffs, "findings (-stored +replayed):\n"+d)
	}
	if res.TraceSHA != "" && res.TraceSHA != HashBytes(res.Trace) {
		diffs = append(diffs, fmt.Sprintf("trace: replayed %d bytes hash to %s, the run kept %s", len(res.Trace), short(HashBytes(res.Trace)), short(res.TraceSHA)))
	}
	if res.StoredTrace != nil && !bytes.Equal(res.StoredTrace, res.Trace) {
		diffs = append(diffs, fmt.Sprintf("trace: stored %d bytes, replayed %d bytes, first difference at byte %d",
			len(res.StoredTrace), len(res.Trace), firstDiff(res.StoredTrace, res.Trace)))
	}
	return diffs
}

func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// WriteTrace writes a replayed item's trace to the run folder's
// traces/<item>.jsonl and returns the path.
func (r *ReplayResult) WriteTrace(runDir string) (string, error) {
	if r.Trace == nil {
		return "", fmt.Errorf("write trace: item %s ran no trace", r.ItemID)
	}
	if err := os.MkdirAll(filepath.Join(runDir, TracesDir), 0o755); err != nil {
		return "", fmt.Errorf("write trace: %w", err)
	}
	f := TraceFile(runDir, r.ItemID)
	if err := writeAtomic(f, r.Trace); err != nil {
		return "", fmt.Errorf("write trace: %w", err)
	}
	return f, nil
}

// openRun rebuilds a run folder's plan from its protocol copy and input
// copies, refusing a folder whose copy no longer matches the recorded hash.
func openRun(runDir string, st *Stack) (*plan, *Manifest, error) {
	man, err := ReadManifest(runDir)
	if err != nil {
		return nil, nil, err
	}
	copyPath := filepath.Join(runDir, ProtocolCopy)
	data, err := os.ReadFile(copyPath)
	if err != nil {
		return nil, nil, err
	}
	if got := HashBytes(data); got != man.Protocol.SHA256 {
		return nil, nil, fmt.Errorf("%w: %s hashes to %s, the run recorded %s", ErrProtocolChanged, copyPath, short(got), short(man.Protocol.SHA256))
	}
	p, err := ParseProtocol(data, copyPath, runDir)
	if err != nil {
		return nil, nil, err
	}
	p.Seed, p.Trials = man.Seed, man.Trials
	pl, err := resolve(p, st, inputResolver(runDir, man.Inputs))
	if err != nil {
		return nil, nil, err
	}
	if !slices.Equal(man.Designs, p.Designs) && len(man.Designs) > 0 {
		return nil, nil, fmt.Errorf("%w: manifest designs %v, protocol %v", ErrProtocolChanged, man.Designs, p.Designs)
	}
	return pl, man, nil
}
