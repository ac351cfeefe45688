package coordination

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/baton-lab/baton/internal/jsontext"
)

// jsonObject decodes a JSON object, nil when raw is not one.
func jsonObject(raw []byte) map[string]any {
	m, _ := jsonValue(raw).(map[string]any)
	return m
}

// jsonValue decodes a JSON value, nil when raw is not one.
func jsonValue(raw []byte) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// fieldNames lists a hand-off's fields, sorted: the envelope's top-level
// names and "payload.<name>" for each payload field.
func fieldNames(msg map[string]any) []string {
	out := []string{}
	for k, v := range msg {
		if k != "payload" {
			out = append(out, k)
			continue
		}
		for f := range jsontext.Object(v) {
			out = append(out, "payload."+f)
		}
	}
	slices.Sort(out)
	return out
}

// argIDs lists the distinct strings among a tool call's argument values,
// at any depth, in key order.
func argIDs(args map[string]any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if x != "" && !slices.Contains(out, x) {
				out = append(out, x)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k])
			}
		}
	}
	walk(args)
	return out
}

// merge is a collecting agent's turn over its inputs: two inputs about
// one item that read a scalar payload field as different non-empty values
// conflict, and the turn's result says how it resolved each.
func merge(mid, agent string, ins []received, result any) Merge {
	m := Merge{ID: mid, Agent: agent, Inputs: []string{}, Conflicts: []Conflict{}}
	for _, in := range ins {
		m.Inputs = append(m.Inputs, in.id)
	}
	leaves := scalars(result, nil)
	for i := range ins {
		for j := i + 1; j < len(ins); j++ {
			a, b := ins[i], ins[j]
			if a.item != b.item {
				continue
			}
			for _, f := range slices.Sorted(maps.Keys(a.payload)) {
				va, vb := a.payload[f], b.payload[f]
				if !scalar(va) || !scalar(vb) || va == "" || vb == "" || jsontext.Equal(va, vb) {
					continue
				}
				m.Conflicts = append(m.Conflicts, Conflict{Field: a.item + ":" + f, Inputs: []string{a.id, b.id},
					Resolution: resolution(contains(leaves, va), contains(leaves, vb))})
			}
		}
	}
	return m
}

// resolution says what a merge did with two values from whether its
// result holds each.
func resolution(hasA, hasB bool) Resolution {
	switch {
	case hasA && hasB:
		return ResolutionConcatenated
	case hasA || hasB:
		return ResolutionResolved
	}
	return ResolutionUnresolved
}

func scalar(v any) bool {
	switch v.(type) {
	case string, float64, bool:
		return true
	}
	return false
}

// scalars appends the scalar values in v, at any depth.
func scalars(v any, out []any) []any {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			out = scalars(e, out)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out = scalars(x[k], out)
		}
	default:
		if scalar(v) {
			out = append(out, v)
		}
	}
	return out
}

func contains(vs []any, v any) bool {
	return slices.ContainsFunc(vs, func(x any) bool { return jsontext.Equal(x, v) })
}
