package input

import (
	"encoding"
	"encoding/base64"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

var (
	nodeType            = reflect.TypeFor[yaml.Node]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	orderedType         = reflect.TypeFor[orderedMap]()
)

func reflectPointer(v any) reflect.Value {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic(fmt.Sprintf("input: decode into %T, want a non-nil pointer", v))
	}
	return rv.Elem()
}

// decode decodes node n, at path, into v.
func (d *Decoder) decode(n *yaml.Node, path string, v reflect.Value) {
	if d.over {
		return
	}
	if d.values++; d.values > d.lim.Values {
		d.over = true
		d.errorAt(n, path, "more than %d values (aliases expanded): larger than %s may be", d.lim.Values, d.article())
		return
	}
	t := v.Type()
	if t == nodeType {
		v.Set(reflect.ValueOf(*n))
		return
	}
	n = deref(n)
	if n == nil {
		d.errorAt(nil, path, "alias to nothing")
		return
	}
	null := isNull(n)
	switch {
	case t.Kind() == reflect.Pointer:
		if null {
			v.SetZero()
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		d.decode(n, path, v.Elem())
		return
	case reflect.PointerTo(t).Implements(textUnmarshalerType) && t.Kind() != reflect.String:
		d.text(n, path, v)
		return
	case reflect.PointerTo(t).Implements(orderedType):
		d.ordered(n, path, v)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		d.structValue(n, path, v)
	case reflect.Map:
		d.mapValue(n, path, v)
	case reflect.Slice:
		d.sliceValue(n, path, v)
	case reflect.Interface:
		if t.NumMethod() > 0 {
			d.errorAt(n, path, "cannot be set in YAML")
			return
		}
		if x, ok := d.anyValue(n, path); ok && x != nil {
			v.Set(reflect.ValueOf(x))
		} else {
			v.SetZero()
		}
	default:
		d.scalar(n, path, v)
	}
}

// want records that n is not what path wants.
func (d *Decoder) want(n *yaml.Node, path, what string) {
	d.errorAt(n, path, "want %s, got %s", what, Describe(n))
}

func (d *Decoder) structValue(n *yaml.Node, path string, v reflect.Value) {
	if isNull(n) {
		return // an empty mapping: nothing changes
	}
	if n.Kind != yaml.MappingNode {
		d.want(n, path, "a mapping")
		return
	}
	info := fieldsOf(v.Type())
	d.entries(n, path, func(key string, k, val *yaml.Node) {
		p := Join(path, key)
		i, ok := info.index[key]
		if !ok {
			e := d.errorAt(k, p, "unknown field")
			e.Choices = info.keys
			if d.errs.Keeps(e) {
				e.Suggest = Suggest(key, info.keys)
			}
			return
		}
		d.at[p] = place{key: k, val: val}
		d.decode(val, p, v.Field(i))
	})
}

func (d *Decoder) mapValue(n *yaml.Node, path string, v reflect.Value) {
	t := v.Type()
	if isNull(n) {
		v.SetZero()
		return
	}
	if t.Key().Kind() != reflect.String {
		d.errorAt(n, path, "cannot be set in YAML (map keys are %s)", t.Key())
		return
	}
	if n.Kind != yaml.MappingNode {
		d.want(n, path, "a mapping")
		return
	}
	m := reflect.MakeMapWithSize(t, len(n.Content)/2)
	d.entries(n, path, func(key string, k, val *yaml.Node) {
		p := Join(path, key)
		d.at[p] = place{key: k, val: val}
		ev := reflect.New(t.Elem()).Elem()
		d.decode(val, p, ev)
		m.SetMapIndex(reflect.ValueOf(key).Convert(t.Key()), ev)
	})
	v.Set(m)
}

func (d *Decoder) sliceValue(n *yaml.Node, path string, v reflect.Value) {
	t := v.Type()
	if isNull(n) {
		v.SetZero()
		return
	}
	if t.Elem().Kind() == reflect.Uint8 {
		d.bytes(n, path, v)
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.want(n, path, "a list")
		return
	}
	s := reflect.MakeSlice(t, len(n.Content), len(n.Content))
	for i, e := range n.Content {
		p := Index(path, i)
		d.at[p] = place{val: e}
		d.decode(e, p, s.Index(i))
	}
	v.Set(s)
}

func (d *Decoder) bytes(n *yaml.Node, path string, v reflect.Value) {
	switch tag := n.ShortTag(); {
	case n.Kind == yaml.ScalarNode && tag == "!!binary":
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(n.Value), ""))
		if err != nil {
			d.errorAt(n, path, "bad !!binary data: %v", err)
			return
		}
		v.SetBytes(b)
	case n.Kind == yaml.ScalarNode && tag == "!!str":
		v.SetBytes([]byte(n.Value))
	default:
		d.want(n, path, "a string or !!binary data")
	}
}

func (d *Decoder) text(n *yaml.Node, path string, v reflect.Value) {
	s, ok := d.str(n, path)
	if !ok {
		return
	}
	if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
		d.errorAt(n, path, "%s: %v", Quote(s), err)
	}
}

