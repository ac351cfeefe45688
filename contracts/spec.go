package contracts

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// spec is one contract file as written, before compilation.
type spec struct {
	file        string
	edge        string
	kind        string
	version     string
	owner       string
	description string
	perItem     string // "one" or "many"
	closed      bool
	key         keyTemplate
	keySource   string
	escValues   []string
	escRef      []string
	constants   []constant
	fields      []*fieldSpec
	rules       []*ruleSpec
	line        map[string]int // line of each top-level key
}

// constant is a named value rules may read.
type constant struct {
	name  string
	value any
	line  int
}

// fieldSpec is one payload field (or a nested field, or an array's items).
type fieldSpec struct {
	name       string
	line       int
	typ        string
	required   bool
	nullable   bool
	allowEmpty bool
	enum       []any
	format     string
	pattern    string
	minimum    *float64
	maximum    *float64
	exclMin    *float64
	exclMax    *float64
	minLength  *int
	maxLength  *int
	minItems   *int
	maxItems   *int
	items      *fieldSpec
	fields     []*fieldSpec
	doc        string
}

// child returns the declared nested field called name.
func (f *fieldSpec) child(name string) (*fieldSpec, bool) {
	for _, c := range f.fields {
		if c.name == name {
			return c, true
		}
	}
	return nil, false
}

// ruleSpec is one CEL rule as written.
type ruleSpec struct {
	id       string
	level    Level
	expr     string
	message  string
	field    string
	line     int
	exprLine int
	block    bool // expr written as a block scalar: its text starts on the next line
}

// The field types a contract may declare.
var fieldTypes = []string{"string", "number", "integer", "boolean", "array", "object", "any"}

// The string formats a field may declare (checked by the JSON Schema
// validator with format assertion on).
var fieldFormats = []string{"date", "date-time", "time", "duration", "email", "hostname", "ipv4", "ipv6", "uri", "uri-reference", "uuid", "regex"}

var (
	identRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	ruleIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	yamlLine = regexp.MustCompile(`line (\d+)`)
)

// decoder walks a YAML node tree, strictly, naming file and line in errors.
type decoder struct{ file string }

func (d decoder) errf(n *yaml.Node, path, format string, args ...any) error {
	line := 1
	if n != nil && n.Line > 0 {
		line = n.Line
	}
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	return fmt.Errorf("%s:%d: %s", d.file, line, msg)
}

