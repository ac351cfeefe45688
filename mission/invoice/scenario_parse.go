package invoice

import (
	"bytes"
	"cmp"
	"encoding"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/baton-lab/baton/mission"
)

// scenarioMaxErrors bounds the problems reported for one file.
const scenarioMaxErrors = 20

// scenarioMaxNodes bounds the YAML nodes a file may expand to (aliases, families).
const scenarioMaxNodes = 200000

// scenarioParser parses one scenario file, collecting problems.
type scenarioParser struct {
	file string
	errs []error
	ids  map[string]int // id -> line of first definition
	seen map[yamlShapeKey]bool
	// budget counts nodes visited, against scenarioMaxNodes.
	budget int
}

type yamlShapeKey struct {
	n *yaml.Node
	t reflect.Type
}

func (p *scenarioParser) errorf(line int, field, format string, args ...any) {
	if len(p.errs) < scenarioMaxErrors {
		p.errs = append(p.errs, &mission.ScenarioError{File: p.file, Line: line, Field: field, Problem: fmt.Sprintf(format, args...)})
	}
}

func (p *scenarioParser) err() error { return errors.Join(p.errs...) }

func (p *scenarioParser) full() bool { return len(p.errs) >= scenarioMaxErrors }

func (p *scenarioParser) parse(data []byte) []*mission.Scenario {
	p.ids = map[string]int{}
	p.seen = map[yamlShapeKey]bool{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.errorf(1, "scenarios", "file is empty")
		} else {
			p.errorf(yamlErrLine(err), "yaml", "%s", yamlErrText(err))
		}
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		line := extra.Line
		if err != nil {
			line = yamlErrLine(err)
		}
		p.errorf(line, "yaml", "want one YAML document per file")
		return nil
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	root = yamlDeref(root)
	if root.Kind != yaml.MappingNode {
		p.errorf(root.Line, "scenarios", "want a mapping with key scenarios, got %s", yamlKindName(root))
		return nil
	}
	var entries *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "defs":
		case "scenarios":
			entries = yamlDeref(v)
		default:
			p.errorf(k.Line, k.Value, "unknown key (want defs or scenarios)")
		}
	}
	if entries == nil {
		p.errorf(root.Line, "scenarios", "missing")
		return nil
	}
	if entries.Kind != yaml.SequenceNode {
		p.errorf(entries.Line, "scenarios", "want a list, got %s", yamlKindName(entries))
		return nil
	}
	if len(entries.Content) == 0 {
		p.errorf(entries.Line, "scenarios", "empty list")
	}
	var out []*mission.Scenario
	for i, e := range entries.Content {
		if p.full() {
			break
		}
		e = yamlDeref(e)
		path := fmt.Sprintf("scenarios[%d]", i)
		if fam := yamlMapValue(e, "family"); fam != nil {
			if len(e.Content) != 2 {
				p.errorf(e.Line, path, "a family entry has the single key family")
				continue
			}
			out = append(out, p.family(fam, path+".family")...)
			continue
		}
		if sc := p.scenario(e, path, e.Line, ""); sc != nil {
			out = append(out, sc)
		}
	}
	if len(p.errs) > 0 {
		return nil
	}
	return out
}

var yamlLineRe = regexp.MustCompile(`line (\d+)`)

func yamlErrLine(err error) int {
	if m := yamlLineRe.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

func yamlErrText(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	s = strings.ReplaceAll(s, "\n", " ")
	return s
}

// yamlDeref follows aliases (yaml rejects cyclic anchors, but bound the walk).
func yamlDeref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	return n
}

func yamlKindName(n *yaml.Node) string {
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
	case yaml.AliasNode:
		return "an alias"
	}
	return "a document"
}

// yamlMapValue returns the value of key in mapping n (merges included), or nil.
func yamlMapValue(n *yaml.Node, key string) *yaml.Node {
	var seen map[*yaml.Node]bool
	return yamlMapValueSeen(n, key, &seen)
}

// yamlMapValueSeen looks key up in n and then in what n merges, visiting
// each mapping once: yaml lets an anchor merge into itself, which Decode
// reports but a walk must survive.
func yamlMapValueSeen(n *yaml.Node, key string, seen *map[*yaml.Node]bool) *yaml.Node {
	n = yamlDeref(n)
	if n.Kind != yaml.MappingNode || (*seen)[n] {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i].ShortTag() != "!!merge" {
			return n.Content[i+1]
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].ShortTag() != "!!merge" {
			continue
		}
		if *seen == nil {
			*seen = map[*yaml.Node]bool{}
		}
		(*seen)[n] = true
		for _, m := range yamlMergeSources(n.Content[i+1]) {
			if v := yamlMapValueSeen(m, key, seen); v != nil {
				return v
			}
		}
	}
	return nil
}

func yamlMergeSources(v *yaml.Node) []*yaml.Node {
	v = yamlDeref(v)
	if v.Kind == yaml.SequenceNode {
		return v.Content
	}
	return []*yaml.Node{v}
}

