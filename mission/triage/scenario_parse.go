package triage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/mission"
)

// maxProblems bounds the problems reported for one file.
const maxProblems = 20

// parser reads one scenario file strictly, collecting problems: every key
// must be one the format has, every value of the right type, and every
// scenario valid (see validate).
type parser struct {
	file string
	errs []error
	seen map[strictKey]bool
}

type strictKey struct {
	n *yaml.Node
	t reflect.Type
}

func (p *parser) errorf(line int, field, format string, args ...any) {
	if len(p.errs) < maxProblems {
		p.errs = append(p.errs, &mission.ScenarioError{File: p.file, Pos: input.Pos{Line: line}, Field: field, Problem: fmt.Sprintf(format, args...)})
	}
}

func (p *parser) err() error { return errors.Join(p.errs...) }

// parseFile parses one file's scenarios, its problems joined.
func parseFile(name string, data []byte) (out []*mission.Scenario, err error) {
	p := &parser{file: name, seen: map[strictKey]bool{}}
	defer func() {
		if r := recover(); r != nil { // the YAML library must not take the process down
			out, err = nil, &mission.ScenarioError{File: name, Field: "yaml", Problem: fmt.Sprintf("invalid YAML: %v", r)}
		}
	}()
	out = p.parse(data)
	if err = p.err(); err != nil {
		return nil, err
	}
	return out, nil
}

var yamlLineRe = regexp.MustCompile(`line (\d+)`)

func yamlLine(msg string) int {
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

func (p *parser) parse(data []byte) []*mission.Scenario {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.errorf(1, "scenarios", "file is empty")
		} else {
			p.errorf(yamlLine(err.Error()), "yaml", "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
		return nil
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		p.errorf(max(more.Line, 1), "yaml", "want one YAML document per file")
		return nil
	}
	root := deref(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = deref(root.Content[0])
	}
	if root.Kind != yaml.MappingNode {
		p.errorf(root.Line, "scenarios", "want a mapping with key scenarios, got %s", kindName(root))
		return nil
	}
	var entries *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch k := root.Content[i]; k.Value {
		case "defs": // anchors for the scenarios to share
		case "scenarios":
			entries = deref(root.Content[i+1])
		default:
			p.errorf(k.Line, k.Value, "unknown key (want defs or scenarios)")
		}
	}
	switch {
	case entries == nil:
		p.errorf(root.Line, "scenarios", "missing")
		return nil
	case entries.Kind != yaml.SequenceNode:
		p.errorf(entries.Line, "scenarios", "want a list, got %s", kindName(entries))
		return nil
	case len(entries.Content) == 0:
		p.errorf(entries.Line, "scenarios", "empty list")
	}
	var out []*mission.Scenario
	ids := map[string]int{}
	for i, e := range entries.Content {
		e = deref(e)
		label := fmt.Sprintf("scenarios[%d]", i)
		if id := mapValue(e, "id"); id != nil && id.Value != "" {
			label = id.Value
		}
		var d scenarioDoc
		if !p.decode(e, &d, label) {
			continue
		}
		v := &validator{p: p, node: e, label: label, doc: &d}
		if !v.validate() {
			continue
		}
		if first, dup := ids[d.ID]; dup {
			p.errorf(v.line("id"), label+".id", "scenario id %q repeated (first on line %d)", d.ID, first)
			continue
		}
		ids[d.ID] = v.line("id")
		out = append(out, d.scenario(fmt.Sprintf("%s:%d", p.file, e.Line)))
	}
	return out
}

// decode checks n's keys against v's type and decodes it, reporting
// problems under label.
func (p *parser) decode(n *yaml.Node, v any, label string) bool {
	before := len(p.errs)
	p.strict(n, reflect.TypeOf(v).Elem(), label)
	if len(p.errs) > before {
		return false
	}
	if err := n.Decode(v); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			for _, m := range te.Errors {
				p.errorf(yamlLine(m), label, "%s", yamlLineRe.ReplaceAllString(m, "line $1"))
			}
		} else {
			p.errorf(n.Line, label, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
		return false
	}
	return true
}

// strict reports every mapping key of n that type t has no field for,
// following merges and aliases (each node and type once).
func (p *parser) strict(n *yaml.Node, t reflect.Type, path string) {
	n = deref(n)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	k := strictKey{n, t}
	if p.seen[k] {
		return
	}
	p.seen[k] = true
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			if key.ShortTag() == "!!merge" {
				p.strict(val, t, path)
				continue
			}
			f, ok := fieldByTag(t, key.Value)
			if !ok {
				p.errorf(key.Line, path+"."+key.Value, "unknown key (want %s)", strings.Join(tagNames(t), ", "))
				continue
			}
			p.strict(val, f.Type, path+"."+key.Value)
		}
	case t.Kind() == reflect.Struct && n.Kind == yaml.SequenceNode:
		for _, m := range n.Content { // a merge of several mappings
			p.strict(m, t, path)
		}
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for i, e := range n.Content {
			p.strict(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	}
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); tag == name && tag != "-" {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func tagNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	return out
}

// deref follows aliases (yaml rejects cyclic anchors; bound the walk).
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	return n
}

// mapValue returns the value of key in mapping n (merges included), or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	return mapValueSeen(n, key, map[*yaml.Node]bool{})
}

func mapValueSeen(n *yaml.Node, key string, seen map[*yaml.Node]bool) *yaml.Node {
	n = deref(n)
	if n.Kind != yaml.MappingNode || seen[n] {
		return nil
	}
	seen[n] = true
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i].ShortTag() != "!!merge" {
			return n.Content[i+1]
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].ShortTag() != "!!merge" {
			continue
		}
		src := deref(n.Content[i+1])
		srcs := []*yaml.Node{src}
		if src.Kind == yaml.SequenceNode {
			srcs = src.Content
		}
		for _, s := range srcs {
			if v := mapValueSeen(s, key, seen); v != nil {
				return v
			}
		}
	}
	return nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "null"
		}
		return fmt.Sprintf("%s %q", strings.TrimPrefix(n.ShortTag(), "!!"), n.Value)
	}
	return "a document"
}
