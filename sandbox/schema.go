package sandbox

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Type is a JSON Schema type a [Schema] checks.
type Type string

// The types.
const (
	TypeObject  Type = "object"
	TypeString  Type = "string"
	TypeNumber  Type = "number"
	TypeBoolean Type = "boolean"
	TypeArray   Type = "array"
)

// AllTypes lists the types.
var AllTypes = []Type{TypeObject, TypeString, TypeNumber, TypeBoolean, TypeArray}

func (t Type) String() string { return string(t) }

// Schema is a JSON Schema (draft 2020-12) for tool arguments and agent
// results, in the subset the engine checks itself: objects with named
// properties, strings (non-empty, one of an enum), finite numbers,
// booleans and arrays of items. [Schema.MarshalJSON] writes it as JSON
// Schema, for a model's tool definitions; [Schema.Check] checks decoded
// JSON arguments against it, in property order, and names the first
// problem the way a real API would ("missing field currency", "field
// gross: want number, got string").
//
// A property whose value is null counts as absent. Properties the schema
// does not name are allowed.
type Schema struct {
	Type        Type   `json:"type"`
	Description string `json:"description,omitempty"`
	// Object: the properties, in the order they are checked, and groups of
	// which at least one must be present (JSON Schema anyOf/required).
	Properties []Property `json:"properties,omitempty"`
	AnyOf      [][]string `json:"any_of,omitempty"`
	// String: "" counts as missing (minLength 1); the values allowed; a
	// format it documents (not checked): [FormatDate], [FormatCurrency],
	// [FormatID] or any other.
	NonEmpty bool     `json:"non_empty,omitempty"`
	Enum     []string `json:"enum,omitempty"`
	Format   string   `json:"format,omitempty"`
	// Array: the schema of every item.
	Items *Schema `json:"items,omitempty"`
}

// Formats a string schema may document. They are not checked; they tell a
// reader (a model, a mutant generator) what the string holds.
const (
	FormatDate     = "date"     // a YYYY-MM-DD date
	FormatCurrency = "currency" // an ISO 4217 currency code ("EUR")
	// FormatID is an identifier of a record or a document ("SUP-001",
	// "INV-2025-0402", an e-mail id, a bank account): another value of
	// the same shape names another one of the same kind.
	FormatID = "id"
)

// Property is one named property of an object schema.
type Property struct {
	Name     string
	Required bool
	Schema   Schema
}

// Object returns an object schema with the properties, in order.
func Object(description string, props ...Property) *Schema {
	return &Schema{Type: TypeObject, Description: description, Properties: props}
}

// Prop returns a property.
func Prop(name string, required bool, s Schema) Property {
	return Property{Name: name, Required: required, Schema: s}
}

// Property returns the schema of the object's property name.
func (s *Schema) Property(name string) (*Property, bool) {
	for i := range s.Properties {
		if s.Properties[i].Name == name {
			return &s.Properties[i], true
		}
	}
	return nil, false
}

// Check returns the first way args depart from the schema (an object
// schema) as a VAL-422 [Error], or nil.
func (s *Schema) Check(args Args) *Error {
	if s == nil {
		return nil
	}
	return s.checkObject(args, "")
}

func (s *Schema) checkObject(m map[string]any, path string) *Error {
	for i := range s.Properties {
		p := &s.Properties[i]
		v, ok := m[p.Name]
		if !ok || v == nil {
			if p.Required {
				return Invalid("missing field " + path + p.Name)
			}
			continue
		}
		if !p.Schema.quick(v) {
			if e := p.Schema.checkValue(v, path+p.Name, p.Required); e != nil {
				return e
			}
		}
	}
	for _, group := range s.AnyOf {
		if !anyPresent(m, group) {
			return Invalid("missing field " + path + group[0] + orList(group[1:], path))
		}
	}
	return nil
}

func anyPresent(m map[string]any, names []string) bool {
	for _, n := range names {
		if v, ok := m[n]; ok && v != nil && v != "" {
			return true
		}
	}
	return false
}

func orList(names []string, path string) string {
	if len(names) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(" (")
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("or " + path + n)
	}
	b.WriteString(")")
	return b.String()
}

// quick reports whether v certainly passes: the common case of a string or
// a float64 where one is wanted, checked without building the field's
// name.
func (s *Schema) quick(v any) bool {
	switch s.Type {
	case TypeString:
		str, ok := v.(string)
		return ok && (str != "" || !s.NonEmpty) && len(s.Enum) == 0
	case TypeNumber:
		f, ok := v.(float64)
		return ok && f-f == 0 // finite
	}
	return false
}

