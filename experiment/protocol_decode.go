package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mutants"
	"github.com/baton-lab/baton/sandbox"
)

// decoder walks a protocol's YAML node tree strictly: every key must be
// known, every value of the right type and range. It collects every problem
// rather than stopping at the first.
type decoder struct {
	file  string
	errs  []error
	lines map[string]int
	spec  *mission.Spec // the mission the protocol names
}

func (d *decoder) failf(line int, field, format string, args ...any) {
	d.errs = append(d.errs, &InputError{File: d.file, Line: line, Field: field, Problem: fmt.Sprintf(format, args...)})
}

func (d *decoder) err() error {
	if len(d.errs) == 0 {
		return nil
	}
	return errors.Join(d.errs...)
}

var yamlLine = regexp.MustCompile(`line (\d+): `)

// protocol decodes data over p.
func (d *decoder) protocol(data []byte, p *Protocol) {
	defer func() {
		if r := recover(); r != nil { // the YAML parser must not take the process down
			d.failf(0, "", "invalid YAML: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			d.failf(0, "", "empty protocol")
			return
		}
		line := 0
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = strings.Replace(msg, m[0], "", 1)
		}
		d.failf(line, "", "invalid YAML: %s", msg)
		return
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		d.failf(extra.Line, "", "more than one YAML document")
		return
	} else if !errors.Is(err, io.EOF) {
		d.failf(0, "", "invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		return
	}
	doc := &root
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			d.failf(0, "", "empty protocol")
			return
		}
		doc = doc.Content[0]
	}
	d.mapping(deref(doc), "", func(key string, k, v *yaml.Node) {
		switch key {
		case "name":
			if s, ok := d.str(v, key); ok {
				if !validName(s) {
					d.failf(v.Line, key, "%q: want letters, digits, '-', '_' or '.' (it names the run folder)", s)
				}
				p.Name = s
			}
		case "mission":
			d.mapping(v, key, func(key2 string, k2, v2 *yaml.Node) {
				f := key + "." + key2
				switch key2 {
				case "name":
					p.Mission.Name, _ = d.str(v2, f)
				case "version":
					p.Mission.Version, _ = d.str(v2, f)
				default:
					d.unknown(k2, f)
				}
			})
		case "scenarios":
			d.mapping(v, key, func(key2 string, k2, v2 *yaml.Node) {
				f := key + "." + key2
				switch key2 {
				case "ids":
					p.Scenarios.IDs = d.strList(v2, f, nil)
				case "include_tags":
					p.Scenarios.IncludeTags = d.strList(v2, f, nil)
				case "exclude_tags":
					p.Scenarios.ExcludeTags = d.strList(v2, f, nil)
				case "files":
					p.Scenarios.Files = d.strList(v2, f, nil)
				default:
					d.unknown(k2, f)
				}
			})
		case "mutants":
			d.mapping(v, key, func(key2 string, k2, v2 *yaml.Node) {
				f := key + "." + key2
				switch key2 {
				case "catalogue":
					if s, ok := d.str(v2, f); ok {
						if s == "" {
							d.failf(v2.Line, f, `empty: want "default" or a file path`)
						}
						p.Mutants.Catalogue = s
					}
				case "mode":
					p.Mutants.Mode, _ = d.enum(v2, f, ModeReplace, ModeExtend)
				case "ids":
					p.Mutants.IDs = d.strList(v2, f, nil)
				case "classes":
					known := make([]string, len(mutants.AllClasses))
					for i, c := range mutants.AllClasses {
						known[i] = string(c)
					}
					p.Mutants.Classes = d.strList(v2, f, known)
				default:
					d.unknown(k2, f)
				}
			})
		case "contracts":
			d.mapping(v, key, func(key2 string, k2, v2 *yaml.Node) {
				f := key + "." + key2
				switch key2 {
				case "level":
					p.Contracts.Level, _ = d.enum(v2, f, "schema", "ownership", "semantic")
				case "files":
					p.Contracts.Files = d.strList(v2, f, nil)
				default:
					d.unknown(k2, f)
				}
			})
		case "designs":
			ds := d.strList(v, key, KnownDesigns)
			if v.Kind == yaml.SequenceNode && len(ds) == 0 && len(v.Content) == 0 {
				d.failf(v.Line, key, "empty: want at least one of %s", strings.Join(KnownDesigns, ", "))
			}
			p.Designs = ds
		case "design_a_inputs":
			p.DesignAInputs, _ = d.enum(v, key, InputsGolden, InputsRecorded)
		case "trials":
			if n, ok := d.int(v, key); ok {
				if n < 1 {
					d.failf(v.Line, key, "%d: want at least 1", n)
				}
				p.Trials = n
			}
		case "seed":
			p.Seed, _ = d.uint64(v, key)
		case "profile":
			p.Profile = d.profile(v, key)
		case "cores": // protocol_cores.go
			p.Cores = d.cores(v, key)
		case "model_cache":
			if s, ok := d.str(v, key); ok && s == "" {
				d.failf(v.Line, key, "empty: want a directory")
			} else {
				p.ModelCache = s
			}
		case "faults":
			p.Faults = sandbox.FaultRates{}
			d.mapping(v, key, func(tool string, k2, v2 *yaml.Node) {
				f := key + "." + tool
				if !d.knownFaultTool(tool) {
					d.failf(k2.Line, f, "unknown tool %q (want \"*\", \"transport\" or a tool of mission %s)", tool, d.spec.Name)
					return
				}
				rates := map[sandbox.FaultKind]float64{}
				p.Faults[tool] = rates
				d.mapping(v2, f, func(kind string, k3, v3 *yaml.Node) {
					f3 := f + "." + kind
					fk := sandbox.FaultKind(kind)
					switch {
					case !slices.Contains(sandbox.AllFaultKinds, fk):
						d.failf(k3.Line, f3, "unknown fault kind %q (known: %s)", kind, joinFaultKinds())
						return
					case tool == "transport" && fk != sandbox.Redelivery:
						d.failf(k3.Line, f3, "transport has only %s", sandbox.Redelivery)
						return
					case tool != "transport" && fk == sandbox.Redelivery:
						d.failf(k3.Line, f3, "%s applies to the transport only (faults.transport.%s)", kind, kind)
						return
					}
					if x, ok := d.prob(v3, f3); ok {
						rates[fk] = x
					}
				})
			})
		case "review_sample":
			if n, ok := d.int(v, key); ok {
				if n < 0 {
					d.failf(v.Line, key, "%d: want 0 or more", n)
				}
				p.ReviewSample = n
			}
		case "cost_weights":
			d.mapping(v, key, func(key2 string, k2, v2 *yaml.Node) {
				f := key + "." + key2
				w := &p.CostWeights
				switch key2 {
				case "per_model_call":
					w.PerModelCall, _ = d.nonNegative(v2, f)
				case "per_1k_tokens":
					w.Per1kTokens, _ = d.nonNegative(v2, f)
				case "per_1k_input_tokens": // a model's prompt tokens
					w.Per1kInputTokens, _ = d.nonNegative(v2, f)
				case "per_1k_output_tokens": // a model's completion tokens
					w.Per1kOutputTokens, _ = d.nonNegative(v2, f)
				case "per_tool_call":
					w.PerToolCall, _ = d.nonNegative(v2, f)
				case "per_sandbox_reset":
					w.PerSandboxReset, _ = d.nonNegative(v2, f)
				case "currency":
					w.Currency, _ = d.str(v2, f)
				default:
					d.unknown(k2, f)
				}
			})
		case "thresholds":
			d.mapping(v, key, func(key2 string, k2, v2 *yaml.Node) {
				f := key + "." + key2
				t := &p.Thresholds
				switch key2 {
				case "h1_min_gap":
					t.H1MinGap, _ = d.prob(v2, f)
				case "h2_max_detection_gap":
					t.H2MaxDetectionGap, _ = d.prob(v2, f)
				case "h2_min_localisation_gain":
					t.H2MinLocalisationGain, _ = d.prob(v2, f)
				case "h2_max_cost_ratio":
					if x, ok := d.float(v2, f); ok {
						if !(x > 0) {
							d.failf(v2.Line, f, "%v: want a ratio above 0", x)
						}
						t.H2MaxCostRatio = x
					}
				case "h3_min_gap":
					t.H3MinGap, _ = d.prob(v2, f)
				default:
					d.unknown(k2, f)
				}
			})
		default:
			d.unknown(k, key)
		}
	})
	if len(d.errs) > 0 {
		return
	}
	// Settings every protocol must end up with (the embedded default sets
	// them all; a file can only clear them by writing an empty value).
	for _, r := range []struct {
		field string
		ok    bool
	}{
		{"name", p.Name != ""},
		{"mission.name", p.Mission.Name != ""},
		{"mutants.catalogue", p.Mutants.Catalogue != ""},
		{"mutants.mode", p.Mutants.Mode != ""},
		{"contracts.level", p.Contracts.Level != ""},
		{"designs", len(p.Designs) > 0},
		{"design_a_inputs", p.DesignAInputs != ""},
		{"trials", p.Trials >= 1},
	} {
		if !r.ok {
			d.failf(d.lines[r.field], r.field, "missing")
		}
	}
	if p.Mutants.Catalogue == CatalogueDefault && p.Mutants.Mode == ModeExtend {
		d.failf(d.lines["mutants.mode"], "mutants.mode", `extend needs a catalogue file to add to the default catalogue`)
	}
}

