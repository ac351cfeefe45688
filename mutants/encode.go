package mutants

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Encode writes mutants as a catalogue file in the format users write
// (see the package doc), after header's lines as comments: one entry per
// mutant, its keys in the order id, class, operator, edge, agent, the
// parameters in [AllParams] order, description. [Parse] reads it back to
// the same mutants.
func Encode(muts []*Mutant, header string) []byte {
	var b bytes.Buffer
	for _, l := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
		if header == "" {
			break
		}
		b.WriteString(strings.TrimRight("# "+l, " ") + "\n")
	}
	if header != "" {
		b.WriteByte('\n')
	}
	b.WriteString("mutants:\n")
	for _, m := range muts {
		b.WriteString("\n")
		first := true
		key := func(k, v string) {
			if v == "" {
				return
			}
			lead := "    "
			if first {
				lead, first = "  - ", false
			}
			b.WriteString(lead + k + ": " + v + "\n")
		}
		key("id", scalar(m.ID))
		key("class", scalar(string(m.Class)))
		key("operator", scalar(m.Operator))
		key("edge", scalar(m.Edge))
		key("agent", scalar(m.Agent))
		for _, p := range AllParams {
			if p == ParamValue {
				if m.Value != nil {
					key(string(p), flow(m.Value))
				}
				continue
			}
			key(string(p), scalar(m.paramString(p)))
		}
		key("description", scalar(m.Description))
	}
	return b.Bytes()
}

// scalar writes s as a YAML scalar that reads back as the string s: plain
// where YAML would read it so, double-quoted (JSON escapes) otherwise.
func scalar(s string) string {
	if s == "" {
		return ""
	}
	var v string
	if err := yaml.Unmarshal([]byte(s), &v); err == nil && v == s && !strings.ContainsAny(s, "\n#:'\"") && strings.TrimSpace(s) == s {
		var probe any
		if yaml.Unmarshal([]byte(s), &probe) == nil {
			if _, isStr := probe.(string); isStr {
				return s
			}
		}
	}
	return jsonText(s) // a JSON string is a YAML double-quoted scalar
}

// jsonText is v's JSON without HTML escaping ("->" stays "->").
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("mutants: encode value: %v", err)) // values are JSON values
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// flow writes a JSON value as a YAML flow value: a string as [scalar]
// does (so "" and "1" stay strings), anything else as its JSON.
func flow(v any) string {
	if s, ok := v.(string); ok {
		if s == "" {
			return `""`
		}
		return scalar(s)
	}
	return jsonText(v)
}

// paramString returns the value of a string parameter of the entry.
func (m *Mutant) paramString(p Param) string {
	switch p {
	case ParamField:
		return m.Field
	case ParamTo:
		return m.To
	case ParamFormat:
		return m.Format
	case ParamTool:
		return m.Tool
	case ParamArg:
		return m.Arg
	case ParamDecision:
		return m.Decision
	case ParamFrom:
		return m.From
	case ParamChange:
		return m.Change
	}
	panic("mutants: no string parameter " + string(p))
}
