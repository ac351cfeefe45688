package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/model"
	"github.com/baton-lab/baton/reports"
	"github.com/baton-lab/baton/sandbox"
)

// The mistakes an agent is observed making against its goldens, besides a
// wrong decision ("wrong " + the decision's kind).
const (
	mistakeMisread  = "misread"      // a result field other than a decision differs
	mistakeSkipped  = "skipped call" // a tool call of the golden trajectory is missing
	mistakeExtra    = "extra call"   // a tool call the golden trajectory does not have
	mistakeNoResult = "no result"    // the core returned nothing (a model's agent error)
	mistakeMisroute = "misroute"     // a message sent to another next owner than the golden one
)

// agentTally counts one agent's observed mistakes.
type agentTally struct {
	n, routes      int
	count          map[string]int
	skipped, extra map[string]int // by tool
	kinds          []string       // the agent's mistake kinds, in report order
	unmeasured     int            // agent-items whose answers the caches do not hold
}

// observeMistakes measures each agent's mistakes on the clean build against
// the goldens: its core run alone on every golden input of every trial, and
// the next owners of the messages it sent in the integrated runs. Model
// cores answer from the caches alone, so nothing is asked of an endpoint
// again; an agent-item whose answers are not stored is left out.
// Agent-items in which an injected fault (other than latency) fired are
// left out too, so that what is counted is the agent's own doing.
//
// What the sweep's clean units counted as they ended (see
// [plan.noteClean]) is not executed again: only the integrated runs and
// core runs no clean unit of this session counted are. The trials are
// shared among workers goroutines (the sweep's workers are idle by then),
// each with its own tallies, summed at the end with the sweep's: the
// counts are the same whatever the workers and whoever counted them.
func (pl *plan) observeMistakes(parent context.Context, workers int) ([]reports.MistakeCount, error) {
	spec := pl.mission.Spec()
	env, err := pl.cores.offlineEnv(pl.env)
	if err != nil {
		return nil, err
	}
	type trial struct {
		sc     *mission.Scenario
		seed   uint64
		golden []mission.Golden
		note   *cleanNote // nil: every run to execute
	}
	var trials []trial
	for si, sc := range pl.scenarios {
		if golden := pl.golden[si]; len(golden) > 0 {
			for t := 1; t <= pl.trials; t++ {
				trials = append(trials, trial{sc, TrialSeed(pl.seed, sc.ID, t), golden, pl.noted.of(pl.unitIndex(0, si, t))})
			}
		}
	}
	workers = max(1, min(workers, len(trials)))
	tallies := make([]map[mission.Agent]*agentTally, workers)
	errs := make([]error, len(trials))
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		tallies[w] = newTallies(spec)
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(trials) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				tr := trials[i]
				err := pl.observeCores(ctx, tr.sc, tr.seed, env, tr.note.coresLeft(tr.golden), tallies[w])
				if err == nil && !tr.note.routesCounted() {
					err = pl.observeRoutes(ctx, tr.sc, tr.seed, env, tr.golden, tallies[w])
				}
				if err != nil {
					errs[i] = err
					cancel()
				}
			}
		})
	}
	wg.Wait()
	if err := parent.Err(); err != nil {
		return nil, fmt.Errorf("observe mistakes: %w", err)
	}
	for _, err := range errs { // the first error; the others may be its cancellation
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	if n := pl.noted.tallies; n != nil {
		tallies = append(tallies, n)
	}
	var out []reports.MistakeCount
	for _, a := range spec.AgentNames() {
		t := tallies[0][a]
		for _, other := range tallies[1:] {
			t.add(other[a])
		}
		out = append(out, t.counts(a, pl.proto.CoreOf(a).Core)...)
	}
	return out, nil
}

// newTallies returns an empty tally for each agent of spec.
func newTallies(spec *mission.Spec) map[mission.Agent]*agentTally {
	tallies := map[mission.Agent]*agentTally{}
	for _, as := range spec.Agents {
		tallies[as.Name] = newTally(spec, &as)
	}
	return tallies
}

// add adds o's counts to t's (the same agent's, counted on other trials).
func (t *agentTally) add(o *agentTally) {
	t.n += o.n
	t.routes += o.routes
	t.unmeasured += o.unmeasured
	for _, m := range [][2]map[string]int{{t.count, o.count}, {t.skipped, o.skipped}, {t.extra, o.extra}} {
		for k, v := range m[1] {
			m[0][k] += v
		}
	}
}

func newTally(spec *mission.Spec, as *mission.AgentSpec) *agentTally {
	t := &agentTally{count: map[string]int{}, skipped: map[string]int{}, extra: map[string]int{}}
	for _, d := range as.Decisions {
		if d.Field != "" {
			t.kinds = append(t.kinds, "wrong "+d.Kind)
		}
	}
	t.kinds = append(t.kinds, mistakeMisread, mistakeSkipped, mistakeExtra, mistakeNoResult)
	if len(spec.Out(as.Name)) > 0 {
		t.kinds = append(t.kinds, mistakeMisroute)
	}
	return t
}

