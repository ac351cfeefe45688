package coordination

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// Irreversible is implemented by a mission that names the write tools
// whose effects leave its system of record (a transfer made, a
// message published) and so must happen at most once. Without it every
// write tool's calls are irreversible effects.
type Irreversible interface {
	IrreversibleTools() []string
}

// Source is one integrated run of a mission, what [Derive] reads.
type Source struct {
	Trial  string // the record's trial id, e.g. the work item's id
	System string // the build
	// Mission gives the spec (agents, tools, edges) and, if it implements
	// [Irreversible], which writes are irreversible effects.
	Mission  mission.Mission
	Scenario *mission.Scenario
	Trace    *mission.Trace
	Cost     mission.Cost
	Success  *bool   // the end state passed the mission's check; nil: not judged
	Budget   *Budget // the matched budget; nil leaves efficiency not applicable
}

// Derive builds the coordination record of one integrated run from its
// trace and the mission's spec alone: it reads no design's verdict and no
// oracle. The record passes [Record.Validate] by construction (every
// reference it makes it adds; the tests validate what it derives), so it
// is not validated again on a sweep's hot path. Event ids are the trace's sequence numbers ("12"); an event that
// plays several parts gets one id per part after a slash ("12/effect",
// "12/write:REF-0001"), and the entry agent's assignment of each scenario
// input is "input:<item>".
//
//   - Agents are the mission's, their capabilities the tools they may call,
//     "reads:<kind>" for each message kind they consume and "input" for
//     the entry agent. An owner the mission does not have is added with none.
//   - Subtasks: for each scenario input, the entry agent's turn on it
//     ("<item>:<entry>") and the hand-off on each edge reached from the
//     entry by edges taken on every result ("<item>:<from>-><to>"); a
//     hand-off on another edge is a subtask once sent. Each requires the
//     capabilities of the agent the mission meant to do it.
//   - Delegations are the owners each sent hand-off was addressed to; its
//     completion is the owner's next result (a collecting agent's: the
//     receipt itself, its turn being the day's).
//   - Hand-offs compare the envelope and payload fields on the wire with
//     those in the consumer's parsed view (what its parser read, sent or
//     defaulted); Required is not recorded.
//   - Work is each logical tool call, keyed by tool and arguments.
//   - State: a successful write writes the record it made; a successful
//     call reads every record written earlier in the run whose id is among
//     its arguments' string values, in the order the records were written.
//   - Effects are every attempt of a write tool, with its idempotency key
//     and the identity "<item>:<tool>" (the kernel's first-attempt key).
//     An attempt that failed with a timeout may have applied (unknown);
//     another failure did not; of the attempts sharing a tool and key, the
//     system of record applies at most one, so later ones count as
//     deduplicated.
//   - Merges are collecting agents' turns over what they received; two
//     inputs about one item that read a payload field differently conflict,
//     resolved when the turn's result holds one of the values, concatenated
//     when both, unresolved when neither.
//   - Usage: tokens and model calls from the run's cost, latency the
//     virtual time of its last event.
func Derive(src Source) (*Record, error) {
	return derive(src, nil)
}

// derive derives src's record, with what dv remembers (nil: nothing).
func derive(src Source, dv *Deriver) (*Record, error) {
	if src.Mission == nil || src.Trace == nil || src.Scenario == nil {
		return nil, fmt.Errorf("derive %s: want a mission, a scenario and a trace", src.Trial)
	}
	d := newDeriver(src, dv)
	d.subtasks()
	for i := range src.Trace.Events {
		d.event(&src.Trace.Events[i])
	}
	d.dedupEffects()
	d.usage(src)
	return d.rec, nil
}

// deriver holds the state of one derivation.
type deriver struct {
	spec *mission.Spec
	su   *setup
	dv   *Deriver // what is remembered across derivations; nil: nothing
	sc   *mission.Scenario
	rec  *Record
	// agents the mission lacks, and subtasks, by id.
	extra    map[string]bool
	subtask  map[string]bool
	entryDue map[string]bool // input items whose entry turn is not complete yet
	// sent maps a hand-off's wire bytes to its sent event and subtask.
	sent map[string]sentEvent
	// pending is, per agent, the subtask its next result completes.
	pending map[string]string
	// collected holds, per collecting agent, what it received today.
	collected map[string][]received     // made on first use
	written   []string                  // record ids written so far, in order
	names     fieldCache                // made on first use
	requires  map[mission.Edge][]string // per edge the mission lacks, what its subtasks require
	// attempts of write tools, parallel to rec.Effects, for dedupEffects.
	effectErr []string
}

type sentEvent struct {
	seq     int
	subtask string
	from    string
}

type received struct {
	id string
	collected
}

// collected is what a collecting agent reads from a hand-off: its item
// and payload, with the payload's names sorted.
type collected struct {
	item    string
	payload map[string]any
	names   []string
}