// str reads a scalar as text: strings, numbers and dates as written;
// booleans, nulls and collections are not strings.
func (d *Decoder) str(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		d.want(n, path, "a string")
		return "", false
	}
	switch n.ShortTag() {
	case "!!str", "!!int", "!!float", "!!timestamp":
	default:
		d.want(n, path, "a string")
		return "", false
	}
	if len(n.Value) > d.lim.String {
		d.errorAt(n, path, "a string of %d bytes: longer than the %s a value may be", len(n.Value), Size(d.lim.String))
		return "", false
	}
	return n.Value, true
}

// scalar decodes a string, boolean or number.
func (d *Decoder) scalar(n *yaml.Node, path string, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if s, ok := d.str(n, path); ok {
			v.SetString(s)
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			d.want(n, path, "true or false")
			return
		}
		var b bool
		_ = n.Decode(&b)
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			d.want(n, path, "an integer")
			return
		}
		var x int64
		if err := n.Decode(&x); err != nil || v.OverflowInt(x) {
			lo, hi := -1<<(v.Type().Bits()-1), 1<<(v.Type().Bits()-1)-1
			d.errorAt(n, path, "%s: want an integer from %d to %d", Clip(n.Value), lo, uint64(hi))
			return
		}
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			d.want(n, path, "a non-negative integer")
			return
		}
		var x uint64
		if err := n.Decode(&x); err != nil || v.OverflowUint(x) {
			d.errorAt(n, path, "%s: want an integer from 0 to %d", Clip(n.Value), uint64(1<<v.Type().Bits()-1))
			return
		}
		v.SetUint(x)
	case reflect.Float32, reflect.Float64:
		if f, ok := d.number(n, path); ok {
			if v.OverflowFloat(f) {
				d.errorAt(n, path, "%s: out of range", Clip(n.Value))
				return
			}
			v.SetFloat(f)
		}
	default:
		d.errorAt(n, path, "cannot be set in YAML")
	}
}

// number reads a finite number: YAML's .nan and .inf are refused.
func (d *Decoder) number(n *yaml.Node, path string) (float64, bool) {
	if tag := n.ShortTag(); n.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") {
		d.want(n, path, "a number")
		return 0, false
	}
	var f float64
	if err := n.Decode(&f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		d.errorAt(n, path, "want a finite number, got %s", Clip(n.Value))
		return 0, false
	}
	return f, true
}

// anyValue reads a JSON-like value: null, a boolean, a finite number (as
// float64), a string, a list or a string-keyed mapping.
func (d *Decoder) anyValue(n *yaml.Node, path string) (any, bool) {
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, true
		case "!!bool":
			var b bool
			_ = n.Decode(&b)
			return b, true
		case "!!int", "!!float":
			return d.number(n, path)
		}
		return d.str(n, path)
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		ok := true
		for i, e := range n.Content {
			p := Index(path, i)
			d.at[p] = place{val: e}
			if d.values++; d.values > d.lim.Values || d.over {
				d.decode(e, p, reflect.New(nodeType).Elem()) // reports the budget once
				return nil, false
			}
			x, good := d.anyValue(deref(e), p)
			out[i], ok = x, ok && good
		}
		return out, ok
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		ok := true
		d.entries(n, path, func(key string, k, val *yaml.Node) {
			p := Join(path, key)
			d.at[p] = place{key: k, val: val}
			if d.values++; d.values > d.lim.Values || d.over {
				if !d.over {
					d.over = true
					d.errorAt(val, p, "more than %d values (aliases expanded): larger than %s may be", d.lim.Values, d.article())
				}
				ok = false
				return
			}
			x, good := d.anyValue(deref(val), p)
			out[key], ok = x, ok && good
		})
		return out, ok
	}
	d.errorAt(n, path, "want a value, got %s", Describe(n))
	return nil, false
}

// entries calls fn for every key of mapping n in order, then for the keys
// of the mappings it merges (<<) that it does not set itself. A key given
// twice, a key that is not a scalar and a merge of something other than a
// mapping are problems.
func (d *Decoder) entries(n *yaml.Node, path string, fn func(key string, k, v *yaml.Node)) {
	d.mergeEntries(n, path, map[string]bool{}, map[*yaml.Node]bool{}, fn)
}

func (d *Decoder) mergeEntries(n *yaml.Node, path string, set map[string]bool, visited map[*yaml.Node]bool, fn func(key string, k, v *yaml.Node)) {
	if visited[n] {
		return
	}
	visited[n] = true
	own := make(map[string]*yaml.Node, len(n.Content)/2)
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content) && !d.over; i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		kd := deref(k)
		if kd != nil && kd.Kind == yaml.ScalarNode && kd.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		key, ok := d.key(kd, k, path)
		if !ok {
			continue
		}
		if first, dup := own[key]; dup {
			d.errorAt(k, Join(path, key), "duplicate key (first at line %d)", first.Line)
			continue
		}
		own[key] = k
		if set[key] {
			continue // set by the mapping that merges this one
		}
		set[key] = true
		fn(key, k, v)
	}
	for _, m := range merges {
		m = deref(m)
		srcs := []*yaml.Node{m}
		if m != nil && m.Kind == yaml.SequenceNode {
			srcs = m.Content
		}
		for _, s := range srcs {
			if s = deref(s); s == nil || s.Kind != yaml.MappingNode {
				d.errorAt(s, Join(path, "<<"), "want a mapping to merge, got %s", Describe(s))
				continue
			}
			d.mergeEntries(s, path, set, visited, fn)
		}
	}
}