// parseSpec reads one contract file.
func parseSpec(file string, src []byte) (*spec, error) {
	d := decoder{file: file}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		line := 1
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = yamlLine.ReplaceAllString(msg, "")
		msg = strings.TrimLeft(msg, ": ")
		return nil, fmt.Errorf("%s:%d: invalid YAML: %s", file, line, msg)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, d.errf(&doc, "", "empty contract")
	}
	root := doc.Content[0]
	s := &spec{file: file, perItem: "one", line: map[string]int{}}
	var (
		haveKey, haveEsc bool
	)
	err := d.mapping(root, "", func(key string, k, v *yaml.Node) error {
		s.line[key] = k.Line
		var err error
		switch key {
		case "edge":
			if s.edge, err = d.str(v, key); err == nil {
				from, to, ok := strings.Cut(s.edge, "->")
				if !ok || strings.TrimSpace(from) == "" || strings.TrimSpace(to) == "" || strings.TrimSpace(from) != from || strings.TrimSpace(to) != to {
					err = d.errf(v, key, "%q: want from->to", s.edge)
				}
			}
		case "kind":
			s.kind, err = d.str(v, key)
		case "version":
			s.version, err = d.str(v, key)
		case "owner":
			s.owner, err = d.str(v, key)
		case "description":
			s.description, err = d.anyStr(v, key)
		case "per_item":
			if s.perItem, err = d.str(v, key); err == nil && s.perItem != "one" && s.perItem != "many" {
				err = d.errf(v, key, "%q: want one or many", s.perItem)
			}
		case "closed":
			s.closed, err = d.boolean(v, key)
		case "idempotency":
			haveKey = true
			err = d.mapping(v, key, func(k2 string, kn, vn *yaml.Node) error {
				switch k2 {
				case "key":
					src, err := d.str(vn, key+".key")
					if err != nil {
						return err
					}
					t, err := parseKeyTemplate(src)
					if err != nil {
						return d.errf(vn, key+".key", "%v", err)
					}
					s.key, s.keySource = t, src
					return nil
				}
				return d.errf(kn, key, "unknown key %q (want key)", k2)
			})
		case "escalation":
			haveEsc = true
			err = d.mapping(v, key, func(k2 string, kn, vn *yaml.Node) error {
				var err error
				switch k2 {
				case "values":
					s.escValues, err = d.strList(vn, key+".values")
				case "ref_required":
					s.escRef, err = d.strList(vn, key+".ref_required")
				default:
					err = d.errf(kn, key, "unknown key %q (want values, ref_required)", k2)
				}
				return err
			})
		case "constants":
			err = d.mapping(v, key, func(name string, kn, vn *yaml.Node) error {
				if !identRE.MatchString(name) {
					return d.errf(kn, key, "%q is not an identifier", name)
				}
				if reservedName(name) {
					return d.errf(kn, key+"."+name, "name is taken by an envelope variable or a helper")
				}
				val, err := d.value(vn, key+"."+name)
				if err != nil {
					return err
				}
				s.constants = append(s.constants, constant{name: name, value: val, line: kn.Line})
				return nil
			})
		case "fields":
			s.fields, err = d.fieldMap(v, key)
		case "rules":
			s.rules, err = d.rules(v, key)
		default:
			err = d.errf(k, "", "unknown key %q (want edge, kind, version, owner, description, per_item, closed, idempotency, escalation, constants, fields, rules)", key)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, req := range []struct{ name, val string }{{"edge", s.edge}, {"kind", s.kind}, {"version", s.version}, {"owner", s.owner}} {
		if req.val == "" {
			line := s.line[req.name]
			if line == 0 {
				line = root.Line
			}
			return nil, fmt.Errorf("%s:%d: %s: required, non-empty", file, line, req.name)
		}
	}
	if !haveKey {
		s.key, _ = parseKeyTemplate(defaultKeyTemplate)
		s.keySource = defaultKeyTemplate
	}
	if !haveEsc || s.escValues == nil {
		s.escValues = slices.Clone(defaultEscalationValues)
		if !haveEsc {
			s.escRef = []string{"escalated"}
		}
	}
	if len(s.escValues) == 0 {
		return nil, fmt.Errorf("%s:%d: escalation.values: empty", file, s.line["escalation"])
	}
	for _, r := range s.escRef {
		if !slices.Contains(s.escValues, r) {
			return nil, fmt.Errorf("%s:%d: escalation.ref_required: %q is not one of the values %v", file, s.line["escalation"], r, s.escValues)
		}
	}
	return s, nil
}

// The defaults for optional contract keys.
const defaultKeyTemplate = "{item}:{kind}"

var defaultEscalationValues = []string{"none", "requested", "escalated"}

// mapping calls fn for each key of a mapping node, in order, rejecting
// duplicate keys and non-string keys.
func (d decoder) mapping(n *yaml.Node, path string, fn func(key string, k, v *yaml.Node) error) error {
	if n.Kind == yaml.AliasNode {
		return d.errf(n, path, "aliases are not supported")
	}
	if n.Kind != yaml.MappingNode {
		return d.errf(n, path, "want a mapping, got %s", nodeKind(n))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
			return d.errf(k, path, "want a plain key")
		}
		if seen[k.Value] {
			return d.errf(k, path, "duplicate key %q", k.Value)
		}
		seen[k.Value] = true
		if v.Kind == yaml.AliasNode {
			return d.errf(v, join(path, k.Value), "aliases are not supported")
		}
		if err := fn(k.Value, k, v); err != nil {
			return err
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}

// str reads a non-empty string scalar.
func (d decoder) str(n *yaml.Node, path string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return "", d.errf(n, path, "want a string, got %s", nodeKind(n))
	}
	if n.Value == "" {
		return "", d.errf(n, path, "empty")
	}
	return n.Value, nil
}

// anyStr reads a string scalar that may be empty.
func (d decoder) anyStr(n *yaml.Node, path string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return "", d.errf(n, path, "want a string, got %s", nodeKind(n))
	}
	return n.Value, nil
}

func (d decoder) boolean(n *yaml.Node, path string) (bool, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		return false, d.errf(n, path, "want true or false, got %s", nodeKind(n))
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		return false, d.errf(n, path, "%v", err)
	}
	return b, nil
}

