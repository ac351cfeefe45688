package designs

import (
	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/mission"
)

// Scorecards remembers what scoring core runs gave (see [Input]): per
// mission spec, golden and core run, by identity, the findings and
// matcher counts of the run's scorecard, and design C's contract checks
// of the run's messages. The zero value remembers nothing yet; nil
// remembers nothing. It holds at most [scorecardsMax] entries, forgetting
// everything when full. Not safe for concurrent use.
//
// A caller keeps it while the core runs it serves may recur (across the
// trials of one (build, scenario), say), then calls [Scorecards.Reset] or
// [Scorecards.Retain]. An entry is found by the pointers alone, so the caller never changes a
// run or golden once scored, and never hands a run or golden object back
// to a pool while the memo holds it (the entry keeps it live, so the
// collector cannot reuse its address either).
type Scorecards struct {
	m      map[scoreKey]scorecard
	checks map[checkKey]checkCard
}

// scorecardsMax bounds the entries a Scorecards holds: each keeps its
// core run live (its calls, result and messages: a few kilobytes).
const scorecardsMax = 4096

// scoreKey names one scoring: the same spec, golden and core run score the
// same.
type scoreKey struct {
	spec   *mission.Spec
	golden *mission.Golden
	run    *mission.CoreRun
}

type scorecard struct {
	findings []Finding
	counts   MatcherCounts
}

// checkKey names one run's contract checks: the same contract set, level,
// golden and core run, and whether its scorecard failed, check the same.
type checkKey struct {
	set    *contracts.Set
	level  contracts.Level
	golden *mission.Golden
	run    *mission.CoreRun
	failed bool
}

type checkCard struct {
	findings []Finding
	checks   int
}

// Reset forgets every entry (and the runs and goldens it held).
func (s *Scorecards) Reset() {
	if s != nil {
		clear(s.m)
		clear(s.checks)
	}
}

// Retain forgets every entry but those of the core runs keep reports.
func (s *Scorecards) Retain(keep func(*mission.CoreRun) bool) {
	if s == nil {
		return
	}
	for k := range s.m {
		if !keep(k.run) {
			delete(s.m, k)
		}
	}
	for k := range s.checks {
		if !keep(k.run) {
			delete(s.checks, k)
		}
	}
}

// Len returns how many entries s holds.
func (s *Scorecards) Len() int {
	if s == nil {
		return 0
	}
	return len(s.m) + len(s.checks)
}

// room makes room for one more entry, forgetting everything when full.
func (s *Scorecards) room() {
	if s.Len() >= scorecardsMax {
		s.Reset()
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
		s.room()
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

// checkContracts checks o's run's messages as checkEmitted and
// checkParsed do, adding to v, with the checks s remembers when it has
// them. Only a [contracts.Set]'s checks are remembered.
func (s *Scorecards) checkContracts(set ContractChecker, lv contracts.Level, o coreOutcome, v *Verdict) {
	cs, ok := set.(*contracts.Set)
	if s == nil || !ok || cs == nil {
		checkEmitted(set, lv, o, v)
		checkParsed(set, lv, o, v)
		return
	}
	k := checkKey{cs, lv, o.golden, o.run, o.failed}
	c, ok := s.checks[k]
	if !ok {
		var one Verdict
		checkEmitted(set, lv, o, &one)
		checkParsed(set, lv, o, &one)
		c = checkCard{findings: one.Findings, checks: one.Cost.ContractChecks}
		s.room()
		if s.checks == nil {
			s.checks = map[checkKey]checkCard{}
		}
		s.checks[k] = c
	}
	v.Cost.ContractChecks += c.checks
	v.Findings = append(v.Findings, c.findings...)
}
