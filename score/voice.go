package score

import (
	"fmt"
	"io"
	"slices"
)

// VoiceFile is a voice file (`baton score --kind voice`): one JSON document
// holding the ordering constraints, declared before any timeline, and the
// timelines they are checked on.
type VoiceFile struct {
	Constraints []OrderingConstraint `json:"constraints"`
	Tasks       []VoiceTask          `json:"tasks"`
}

// OrderingConstraint says that every event of type Event must come Relation
// (after or before) every event of type Reference, for instance
// tool_action_start after user_correction_end.
type OrderingConstraint struct {
	ID        string   `json:"id"`
	Event     string   `json:"event"`
	Relation  Relation `json:"relation"`
	Reference string   `json:"reference"`
}

// Relation is the order a constraint requires. Both are strict: an event
// at the same instant as its reference is neither after nor before it.
type Relation string

// The relations.
const (
	RelationAfter  Relation = "after"
	RelationBefore Relation = "before"
)

// AllRelations lists every relation.
var AllRelations = []Relation{RelationAfter, RelationBefore}

// String returns the relation's name.
func (r Relation) String() string { return string(r) }

// VoiceTask is one task's event timeline.
type VoiceTask struct {
	Task string `json:"task"`
	// Clock names the common clock every timestamp of the task is on
	// (after synchronisation); an event may name another one.
	Clock  string       `json:"clock"`
	Events []VoiceEvent `json:"events"`
}

// VoiceEvent is one event of a timeline: a timestamp with its bounds. The
// event happened somewhere in [AtMS-BoundMS, AtMS+BoundMS]: the bounds are
// supplied, not measured confidence intervals.
type VoiceEvent struct {
	ID      string `json:"id,omitempty"` // optional; results name events[i] without one
	Type    string `json:"type"`
	AtMS    int64  `json:"at_ms"`
	BoundMS *int64 `json:"bound_ms"`        // required, 0 or more
	Clock   string `json:"clock,omitempty"` // "" means the task's clock
	Value   string `json:"value,omitempty"` // e.g. the words heard; not scored
}

// maxVoiceMS bounds timestamps and bounds so that interval arithmetic
// cannot overflow (about 31,000 years).
const maxVoiceMS = 1_000_000_000_000_000

// OrderingStatus is a constraint's verdict on one timeline.
type OrderingStatus string

// The ordering statuses. Missing is reported apart: it is not in the n of
// the other three.
const (
	OrderSatisfied     OrderingStatus = "satisfied"     // every possible ordering fits
	OrderViolated      OrderingStatus = "violated"      // no possible ordering fits, for some pair
	OrderIndeterminate OrderingStatus = "indeterminate" // the bounds allow both
	OrderMissing       OrderingStatus = "missing"       // an event type is absent from the timeline
)

// AllOrderingStatuses lists every status.
var AllOrderingStatuses = []OrderingStatus{OrderSatisfied, OrderViolated, OrderIndeterminate, OrderMissing}

// String returns the status's name.
func (s OrderingStatus) String() string { return string(s) }

// Interval is a closed interval of milliseconds [lo, hi].
type Interval [2]int64

// String formats the interval as "[-800, +200]".
func (iv Interval) String() string { return fmt.Sprintf("[%+d, %+d]", iv[0], iv[1]) }

// OrderingResult is one constraint on one timeline. With several events of
// a type, every pair is compared: one violated pair violates the task, and
// the pair shown is the one that decided (the first violated, else the
// first indeterminate, else the closest).
type OrderingResult struct {
	Task         string         `json:"task"`
	Constraint   string         `json:"constraint"`
	Status       OrderingStatus `json:"status"`
	EventMS      *Interval      `json:"event_ms"`      // when the constrained event may have happened
	ReferenceMS  *Interval      `json:"reference_ms"`  // when the reference may have happened
	DifferenceMS *Interval      `json:"difference_ms"` // event minus reference
	Events       []string       `json:"events"`        // the deciding pair: ids, or events[i]
	Pairs        int            `json:"pairs"`         // pairs compared
	Missing      []string       `json:"missing"`       // event types absent from the timeline
	Note         string         `json:"note"`
}

// ConstraintSummary counts one constraint's statuses over the tasks. The
// rates are over the tasks that hold both event types; the others are
// listed in Missing.
type ConstraintSummary struct {
	OrderingConstraint
	Satisfied     Figure   `json:"satisfied"`
	Violated      Figure   `json:"violated"`
	Indeterminate Figure   `json:"indeterminate"`
	Missing       []string `json:"missing_tasks"`
}

// VoiceReport is the score of a voice file. Its JSON form is
// `baton score --kind voice --json`.
type VoiceReport struct {
	Kind        string              `json:"kind"`
	Tasks       int                 `json:"tasks"`
	Constraints []ConstraintSummary `json:"constraints"`
	Results     []OrderingResult    `json:"results"` // per task, then per constraint, in input order
	NotMeasured []string            `json:"not_measured"`
}