// profile reads the model profile: per agent of the mission, the rate of
// each slip it can make.
func (d *decoder) profile(v *yaml.Node, key string) mission.Profile {
	prof := mission.Profile{}
	d.mapping(v, key, func(agent string, k2, v2 *yaml.Node) {
		f := key + "." + agent
		if !d.spec.HasAgent(mission.Agent(agent)) {
			d.failf(k2.Line, f, "unknown agent %q (known: %s)", agent, joinAgents(d.spec))
			return
		}
		rates := map[mission.Slip]float64{}
		prof[mission.Agent(agent)] = rates
		d.mapping(v2, f, func(slip string, k3, v3 *yaml.Node) {
			f3 := f + "." + slip
			if !d.spec.HasSlip(mission.Agent(agent), mission.Slip(slip)) {
				d.failf(k3.Line, f3, "unknown slip %q (known for %s: %s)", slip, agent, joinSlips(d.spec, mission.Agent(agent)))
				return
			}
			if x, ok := d.prob(v3, f3); ok {
				rates[mission.Slip(slip)] = x
			}
		})
	})
	return prof
}

// peekMission returns the protocol's mission.name and its line, or "" when
// it names none (or is not YAML the decoder will read; it reports that).
func peekMission(data []byte) (name string, line int) {
	defer func() {
		if recover() != nil {
			name, line = "", 0
		}
	}()
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return "", 0
	}
	m := deref(root.Content[0])
	for i := 0; m.Kind == yaml.MappingNode && i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != "mission" {
			continue
		}
		v := deref(m.Content[i+1])
		for j := 0; v.Kind == yaml.MappingNode && j+1 < len(v.Content); j += 2 {
			if n := deref(v.Content[j+1]); v.Content[j].Value == "name" && n.Kind == yaml.ScalarNode {
				return n.Value, n.Line
			}
		}
	}
	return "", 0
}

