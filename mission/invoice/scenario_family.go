package invoice

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/mission"
)

// Families.

var (
	familyVarRe      = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	familyRefRe      = regexp.MustCompile(`\$\{([^}]*)\}`)
	familyWholeRefRe = regexp.MustCompile(`^\$\{[^}]*\}$`)
)

// familyDoc is a family entry as written.
type familyDoc struct {
	Name     string                     `yaml:"name"`
	Doc      string                     `yaml:"doc"`
	Template yaml.Node                  `yaml:"template"`
	Members  []input.Ordered[yaml.Node] `yaml:"members"`
}

func (p *scenarioParser) family(n *yaml.Node, path string) []*mission.Scenario {
	before := p.d.Count()
	var f familyDoc
	p.d.DecodeNode(n, path, &f)
	if p.d.Count() > before {
		return nil
	}
	switch {
	case !p.d.Has(path + ".name"):
		p.d.Errorf(path+".name", "missing required field")
	case !familyVarRe.MatchString(strings.ReplaceAll(f.Name, "-", "_")):
		p.d.Errorf(path+".name", "want a name like typical-po, got %s", input.Quote(f.Name))
	}
	tmpl := input.Deref(&f.Template)
	if tmpl == nil || tmpl.Kind != yaml.MappingNode {
		p.d.Errorf(path+".template", "want a scenario mapping")
	}
	if len(f.Members) == 0 {
		p.d.Errorf(path+".members", "want a non-empty list of variable mappings")
	}
	if p.d.Count() > before {
		return nil
	}
	label := "family " + f.Name
	var out []*mission.Scenario
	for i, m := range f.Members {
		if p.d.Full() {
			break
		}
		mpath := input.Index(path+".members", i)
		vars, ok := p.memberVars(m, mpath)
		if !ok {
			continue
		}
		line := p.d.Pos(mpath).Line
		from := fmt.Sprintf("%s member %s at %s:%d", label, vars["id"], p.d.File(), line)
		used := map[string]bool{}
		inst, ok := p.instantiate(tmpl, vars, used, mpath, from)
		if !ok {
			continue
		}
		for _, k := range sortedVarNames(vars) {
			if !used[k] {
				p.d.Errorf(mpath+"."+k, "variable not used by the template")
			}
		}
		if sc := p.scenario(inst, mpath, line, from); sc != nil {
			out = append(out, sc)
		}
	}
	return out
}

func sortedVarNames[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// memberVars reads a member's variables: lower_snake_case names, scalar
// values, an id among them.
func (p *scenarioParser) memberVars(m input.Ordered[yaml.Node], path string) (map[string]string, bool) {
	vars := map[string]string{}
	ok := true
	for _, e := range m {
		val := input.Deref(&e.Value)
		switch {
		case !familyVarRe.MatchString(e.Key):
			p.d.Errorf(input.Join(path, e.Key), "variable names are lower_snake_case")
			ok = false
		case val == nil || val.Kind != yaml.ScalarNode:
			p.d.Errorf(input.Join(path, e.Key), "want a scalar, got %s", input.Describe(val))
			ok = false
		default:
			vars[e.Key] = val.Value
		}
	}
	if vars["id"] == "" && ok {
		p.d.Errorf(path+".id", "missing required variable")
		ok = false
	}
	return vars, ok
}

// instantiate returns a deep copy of template with ${name} replaced in every
// scalar value. Aliases are expanded into copies.
func (p *scenarioParser) instantiate(tmpl *yaml.Node, vars map[string]string, used map[string]bool, path, from string) (*yaml.Node, bool) {
	ok := true
	var walk func(n *yaml.Node, depth int) *yaml.Node
	walk = func(n *yaml.Node, depth int) *yaml.Node {
		n = input.Deref(n)
		if n == nil {
			n = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
		}
		p.copies++
		if p.copies > input.DefaultMaxValues || depth > 200 {
			if ok {
				p.d.Errorf(path, "template too large (more than %d values once members are expanded)", input.DefaultMaxValues)
			}
			ok = false
			return n
		}
		c := *n
		c.Anchor = ""
		if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "${") {
			c.Value = p.substitute(n, vars, used, path, from, &ok)
			whole := familyWholeRefRe.MatchString(n.Value)
			if whole && n.Style&yaml.TaggedStyle == 0 {
				// "${qty}" stands for the variable's value, whose type is
				// resolved afresh (quotes are only there for flow syntax).
				c.Style &^= yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle
			}
			if c.Style&(yaml.TaggedStyle|yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
				c.Tag = "" // resolve the substituted text afresh: 40 is a number
			}
		}
		if len(n.Content) > 0 {
			c.Content = make([]*yaml.Node, len(n.Content))
			for i, ch := range n.Content {
				if n.Kind == yaml.MappingNode && i%2 == 0 {
					c.Content[i] = ch // keys are not templated
					continue
				}
				c.Content[i] = walk(ch, depth+1)
			}
		}
		return &c
	}
	out := walk(tmpl, 0)
	return out, ok
}

func (p *scenarioParser) substitute(n *yaml.Node, vars map[string]string, used map[string]bool, path, from string, ok *bool) string {
	s := familyRefRe.ReplaceAllStringFunc(n.Value, func(ref string) string {
		name := ref[2 : len(ref)-1]
		v, found := vars[name]
		if !found {
			p.errorAt(n, path, from, "template refers to ${%s}, which the member does not set", name)
			*ok = false
			return ref
		}
		used[name] = true
		return v
	})
	if *ok && strings.Contains(s, "${") {
		p.errorAt(n, path, from, "unterminated ${ in template")
		*ok = false
	}
	return s
}

// errorAt records a problem at a template node, for a member.
func (p *scenarioParser) errorAt(n *yaml.Node, path, from, format string, args ...any) {
	p.d.Add(&input.Error{File: p.d.File(), Pos: input.Pos{Line: n.Line, Column: n.Column}, Field: path, Problem: fmt.Sprintf(format, args...), Note: from})
}