var voiceNotMeasured = []string{
	"detector or annotator accuracy: bounds are taken as supplied",
	"whether an action was authorised (identity, policy, confirmation need their own evidence)",
	"task completion, identifier accuracy and latency",
}

// ReadVoice reads a voice file; name is the file name used in errors.
func ReadVoice(r io.Reader, name string) (*VoiceFile, error) {
	var vf VoiceFile
	lines, err := readDocument(r, name, &vf)
	if err != nil {
		return nil, err
	}
	if lerr := checkVoice(&vf); lerr != nil {
		lerr.File, lerr.Line = name, lines.line(lerr.Field)
		return nil, lerr
	}
	return &vf, nil
}

// checkVoice checks the constraints and timelines of vf.
func checkVoice(vf *VoiceFile) *LineError {
	if len(vf.Constraints) == 0 {
		return badValue("constraints", "no constraint: declare at least one before the timelines")
	}
	cids := idSet{}
	for i, c := range vf.Constraints {
		f := fmt.Sprintf("constraints[%d]", i)
		if err := cids.add(c.ID, f+".id"); err != nil {
			return err
		}
		switch {
		case c.Event == "":
			return badValue(f+".event", "missing event type")
		case c.Reference == "":
			return badValue(f+".reference", "missing event type")
		case c.Event == c.Reference:
			return badValue(f+".reference", "same type as the event (%q): an order needs two types", c.Event)
		case !slices.Contains(AllRelations, c.Relation):
			return badValue(f+".relation", "%q: want after or before", c.Relation)
		}
	}
	if len(vf.Tasks) == 0 {
		return badValue("tasks", "no task")
	}
	tids := idSet{}
	for i, t := range vf.Tasks {
		f := fmt.Sprintf("tasks[%d]", i)
		if err := tids.add(t.Task, f+".task"); err != nil {
			return err
		}
		if t.Clock == "" {
			return badValue(f+".clock", "missing clock: name the common clock of the timestamps")
		}
		if err := checkVoiceEvents(t.Events, f); err != nil {
			return err
		}
	}
	return nil
}

func checkVoiceEvents(events []VoiceEvent, task string) *LineError {
	ids := idSet{}
	for j, e := range events {
		f := fmt.Sprintf("%s.events[%d]", task, j)
		if e.ID != "" {
			if err := ids.add(e.ID, f+".id"); err != nil {
				return err
			}
		}
		switch {
		case e.Type == "":
			return badValue(f+".type", "missing event type")
		case e.AtMS > maxVoiceMS || e.AtMS < -maxVoiceMS:
			return badValue(f+".at_ms", "%d is beyond ±%d", e.AtMS, int64(maxVoiceMS))
		case e.BoundMS == nil:
			return badValue(f+".bound_ms", "missing bound: give the ± of the timestamp (0 if exact)")
		case *e.BoundMS < 0 || *e.BoundMS > maxVoiceMS:
			return badValue(f+".bound_ms", "%d: want 0 to %d", *e.BoundMS, int64(maxVoiceMS))
		}
	}
	return nil
}

// span is when e may have happened.
func (e VoiceEvent) span() Interval { return Interval{e.AtMS - *e.BoundMS, e.AtMS + *e.BoundMS} }

// Check returns the constraint's verdict on task t.
func (c OrderingConstraint) Check(t VoiceTask) OrderingResult {
	res := OrderingResult{Task: t.Task, Constraint: c.ID, Events: []string{}, Missing: []string{}}
	var evs, refs []int
	for i, e := range t.Events {
		switch e.Type {
		case c.Event:
			evs = append(evs, i)
		case c.Reference:
			refs = append(refs, i)
		}
	}
	for _, m := range []struct {
		typ string
		at  []int
	}{{c.Event, evs}, {c.Reference, refs}} {
		if len(m.at) == 0 {
			res.Missing = append(res.Missing, m.typ)
		}
	}
	if len(res.Missing) > 0 {
		res.Status = OrderMissing
		res.Note = "reported apart: not in the n of the other statuses"
		return res
	}
	var best pairResult
	for _, i := range evs {
		for _, j := range refs {
			p := c.pair(t, i, j)
			if res.Pairs == 0 || p.decidesOver(best, c.Relation) {
				best = p
			}
			res.Pairs++
		}
	}
	res.Status, res.Note = best.status, best.note
	res.EventMS, res.ReferenceMS, res.DifferenceMS = &best.ev, &best.ref, &best.diff
	res.Events = []string{eventName(t.Events, best.i), eventName(t.Events, best.j)}
	return res
}

// pairResult is one event compared with one reference.
type pairResult struct {
	i, j          int
	ev, ref, diff Interval
	status        OrderingStatus
	note          string
}