// unknown reports an unknown key.
func (d *decoder) unknown(k *yaml.Node, field string) {
	d.failf(k.Line, field, "unknown field")
}

// deref follows aliases.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 16; i++ {
		n = n.Alias
	}
	return n
}

// mapping calls fn for every key of a mapping node in order, rejecting
// duplicate and non-string keys. A null value is an empty mapping.
func (d *decoder) mapping(n *yaml.Node, field string, fn func(key string, k, v *yaml.Node)) {
	n = deref(n)
	if field != "" {
		d.lines[field] = n.Line
	}
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.failf(n.Line, orTop(field), "want a mapping, got %s", describe(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k == nil || v == nil || k.Kind != yaml.ScalarNode {
			d.failf(n.Content[i].Line, orTop(field), "want string keys")
			continue
		}
		f := join(field, k.Value)
		if seen[k.Value] {
			d.failf(k.Line, f, "duplicate key")
			continue
		}
		seen[k.Value] = true
		d.lines[f] = v.Line
		fn(k.Value, k, v)
	}
}

func orTop(field string) string {
	if field == "" {
		return "(top level)"
	}
	return field
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

// parentField returns the enclosing field of a path: "a.b[2]" -> "a.b",
// "a.b" -> "a", "a" -> "".
func parentField(f string) string {
	if strings.HasSuffix(f, "]") {
		if i := strings.LastIndexByte(f, '['); i >= 0 {
			return f[:i]
		}
	}
	if i := strings.LastIndexByte(f, '.'); i >= 0 {
		return f[:i]
	}
	return ""
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "nothing"
		case "!!str":
			return fmt.Sprintf("string %q", truncate(n.Value))
		case "!!int":
			return "integer " + truncate(n.Value)
		case "!!float":
			return "number " + truncate(n.Value)
		case "!!bool":
			return "boolean " + n.Value
		}
		return fmt.Sprintf("%s %q", n.Tag, truncate(n.Value))
	}
	return "an unsupported node"
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// str reads a scalar as a string. Numbers are accepted as their text (a
// version written 1.2); booleans, nulls and collections are not.
func (d *decoder) str(n *yaml.Node, field string) (string, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!str" && n.Tag != "!!int" && n.Tag != "!!float") {
		d.failf(n.Line, field, "want a string, got %s", describe(n))
		return "", false
	}
	return n.Value, true
}

