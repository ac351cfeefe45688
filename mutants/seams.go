package mutants

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// Each operator's seams embed mission.NoSeams and override the one hook they
// act through. They call oracle.Reach every time that hook is hit on their
// target, before comparing the old value with the new: a message on their
// edge that carries their field (a payload field, or the envelope's
// next_owner or escalation), a retry of their agent's write, a redelivered
// copy on their edge, a call of their agent's tool, their agent's decision.
// A message without the field is not reached. So a mutant reached where it
// changes nothing (a currency set to the EUR it already is) counts as
// reached: the experiment reports it equivalent, not no_coverage. Their
// fields are set once by the constructor, so they are safe for concurrent
// use.

var (
	_ mission.Seams = (*dropField)(nil)
	_ mission.Seams = (*renameField)(nil)
	_ mission.Seams = (*reformatField)(nil)
	_ mission.Seams = (*retryKey)(nil)
	_ mission.Seams = (*noDedup)(nil)
	_ mission.Seams = (*clearOwner)(nil)
	_ mission.Seams = (*doubleOwner)(nil)
	_ mission.Seams = (*escalationGap)(nil)
	_ mission.Seams = (*wrongToolArg)(nil)
	_ mission.Seams = (*flipDecision)(nil)
	_ mission.Seams = (*reroute)(nil)
)

func mustEdge(s string) mission.Edge {
	e, err := mission.ParseEdge(s)
	if err != nil {
		panic(fmt.Sprintf("mutants: %v", err)) // entries are validated before New
	}
	return e
}

// payload returns the message's payload object, if it has one, to read.
func payload(msg *mission.Message) (*mission.Message, bool) {
	v, _ := msg.Get("payload")
	p, ok := v.(*mission.Message)
	return p, ok && p != nil
}

// fieldTarget is a field operator's target: one payload field on one edge.
// Reached counts a message on the edge that carries the field.
type fieldTarget struct {
	edge   mission.Edge
	field  string
	oracle *mission.Oracle
}

func newFieldTarget(m *Mutant, o *mission.Oracle) fieldTarget {
	return fieldTarget{edge: mustEdge(m.Edge), field: m.Field, oracle: o}
}

// hit returns the field's value when msg on edge e carries the target
// field, recording the reach. An operator that changes the field does so
// through msg.Object("payload"), which copies only the payload.
func (t fieldTarget) hit(e mission.Edge, msg *mission.Message) (any, bool) {
	if e != t.edge {
		return nil, false
	}
	p, ok := payload(msg)
	if !ok {
		return nil, false
	}
	v, ok := p.Get(t.field)
	if !ok {
		return nil, false
	}
	t.oracle.Reach()
	return v, true
}

type dropField struct {
	mission.NoSeams
	fieldTarget
}

func newDropField(m *Mutant, o *mission.Oracle) mission.Seams {
	return &dropField{fieldTarget: newFieldTarget(m, o)}
}

func (s *dropField) Emit(e mission.Edge, msg *mission.Message) {
	if _, ok := s.hit(e, msg); ok {
		msg.Object("payload").Delete(s.field)
	}
}

type renameField struct {
	mission.NoSeams
	fieldTarget
	to string
}

func newRenameField(m *Mutant, o *mission.Oracle) mission.Seams {
	return &renameField{fieldTarget: newFieldTarget(m, o), to: m.To}
}

func (s *renameField) Emit(e mission.Edge, msg *mission.Message) {
	if v, ok := s.hit(e, msg); ok {
		p := msg.Object("payload")
		p.Set(s.to, v)
		p.Delete(s.field)
	}
}

type reformatField struct {
	mission.NoSeams
	fieldTarget
	format string
}

func newReformatField(m *Mutant, o *mission.Oracle) mission.Seams {
	return &reformatField{fieldTarget: newFieldTarget(m, o), format: m.Format}
}

func (s *reformatField) Emit(e mission.Edge, msg *mission.Message) {
	if v, ok := s.hit(e, msg); ok {
		if nv, changed := reformat(v, s.format); changed {
			msg.Object("payload").Set(s.field, nv)
		}
	}
}

