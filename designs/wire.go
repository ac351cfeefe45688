package designs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/baton-lab/baton/internal/jsontext"
	"github.com/baton-lab/baton/mission"
)

// scoreWire applies the wire level of an agent's scorecard: every message
// its emitter packaged, against the agent's golden message on the same
// edge, field by field (the envelope's fields, then the payload's). A
// message the golden run sent and the agent did not, or the reverse, is a
// difference too.
func scoreWire(g mission.Golden, cr *mission.CoreRun, v *Verdict) {
	edges := make([]string, 0, len(g.Emitted)+len(cr.Emitted))
	for e := range g.Emitted {
		edges = append(edges, e)
	}
	for e := range cr.Emitted {
		if _, ok := g.Emitted[e]; !ok {
			edges = append(edges, e)
		}
	}
	slices.Sort(edges)
	runID := "core:" + string(g.Agent) + ":" + g.Item
	for _, e := range edges {
		want, inGolden := g.Emitted[e]
		got, emitted := cr.Emitted[e]
		seq := sentSeq(cr.Trace, e)
		add := func(field, msg string) {
			v.Findings = append(v.Findings, Finding{Rule: "wire.golden", Message: fmt.Sprintf("%s %s: %s: %s", g.Agent, g.Item, e, msg),
				Location: mission.AgentLocation(g.Agent), Evidence: Evidence{Run: runID, Seq: seq, Item: g.Item, Field: field}})
		}
		switch {
		case !emitted:
			add("", "emitted no message where the golden run sent one")
		case !inGolden:
			add("", "emitted a message where the golden run sent none")
		default:
			if fields, diff := wireDiff(want, got); len(fields) > 0 {
				add(fields[0], "emitted message differs from golden: "+diff)
			}
		}
	}
}

// wireDiff compares two wire messages field by field: the envelope's
// fields in [mission.EnvelopeFields] order (but the payload), then every
// payload field in name order. It returns the differing fields ("payload."
// before a payload field's name) and what differs.
func wireDiff(want, got []byte) ([]string, string) {
	if string(want) == string(got) {
		return nil, "" // most messages are the golden run's, byte for byte
	}
	w, werr := jsontext.DecodeObject(want, nil)
	g, gerr := jsontext.DecodeObject(got, nil)
	if werr != nil || gerr != nil {
		return []string{""}, fmt.Sprintf("want %s, got %s", clip(want), clip(got))
	}
	var fields, diffs []string
	cmpField := func(name string, a, b any, inA, inB bool) {
		if inA == inB && jsontext.Equal(a, b) {
			return
		}
		fields = append(fields, name)
		diffs = append(diffs, fmt.Sprintf("%s: want %s, got %s", name, wireValue(a, inA), wireValue(b, inB)))
	}
	for _, f := range mission.EnvelopeFields {
		if f == "payload" {
			continue
		}
		a, inA := w[f]
		b, inB := g[f]
		cmpField(f, a, b, inA, inB)
	}
	wp, _ := w["payload"].(map[string]any)
	gp, _ := g["payload"].(map[string]any)
	keys := map[string]bool{}
	for k := range wp {
		keys[k] = true
	}
	for k := range gp {
		keys[k] = true
	}
	for _, k := range sortedKeys(keys) {
		a, inA := wp[k]
		b, inB := gp[k]
		cmpField("payload."+k, a, b, inA, inB)
	}
	return fields, strings.Join(diffs, "; ")
}

func wireValue(v any, present bool) string {
	if !present {
		return "missing"
	}
	return clip(canonical(v))
}

// sentSeq returns the sequence number of the last hand-off a core run sent
// on edge, or 0.
func sentSeq(t *mission.Trace, edge string) int {
	if t == nil {
		return 0
	}
	for i := len(t.Events) - 1; i >= 0; i-- {
		if e := t.Events[i]; e.Kind == mission.EventSent && e.Edge == edge {
			return e.Seq
		}
	}
	return 0
}