// scenario checks, decodes and validates one scenario mapping. from, when
// set, names the family member it was expanded from.
func (p *scenarioParser) scenario(n *yaml.Node, path string, srcLine int, from string) *mission.Scenario {
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, path, "want a scenario mapping, got %s", yamlKindName(n))
		return nil
	}
	label := path
	if id := yamlDeref(yamlMapValue(n, "id")); id.Kind == yaml.ScalarNode && validScenarioID(id.Value) {
		label = id.Value
	}
	errs := len(p.errs)
	for _, req := range []string{"id", "category", "emails", "expect"} {
		if yamlMapValue(n, req) == nil {
			p.errorf(n.Line, label+"."+req, "missing required field%s", from)
		}
	}
	p.shape(n, reflect.TypeFor[scenarioDoc](), label, from)
	if len(p.errs) > errs {
		return nil
	}
	var sc scenarioDoc
	if err := n.Decode(&sc); err != nil {
		p.errorf(cmp.Or(yamlErrLine(err), n.Line), label, "%s%s", yamlErrText(err), from)
		return nil
	}
	sc.Source = fmt.Sprintf("%s:%d", p.file, srcLine)
	v := &scenarioValidator{p: p, loc: n, label: sc.ID, from: from}
	v.scenario(&sc)
	if len(p.errs) > errs {
		return nil
	}
	if first, ok := p.ids[sc.ID]; ok {
		p.errorf(srcLine, sc.ID+".id", "duplicate id (first at %s:%d)%s", p.file, first, from)
		return nil
	}
	p.ids[sc.ID] = srcLine
	return sc.scenario()
}

var textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()

// shape checks that node n can be decoded into type t: known keys only, the
// right kind of node, numbers where numbers are wanted. It reports the first
// problem under each field.
func (p *scenarioParser) shape(n *yaml.Node, t reflect.Type, path, from string) {
	if p.full() {
		return
	}
	p.budget++
	if p.budget > scenarioMaxNodes {
		p.errorf(n.Line, path, "document too large (more than %d nodes)", scenarioMaxNodes)
		return
	}
	if n.Kind == yaml.AliasNode {
		n = yamlDeref(n)
	}
	k := yamlShapeKey{n, t}
	if p.seen[k] {
		return
	}
	p.seen[k] = true
	isNull := n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
	if t.Kind() == reflect.Pointer {
		if isNull {
			return
		}
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		if n.Kind != yaml.ScalarNode {
			p.errorf(n.Line, path, "want a string, got %s%s", yamlKindName(n), from)
		}
		return
	}
	want := func(what string) {
		p.errorf(n.Line, path, "want %s, got %s%s", what, yamlKindName(n), from)
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			want("a mapping")
			return
		}
		fields := yamlFields(t)
		p.mapping(n, func(key, val *yaml.Node) {
			f, ok := fields[key.Value]
			if !ok {
				p.errorf(key.Line, path+"."+key.Value, "unknown field%s", from)
				return
			}
			p.shape(val, f.Type, path+"."+key.Value, from)
		}, path, from)
	case reflect.Map:
		if isNull {
			return
		}
		if n.Kind != yaml.MappingNode {
			want("a mapping")
			return
		}
		p.mapping(n, func(key, val *yaml.Node) {
			p.shape(val, t.Elem(), path+"."+key.Value, from)
		}, path, from)
	case reflect.Slice:
		if isNull {
			return
		}
		if t.Elem().Kind() == reflect.Uint8 {
			if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!binary" {
				want("!!binary data")
			}
			return
		}
		if n.Kind != yaml.SequenceNode {
			want("a list")
			return
		}
		for i, c := range n.Content {
			p.shape(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i), from)
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			want("a string")
		}
	case reflect.Float32, reflect.Float64:
		if tag := n.ShortTag(); n.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") {
			want("a number")
		} else if f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err == nil && (math.IsInf(f, 0) || math.IsNaN(f)) {
			want("a finite number")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			want("an integer")
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			want("true or false")
		}
	case reflect.Interface:
		// Any value.
	default:
		p.errorf(n.Line, path, "cannot be set in YAML%s", from)
	}
}

// mapping calls fn for every key of n, merges included, and rejects
// non-scalar keys.
func (p *scenarioParser) mapping(n *yaml.Node, fn func(key, val *yaml.Node), path, from string) {
	p.mappingSeen(n, fn, path, from, map[*yaml.Node]bool{})
}

// mappingSeen walks n and what it merges, each mapping once.
func (p *scenarioParser) mappingSeen(n *yaml.Node, fn func(key, val *yaml.Node), path, from string, seen map[*yaml.Node]bool) {
	if seen[n] {
		return
	}
	seen[n] = true
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		if key.ShortTag() == "!!merge" {
			for _, m := range yamlMergeSources(val) {
				if m = yamlDeref(m); m.Kind != yaml.MappingNode {
					p.errorf(m.Line, path+".<<", "want a mapping to merge, got %s%s", yamlKindName(m), from)
					continue
				}
				p.mappingSeen(m, fn, path, from, seen)
			}
			continue
		}
		if key.Kind != yaml.ScalarNode {
			p.errorf(key.Line, path, "want a string key, got %s%s", yamlKindName(key), from)
			continue
		}
		fn(key, val)
	}
}

var yamlFieldCache sync.Map // reflect.Type -> map[string]reflect.StructField

// yamlFields maps the YAML keys of struct t to its fields, as yaml.v3 names
// them (tag name, else the lowercased field name).
func yamlFields(t reflect.Type) map[string]reflect.StructField {
	if m, ok := yamlFieldCache.Load(t); ok {
		return m.(map[string]reflect.StructField)
	}
	m := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := strings.ToLower(f.Name)
		if tag, ok := f.Tag.Lookup("yaml"); ok {
			tn, _, _ := strings.Cut(tag, ",")
			if tn == "-" {
				continue
			}
			if tn != "" {
				name = tn
			}
		}
		m[name] = f
	}
	yamlFieldCache.Store(t, m)
	return m
}
