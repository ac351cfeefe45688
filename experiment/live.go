package experiment

import "github.com/baton-lab/baton/reports"

// liveAggregate feeds the aggregation while a fresh sweep runs, so that
// results need not read every row back from runs.db: the writer hands it
// each row as it arrives. The aggregation wants every clean-build item
// before any mutated one and is otherwise indifferent to arrival order
// (reports tests that); the mutated rows that overtake the last clean ones
// wait here, a few units at most, until the clean build is complete.
//
// A resumed sweep does not use it: the items stored by an earlier session
// are read back with the rest (see [finish]), in stream order.
type liveAggregate struct {
	agg       *reports.Aggregator
	cleanLeft int            // clean items not yet added
	early     []reports.Item // mutated items that arrived while cleanLeft > 0
	wall      map[string]int64
	added     int
}

func newLiveAggregate(pl *plan) *liveAggregate {
	clean := 0
	for _, b := range pl.builds {
		if b.Info.ID == reports.CleanBuild {
			clean += len(pl.scenarios) * pl.trials * pl.slots()
		}
	}
	return &liveAggregate{agg: reports.NewAggregator(pl.config()), cleanLeft: clean, wall: map[string]int64{}}
}

// observe adds rows; it runs on the writer's goroutine.
func (l *liveAggregate) observe(rows []row) {
	for i := range rows {
		it := rows[i].item
		switch {
		case it.Build == reports.CleanBuild:
			l.add(it)
			if l.cleanLeft--; l.cleanLeft == 0 {
				for _, e := range l.early {
					l.add(e)
				}
				l.early = nil
			}
		case l.cleanLeft > 0:
			l.early = append(l.early, it)
		default:
			l.add(it)
		}
	}
}

func (l *liveAggregate) add(it reports.Item) {
	if it.Design != "" {
		l.wall[it.Design] += it.WallNS
	}
	l.agg.Add(it) // results.json leaves wall time out; the manifest keeps it
	l.added++
}

// complete reports whether every item of a plan of total items was added.
func (l *liveAggregate) complete(total int) bool {
	return l.added == total && len(l.early) == 0
}
