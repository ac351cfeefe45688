package mission

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrGoldenMismatch reports that the clean build's end state departs from a
// scenario's authored expectation, so no golden may be recorded from it.
var ErrGoldenMismatch = errors.New("clean build does not reach the expected end state")

// recorder collects per-agent golden expectations during a clean run.
type recorder struct {
	byKey map[goldenKey]*Golden
}

type goldenKey struct {
	agent Agent
	item  string
}

func (rc *recorder) get(agent Agent, item string) *Golden {
	k := goldenKey{agent, item}
	g := rc.byKey[k]
	if g == nil {
		g = &Golden{Agent: agent, Item: item, Input: CoreInput{Item: item}}
		rc.byKey[k] = g
	}
	return g
}

// core records one core invocation: its input, calls and result.
func (rc *recorder) core(agent Agent, item string, raw []byte, calls []ToolCall, res Result) {
	g := rc.get(agent, item)
	if raw != nil {
		g.Input.Messages = append(g.Input.Messages, raw)
	}
	g.Calls = append(g.Calls, calls...)
	g.Result = mergeResults(g.Result, res)
}

// mergeResults folds the result of an agent's next turn on an item into
// those of its earlier turns: a field of a later turn replaces the same
// field of an earlier one, and the others stay. An agent that takes one
// turn per item has its result; one that takes several (an entry agent
// that also receives replies) keeps what each turn decided, so that each
// edge's emitter finds the field its payload comes from.
func mergeResults(acc, next Result) Result {
	if acc == nil {
		return next
	}
	if next == nil {
		return acc
	}
	out := make(Result, len(acc)+len(next))
	for k, v := range acc {
		out[k] = v
	}
	for k, v := range next {
		out[k] = v
	}
	return out
}

// emitted records the wire bytes an agent's emitter sent for item on e.
func (rc *recorder) emitted(agent Agent, item string, e Edge, raw []byte) {
	g := rc.get(agent, item)
	if g.Emitted == nil {
		g.Emitted = make(map[string][]byte, 2)
	}
	g.Emitted[e.String()] = raw
}

// RecordGolden runs the clean build on sc with zero slips and faults and
// returns each agent's golden expectation per item: the input it received
// (the input's id for the entry agent; the wire messages for the others,
// for a collecting agent every message of the day under the item sc.Day),
// its logical tool calls in order, its result and the wire bytes it
// emitted by edge. Goldens are sorted by agent (flow order), then item. It
// fails, naming each difference, when the run's end state does not pass
// the mission's check: a golden must never be recorded from a wrong run.
func (e *engine) RecordGolden(sc *Scenario) ([]Golden, error) {
	r := e.newRunner(context.Background(), NoSeams{}, sc, &sc.Initial, 0, Env{})
	r.rec = &recorder{byKey: make(map[goldenKey]*Golden, 4*len(sc.Inputs)+1)}
	r.runDay()
	if r.err != nil {
		return nil, fmt.Errorf("record golden %s: %w", sc.ID, r.err)
	}
	// A collecting agent's input is every message it received that day.
	for ai, c := range e.t.collect {
		if !c {
			continue
		}
		g := r.rec.get(e.t.agents[ai], r.day)
		g.Input.Messages = append([][]byte(nil), r.box(ai).raws...)
	}
	if diffs := e.def.Check(sc, r.sb.Snapshot()); len(diffs) > 0 {
		var b strings.Builder
		for _, d := range diffs {
			fmt.Fprintf(&b, "\n  %s.%s: want %q, got %q", d.Record, d.Field, d.Want, d.Got)
		}
		return nil, fmt.Errorf("record golden %s: %w:%s", sc.ID, ErrGoldenMismatch, b.String())
	}
	out := make([]Golden, 0, len(r.rec.byKey))
	for _, g := range r.rec.byKey {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b Golden) int {
		if c := cmp.Compare(e.spec.AgentIndex(a.Agent), e.spec.AgentIndex(b.Agent)); c != 0 {
			return c
		}
		return cmp.Compare(a.Item, b.Item)
	})
	return out, nil
}