// key reads a mapping key as text.
func (d *Decoder) key(kd, k *yaml.Node, path string) (string, bool) {
	if kd == nil || kd.Kind != yaml.ScalarNode || kd.ShortTag() == "!!null" {
		d.errorAt(k, fieldName(path), "want a string key, got %s", Describe(kd))
		return "", false
	}
	if len(kd.Value) > d.lim.Key {
		d.errorAt(k, fieldName(path), "key %s: longer than the %d bytes a key may be", Quote(kd.Value), d.lim.Key)
		return "", false
	}
	return kd.Value, true
}

func (d *Decoder) ordered(n *yaml.Node, path string, v reflect.Value) {
	if isNull(n) {
		v.SetZero()
		return
	}
	if n.Kind != yaml.MappingNode {
		d.want(n, path, "a mapping")
		return
	}
	s := reflect.MakeSlice(v.Type(), 0, len(n.Content)/2)
	d.entries(n, path, func(key string, k, val *yaml.Node) {
		p := Join(path, key)
		d.at[p] = place{key: k, val: val}
		e := reflect.New(v.Type().Elem()).Elem()
		e.Field(0).SetString(key)
		d.decode(val, p, e.Field(1))
		e.Field(2).Set(reflect.ValueOf(Pos{Line: k.Line, Column: k.Column}))
		s = reflect.Append(s, e)
	})
	v.Set(s)
}

// deref follows aliases.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 1000; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// Describe names what a node holds, for "want …, got …": "a mapping",
// "a list", "null", `string "x"`, "integer 3", "number 2.5", "boolean
// true", "date 2025-03-03".
func Describe(n *yaml.Node) string {
	n = deref(n)
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!str":
			return "string " + Quote(n.Value)
		case "!!int":
			return "integer " + Clip(n.Value)
		case "!!float":
			return "number " + Clip(n.Value)
		case "!!bool":
			return "boolean " + Clip(n.Value)
		case "!!timestamp":
			return "date " + Clip(n.Value)
		case "!!binary":
			return "binary data"
		case "!!merge":
			return "a merge key"
		}
		return Clip(n.ShortTag()) + " " + Quote(n.Value)
	case yaml.DocumentNode:
		return "a document"
	}
	return "nothing"
}

// structInfo maps a struct's YAML keys to its fields.
type structInfo struct {
	index map[string]int
	keys  []string // in field order
}

var structInfos sync.Map // reflect.Type -> *structInfo

// fieldsOf returns the keys of struct type t: each exported field's yaml
// tag name, else its json tag name, else its name lower-cased (as yaml.v3
// names it); "-" skips a field.
func fieldsOf(t reflect.Type) *structInfo {
	if s, ok := structInfos.Load(t); ok {
		return s.(*structInfo)
	}
	s := &structInfo{index: map[string]int{}}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := strings.ToLower(f.Name)
		if tag, ok := f.Tag.Lookup("yaml"); ok {
			name, _, _ = strings.Cut(tag, ",")
		} else if tag, ok := f.Tag.Lookup("json"); ok {
			name, _, _ = strings.Cut(tag, ",")
		}
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		s.index[name] = i
		s.keys = append(s.keys, name)
	}
	actual, _ := structInfos.LoadOrStore(t, s)
	return actual.(*structInfo)
}

// Keys returns the YAML keys of struct type t, in field order.
func Keys(t reflect.Type) []string { return fieldsOf(t).keys }

// Deref follows aliases: the node an alias stands for, or nil for a
// broken chain.
func Deref(n *yaml.Node) *yaml.Node { return deref(n) }

// Lookup returns the value of key in mapping n, or in what n merges (<<),
// or nil: for peeking at a node before decoding it (a scenario's id, a
// family entry).
func Lookup(n *yaml.Node, key string) *yaml.Node {
	return lookup(n, key, map[*yaml.Node]bool{})
}

func lookup(n *yaml.Node, key string, seen map[*yaml.Node]bool) *yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode || seen[n] {
		return nil
	}
	seen[n] = true
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := deref(n.Content[i]); k != nil && k.Value == key && k.ShortTag() != "!!merge" {
			return n.Content[i+1]
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := deref(n.Content[i]); k == nil || k.ShortTag() != "!!merge" {
			continue
		}
		srcs := []*yaml.Node{n.Content[i+1]}
		if m := deref(n.Content[i+1]); m != nil && m.Kind == yaml.SequenceNode {
			srcs = m.Content
		}
		for _, s := range srcs {
			if v := lookup(s, key, seen); v != nil {
				return v
			}
		}
	}
	return nil
}
