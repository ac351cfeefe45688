package designs

import "github.com/baton-lab/baton/mission"

// Scorecards remembers the scorecards of core runs (see [Input]): per
// mission spec, golden and core run, by identity, the findings and
// matcher counts scoring the run against the golden gives. The zero value
// remembers nothing yet; nil remembers nothing. Not safe for concurrent
// use: one (build, scenario, trial) at a time, then [Scorecards.Reset].
type Scorecards struct {
	m map[scoreKey]scorecard
}

// scoreKey names one scoring: the same spec, golden and core run score the
// same, and a caller never changes a run or golden once scored.
type scoreKey struct {
	spec   *mission.Spec
	golden *mission.Golden
	run    *mission.CoreRun
}

type scorecard struct {
	findings []Finding
	counts   MatcherCounts
}

// Reset forgets every scorecard (and the runs and goldens it held).
func (s *Scorecards) Reset() {
	if s != nil {
		clear(s.m)
	}
}

// score scores cr against *g as scoreCore does, adding to counts and v,
// with the scorecard s remembers when it has one.
func (s *Scorecards) score(spec *mission.Spec, g *mission.Golden, cr *mission.CoreRun, counts *MatcherCounts, v *Verdict) {
	if s == nil {
		scoreCore(spec, *g, cr, counts, v)
		return
	}
	k := scoreKey{spec, g, cr}
	sc, ok := s.m[k]
	if !ok {
		var one Verdict
		scoreCore(spec, *g, cr, &sc.counts, &one)
		sc.findings = one.Findings
		if s.m == nil {
			s.m = map[scoreKey]scorecard{}
		}
		s.m[k] = sc
	}
	counts.N += sc.counts.N
	counts.Exact += sc.counts.Exact
	counts.NameOnly += sc.counts.NameOnly
	counts.OrderIgnored += sc.counts.OrderIgnored
	v.Findings = append(v.Findings, sc.findings...)
}
