package experiment

import (
	"regexp"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mutants"
	"github.com/baton-lab/baton/sandbox"
)

// MaxProtocolBytes bounds a protocol file: a real one is a few KB.
const MaxProtocolBytes = 1 << 20

// decodeProtocol decodes a protocol file over p, strictly, and checks it
// against the mission spec describes. It returns where each field was
// written and every problem, each an [*InputError].
//
// The YAML layer ([input.Decoder]) reads the file into the [Protocol]
// struct by its fields' tags: an unknown key, a key given twice, a value
// of the wrong type or a non-finite number is refused there. To add a
// protocol key, add a field to Protocol (or to one of its sections) with
// its tag; when its values are restricted, add a line to checkProtocol.
func decodeProtocol(file string, data []byte, p *Protocol, spec *mission.Spec) (map[string]input.Pos, error) {
	d := input.NewDecoder(file, input.Options{Kind: "protocol", Limits: input.Limits{Bytes: MaxProtocolBytes}})
	if root := d.Parse(data); root != nil {
		d.DecodeNode(root, "", p)
		checkProtocol(d, p, spec)
	}
	return d.Positions(), d.Err()
}

// checkProtocol checks what the types cannot say: ranges, known values,
// the mission's agents, slips and tools, and the settings every protocol
// must end up with.
func checkProtocol(d *input.Decoder, p *Protocol, spec *mission.Spec) {
	d.Check(!d.Has("name") || validName(p.Name), "name", "%s: want letters, digits, '-', '_' or '.' (it names the run folder)", input.Quote(p.Name))
	s := &p.Scenarios
	d.Strings("scenarios.ids", s.IDs, "", nil)
	d.Strings("scenarios.include_tags", s.IncludeTags, "", nil)
	d.Strings("scenarios.exclude_tags", s.ExcludeTags, "", nil)
	d.Strings("scenarios.files", s.Files, "", nil)
	m := &p.Mutants
	d.Check(!d.Has("mutants.catalogue") || m.Catalogue != "", "mutants.catalogue", `empty: want "default" or a file path`)
	if m.Mode != "" {
		d.OneOf("mutants.mode", "mode", m.Mode, []string{ModeReplace, ModeExtend})
	}
	d.Strings("mutants.ids", m.IDs, "", nil)
	d.Strings("mutants.classes", m.Classes, "class", classNames())
	checkSpace(d, *m)
	if p.Contracts.Level != "" {
		d.OneOf("contracts.level", "level", p.Contracts.Level, levelNames())
	}
	d.Strings("contracts.files", p.Contracts.Files, "", nil)
	checkDesigns(d, p)
	if p.DesignAInputs != "" {
		d.OneOf("design_a_inputs", "input source", p.DesignAInputs, []string{InputsGolden, InputsRecorded})
	}
	d.Check(!d.Has("trials") || p.Trials >= 1, "trials", "%d: want at least 1", p.Trials)
	d.Check(p.ReviewSample >= 0, "review_sample", "%d: want 0 or more", p.ReviewSample)
	checkProfile(d, p.Profile, spec)
	checkFaults(d, p.Faults, spec)
	checkCostWeights(d, &p.CostWeights)
	checkCores(d, p, spec)     // protocol_cores.go
	checkMatched(d, p.Matched) // matched.go
	t := p.Thresholds
	for _, c := range []struct {
		key string
		v   float64
	}{{"h1_min_gap", t.H1MinGap}, {"h2_max_detection_gap", t.H2MaxDetectionGap}, {"h2_min_localisation_gain", t.H2MinLocalisationGain}, {"h3_min_gap", t.H3MinGap}} {
		checkProb(d, "thresholds."+c.key, c.v)
	}
	d.Check(!d.Has("thresholds.h2_max_cost_ratio") || t.H2MaxCostRatio > 0, "thresholds.h2_max_cost_ratio", "%v: want a ratio above 0", t.H2MaxCostRatio)
	checkHypothesisDesigns(d, &t)
	if !d.Failed() {
		checkComplete(d, p)
	}
}

// checkComplete reports the settings every protocol must end up with (the
// mission's default protocol sets them all; a file can only clear them by
// writing an empty value).
func checkComplete(d *input.Decoder, p *Protocol) {
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
		d.Check(r.ok, r.field, "missing")
	}
	d.Check(p.Mutants.Catalogue != CatalogueDefault || p.Mutants.Mode != ModeExtend, "mutants.mode", "extend needs a catalogue file to add to the default catalogue")
}

