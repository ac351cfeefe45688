package experiment

import (
	"fmt"

	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/mission"
)

// observeCoordination derives the coordination record of an observation
// run from its trace (a view of the trace: no design reads it and the
// build's class plays no part) and returns its verdict on each dimension,
// in [coordination.AllDimensions] order. The plan's deriver remembers what
// recurs from run to run; the record is scored and dropped. The plan's
// verdict memo gives those of a run it remembers, found by the run's hash
// (hash, see [runHashes]).
func (pl *plan) observeCoordination(item, build string, sc *mission.Scenario, run *mission.Run, success bool, hash string) ([]coordination.Verdict, error) {
	return pl.verdicts.verdicts(hash, sc, run, success, func() ([]coordination.Verdict, error) {
		rec, err := pl.coord.Derive(source(pl.mission, item, build, sc, run, success))
		if err != nil {
			return nil, fmt.Errorf("coordination: %w", err)
		}
		s := coordination.ScoreRecord(rec)
		out := make([]coordination.Verdict, len(s.Dimensions))
		for i, r := range s.Dimensions {
			out[i] = r.Verdict
		}
		return out, nil
	})
}

// deriveRecord derives an observation run's coordination record, sharing
// nothing with other records.
func deriveRecord(m mission.Mission, item, build string, sc *mission.Scenario, run *mission.Run, success bool) (*coordination.Record, error) {
	rec, err := coordination.Derive(source(m, item, build, sc, run, success))
	if err != nil {
		return nil, fmt.Errorf("coordination: %w", err)
	}
	return rec, nil
}

// source is what an observation run gives the derivation.
func source(m mission.Mission, item, build string, sc *mission.Scenario, run *mission.Run, success bool) coordination.Source {
	return coordination.Source{Trial: item, System: build, Mission: m, Scenario: sc, Trace: run.Trace, Cost: run.Cost, Success: &success}
}

// coordinationShift is where an observation run's coordination verdicts
// start in outcomes.flags: two bits a dimension, in
// [coordination.AllDimensions] order, 0 not applicable (or a design item),
// 1 pass, 2 fail.
const coordinationShift = 4

// maxFlags is the largest outcomes.flags value.
const maxFlags = 1<<(coordinationShift+2*8) - 1

// coordinationBits packs verdicts as outcomes.flags holds them, before the
// shift.
func coordinationBits(vs []coordination.Verdict) int64 {
	var b int64
	for i, v := range vs {
		var code int64
		switch v {
		case coordination.Pass:
			code = 1
		case coordination.Fail:
			code = 2
		}
		b |= code << (2 * i)
	}
	return b
}

// coordinationVerdicts unpacks an observation run's verdicts from
// outcomes.flags; ok is false for a code no verdict has.
func coordinationVerdicts(flags int64) (vs []coordination.Verdict, ok bool) {
	bits := flags >> coordinationShift
	vs = make([]coordination.Verdict, len(coordination.AllDimensions))
	for i := range vs {
		switch bits >> (2 * i) & 3 {
		case 0:
			vs[i] = coordination.NotApplicable
		case 1:
			vs[i] = coordination.Pass
		case 2:
			vs[i] = coordination.Fail
		default:
			return nil, false
		}
	}
	return vs, true
}