// observeCores runs each golden agent-item's core alone and tallies how
// its result and calls depart from the golden.
func (pl *plan) observeCores(ctx context.Context, sc *mission.Scenario, seed uint64, env mission.Env, golden []mission.Golden, tallies map[mission.Agent]*agentTally) error {
	spec := pl.mission.Spec()
	for _, g := range golden {
		t := tallies[g.Agent]
		if t == nil {
			continue
		}
		oracle := &mission.Oracle{}
		cr, err := pl.mission.RunCore(ctx, mission.Clean().WithOracle(oracle), g.Agent, sc, g.Input, seed, env)
		switch {
		case errors.Is(err, model.ErrOffline):
			t.unmeasured++
			continue
		case err != nil:
			return fmt.Errorf("observe mistakes: %w", err)
		case faulted(oracle):
			continue
		}
		as, _ := spec.Agent(g.Agent)
		t.n++
		t.tally(as, g, cr)
	}
	return nil
}

// cleanNotes are the mistakes counted on the clean units this process's
// sweep executed, from the runs they shared (see [plan.noteClean]), and
// what of each unit is counted: observeMistakes executes only the rest.
type cleanNotes struct {
	mu      sync.Mutex
	tallies map[mission.Agent]*agentTally
	units   map[int]*cleanNote // by unit index
	key     []byte
}

// cleanNote is what one clean unit's runs counted.
type cleanNote struct {
	routes bool  // its integrated run's routes
	left   []int // the goldens whose core runs are not counted
}

// of returns what clean unit i counted; nil when nothing. The sweep is
// over.
func (n *cleanNotes) of(i int) *cleanNote {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.units[i]
}

// counted returns how many clean units' integrated runs and golden core
// runs are counted, and how many of those core runs are left to execute.
func (n *cleanNotes) counted(pl *plan) (runs, cores, left int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for i, c := range n.units {
		if c.routes {
			runs++
		}
		g := pl.golden[pl.unitAt(i).scenario]
		cores, left = cores+len(g)-len(c.left), left+len(c.left)
	}
	return runs, cores, left
}

// routesCounted reports whether the unit's routes are counted.
func (c *cleanNote) routesCounted() bool { return c != nil && c.routes }

// coresLeft returns the goldens whose core runs are to execute.
func (c *cleanNote) coresLeft(golden []mission.Golden) []mission.Golden {
	if c == nil {
		return golden
	}
	out := make([]mission.Golden, len(c.left))
	for i, g := range c.left {
		out[i] = golden[g]
	}
	return out
}

// noteClean counts clean unit u's mistakes from the runs its memo m
// shared, so that observeMistakes need not execute them again: the routes
// of its integrated run, and each golden core run in which no fault that
// can change an outcome fired. One in which such a fault fired is not
// counted, as the end does not count its run of it (see [faulted]): the
// same run, since a run is a function of its build, input, seed and
// environment. Nothing is counted with
// model cores, which the end answers from the caches alone.
func (pl *plan) noteClean(u unit, m *unitMemo) {
	golden := pl.golden[u.scenario]
	if u.build != 0 || m == nil || !m.share || len(golden) == 0 || (pl.cores != nil && len(pl.cores.agents) > 0) {
		return
	}
	spec := pl.mission.Spec()
	n := &pl.noted
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.units[u.index] != nil {
		return
	}
	if n.units == nil {
		n.units, n.tallies = map[int]*cleanNote{}, newTallies(spec)
	}
	note := &cleanNote{}
	for i, g := range golden {
		t := n.tallies[g.Agent]
		if t == nil {
			continue
		}
		n.key = appendCoreKey(n.key[:0], g.Agent, g.Input)
		s := m.cores[string(n.key)]
		switch {
		case s == nil:
			note.left = append(note.left, i)
			continue
		case s.fired.changing > 0:
			continue // the end's run of it, the same run, is skipped too
		}
		as, _ := spec.Agent(g.Agent)
		t.n++
		t.tally(as, g, s.run)
	}
	if r := m.run; r != nil && r.run != nil && r.run.Trace != nil {
		countRoutes(r.run, golden, n.tallies)
		note.routes = true
	}
	n.units[u.index] = note
}

// faulted reports whether an injected fault that can change an outcome
// fired.
func faulted(o *mission.Oracle) bool {
	return slices.ContainsFunc(o.Faults, func(f sandbox.Fired) bool { return f.Kind != sandbox.Latency })
}