// checkProfile checks the model profile: per agent of the mission, the
// rate of each slip it can make.
func checkProfile(d *input.Decoder, prof mission.Profile, spec *mission.Spec) {
	for _, a := range sortedKeys(prof) {
		path := input.Join("profile", string(a))
		if !spec.HasAgent(a) {
			d.Unknown(path, "agent", string(a), agentNames(spec))
			continue
		}
		for _, sl := range sortedKeys(prof[a]) {
			sp := input.Join(path, string(sl))
			if !spec.HasSlip(a, sl) {
				if slips := slipNames(spec, a); len(slips) > 0 {
					d.Unknown(sp, "slip", string(sl), slips)
				} else {
					d.Errorf(sp, "unknown slip %s: %s makes no slips", input.Quote(string(sl)), a)
				}
				continue
			}
			checkProb(d, sp, prof[a][sl])
		}
	}
}

// checkFaults checks the fault rates: per tool of the mission ("*" for
// every tool, "transport" for hand-offs), the rate of each fault kind.
func checkFaults(d *input.Decoder, faults sandbox.FaultRates, spec *mission.Spec) {
	tools := []string{"*", "transport"}
	for _, t := range spec.Tools.Tools() {
		tools = append(tools, t.Name)
	}
	kinds := make([]string, len(sandbox.AllFaultKinds))
	for i, k := range sandbox.AllFaultKinds {
		kinds[i] = string(k)
	}
	for _, tool := range sortedKeys(faults) {
		path := input.Join("faults", tool)
		if !d.OneOf(path, "tool", tool, tools) {
			continue
		}
		for _, k := range sortedKeys(faults[tool]) {
			kp := input.Join(path, string(k))
			switch {
			case !d.OneOf(kp, "fault kind", string(k), kinds):
			case tool == "transport" && k != sandbox.Redelivery:
				d.Errorf(kp, "transport has only %s", sandbox.Redelivery)
			case tool != "transport" && k == sandbox.Redelivery:
				d.Errorf(kp, "%s applies to the transport only (faults.transport.%s)", k, k)
			default:
				checkProb(d, kp, faults[tool][k])
			}
		}
	}
}

func checkProb(d *input.Decoder, path string, v float64) {
	d.Check(v >= 0 && v <= 1, path, "%v: want a probability in [0, 1]", v)
}

// peekMission returns the protocol's mission.name and where it is, or ""
// when it names none (or is not YAML the decoder will read; it reports
// that).
func peekMission(file string, data []byte) (string, input.Pos) {
	var head struct {
		Mission struct {
			Name string `yaml:"name"`
		} `yaml:"mission"`
	}
	d := input.NewDecoder(file, input.Options{Kind: "protocol", Limits: input.Limits{Bytes: MaxProtocolBytes}})
	root := d.Parse(data)
	if root == nil {
		return "", input.Pos{}
	}
	for i := 0; root.Kind == yaml.MappingNode && i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "mission" {
			d.DecodeNode(root.Content[i+1], "mission", &head.Mission)
			return head.Mission.Name, d.Pos("mission.name")
		}
	}
	return "", input.Pos{}
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

func validName(s string) bool { return nameRE.MatchString(s) }

func agentNames(spec *mission.Spec) []string {
	var s []string
	for _, a := range spec.AgentNames() {
		s = append(s, string(a))
	}
	return s
}

func slipNames(spec *mission.Spec, agent mission.Agent) []string {
	as, _ := spec.Agent(agent)
	var s []string
	for _, x := range as.Slips {
		s = append(s, string(x))
	}
	return s
}

func classNames() []string {
	s := make([]string, len(mutants.AllClasses))
	for i, c := range mutants.AllClasses {
		s[i] = string(c)
	}
	return s
}

func levelNames() []string {
	s := make([]string, len(contracts.AllLevels))
	for i, l := range contracts.AllLevels {
		s[i] = l.String()
	}
	return s
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// parentField returns the enclosing field of a path: "a.b[2]" -> "a.b",
// "a.b" -> "a", "a" -> "".
func parentField(f string) string { return input.Parent(f) }
