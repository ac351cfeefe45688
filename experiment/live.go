package experiment

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-lab/baton/reports"
)

// live is what a fresh sweep derives from its rows as the writer receives
// them, so that its end need not read runs.db back: the aggregation and
// the kept-trace files. A resumed sweep does not use it: the items an
// earlier session stored are read back with the rest (see [finish]).
type live struct {
	aggregation
	traces liveTraces
}

func newLive(pl *plan, runDir string) *live {
	return &live{aggregation: *newAggregation(pl), traces: newLiveTraces(pl, runDir)}
}

// observe takes rows on the writer's goroutine.
func (l *live) observe(rows []row) error {
	l.aggregation.observe(rows)
	return l.traces.observe(rows)
}

// aggregation streams items into a [reports.Aggregator] and sums the wall
// time per design. The aggregator wants every clean-build item before any
// mutated one and is otherwise indifferent to arrival order (reports tests
// that); the mutated items that overtake the last clean ones in a live
// sweep wait here, a few units at most, until the clean build is complete.
type aggregation struct {
	agg       *reports.Aggregator
	cleanLeft int            // clean items not yet added
	early     []reports.Item // mutated items that arrived while cleanLeft > 0
	wall      map[string]int64
	added     int
}

func newAggregation(pl *plan) *aggregation {
	clean := 0
	for _, b := range pl.builds {
		if b.Info.ID == reports.CleanBuild {
			clean += pl.perBuild()
		}
	}
	return &aggregation{agg: reports.NewAggregator(pl.config()), cleanLeft: clean, wall: map[string]int64{}}
}

// observe adds rows in any order.
func (a *aggregation) observe(rows []row) {
	for i := range rows {
		it := rows[i].item
		switch {
		case it.Build == reports.CleanBuild:
			a.add(it)
			if a.cleanLeft--; a.cleanLeft == 0 {
				for _, e := range a.early {
					a.add(e)
				}
				a.early = nil
			}
		case a.cleanLeft > 0:
			a.early = append(a.early, it)
		default:
			a.add(it)
		}
	}
}

// add adds one item; the caller keeps the clean build first.
func (a *aggregation) add(it reports.Item) {
	if it.Design != "" {
		a.wall[it.Design] += it.WallNS
	}
	a.agg.Add(it) // results.json leaves wall time out; the manifest keeps it
	a.added++
}

// complete reports whether every item of a plan of total items was added.
func (a *aggregation) complete(total int) bool {
	return a.added == total && len(a.early) == 0
}

// liveTraces writes traces/<build>.jsonl during a fresh sweep, the same
// bytes [writeKeptTraces] writes from the store: the workers give each
// kept item its line (row.traceLine), and when the last item of a build
// arrives its lines are sorted into store order and written. Builds are
// swept one after another, so only the lines of the few builds in flight
// are held.
type liveTraces struct {
	runDir   string
	perBuild int
	seen     map[string]int // items received per build not yet written
	lines    map[string][]keptLine
	written  map[string]bool // item ids whose trace is in a file
}

type keptLine struct {
	design, scenario string
	trial            int
	id               string
	line             []byte
}

func newLiveTraces(pl *plan, runDir string) liveTraces {
	return liveTraces{runDir: runDir, perBuild: pl.perBuild(), seen: map[string]int{},
		lines: map[string][]keptLine{}, written: map[string]bool{}}
}

func (t *liveTraces) observe(rows []row) error {
	for i := range rows {
		r := &rows[i]
		b := r.item.Build
		if r.traceLine != nil {
			t.lines[b] = append(t.lines[b], keptLine{r.item.Design, r.item.Scenario, r.item.Trial, r.id, r.traceLine})
		}
		if t.seen[b]++; t.seen[b] == t.perBuild {
			if err := t.write(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// write writes a complete build's kept traces, in store order.
func (t *liveTraces) write(build string) error {
	lines := t.lines[build]
	delete(t.lines, build)
	delete(t.seen, build)
	if len(lines) == 0 {
		return nil
	}
	slices.SortFunc(lines, func(a, b keptLine) int {
		return cmp.Or(strings.Compare(a.design, b.design), strings.Compare(a.scenario, b.scenario), cmp.Compare(a.trial, b.trial))
	})
	f, err := createTraceFile(t.runDir, build)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if err := f.write(l.line); err != nil {
			f.abort()
			return err
		}
	}
	if err := f.commit(); err != nil {
		return err
	}
	for _, l := range lines {
		t.written[l.id] = true
	}
	return nil
}

// check reports an error when a build's items did not all arrive.
func (t *liveTraces) check() error {
	for b, n := range t.seen {
		return fmt.Errorf("kept traces: build %s: %d of %d items arrived", b, n, t.perBuild)
	}
	return nil
}
