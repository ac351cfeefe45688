package invoice

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/baton-lab/baton/mission"
)

// Families.

var (
	familyVarRe      = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	familyRefRe      = regexp.MustCompile(`\$\{([^}]*)\}`)
	familyWholeRefRe = regexp.MustCompile(`^\$\{[^}]*\}$`)
)

func (p *scenarioParser) family(n *yaml.Node, path string) []*mission.Scenario {
	n = yamlDeref(n)
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, path, "want a mapping, got %s", yamlKindName(n))
		return nil
	}
	var name string
	var tmpl, members *yaml.Node
	p.mapping(n, func(key, val *yaml.Node) {
		val = yamlDeref(val)
		switch key.Value {
		case "name":
			if val.Kind != yaml.ScalarNode || !familyVarRe.MatchString(strings.ReplaceAll(val.Value, "-", "_")) {
				p.errorf(val.Line, path+".name", "want a name like typical-po, got %s", yamlKindName(val))
			}
			name = val.Value
		case "doc":
			if val.Kind != yaml.ScalarNode {
				p.errorf(val.Line, path+".doc", "want a string, got %s", yamlKindName(val))
			}
		case "template":
			tmpl = val
		case "members":
			members = val
		default:
			p.errorf(key.Line, path+"."+key.Value, "unknown field (want name, doc, template, members)")
		}
	}, path, "")
	if name == "" {
		p.errorf(n.Line, path+".name", "missing required field")
	}
	if tmpl == nil || tmpl.Kind != yaml.MappingNode {
		line := n.Line
		if tmpl != nil {
			line = tmpl.Line
		}
		p.errorf(line, path+".template", "want a scenario mapping")
	}
	if members == nil || members.Kind != yaml.SequenceNode || len(members.Content) == 0 {
		line := n.Line
		if members != nil {
			line = members.Line
		}
		p.errorf(line, path+".members", "want a non-empty list of variable mappings")
	}
	if len(p.errs) > 0 {
		return nil
	}
	label := path
	if name != "" {
		label = "family " + name
	}
	var out []*mission.Scenario
	for i, m := range members.Content {
		if p.full() {
			break
		}
		m = yamlDeref(m)
		mpath := fmt.Sprintf("%s.members[%d]", path, i)
		vars, ok := p.memberVars(m, mpath)
		if !ok {
			continue
		}
		from := fmt.Sprintf(" (%s member %s at %s:%d)", label, vars["id"], p.file, m.Line)
		used := map[string]bool{}
		inst, ok := p.instantiate(tmpl, vars, used, mpath, from)
		if !ok {
			continue
		}
		for _, k := range sortedVarNames(vars) {
			if !used[k] {
				p.errorf(m.Line, mpath+"."+k, "variable not used by the template")
			}
		}
		if sc := p.scenario(inst, mpath, m.Line, from); sc != nil {
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

func (p *scenarioParser) memberVars(m *yaml.Node, path string) (map[string]string, bool) {
	if m.Kind != yaml.MappingNode {
		p.errorf(m.Line, path, "want a mapping of variables, got %s", yamlKindName(m))
		return nil, false
	}
	vars := map[string]string{}
	ok := true
	p.mapping(m, func(key, val *yaml.Node) {
		val = yamlDeref(val)
		switch {
		case !familyVarRe.MatchString(key.Value):
			p.errorf(key.Line, path+"."+key.Value, "variable names are lower_snake_case")
			ok = false
		case val.Kind != yaml.ScalarNode:
			p.errorf(val.Line, path+"."+key.Value, "want a scalar, got %s", yamlKindName(val))
			ok = false
		default:
			vars[key.Value] = val.Value
		}
	}, path, "")
	if vars["id"] == "" && ok {
		p.errorf(m.Line, path+".id", "missing required variable")
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
		n = yamlDeref(n)
		p.budget++
		if p.budget > scenarioMaxNodes || depth > 200 {
			if ok {
				p.errorf(n.Line, path, "template too large%s", from)
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
			p.errorf(n.Line, path, "template refers to ${%s}, which the member does not set%s", name, from)
			*ok = false
			return ref
		}
		used[name] = true
		return v
	})
	if *ok && strings.Contains(s, "${") {
		p.errorf(n.Line, path, "unterminated ${ in template%s", from)
		*ok = false
	}
	return s
}

// Validation.