// reformat writes v in format and reports whether that changed it. A value
// of the wrong type for the format is returned unchanged.
func reformat(v any, format string) (any, bool) {
	switch format {
	case FormatCents:
		x, ok := number(v)
		if !ok {
			return v, false
		}
		c := math.Round(x * 100)
		return c, c != x
	case FormatDecimalComma:
		x, ok := number(v)
		if !ok {
			return v, false
		}
		return strings.Replace(strconv.FormatFloat(x, 'f', 2, 64), ".", ",", 1), true
	case FormatDateDMY:
		d, ok := v.(string)
		if !ok {
			return v, false
		}
		t, err := time.Parse(time.DateOnly, d)
		if err != nil {
			return v, false
		}
		return t.Format("02/01/2006"), true
	}
	return v, false
}

// number reads a JSON number as it may sit in a decoded or freshly built
// message.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// retryKey is retry_without_key (fresh false) and fresh_key_on_retry (fresh
// true). The entry's edge is its ground truth only; the seam acts on the
// agent's retries of the tool whatever the item.
type retryKey struct {
	mission.NoSeams
	agent  mission.Agent
	tool   string
	fresh  bool
	oracle *mission.Oracle
}

func newRetryWithoutKey(m *Mutant, o *mission.Oracle) mission.Seams {
	return &retryKey{agent: mission.Agent(m.Agent), tool: m.Tool, oracle: o}
}

func newFreshKeyOnRetry(m *Mutant, o *mission.Oracle) mission.Seams {
	return &retryKey{agent: mission.Agent(m.Agent), tool: m.Tool, fresh: true, oracle: o}
}

func (s *retryKey) RetryKey(agent mission.Agent, tool, _, key string, attempt int) string {
	if agent != s.agent || tool != s.tool || attempt < 1 {
		return key
	}
	s.oracle.Reach()
	if s.fresh {
		return key + "#retry" + strconv.Itoa(attempt)
	}
	return ""
}

type noDedup struct {
	mission.NoSeams
	edge   mission.Edge
	oracle *mission.Oracle
}

func newRedeliverWithoutDedup(m *Mutant, o *mission.Oracle) mission.Seams {
	return &noDedup{edge: mustEdge(m.Edge), oracle: o}
}

// Dedup is asked for a message whose key was already delivered on e; letting
// it through is the change.
func (s *noDedup) Dedup(e mission.Edge) bool {
	if e != s.edge {
		return true
	}
	s.oracle.Reach()
	return false
}

