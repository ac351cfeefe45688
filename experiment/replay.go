package experiment

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/mission"
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
	// Coordination is an observation item's coordination record, derived
	// from the regenerated trace (nil for a design item).
	Coordination *coordination.Record
}

// Match reports whether the replay reproduced the stored item exactly.
func (r *ReplayResult) Match() bool { return len(r.Differences) == 0 }

// Replay regenerates one work item of a run folder of one of missions with
// [NewStack]; see [Stack.Replay].
func Replay(missions *mission.Registry, runDir, itemID string) (*ReplayResult, error) {
	return NewStack(missions).Replay(runDir, itemID)
}

// Replay regenerates one work item exactly from the run folder: the
// protocol copy, the input copies and the item's key (build, design,
// scenario, trial; the seed follows from the master seed). It compares the
// result with the stored row, findings and kept trace, and returns
// [ErrReplayMismatch] (with the result) when they differ.
func (st *Stack) Replay(runDir, itemID string) (*ReplayResult, error) {
	_, _, _, trial, err := ParseItemID(itemID)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	pl, _, err := openRun(runDir, st)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	bi, si, slot, err := pl.locate(itemID)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if err := pl.prepareOne(bi, si); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	out, err := pl.evaluate(context.Background(), pl.unitAt(pl.unitIndex(bi, si, trial)), slot, nil)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	res := &ReplayResult{ItemID: itemID, Item: out.row.item, Verdict: out.verdict}
	if out.run != nil {
		b := pl.builds[bi].Info.ID
		if res.Coordination, err = deriveRecord(pl.mission, itemID, b, pl.scenarios[si], out.run, out.row.item.Success); err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
	}
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
	if err := s.sameTraceHash(); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
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
	if got, ok := checkTrace(TraceHashAlgorithm, res.Trace, res.TraceSHA); res.TraceSHA != "" && !ok {
		diffs = append(diffs, fmt.Sprintf("trace: replayed %d bytes hash to %s, the run kept %s", len(res.Trace), short(got), short(res.TraceSHA)))
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
	p, err := ParseProtocol(data, copyPath, runDir, st.Missions)
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
	// What regenerates a run's items never asks a model again: the
	// answers are in the run folder's cache.
	if err := pl.bindCores(runDir, coreOptions{offline: true}); err != nil {
		return nil, nil, err
	}
	return pl, man, nil
}

// locate returns the build, scenario and design slot of an item of the
// plan.
func (pl *plan) locate(itemID string) (bi, si, slot int, err error) {
	build, design, scenario, trial, err := ParseItemID(itemID)
	if err != nil {
		return 0, 0, 0, err
	}
	var ok bool
	if bi, ok = pl.buildIdx[build]; !ok {
		return 0, 0, 0, fmt.Errorf("item %s: the run has no build %q", itemID, build)
	}
	if si, ok = pl.scenarioIdx[scenario]; !ok {
		return 0, 0, 0, fmt.Errorf("item %s: the run has no scenario %q", itemID, scenario)
	}
	if slot, ok = pl.designIdx[design]; !ok {
		return 0, 0, 0, fmt.Errorf("item %s: the run has no design %q", itemID, design)
	}
	if trial > pl.trials {
		return 0, 0, 0, fmt.Errorf("item %s: the run has %d trials", itemID, pl.trials)
	}
	return bi, si, slot, nil
}

// itemOrd is the place in the plan of item id (see [itemIndex]).
func (pl *plan) itemOrd(id string) (int, error) {
	bi, si, slot, err := pl.locate(id)
	if err != nil {
		return 0, err
	}
	_, _, _, trial, _ := ParseItemID(id)
	return itemIndex(pl, pl.unitIndex(bi, si, trial), slot), nil
}

// ReportFindings hands r the findings, read (and checked) from the run
// folder's runs.db, of the items whose kept traces report.html embeds
// (r.TraceItems), which its trace viewer marks at their events. The run is
// of one of missions.
func ReportFindings(missions *mission.Registry, runDir string, r *reports.Results) error {
	pl, _, err := openRun(runDir, NewStack(missions))
	if err != nil {
		return fmt.Errorf("report findings: %w", err)
	}
	s, err := openStoreIn(runDir)
	if err != nil {
		return fmt.Errorf("report findings: %w", err)
	}
	defer s.close()
	return setReportFindings(s, pl, r)
}

func setReportFindings(s *store, pl *plan, r *reports.Results) error {
	out := make(map[string][]reports.Finding, len(r.TraceItems))
	for _, id := range r.TraceItems {
		ord, err := pl.itemOrd(id)
		if err != nil {
			return fmt.Errorf("report findings: %w", err)
		}
		it, err := s.item(ord, id)
		if err != nil {
			return fmt.Errorf("report findings: %w", err)
		}
		if it == nil {
			continue
		}
		for _, f := range it.findings {
			out[id] = append(out[id], reportFinding(f))
		}
	}
	r.SetFindings(out)
	return nil
}

// reportFinding is a design's finding as the report shows it.
func reportFinding(f designs.Finding) reports.Finding {
	return reports.Finding{Rule: f.Rule, Message: f.Message, Location: string(f.Location),
		Evidence: reports.FindingEvidence{Run: f.Evidence.Run, Seq: f.Evidence.Seq, Item: f.Evidence.Item, Field: f.Evidence.Field}}
}

// TraceInput is the trace viewer of a replayed item ([reports.WriteTracePage]):
// its regenerated trace and findings beside its clean twin's trace, which
// it replays too, with [NewStack] of missions.
func TraceInput(missions *mission.Registry, runDir string, res *ReplayResult) (reports.TraceInput, error) {
	return NewStack(missions).TraceInput(runDir, res)
}

// TraceInput is the trace viewer of a replayed item: its regenerated
// trace and findings, and its clean twin (the clean build's item of the
// same design, scenario and trial) replayed for the diff.
func (st *Stack) TraceInput(runDir string, res *ReplayResult) (reports.TraceInput, error) {
	in := reports.TraceInput{Item: res.ItemID, Trace: res.Trace, Flagged: res.Item.Flagged,
		Source: "Regenerated by baton replay from the run folder; " + replayNote(res) + "."}
	if res.Verdict != nil {
		for _, f := range res.Verdict.Findings {
			in.Findings = append(in.Findings, reportFinding(f))
		}
	}
	build, _, _, _, err := ParseItemID(res.ItemID)
	if err != nil || build == reports.CleanBuild {
		return in, err
	}
	in.Twin = reports.CleanBuild + res.ItemID[len(build):]
	tw, err := st.Replay(runDir, in.Twin)
	if tw == nil {
		return in, fmt.Errorf("replay the clean twin: %w", err)
	}
	in.TwinTrace, in.TwinNote = tw.Trace, "replayed too; "+replayNote(tw)
	return in, nil
}

// replayNote says whether a replay reproduced what the run stored.
func replayNote(res *ReplayResult) string {
	if res.Match() {
		return "it matches what the run stored, byte for byte"
	}
	first, _, _ := strings.Cut(res.Differences[0], "\n")
	return "it differs from what the run stored (" + first + ")"
}