// pair compares events i and j of t.
func (c OrderingConstraint) pair(t VoiceTask, i, j int) pairResult {
	e, r := t.Events[i], t.Events[j]
	p := pairResult{i: i, j: j, ev: e.span(), ref: r.span()}
	p.diff = Interval{p.ev[0] - p.ref[1], p.ev[1] - p.ref[0]}
	ce, cr := cmpOr(e.Clock, t.Clock), cmpOr(r.Clock, t.Clock)
	lo, hi := p.diff[0], p.diff[1]
	if c.Relation == RelationBefore {
		lo, hi = -hi, -lo // "e before r" is "r - e > 0"
	}
	switch {
	case ce != cr:
		p.status, p.note = OrderIndeterminate, fmt.Sprintf("no common clock: %s and %s", clean(ce), clean(cr))
	case lo > 0:
		p.status = OrderSatisfied
	case hi <= 0:
		p.status = OrderViolated
	default:
		p.status = OrderIndeterminate
	}
	return p
}

// decidesOver reports whether p decides more than q: a violated pair over
// an indeterminate one over a satisfied one, and among satisfied pairs the
// one with the smaller margin; the first of equals stays.
func (p pairResult) decidesOver(q pairResult, rel Relation) bool {
	rank := map[OrderingStatus]int{OrderViolated: 2, OrderIndeterminate: 1}
	if rank[p.status] != rank[q.status] || p.status != OrderSatisfied {
		return rank[p.status] > rank[q.status]
	}
	return p.margin(rel) < q.margin(rel)
}

// margin is how far a satisfied pair is from the boundary.
func (p pairResult) margin(rel Relation) int64 {
	if rel == RelationBefore {
		return -p.diff[1]
	}
	return p.diff[0]
}

// eventName names event i of events: its id, or events[i].
func eventName(events []VoiceEvent, i int) string {
	if events[i].ID != "" {
		return events[i].ID
	}
	return fmt.Sprintf("events[%d]", i)
}

// cmpOr returns a, or b when a is empty.
func cmpOr(a, b string) string {
	if a == "" {
		return b
	}
	return a
}

// ScoreVoice checks every constraint of vf on every timeline.
func ScoreVoice(vf *VoiceFile) *VoiceReport {
	r := &VoiceReport{Kind: string(KindVoice), Tasks: len(vf.Tasks), NotMeasured: slices.Clone(voiceNotMeasured)}
	counts := make([]map[OrderingStatus]int, len(vf.Constraints))
	missing := make([][]string, len(vf.Constraints))
	for _, t := range vf.Tasks {
		for k, c := range vf.Constraints {
			res := c.Check(t)
			if counts[k] == nil {
				counts[k] = map[OrderingStatus]int{}
			}
			counts[k][res.Status]++
			if res.Status == OrderMissing {
				missing[k] = append(missing[k], t.Task)
			}
			r.Results = append(r.Results, res)
		}
	}
	for k, c := range vf.Constraints {
		m := counts[k]
		n := m[OrderSatisfied] + m[OrderViolated] + m[OrderIndeterminate]
		fig := func(s OrderingStatus) Figure {
			return Figure{Rate: NewRate(m[s], n), Of: "tasks with both event types", Unknown: m[OrderMissing]}
		}
		r.Constraints = append(r.Constraints, ConstraintSummary{OrderingConstraint: c,
			Satisfied: fig(OrderSatisfied), Violated: fig(OrderViolated), Indeterminate: fig(OrderIndeterminate),
			Missing: nonNil(missing[k])})
	}
	return r
}

// WriteText writes r as tables: per constraint its statuses, then every
// task's verdict with the intervals that decided it.
func (r *VoiceReport) WriteText(w io.Writer) error {
	t := newTable(w)
	t.row("voice: %d tasks, %d constraints; intervals are the supplied bounds on a common clock, not measured confidence intervals\n",
		r.Tasks, len(r.Constraints))
	for _, c := range r.Constraints {
		t.row("\nconstraint %s: every %s %s every %s\n", clean(c.ID), clean(c.Event), c.Relation, clean(c.Reference))
		t.figures([]namedFigure{{"satisfied", c.Satisfied}, {"violated", c.Violated}, {"indeterminate", c.Indeterminate}})
		t.row("missing events (reported apart, the unknown above): %s: %s\n", plural(len(c.Missing), "task"), list(c.Missing))
	}
	t.row("\ntimelines\n")
	t.row("task\tconstraint\tstatus\tevent ms\treference ms\tdifference ms\tevents\tnote\n")
	for _, res := range r.Results {
		iv := func(p *Interval) string {
			if p == nil {
				return "-"
			}
			return p.String()
		}
		events := "missing: " + list(res.Missing)
		if res.Status != OrderMissing {
			events = clean(res.Events[0]) + " vs " + clean(res.Events[1])
		}
		t.row("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", clean(res.Task), clean(res.Constraint), res.Status,
			iv(res.EventMS), iv(res.ReferenceMS), iv(res.DifferenceMS), events, orDash(res.Note))
	}
	if err := t.flush(); err != nil {
		return err
	}
	return notMeasured(w, r.NotMeasured)
}