// enum reads a string that must be one of allowed.
func (d *decoder) enum(n *yaml.Node, field string, allowed ...string) (string, bool) {
	s, ok := d.str(n, field)
	if !ok {
		return "", false
	}
	if !slices.Contains(allowed, s) {
		d.failf(n.Line, field, "unknown value %q (want %s)", s, strings.Join(allowed, " or "))
		return "", false
	}
	return s, true
}

// strList reads a list of strings; a null is an empty list. When known is
// not nil every element must be in it. Duplicates are errors.
func (d *decoder) strList(n *yaml.Node, field string, known []string) []string {
	n = deref(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.failf(n.Line, field, "want a list, got %s", describe(n))
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, e := range n.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		e = deref(e)
		d.lines[f] = e.Line
		s, ok := d.str(e, f)
		if !ok {
			continue
		}
		switch {
		case s == "":
			d.failf(e.Line, f, "empty")
		case known != nil && !slices.Contains(known, s):
			d.failf(e.Line, f, "unknown %s %q (known: %s)", noun(field), s, strings.Join(known, ", "))
		case slices.Contains(out, s):
			d.failf(e.Line, f, "%q listed twice", s)
		default:
			out = append(out, s)
		}
	}
	return out
}

// noun names what a list holds, for messages.
func noun(field string) string {
	switch {
	case strings.HasSuffix(field, "designs"):
		return "design"
	case strings.HasSuffix(field, "classes"):
		return "class"
	}
	return "value"
}

func (d *decoder) int(n *yaml.Node, field string) (int, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		d.failf(n.Line, field, "want an integer, got %s", describe(n))
		return 0, false
	}
	var v int64
	if err := n.Decode(&v); err != nil || v > math.MaxInt32 || v < math.MinInt32 {
		d.failf(n.Line, field, "integer %s out of range", truncate(n.Value))
		return 0, false
	}
	return int(v), true
}

func (d *decoder) uint64(n *yaml.Node, field string) (uint64, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		d.failf(n.Line, field, "want a non-negative integer, got %s", describe(n))
		return 0, false
	}
	var v uint64
	if err := n.Decode(&v); err != nil {
		d.failf(n.Line, field, "%s: want an integer from 0 to %d", truncate(n.Value), uint64(math.MaxUint64))
		return 0, false
	}
	return v, true
}

func (d *decoder) float(n *yaml.Node, field string) (float64, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		d.failf(n.Line, field, "want a number, got %s", describe(n))
		return 0, false
	}
	var v float64
	if err := n.Decode(&v); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		d.failf(n.Line, field, "%s: want a finite number", truncate(n.Value))
		return 0, false
	}
	return v, true
}

// prob reads a probability in [0, 1].
func (d *decoder) prob(n *yaml.Node, field string) (float64, bool) {
	v, ok := d.float(n, field)
	if ok && (v < 0 || v > 1) {
		d.failf(deref(n).Line, field, "%v: want a probability in [0, 1]", v)
		return 0, false
	}
	return v, ok
}

func (d *decoder) nonNegative(n *yaml.Node, field string) (float64, bool) {
	v, ok := d.float(n, field)
	if ok && v < 0 {
		d.failf(deref(n).Line, field, "%v: want 0 or more", v)
		return 0, false
	}
	return v, ok
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

func validName(s string) bool { return nameRE.MatchString(s) }

func (d *decoder) knownFaultTool(tool string) bool {
	if tool == "*" || tool == "transport" {
		return true
	}
	_, ok := d.spec.Tools.Tool(tool)
	return ok
}

func joinAgents(spec *mission.Spec) string {
	var s []string
	for _, a := range spec.AgentNames() {
		s = append(s, string(a))
	}
	return strings.Join(s, ", ")
}

func joinSlips(spec *mission.Spec, agent mission.Agent) string {
	as, _ := spec.Agent(agent)
	var s []string
	for _, x := range as.Slips {
		s = append(s, string(x))
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func joinFaultKinds() string {
	s := make([]string, len(sandbox.AllFaultKinds))
	for i, x := range sandbox.AllFaultKinds {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}
