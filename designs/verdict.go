package designs

import (
	"sort"
	"strings"
	"time"

	"github.com/baton-lab/baton/mission"
)

// finish sets the verdict's flag, ranks its blame and records wall time.
func finish(v *Verdict, start time.Time) {
	v.Flagged = len(v.Findings) > 0
	v.Blame = rankBlame(v.Findings)
	v.WallNS = time.Since(start).Nanoseconds()
}

// rankBlame orders the locations the findings blame: most root findings
// first (a derived finding is a consequence of a failure already blamed
// elsewhere), then most findings, then edges before agents (the more
// specific place), then by name.
func rankBlame(findings []Finding) []mission.Location {
	type tally struct{ root, all int }
	t := map[mission.Location]*tally{}
	for _, f := range findings {
		if f.Location == "" {
			continue
		}
		c := t[f.Location]
		if c == nil {
			c = &tally{}
			t[f.Location] = c
		}
		c.all++
		if !strings.HasPrefix(f.Rule, "contract.derived.") {
			c.root++
		}
	}
	locs := make([]mission.Location, 0, len(t))
	for l := range t {
		locs = append(locs, l)
	}
	sort.Slice(locs, func(i, j int) bool {
		a, b := t[locs[i]], t[locs[j]]
		if a.root != b.root {
			return a.root > b.root
		}
		if a.all != b.all {
			return a.all > b.all
		}
		_, ei := locs[i].Edge()
		_, ej := locs[j].Edge()
		if ei != ej {
			return ei
		}
		return locs[i] < locs[j]
	})
	return locs
}