func (d decoder) number(n *yaml.Node, path string) (*float64, error) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		return nil, d.errf(n, path, "want a number, got %s", nodeKind(n))
	}
	var f float64
	if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, d.errf(n, path, "want a finite number, got %s", nodeKind(n))
	}
	return &f, nil
}

func (d decoder) count(n *yaml.Node, path string) (*int, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return nil, d.errf(n, path, "want a whole number, got %s", nodeKind(n))
	}
	var i int
	if err := n.Decode(&i); err != nil || i < 0 {
		return nil, d.errf(n, path, "want a whole number >= 0, got %s", nodeKind(n))
	}
	return &i, nil
}

func (d decoder) strList(n *yaml.Node, path string) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, d.errf(n, path, "want a list of strings, got %s", nodeKind(n))
	}
	out := []string{}
	for _, c := range n.Content {
		s, err := d.str(c, path)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, s) {
			return nil, d.errf(c, path, "duplicate %q", s)
		}
		out = append(out, s)
	}
	return out, nil
}

// value reads a JSON-like value: null, bool, number (as float64), string,
// list or string-keyed mapping.
func (d decoder) value(n *yaml.Node, path string) (any, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil, nil
		case "!!bool":
			return d.boolean(n, path)
		case "!!int", "!!float":
			f, err := d.number(n, path)
			if err != nil {
				return nil, err
			}
			return *f, nil
		case "!!str":
			return n.Value, nil
		}
		return nil, d.errf(n, path, "unsupported value %s (tag %s)", nodeKind(n), n.Tag)
	case yaml.SequenceNode:
		out := []any{}
		for i, c := range n.Content {
			v, err := d.value(c, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := map[string]any{}
		err := d.mapping(n, path, func(key string, _, v *yaml.Node) error {
			val, err := d.value(v, join(path, key))
			out[key] = val
			return err
		})
		return out, err
	}
	return nil, d.errf(n, path, "unsupported value %s", nodeKind(n))
}

// fieldMap reads a mapping of field name to field spec, in order.
func (d decoder) fieldMap(n *yaml.Node, path string) ([]*fieldSpec, error) {
	var out []*fieldSpec
	err := d.mapping(n, path, func(name string, k, v *yaml.Node) error {
		if !identRE.MatchString(name) {
			return d.errf(k, path, "field name %q: want letters, digits and _", name)
		}
		f, err := d.field(v, join(path, name))
		if err != nil {
			return err
		}
		f.name, f.line = name, k.Line
		out = append(out, f)
		return nil
	})
	return out, err
}