// checkValue checks a present, non-null value.
func (s *Schema) checkValue(v any, name string, required bool) *Error {
	switch s.Type {
	case TypeString:
		str, ok := v.(string)
		if !ok {
			return Invalid("field " + name + ": want string, got " + typeName(v))
		}
		if str == "" && s.NonEmpty {
			if required {
				return Invalid("missing field " + name)
			}
			return Invalid("field " + name + ": want a non-empty string")
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, str) {
			return Invalid("field " + name + ": unknown value " + strconv.Quote(str) + " (want " + strings.Join(s.Enum, ", ") + ")")
		}
	case TypeNumber:
		if _, e := ToNumber(name, v); e != nil {
			return e
		}
	case TypeBoolean:
		if _, ok := v.(bool); !ok {
			return Invalid("field " + name + ": want boolean, got " + typeName(v))
		}
	case TypeObject:
		m, ok := v.(map[string]any)
		if !ok {
			return Invalid("field " + name + ": want object, got " + typeName(v))
		}
		return s.checkObject(m, name+".")
	case TypeArray:
		return s.checkArray(v, name)
	}
	return nil
}

func (s *Schema) checkArray(v any, name string) *Error {
	var items []any
	switch l := v.(type) {
	case []any:
		items = l
	case []map[string]any:
		items = make([]any, len(l))
		for i, m := range l {
			items[i] = m
		}
	default:
		if reflect.ValueOf(v).Kind() != reflect.Slice {
			return Invalid("field " + name + ": want array, got " + typeName(v))
		}
		return nil // a typed list the handler reads itself
	}
	if s.Items == nil {
		return nil
	}
	for i, x := range items {
		// An item is checked unnamed; only a failing one is named (and
		// checked again, to say where it fails).
		if x != nil && s.Items.checkValue(x, "", true) == nil {
			continue
		}
		iname := name + "[" + strconv.Itoa(i) + "]"
		if x == nil {
			return Invalid("field " + iname + ": want " + string(s.Items.Type) + ", got null")
		}
		return s.Items.checkValue(x, iname, true)
	}
	return nil
}

// ToNumber reads a finite number from a decoded JSON value (or a Go
// number, or a json.Number), naming field in its error.
func ToNumber(field string, v any) (float64, *Error) {
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case float32:
		f = float64(n)
	case int:
		f = float64(n)
	case int64:
		f = float64(n)
	case int32:
		f = float64(n)
	case json.Number:
		var err error
		if f, err = strconv.ParseFloat(string(n), 64); err != nil {
			return 0, Invalid("field " + field + ": want number, got " + strconv.Quote(string(n)))
		}
	default:
		return 0, Invalid("field " + field + ": want number, got " + typeName(v))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, Invalid("field " + field + ": want a finite number")
	}
	return f, nil
}

// typeName names a decoded JSON value's type the way an API error would.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64, float32, int, int64, int32, json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any, []map[string]any:
		return "array"
	case map[string]any:
		return "object"
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return "unknown"
}

// MarshalJSON writes the schema as JSON Schema (draft 2020-12), members
// in a fixed order: a property that is not required may also be null.
func (s *Schema) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	s.write(&b, false)
	return b.Bytes(), nil
}

func (s *Schema) write(b *bytes.Buffer, nullable bool) {
	b.WriteString(`{"type":`)
	if nullable {
		b.WriteString(`[`)
		writeJSONString(b, string(s.Type))
		b.WriteString(`,"null"]`)
	} else {
		writeJSONString(b, string(s.Type))
	}
	if s.Description != "" {
		b.WriteString(`,"description":`)
		writeJSONString(b, s.Description)
	}
	if s.Format != "" {
		b.WriteString(`,"format":`)
		writeJSONString(b, s.Format)
	}
	if s.NonEmpty {
		b.WriteString(`,"minLength":1`)
	}
	if len(s.Enum) > 0 {
		b.WriteString(`,"enum":[`)
		for i, e := range s.Enum {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, e)
		}
		if nullable {
			b.WriteString(`,null`)
		}
		b.WriteByte(']')
	}
	if s.Items != nil {
		b.WriteString(`,"items":`)
		s.Items.write(b, false)
	}
	if s.Type == TypeObject {
		s.writeProperties(b)
	}
	b.WriteByte('}')
}

// writeProperties writes an object schema's properties, its required
// ones and its at-least-one-of groups (allOf of anyOf).
func (s *Schema) writeProperties(b *bytes.Buffer) {
	b.WriteString(`,"properties":{`)
	var required []string
	for i := range s.Properties {
		p := &s.Properties[i]
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, p.Name)
		b.WriteByte(':')
		p.Schema.write(b, !p.Required)
		if p.Required {
			required = append(required, p.Name)
		}
	}
	b.WriteByte('}')
	if len(required) > 0 {
		b.WriteString(`,"required":`)
		q, _ := json.Marshal(required)
		b.Write(q)
	}
	if len(s.AnyOf) == 0 {
		return
	}
	b.WriteString(`,"allOf":[`)
	for i, g := range s.AnyOf {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"anyOf":[`)
		for j, n := range g {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"required":[`)
			writeJSONString(b, n)
			b.WriteString(`]}`)
		}
		b.WriteString(`]}`)
	}
	b.WriteByte(']')
}

// writeJSONString writes v as a JSON string.
func writeJSONString(b *bytes.Buffer, v string) {
	q, _ := json.Marshal(v)
	b.Write(q)
}
