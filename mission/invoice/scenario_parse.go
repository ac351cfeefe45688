package invoice

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/mission"
)

// Bounds on a scenario file, far above what a real suite needs (the
// largest default file is 21 KB with 12 scenarios).
const (
	// MaxScenarioFileBytes bounds a scenario file's size.
	MaxScenarioFileBytes = mission.MaxScenarioFileBytes
	// MaxScenariosPerFile bounds the scenarios one file yields, families
	// expanded.
	MaxScenariosPerFile = 1000
)

// scenarioParser parses one scenario file through the strict YAML layer,
// collecting problems.
type scenarioParser struct {
	d   *input.Decoder
	ids map[string]int // id -> line of first definition
	// copies counts the nodes family templates were copied into.
	copies int
}

func newScenarioParser(name string) *scenarioParser {
	return &scenarioParser{
		d:   input.NewDecoder(name, input.Options{Kind: "scenario file", Limits: input.Limits{Bytes: MaxScenarioFileBytes}, MaxErrors: 20}),
		ids: map[string]int{},
	}
}

func (p *scenarioParser) err() error { return p.d.Err() }

// scenarioFile is a scenario file's top level.
type scenarioFile struct {
	Defs      yaml.Node   `yaml:"defs"`      // free-form: a place for anchors
	Scenarios []yaml.Node `yaml:"scenarios"` // scenarios and families
}

func (p *scenarioParser) parse(data []byte) []*mission.Scenario {
	root := p.d.Parse(data)
	if root == nil {
		return nil
	}
	var f scenarioFile
	p.d.DecodeNode(root, "", &f)
	switch {
	case p.d.Failed():
		return nil
	case !p.d.Has("scenarios"):
		p.d.Errorf("scenarios", "missing")
		return nil
	case len(f.Scenarios) == 0:
		p.d.Errorf("scenarios", "empty list")
		return nil
	}
	var out []*mission.Scenario
	for i := range f.Scenarios {
		if p.d.Full() {
			break
		}
		e := input.Deref(&f.Scenarios[i])
		path := input.Index("scenarios", i)
		if fam := input.Lookup(e, "family"); fam != nil {
			if len(e.Content) != 2 {
				p.d.Errorf(path, "a family entry has the single key family")
				continue
			}
			out = append(out, p.family(fam, path+".family")...)
		} else if sc := p.scenario(e, path, e.Line, ""); sc != nil {
			out = append(out, sc)
		}
		if len(out) > MaxScenariosPerFile {
			p.d.Errorf(path, "more than %d scenarios in one file: split it", MaxScenariosPerFile)
			break
		}
	}
	if p.d.Failed() {
		return nil
	}
	return out
}

// scenario decodes and validates one scenario mapping, named by its id in
// errors. from, when set, names the family member it was expanded from.
func (p *scenarioParser) scenario(n *yaml.Node, path string, srcLine int, from string) *mission.Scenario {
	p.d.SetNote(from)
	defer p.d.SetNote("")
	if n == nil || n.Kind != yaml.MappingNode {
		p.d.Errorf(path, "want a scenario mapping, got %s", input.Describe(n))
		return nil
	}
	label := path
	if id := input.Deref(input.Lookup(n, "id")); id != nil && id.Kind == yaml.ScalarNode && validScenarioID(id.Value) {
		label = id.Value
	}
	before := p.d.Count()
	var sc scenarioDoc
	p.d.DecodeNode(n, label, &sc)
	for _, req := range []string{"id", "category", "emails", "expect"} {
		if !p.d.Has(label + "." + req) {
			p.d.Errorf(label+"."+req, "missing required field")
		}
	}
	if p.d.Count() > before {
		return nil
	}
	sc.Source = fmt.Sprintf("%s:%d", p.d.File(), srcLine)
	v := &scenarioValidator{d: p.d, label: sc.ID}
	v.scenario(&sc)
	if p.d.Count() > before {
		return nil
	}
	if first, ok := p.ids[sc.ID]; ok {
		p.d.Add(&input.Error{File: p.d.File(), Pos: input.Pos{Line: srcLine}, Field: sc.ID + ".id",
			Problem: fmt.Sprintf("duplicate id (first at %s:%d)", p.d.File(), first), Note: from})
		return nil
	}
	p.ids[sc.ID] = srcLine
	return sc.scenario()
}