// field reads one field spec and checks that its keys fit its type.
func (d decoder) field(n *yaml.Node, path string) (*fieldSpec, error) {
	f := &fieldSpec{line: n.Line}
	keyNodes := map[string]*yaml.Node{}
	err := d.mapping(n, path, func(key string, k, v *yaml.Node) error {
		keyNodes[key] = k
		p := join(path, key)
		var err error
		switch key {
		case "type":
			if f.typ, err = d.str(v, p); err == nil && !slices.Contains(fieldTypes, f.typ) {
				err = d.errf(v, p, "unknown type %q (want %s)", f.typ, strings.Join(fieldTypes, ", "))
			}
		case "required":
			f.required, err = d.boolean(v, p)
		case "nullable":
			f.nullable, err = d.boolean(v, p)
		case "allow_empty":
			f.allowEmpty, err = d.boolean(v, p)
		case "description":
			f.doc, err = d.anyStr(v, p)
		case "enum":
			var val any
			if val, err = d.value(v, p); err == nil {
				list, ok := val.([]any)
				if !ok || len(list) == 0 {
					err = d.errf(v, p, "want a non-empty list")
				}
				f.enum = list
			}
		case "format":
			if f.format, err = d.str(v, p); err == nil && !slices.Contains(fieldFormats, f.format) {
				err = d.errf(v, p, "unknown format %q (want %s)", f.format, strings.Join(fieldFormats, ", "))
			}
		case "pattern":
			if f.pattern, err = d.str(v, p); err == nil {
				if _, rerr := regexp.Compile(f.pattern); rerr != nil {
					err = d.errf(v, p, "%v", rerr)
				}
			}
		case "minimum":
			f.minimum, err = d.number(v, p)
		case "maximum":
			f.maximum, err = d.number(v, p)
		case "exclusive_minimum":
			f.exclMin, err = d.number(v, p)
		case "exclusive_maximum":
			f.exclMax, err = d.number(v, p)
		case "min_length":
			f.minLength, err = d.count(v, p)
		case "max_length":
			f.maxLength, err = d.count(v, p)
		case "min_items":
			f.minItems, err = d.count(v, p)
		case "max_items":
			f.maxItems, err = d.count(v, p)
		case "items":
			f.items, err = d.field(v, p)
		case "fields":
			f.fields, err = d.fieldMap(v, p)
		default:
			err = d.errf(k, path, "unknown key %q", key)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if f.typ == "" {
		return nil, d.errf(n, path, "type: required")
	}
	// Keys that only make sense for some types.
	allowed := map[string][]string{
		"allow_empty":       {"string"},
		"format":            {"string"},
		"pattern":           {"string"},
		"min_length":        {"string"},
		"max_length":        {"string"},
		"minimum":           {"number", "integer"},
		"maximum":           {"number", "integer"},
		"exclusive_minimum": {"number", "integer"},
		"exclusive_maximum": {"number", "integer"},
		"min_items":         {"array"},
		"max_items":         {"array"},
		"items":             {"array"},
		"fields":            {"object"},
	}
	for key, types := range allowed {
		if k, ok := keyNodes[key]; ok && !slices.Contains(types, f.typ) {
			return nil, d.errf(k, join(path, key), "not allowed on type %s", f.typ)
		}
	}
	for i, e := range f.enum {
		if !enumFits(f.typ, e) {
			return nil, d.errf(keyNodes["enum"], join(path, "enum"), "value %d (%v) is not of type %s", i, e, f.typ)
		}
	}
	return f, nil
}

func enumFits(typ string, v any) bool {
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	case "boolean":
		_, ok := v.(bool)
		return ok
	}
	return true
}

// rules reads the list of CEL rules.
func (d decoder) rules(n *yaml.Node, path string) ([]*ruleSpec, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, d.errf(n, path, "want a list of rules, got %s", nodeKind(n))
	}
	var out []*ruleSpec
	ids := map[string]int{}
	for i, item := range n.Content {
		r := &ruleSpec{line: item.Line, level: LevelSemantic}
		p := fmt.Sprintf("%s[%d]", path, i)
		err := d.mapping(item, p, func(key string, k, v *yaml.Node) error {
			var err error
			switch key {
			case "id":
				if r.id, err = d.str(v, p+".id"); err == nil && !ruleIDRE.MatchString(r.id) {
					err = d.errf(v, p+".id", "%q: want lower-case letters, digits, '.', '_' and '-'", r.id)
				}
			case "level":
				var s string
				if s, err = d.str(v, p+".level"); err == nil {
					if r.level, err = ParseLevel(s); err != nil {
						err = d.errf(v, p+".level", "%v", err)
					}
				}
			case "expr":
				r.expr, err = d.str(v, p+".expr")
				r.exprLine = v.Line
				r.block = v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0
			case "message":
				r.message, err = d.str(v, p+".message")
			case "field":
				r.field, err = d.str(v, p+".field")
			default:
				err = d.errf(k, p, "unknown key %q (want id, level, expr, message, field)", key)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		switch {
		case r.id == "":
			return nil, d.errf(item, p, "id: required")
		case r.expr == "":
			return nil, d.errf(item, "rule "+r.id, "expr: required")
		case r.message == "":
			return nil, d.errf(item, "rule "+r.id, "message: required")
		}
		if prev, dup := ids[r.id]; dup {
			return nil, d.errf(item, "rule "+r.id, "duplicate id (first at line %d)", prev)
		}
		if isBuiltinRule(r.id) {
			return nil, d.errf(item, "rule "+r.id, "id is reserved for a built-in check")
		}
		ids[r.id] = item.Line
		out = append(out, r)
	}
	return out, nil
}