func newDeriver(src Source, dv *Deriver) *deriver {
	su := dv.setupOf(src.Mission)
	var sent, recv, calls int
	for i := range src.Trace.Events {
		switch src.Trace.Events[i].Kind {
		case mission.EventSent:
			sent++
		case mission.EventReceived:
			recv++
		case mission.EventToolCall:
			calls++
		}
	}
	inputs := len(src.Scenario.Inputs)
	return &deriver{
		spec: su.spec, su: su, dv: dv, sc: src.Scenario,
		rec: &Record{Trial: src.Trial, System: src.System, Success: src.Success, Budget: src.Budget,
			Agents: slices.Clone(su.agents), Subtasks: make([]Subtask, 0, inputs*(1+len(su.spec.Edges))),
			Delegations: make([]Delegation, 0, inputs+sent), Handoffs: make([]Handoff, 0, recv),
			Completions: make([]Completion, 0, inputs+recv), Work: make([]Work, 0, calls), State: make([]Access, 0, calls),
			Merges: []Merge{}, Effects: make([]Effect, 0, calls)},
		subtask: map[string]bool{}, entryDue: map[string]bool{},
		sent: map[string]sentEvent{}, pending: map[string]string{},
	}
}

// agent returns id, added without capabilities if the mission lacks it.
func (d *deriver) agent(id string) string {
	if _, ok := d.su.caps[id]; ok || d.extra[id] {
		return id
	}
	if d.extra == nil {
		d.extra = map[string]bool{}
	}
	d.extra[id] = true
	d.rec.Agents = append(d.rec.Agents, Agent{ID: id, Capabilities: []string{}})
	return id
}

// required returns the capabilities the subtask on edge e needs: those
// of its consumer the mission gives for it. Subtasks on one edge share
// the list.
func (d *deriver) required(e mission.Edge) []string {
	if caps, ok := d.su.requires[e]; ok {
		return caps
	}
	if caps, ok := d.requires[e]; ok {
		return caps
	}
	if d.requires == nil {
		d.requires = map[mission.Edge][]string{}
	}
	caps := requiredOf(d.spec, e)
	d.requires[e] = caps
	return caps
}

func (d *deriver) addSubtask(id string, requires []string) {
	if d.subtask[id] {
		return
	}
	d.subtask[id] = true
	d.rec.Subtasks = append(d.rec.Subtasks, Subtask{ID: id, Requires: requires})
}

// subtasks adds the required subtasks of every scenario input and the
// entry agent's assignment of each.
func (d *deriver) subtasks() {
	entry := string(d.spec.Entry)
	for _, in := range d.sc.Inputs {
		st := in.ID + ":" + entry
		if d.subtask[st] {
			continue
		}
		d.addSubtask(st, d.su.caps[entry])
		d.rec.Delegations = append(d.rec.Delegations, Delegation{ID: "input:" + in.ID, Subtask: st, Owner: entry})
		d.entryDue[in.ID] = true
		for i, e := range d.su.edges {
			d.addSubtask(in.ID+":"+d.su.edgeNames[i], d.required(e))
		}
	}
}

func id(seq int) string { return strconv.Itoa(seq) }

// event adds what one trace event shows.
func (d *deriver) event(ev *mission.Event) {
	switch ev.Kind {
	case mission.EventSent:
		d.sentEvent(ev)
	case mission.EventReceived:
		d.receivedEvent(ev)
	case mission.EventResult:
		d.resultEvent(ev)
	case mission.EventToolCall:
		d.toolCall(ev)
	}
}

func (d *deriver) sentEvent(ev *mission.Event) {
	e, err := mission.ParseEdge(ev.Edge)
	if err != nil {
		return
	}
	st := ev.Item + ":" + ev.Edge
	d.addSubtask(st, d.required(e))
	from := d.agent(string(ev.Agent))
	d.sent[ev.Raw] = sentEvent{seq: ev.Seq, subtask: st, from: from}
	for i, o := range ev.To {
		did := id(ev.Seq)
		if i > 0 {
			did += "/" + string(o)
		}
		d.rec.Delegations = append(d.rec.Delegations, Delegation{ID: did, Subtask: st, Owner: d.agent(string(o)), By: from})
	}
}

func (d *deriver) receivedEvent(ev *mission.Event) {
	to := d.agent(string(ev.Agent))
	s, ok := d.sent[ev.Raw]
	if !ok {
		return
	}
	d.rec.Handoffs = append(d.rec.Handoffs, Handoff{ID: id(ev.Seq), From: s.from, To: to,
		Sent: d.wireFields(ev.Raw), Read: d.fields(ev.Parsed)})
	if d.su.collect[ev.Agent] {
		d.rec.Completions = append(d.rec.Completions, Completion{ID: id(ev.Seq) + "/collected", Subtask: s.subtask, Agent: to})
		if d.collected == nil {
			d.collected = map[string][]received{}
		}
		d.collected[to] = append(d.collected[to], received{id: id(ev.Seq), collected: d.collect(ev.Parsed)})
		return
	}
	d.pending[to] = s.subtask
}

// wireFields lists the fields of a hand-off's wire bytes (see
// [fieldNames]).
func (d *deriver) wireFields(raw string) []string {
	return remember(d.dv.memos().fields, raw, func(raw string) []string { return d.fieldsOf([]byte(raw)) })
}