// tally counts one core run's departures from its golden: no result; else
// each decision that differs; else (the decisions agreeing) a misread
// field and the calls missing from or added to the golden trajectory.
func (t *agentTally) tally(as *mission.AgentSpec, g mission.Golden, cr *mission.CoreRun) {
	if cr.Result == nil {
		t.count[mistakeNoResult]++
		return
	}
	decided := map[string]bool{}
	wrong := false
	for _, d := range as.Decisions {
		if d.Field == "" {
			continue
		}
		decided[d.Field] = true
		if !jsontext.Equal(g.Result[d.Field], cr.Result[d.Field]) {
			t.count["wrong "+d.Kind]++
			wrong = true
		}
	}
	if wrong {
		return
	}
	for k := range union(g.Result, cr.Result) {
		if !decided[k] && !jsontext.Equal(g.Result[k], cr.Result[k]) {
			t.count[mistakeMisread]++
			break
		}
	}
	missing, added := callDiff(g.Calls, cr.Calls)
	for _, name := range missing {
		t.skipped[name]++
	}
	for _, name := range added {
		t.extra[name]++
	}
	if len(missing) > 0 {
		t.count[mistakeSkipped]++
	}
	if len(added) > 0 {
		t.count[mistakeExtra]++
	}
}

func union(a, b map[string]any) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// callDiff returns the tool names of want missing from got and those of
// got not in want, as multisets.
func callDiff(want, got []mission.ToolCall) (missing, added []string) {
	left := map[string]int{}
	for _, c := range got {
		left[c.Name]++
	}
	for _, c := range want {
		if left[c.Name] > 0 {
			left[c.Name]--
			continue
		}
		missing = append(missing, c.Name)
	}
	for _, c := range got {
		if left[c.Name] > 0 {
			left[c.Name]--
			added = append(added, c.Name)
		}
	}
	return missing, added
}

// observeRoutes runs the clean build end to end and compares the next
// owners of every message sent with those of the golden message of the same
// agent, item and edge.
func (pl *plan) observeRoutes(ctx context.Context, sc *mission.Scenario, seed uint64, env mission.Env, golden []mission.Golden, tallies map[mission.Agent]*agentTally) error {
	run, err := pl.mission.Run(ctx, mission.Clean(), sc, seed, env)
	switch {
	case errors.Is(err, model.ErrOffline):
		return nil
	case err != nil:
		return fmt.Errorf("observe mistakes: %w", err)
	}
	countRoutes(run, golden, tallies)
	run.Trace.Recycle()
	return nil
}

// countRoutes tallies the next owners of every message sent in run
// against those of the golden message of the same agent, item and edge.
func countRoutes(run *mission.Run, golden []mission.Golden, tallies map[mission.Agent]*agentTally) {
	want := map[string][]byte{}
	for _, g := range golden {
		for edge, raw := range g.Emitted {
			want[string(g.Agent)+"\x00"+g.Item+"\x00"+edge] = raw
		}
	}
	seen := map[string]bool{}
	for _, e := range run.Trace.Of(mission.EventSent) {
		k := string(e.Agent) + "\x00" + e.Item + "\x00" + e.Edge
		w, ok := want[k]
		t := tallies[e.Agent]
		if !ok || seen[k] || t == nil {
			continue
		}
		seen[k] = true
		t.routes++
		if e.Raw != string(w) && !jsontext.Equal(nextOwner([]byte(e.Raw)), nextOwner(w)) { // the same bytes: the same owner
			t.count[mistakeMisroute]++
		}
	}
}

// nextOwner reads a wire message's next_owner.
func nextOwner(raw []byte) any {
	var env struct {
		NextOwner any `json:"next_owner"`
	}
	_ = json.Unmarshal(raw, &env)
	return env.NextOwner
}

// counts returns the agent's tallies as report rows, in its kinds' order.
func (t *agentTally) counts(a mission.Agent, core string) []reports.MistakeCount {
	var out []reports.MistakeCount
	for _, k := range t.kinds {
		c := reports.MistakeCount{Agent: string(a), Core: core, Mistake: k, Count: t.count[k], N: t.n}
		switch k {
		case mistakeMisroute:
			c.N = t.routes
		case mistakeSkipped:
			c.Detail = toolCounts(t.skipped)
		case mistakeExtra:
			c.Detail = toolCounts(t.extra)
		}
		if t.unmeasured > 0 && k != mistakeMisroute {
			c.Detail = strings.TrimPrefix(c.Detail+fmt.Sprintf("; %d agent-items not measured (answers not in the model cache)", t.unmeasured), "; ")
		}
		out = append(out, c)
	}
	return out
}

// toolCounts writes tool counts as "name ×n, …", by name.
func toolCounts(m map[string]int) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " ×" + strconv.Itoa(m[n])
	}
	return strings.Join(parts, ", ")
}

// configuredSlips writes each policy agent's slip rates, for the report's
// mistakes table.
func (pl *plan) configuredSlips() map[string]string {
	out := map[string]string{}
	for a, slips := range pl.env.Profile {
		var parts []string
		for s, v := range slips {
			parts = append(parts, fmt.Sprintf("%s %s", s, strconv.FormatFloat(v, 'g', -1, 64)))
		}
		slices.Sort(parts)
		out[string(a)] = strings.Join(parts, ", ")
	}
	return out
}
