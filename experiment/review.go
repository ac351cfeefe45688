package experiment

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/reports"
)

// ReviewCandidates returns the review candidates of a run of one of
// missions with [NewStack]; see [Stack.ReviewCandidates].
func ReviewCandidates(missions *mission.Registry, runDir string, pick func([]reports.ReviewCandidate) []reports.ReviewCandidate) ([]reports.ReviewCandidate, error) {
	return NewStack(missions).ReviewCandidates(runDir, pick)
}

// ReviewCandidates returns one candidate per (build, scenario, trial) of a
// run for reports.ExportReview: the keys and every design's verdict from
// runs.db (cheap), then, for the candidates pick keeps (every one when pick
// is nil), what a reviewer reads (inputs, hand-offs, end state, expected
// end state), regenerated from the integrated run. Regenerating is checked
// against the stored trace hash. Pass a pick that draws the sample first:
// filling every candidate of a full sweep holds every run in memory.
func (st *Stack) ReviewCandidates(runDir string, pick func([]reports.ReviewCandidate) []reports.ReviewCandidate) ([]reports.ReviewCandidate, error) {
	pl, _, err := openRun(runDir, st)
	if err != nil {
		return nil, fmt.Errorf("review candidates: %w", err)
	}
	s, err := openStoreIn(runDir)
	if err != nil {
		return nil, fmt.Errorf("review candidates: %w", err)
	}
	defer s.close()
	if err := s.sameTraceHash(); err != nil {
		return nil, fmt.Errorf("review candidates: %w", err)
	}
	nm, err := s.checked()
	if err != nil {
		return nil, fmt.Errorf("review candidates: %w", err)
	}
	// Plan order keeps a unit's items together without a sort in SQLite,
	// whose sorter would hold every item; the candidates, one per unit,
	// are sorted after.
	var (
		cands  []reports.ReviewCandidate
		hashes = map[string]string{}
	)
	err = s.scan(nm, "", nil, func(r *storedItem) error {
		it := &r.item
		bi, ok1 := pl.buildIdx[it.Build]
		si, ok2 := pl.scenarioIdx[it.Scenario]
		if !ok1 || !ok2 {
			return fmt.Errorf("%w: item %s", ErrForeignRun, r.id())
		}
		n := len(cands)
		if n == 0 || cands[n-1].Build != it.Build || cands[n-1].Scenario != it.Scenario || cands[n-1].Trial != it.Trial {
			sc := pl.scenarios[si]
			cands = append(cands, reports.ReviewCandidate{
				Build: it.Build, Class: pl.builds[bi].Info.Class, Scenario: it.Scenario, Category: string(sc.Category),
				Trial: it.Trial, Seed: TrialSeed(pl.seed, it.Scenario, it.Trial), Flagged: map[string]bool{},
			})
			n++
		}
		if it.Design == "" {
			hashes[r.id()] = it.TraceHash
		} else {
			cands[n-1].Flagged[it.Design] = it.Flagged
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("review candidates: %w", err)
	}
	slices.SortFunc(cands, func(a, b reports.ReviewCandidate) int {
		return cmp.Or(strings.Compare(a.Build, b.Build), strings.Compare(a.Scenario, b.Scenario), cmp.Compare(a.Trial, b.Trial))
	})
	if pick != nil {
		cands = pick(cands)
	}
	if err := pl.prepare(); err != nil {
		return nil, fmt.Errorf("review candidates: %w", err)
	}
	for i := range cands {
		if err := pl.fillCandidate(&cands[i], hashes); err != nil {
			return nil, fmt.Errorf("review candidates: %w", err)
		}
	}
	return cands, nil
}

// fillCandidate regenerates a candidate's integrated run and fills what a
// reviewer reads.
func (pl *plan) fillCandidate(c *reports.ReviewCandidate, hashes map[string]string) error {
	bi, si := pl.buildIdx[c.Build], pl.scenarioIdx[c.Scenario]
	out, err := pl.evaluate(context.Background(), pl.unitAt(pl.unitIndex(bi, si, c.Trial)), 0, nil)
	if err != nil {
		return err
	}
	id := ItemID(c.Build, "", c.Scenario, c.Trial)
	if want, ok := hashes[id]; ok && want != out.row.item.TraceHash {
		return fmt.Errorf("%w: item %s: regenerated trace hash %s, stored %s", ErrReplayMismatch, id, short(out.row.item.TraceHash), short(want))
	}
	sc := pl.scenarios[si]
	c.Emails = make([]reports.ReviewEmail, len(sc.Inputs))
	for i, e := range sc.Inputs {
		c.Emails[i] = reports.ReviewEmail{ID: e.ID, From: e.From, Subject: e.Subject, Body: e.Body}
	}
	c.Handoffs = nil
	for _, e := range out.run.Trace.Events {
		if e.Kind == mission.EventSent {
			c.Handoffs = append(c.Handoffs, reports.ReviewHandoff{Edge: e.Edge, Raw: e.Raw})
		}
	}
	end, err := json.Marshal(out.run.End)
	if err != nil {
		return err
	}
	want, err := json.Marshal(sc.Expect)
	if err != nil {
		return err
	}
	c.EndState, c.Expected = string(end), string(want)
	return nil
}