// fields lists the fields of a hand-off's parsed view.
func (d *deriver) fields(parsed []byte) []string {
	return remember(d.dv.memos().fields, parsed, d.fieldsOf)
}

// fieldsOf lists a hand-off's fields (see [fieldNames]).
func (d *deriver) fieldsOf(raw []byte) []string {
	if d.names.top == nil {
		d.names = newFieldCache()
	}
	if out, ok := keysOf(raw, d.names); ok {
		return slices.Clip(out)
	}
	return slices.Clip(fieldNames(jsonObject(raw), d.names))
}

// collect returns what a collecting agent reads from a hand-off's parsed
// view.
func (d *deriver) collect(parsed []byte) collected {
	return remember(d.dv.memos().collected, parsed, collectedOf)
}

func collectedOf(parsed []byte) collected {
	m := jsonObject(parsed)
	p := jsontext.Object(m["payload"])
	return collected{item: jsontext.Str(m["item"]), payload: p, names: slices.Sorted(maps.Keys(p))}
}

func (d *deriver) resultEvent(ev *mission.Event) {
	a := d.agent(string(ev.Agent))
	if st, ok := d.pending[a]; ok {
		delete(d.pending, a)
		d.rec.Completions = append(d.rec.Completions, Completion{ID: id(ev.Seq), Subtask: st, Agent: a})
		return
	}
	if ev.Agent == d.spec.Entry && d.entryDue[ev.Item] {
		delete(d.entryDue, ev.Item)
		d.rec.Completions = append(d.rec.Completions, Completion{ID: id(ev.Seq), Subtask: ev.Item + ":" + a, Agent: a})
		return
	}
	if ins := d.collected[a]; len(ins) > 0 {
		delete(d.collected, a)
		d.rec.Merges = append(d.rec.Merges, merge(id(ev.Seq), a, ins, remember(d.dv.memos().leaves, []byte(ev.Output), leavesOf)))
	}
}

// toolCall adds a tool call's work, state accesses and effect.
func (d *deriver) toolCall(ev *mission.Event) {
	a := d.agent(string(ev.Agent))
	if ev.Attempt == 0 {
		d.rec.Work = append(d.rec.Work, Work{ID: id(ev.Seq), Agent: a, Key: ev.Tool + " " + string(ev.Args)})
	}
	tool, isTool := d.spec.Tools.Tool(ev.Tool)
	write := isTool && tool.Access == sandbox.Write
	if ev.Error == "" {
		for _, k := range d.written {
			if k != ev.Effect && mentions(ev.Args, k) {
				d.rec.State = append(d.rec.State, Access{ID: id(ev.Seq) + "/read:" + k, Agent: a, Op: OpRead, Key: k})
			}
		}
		if write && ev.Effect != "" && !slices.Contains(d.written, ev.Effect) {
			d.written = append(d.written, ev.Effect)
		}
		if write && ev.Effect != "" {
			d.rec.State = append(d.rec.State, Access{ID: id(ev.Seq) + "/write:" + ev.Effect, Agent: a, Op: OpWrite, Key: ev.Effect})
		}
	}
	if !write {
		return
	}
	d.rec.Effects = append(d.rec.Effects, Effect{ID: id(ev.Seq) + "/effect", Agent: a, Tool: ev.Tool, Key: ev.Key,
		Identity: ev.Item + ":" + ev.Tool, Irreversible: d.su.irrev == nil || d.su.irrev[ev.Tool]})
	if d.effectErr == nil {
		d.effectErr = make([]string, 0, cap(d.rec.Effects))
	}
	d.effectErr = append(d.effectErr, ev.Error)
}

// dedupEffects sets whether each effect applied: a success did, a timeout
// may have, any other failure did not; of the attempts of one tool with
// one key only the first that may have applied counts.
func (d *deriver) dedupEffects() {
	type toolKey struct{ tool, key string }
	counted := map[toolKey]bool{}
	for i := range d.rec.Effects {
		e := &d.rec.Effects[i]
		var applied *bool
		switch msg := d.effectErr[i]; {
		case msg == "":
			applied = ptr(true)
		case !timedOut(msg):
			applied = ptr(false)
		}
		if applied == nil || *applied {
			if k := (toolKey{e.Tool, e.Key}); e.Key != "" {
				if counted[k] {
					applied = ptr(false)
				}
				counted[k] = true
			}
		}
		e.Applied = applied
	}
}

// timedOut reports whether a tool call's error (as the trace writes a
// sandbox error: "<kind> <code>: <message>") is a timeout: the caller
// cannot know whether the write was committed.
func timedOut(msg string) bool {
	_, rest, _ := strings.Cut(msg, " ")
	return strings.HasPrefix(rest, sandbox.CodeTimeout+":")
}

func (d *deriver) usage(src Source) {
	tokens, calls := int64(src.Cost.Tokens), int64(src.Cost.ModelCalls)
	latency := 0.0
	if n := len(src.Trace.Events); n > 0 {
		latency = float64(src.Trace.Events[n-1].At)
	}
	d.rec.Usage = Usage{Tokens: &tokens, ModelCalls: &calls, LatencyMS: &latency}
}

func ptr[T any](v T) *T { return &v }
