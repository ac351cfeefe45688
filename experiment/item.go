package experiment

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/reports"
)

// outcome is one evaluated item: its row, and what its trace file would
// hold (built only when asked for).
type outcome struct {
	row     row
	verdict *designs.Verdict // nil for an observation item
	run     *mission.Run     // observation items only
	traces  map[string]*mission.Trace
	memo    *unitMemo // nil outside a sweep
	names   []string  // traceNames, once listed
}

// evaluate runs item (u, slot). A panic in the mission or a design becomes
// an error naming the item.
//
// memo, when not nil, shares runs between the items of one unit (see
// [itemMission]).
func (pl *plan) evaluate(ctx context.Context, u unit, slot int, memo *unitMemo) (out *outcome, err error) {
	b := pl.builds[u.build]
	sc := pl.scenarios[u.scenario]
	design := ""
	if slot > 0 {
		design = pl.designs[slot-1].ID
	}
	id := ItemID(b.Info.ID, design, sc.ID, u.trial)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("item %s: panic: %v", id, r)
		}
	}()
	seed := TrialSeed(pl.seed, sc.ID, u.trial)
	ctx, use := pl.cores.itemUse(ctx)
	defer pl.cores.count(design, use)
	oracle := &mission.Oracle{}
	build := b.Switch(oracle)
	if memo != nil && memo.probe != nil {
		build = memo.probe.Build(oracle) // the clean build, observed
	}
	it := reports.Item{
		Build: b.Info.ID, Class: b.Info.Class, Location: b.Info.Location, Design: design,
		Scenario: sc.ID, Category: string(sc.Category), Trial: u.trial, Seed: seed,
	}
	out = &outcome{}
	im := &itemMission{Mission: pl.mission, memo: memo, build: build, sc: sc, seed: seed, env: pl.env, oracle: oracle, use: use}
	start := time.Now()
	if slot == 0 {
		run, err := im.Run(ctx, build, sc, seed, pl.env)
		if err != nil {
			return nil, fmt.Errorf("item %s: %w", id, err)
		}
		it.WallNS = time.Since(start).Nanoseconds() + im.served.Nanoseconds()
		if run == nil || run.Trace == nil || run.End == nil {
			return nil, fmt.Errorf("item %s: mission run returned no trace or end state", id)
		}
		it.Cost = run.Cost
		it.Success = len(im.Check(sc, run.End)) == 0
		if it.TraceHash, it.EndHash, err = memo.hashes(run); err != nil {
			return nil, fmt.Errorf("item %s: %w", id, err)
		}
		it.Coordination, err = memo.coordination(run, sc, it.Success, func() ([]coordination.Verdict, error) {
			return pl.observeCoordination(id, b.Info.ID, sc, run, it.Success, it.TraceHash)
		})
		if err != nil {
			return nil, fmt.Errorf("item %s: %w", id, err)
		}
		out.run = run
	} else {
		v, err := pl.designs[slot-1].Evaluate(designs.Input{
			Ctx: ctx, Mission: im, Build: build, Scenario: sc, Seed: seed, Env: pl.env,
			Contracts: pl.checker, Level: pl.level, Inputs: pl.proto.DesignAInputs, Golden: pl.goldenOf(u.build, u.scenario),
			Scorecards: memo.cards(),
		})
		if err != nil {
			return nil, fmt.Errorf("item %s: %w", id, err)
		}
		it.WallNS = v.WallNS
		if it.WallNS == 0 {
			it.WallNS = time.Since(start).Nanoseconds()
		}
		// Runs served from the unit took next to no time here: charge
		// what they took when they executed.
		it.WallNS += im.served.Nanoseconds()
		it.Flagged = v.Flagged
		it.Findings = len(v.Findings)
		it.Cost = v.Cost
		for _, l := range v.Blame {
			it.Blame = append(it.Blame, string(l))
		}
		if m := v.Matchers; m != nil {
			it.MatchN, it.MatchExact, it.MatchNameOnly, it.MatchOrderIgnored = m.N, m.Exact, m.NameOnly, m.OrderIgnored
		}
		out.verdict = &v
		out.row.findings = v.Findings
	}
	out.traces, out.memo = im.traces, memo
	// The oracle is this item's alone and its runs are over; runs served
	// from the unit add what they recorded when they executed.
	f := snapshot(oracle)
	f.add(im.extra)
	it.Reached = f.reached
	it.Slipped = f.slips > 0
	it.Faulted = f.faults > 0 || f.redelivers > 0
	out.row.ord, out.row.id, out.row.item = itemIndex(pl, u.index, slot), id, it
	return out, nil
}

// traceBytes returns what an item's trace file holds: the integrated run's
// trace when the item ran one, else every run's trace in run-name order,
// each introduced by a line {"run":"<name>"}. ok is false when the item
// kept no trace.
func (o *outcome) traceBytes() ([]byte, bool, error) {
	names := o.traceNames()
	if len(names) == 0 {
		return nil, false, nil
	}
	if len(names) == 1 && names[0] == "integrated" {
		b, err := o.memo.marshal(o.traces["integrated"])
		return b, err == nil, err
	}
	parts := make([][]byte, len(names))
	size := 0
	for i, n := range names {
		b, err := o.memo.marshal(o.traces[n])
		if err != nil {
			return nil, false, err
		}
		parts[i] = b
		size += len(b) + len(n) + 16
	}
	buf := o.memo.alloc(size)
	for i, n := range names {
		buf = append(buf, `{"run":`...)
		buf = jsontext.AppendString(buf, n, true) // as json.Marshal escapes it
		buf = append(buf, "}\n"...)
		buf = append(buf, parts[i]...)
	}
	return buf, true, nil
}

// traceNames lists the runs whose traces make the item's trace: the
// integrated run alone when there is one, else every run by name. The
// list is the item's: read only.
func (o *outcome) traceNames() []string {
	if o.names != nil {
		return o.names
	}
	if t, ok := o.traces["integrated"]; ok && t != nil {
		o.names = integratedNames
		return o.names
	}
	names := make([]string, 0, len(o.traces))
	for n, t := range o.traces {
		if t != nil {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	o.names = names
	return names
}

// integratedNames is traceNames of an item with an integrated run.
var integratedNames = []string{"integrated"}

// appendTracesKey appends the key that identifies the item's trace by the
// identity of the traces it is made of, so items of a unit that share runs
// share it without serialising it again.
func (o *outcome) appendTracesKey(b []byte) []byte {
	names := o.traceNames()
	if len(names) == 1 && names[0] == "integrated" {
		return appendIntegratedKey(b, o.traces["integrated"])
	}
	for _, n := range names {
		b = append(b, n...)
		b = append(b, '=')
		b = strconv.AppendUint(b, uint64(reflect.ValueOf(o.traces[n]).Pointer()), 16)
		b = append(b, ';')
	}
	return b
}

// integratedKey is the traces key of an item whose trace is the integrated
// run t's.
func integratedKey(t *mission.Trace) string {
	return string(appendIntegratedKey(make([]byte, 0, 32), t))
}

func appendIntegratedKey(b []byte, t *mission.Trace) []byte {
	b = append(b, "integrated="...)
	b = strconv.AppendUint(b, uint64(reflect.ValueOf(t).Pointer()), 16)
	return append(b, ';')
}
