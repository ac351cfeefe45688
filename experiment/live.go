package experiment

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"

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
// kept item its line (row.traceLine), which is appended to the build's
// spool file as it arrives; when the last item of the build arrives the
// lines are copied from the spool, in plan order (outcomes.ord), into the
// build's file.
// Only their places are held in memory: the clean build alone keeps about
// 100 MB of traces at 200 trials; which items' traces are in a file is a
// bit per item.
type liveTraces struct {
	pl      *plan
	runDir  string
	seen    map[string]int // items received per build not yet written
	spools  map[string]*spool
	written bitset // by place in the plan: the item's trace is in a file
}

// spool is a build's kept lines in arrival order, in a temporary file.
type spool struct {
	f     *os.File
	w     *bufio.Writer
	size  int64
	lines []spooled
}

// spooled is where one kept line is in its spool.
type spooled struct {
	ord int
	off int64
	n   int
}

func newLiveTraces(pl *plan, runDir string) liveTraces {
	return liveTraces{pl: pl, runDir: runDir, seen: map[string]int{},
		spools: map[string]*spool{}, written: newBitset(pl.total())}
}

func (t *liveTraces) observe(rows []row) error {
	for i := range rows {
		r := &rows[i]
		b := r.item.Build
		if r.traceLine != nil {
			if err := t.spool(b, r); err != nil {
				return err
			}
		}
		if t.seen[b]++; t.seen[b] == t.pl.perBuild() {
			if err := t.write(b); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *liveTraces) spool(build string, r *row) error {
	sp := t.spools[build]
	if sp == nil {
		dir := filepath.Join(t.runDir, TracesDir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("write traces: %w", err)
		}
		f, err := os.CreateTemp(dir, "."+build+".spool.*")
		if err != nil {
			return fmt.Errorf("write traces of %s: %w", build, err)
		}
		sp = &spool{f: f, w: bufio.NewWriterSize(f, 1<<16)}
		t.spools[build] = sp
	}
	if _, err := sp.w.Write(r.traceLine); err != nil {
		return fmt.Errorf("write traces of %s: %w", build, err)
	}
	sp.lines = append(sp.lines, spooled{r.ord, sp.size, len(r.traceLine)})
	sp.size += int64(len(r.traceLine))
	return nil
}

// write writes a complete build's kept traces, in plan order, and removes
// its spool.
func (t *liveTraces) write(build string) error {
	delete(t.seen, build)
	sp := t.spools[build]
	if sp == nil {
		return nil
	}
	delete(t.spools, build)
	defer sp.remove()
	if err := sp.w.Flush(); err != nil {
		return fmt.Errorf("write traces of %s: %w", build, err)
	}
	slices.SortFunc(sp.lines, func(a, b spooled) int { return cmp.Compare(a.ord, b.ord) })
	f, err := createTraceFile(t.runDir, build)
	if err != nil {
		return err
	}
	var buf []byte
	for _, l := range sp.lines {
		buf = slices.Grow(buf[:0], l.n)[:l.n]
		if _, err := sp.f.ReadAt(buf, l.off); err != nil {
			f.abort()
			return fmt.Errorf("write traces of %s: spool: %w", build, err)
		}
		if err := f.write(buf); err != nil {
			f.abort()
			return err
		}
	}
	if err := f.commit(); err != nil {
		return err
	}
	for _, l := range sp.lines {
		t.written.set(l.ord)
	}
	return nil
}

func (sp *spool) remove() {
	sp.f.Close()
	os.Remove(sp.f.Name())
}

// close removes the spools of builds that never completed (a cancelled or
// failed sweep).
func (t *liveTraces) close() {
	for b, sp := range t.spools {
		sp.remove()
		delete(t.spools, b)
	}
}

// check reports an error when a build's items did not all arrive.
func (t *liveTraces) check() error {
	for b, n := range t.seen {
		return fmt.Errorf("kept traces: build %s: %d of %d items arrived", b, n, t.pl.perBuild())
	}
	return nil
}

// wrote reports whether item id's trace is in a file.
func (t *liveTraces) wrote(id string) bool {
	ord, err := t.pl.itemOrd(id)
	return err == nil && t.written.has(ord)
}