// owners reads a next_owner value as it may sit in a decoded or freshly
// built message.
func owners(v any) ([]string, bool) {
	switch x := v.(type) {
	case []string:
		return x, true
	case []mission.Agent:
		out := make([]string, len(x))
		for i, a := range x {
			out[i] = string(a)
		}
		return out, true
	case []any:
		out := make([]string, 0, len(x))
		for _, a := range x {
			s, ok := a.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	case nil:
		return nil, true
	}
	return nil, false
}

type clearOwner struct {
	mission.NoSeams
	edge   mission.Edge
	oracle *mission.Oracle
}

func newClearOwner(m *Mutant, o *mission.Oracle) mission.Seams {
	return &clearOwner{edge: mustEdge(m.Edge), oracle: o}
}

func (s *clearOwner) Emit(e mission.Edge, msg *mission.Message) {
	if e != s.edge {
		return
	}
	v, ok := msg.Get("next_owner")
	if !ok {
		return
	}
	s.oracle.Reach()
	if o, ok := owners(v); ok && len(o) == 0 {
		return
	}
	msg.Set("next_owner", []any{})
}

type doubleOwner struct {
	mission.NoSeams
	edge   mission.Edge
	extra  string
	oracle *mission.Oracle
}

func newDoubleOwner(m *Mutant, o *mission.Oracle) mission.Seams {
	return &doubleOwner{edge: mustEdge(m.Edge), extra: m.Value.(string), oracle: o}
}

func (s *doubleOwner) Emit(e mission.Edge, msg *mission.Message) {
	if e != s.edge {
		return
	}
	v, ok := msg.Get("next_owner")
	if !ok {
		return
	}
	s.oracle.Reach()
	// No owner to add a second to, an unreadable list, or the extra owner
	// already there: nothing changes.
	o, ok := owners(v)
	if !ok || len(o) == 0 || slices.Contains(o, s.extra) {
		return
	}
	next := make([]any, 0, len(o)+1)
	for _, a := range o {
		next = append(next, a)
	}
	msg.Set("next_owner", append(next, s.extra))
}

// requestedToEscalated rewrites escalation "requested" as "escalated" with
// no ticket, reporting to oracle a message that carries an escalation flag
// whatever its value.
func requestedToEscalated(msg *mission.Message, oracle *mission.Oracle) {
	v, ok := msg.Get("escalation")
	if !ok {
		return
	}
	oracle.Reach()
	if v != mission.EscalationRequested {
		return
	}
	msg.Set("escalation", mission.EscalationEscalated)
	msg.Set("escalation_ref", "")
}

// escalationGap is escalation_flag_meaning (the consumer's parser reads
// "requested" as "escalated") and assume_other_escalated (the producer's
// emitter writes "escalated" where it meant "requested"): the same change
// to the flag, on the consuming or the producing side of the edge.
type escalationGap struct {
	mission.NoSeams
	edge     mission.Edge
	consumer bool
	oracle   *mission.Oracle
}

func newEscalationFlagMeaning(m *Mutant, o *mission.Oracle) mission.Seams {
	return &escalationGap{edge: mustEdge(m.Edge), consumer: true, oracle: o}
}

func newAssumeOtherEscalated(m *Mutant, o *mission.Oracle) mission.Seams {
	return &escalationGap{edge: mustEdge(m.Edge), oracle: o}
}

func (s *escalationGap) Parse(e mission.Edge, msg *mission.Message) {
	if s.consumer && e == s.edge {
		requestedToEscalated(msg, s.oracle)
	}
}

func (s *escalationGap) Emit(e mission.Edge, msg *mission.Message) {
	if !s.consumer && e == s.edge {
		requestedToEscalated(msg, s.oracle)
	}
}

type wrongToolArg struct {
	mission.NoSeams
	agent  mission.Agent
	tool   string
	arg    string
	value  []byte // JSON; decoded afresh for every call so calls share nothing
	oracle *mission.Oracle
}

func newWrongToolArg(m *Mutant, o *mission.Oracle) mission.Seams {
	v, err := json.Marshal(m.Value)
	if err != nil {
		panic(fmt.Sprintf("mutants: %v", err)) // entries are validated before New
	}
	return &wrongToolArg{agent: mission.Agent(m.Agent), tool: m.Tool, arg: m.Arg, value: v, oracle: o}
}

func (s *wrongToolArg) ToolArgs(agent mission.Agent, tool, _ string, args sandbox.Args) {
	if agent != s.agent || tool != s.tool || args == nil {
		return
	}
	s.oracle.Reach()
	if old, ok := args[s.arg]; ok {
		if b, err := json.Marshal(old); err == nil && bytes.Equal(b, s.value) {
			return
		}
	}
	var v any
	if err := json.Unmarshal(s.value, &v); err != nil {
		return
	}
	args[s.arg] = v
}

// jsonValue returns v as the JSON decoder would give it (numbers as float64,
// objects as map[string]any).
func jsonValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("not a JSON value: %w", err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("not a JSON value: %w", err)
	}
	return out, nil
}

type flipDecision struct {
	mission.NoSeams
	agent          mission.Agent
	kind, from, to string
	oracle         *mission.Oracle
}

func newFlipDecision(m *Mutant, o *mission.Oracle) mission.Seams {
	return &flipDecision{agent: mission.Agent(m.Agent), kind: m.Decision, from: m.From, to: m.To, oracle: o}
}

func (s *flipDecision) Decide(agent mission.Agent, kind, _, choice string) string {
	if agent != s.agent || kind != s.kind {
		return choice
	}
	s.oracle.Reach()
	if choice == s.to || (s.from != "" && choice != s.from) {
		return choice
	}
	return s.to
}

type reroute struct {
	mission.NoSeams
	edge   mission.Edge
	to     mission.Agent
	oracle *mission.Oracle
}

func newReroute(m *Mutant, o *mission.Oracle) mission.Seams {
	return &reroute{edge: mustEdge(m.Edge), to: mission.Agent(m.Value.(string)), oracle: o}
}

func (s *reroute) Route(e mission.Edge, owners []mission.Agent) []mission.Agent {
	if e != s.edge {
		return owners
	}
	s.oracle.Reach()
	if len(owners) == 0 || (len(owners) == 1 && owners[0] == s.to) {
		return owners
	}
	return []mission.Agent{s.to}
}
