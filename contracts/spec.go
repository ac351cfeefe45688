package contracts

import (
	"cmp"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/baton-lab/baton/input"
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
	path     string // "rules[2]"
	line     int
	exprLine int
	exprCol  int
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
)

// Bounds on one contract file, far above a real contract's (the default
// ones have at most 25 fields and 6 rules): the JSON Schema compiler's
// time grows with the square of the fields, so a contract of ten thousand
// fields is refused before it starts rather than compiled for seconds.
const (
	// MaxContractBytes bounds a contract file.
	MaxContractBytes = 1 << 20
	// MaxContractFields bounds the fields of one contract, nested fields
	// and array items included.
	MaxContractFields = 1000
	// MaxContractRules bounds the CEL rules of one contract.
	MaxContractRules = 200
	// MaxContractFiles bounds the contract files loaded at once (a
	// mission has one per edge).
	MaxContractFiles = 200
)

// contractDoc is a contract file as written (see the package doc).
type contractDoc struct {
	Edge        string                   `yaml:"edge"`
	Kind        string                   `yaml:"kind"`
	Version     string                   `yaml:"version"`
	Owner       string                   `yaml:"owner"`
	Description string                   `yaml:"description"`
	PerItem     string                   `yaml:"per_item"`
	Closed      bool                     `yaml:"closed"`
	Idempotency struct{ Key string }     `yaml:"idempotency"`
	Escalation  escalationDoc            `yaml:"escalation"`
	Constants   input.Ordered[any]       `yaml:"constants"`
	Fields      input.Ordered[*fieldDoc] `yaml:"fields"`
	Rules       []ruleDoc                `yaml:"rules"`
}

type escalationDoc struct {
	Values      []string `yaml:"values"`
	RefRequired []string `yaml:"ref_required"`
}

// fieldDoc is one payload field as written.
type fieldDoc struct {
	Type             string                   `yaml:"type"`
	Required         bool                     `yaml:"required"`
	Nullable         bool                     `yaml:"nullable"`
	AllowEmpty       bool                     `yaml:"allow_empty"`
	Description      string                   `yaml:"description"`
	Enum             []any                    `yaml:"enum"`
	Format           string                   `yaml:"format"`
	Pattern          string                   `yaml:"pattern"`
	Minimum          *float64                 `yaml:"minimum"`
	Maximum          *float64                 `yaml:"maximum"`
	ExclusiveMinimum *float64                 `yaml:"exclusive_minimum"`
	ExclusiveMaximum *float64                 `yaml:"exclusive_maximum"`
	MinLength        *int                     `yaml:"min_length"`
	MaxLength        *int                     `yaml:"max_length"`
	MinItems         *int                     `yaml:"min_items"`
	MaxItems         *int                     `yaml:"max_items"`
	Items            *fieldDoc                `yaml:"items"`
	Fields           input.Ordered[*fieldDoc] `yaml:"fields"`
}

// ruleDoc is one CEL rule as written.
type ruleDoc struct {
	ID      string `yaml:"id"`
	Level   string `yaml:"level"`
	Expr    string `yaml:"expr"`
	Message string `yaml:"message"`
	Field   string `yaml:"field"`
}

// parseSpec reads one contract file: the YAML layer decodes it strictly,
// then every value is checked and the spec built. All problems are
// reported, each an [*input.Error].
func parseSpec(file string, src []byte) (*spec, error) {
	d := input.NewDecoder(file, input.Options{Kind: "contract", Limits: input.Limits{Bytes: MaxContractBytes}})
	root := d.Parse(src)
	if root == nil {
		return nil, d.Err()
	}
	var doc contractDoc
	d.DecodeNode(root, "", &doc)
	if d.Failed() {
		return nil, d.Err()
	}
	b := &specBuilder{d: d}
	s := b.build(&doc)
	if err := d.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// specBuilder checks a decoded contract and builds its spec.
type specBuilder struct {
	d      *input.Decoder
	fields int // fields seen, against MaxContractFields
}

func (b *specBuilder) build(doc *contractDoc) *spec {
	d := b.d
	s := &spec{file: d.File(), edge: doc.Edge, kind: doc.Kind, version: doc.Version, owner: doc.Owner,
		description: doc.Description, perItem: cmp.Or(doc.PerItem, "one"), closed: doc.Closed, line: map[string]int{}}
	for _, key := range input.Keys(reflect.TypeFor[contractDoc]()) {
		if d.Has(key) {
			s.line[key] = d.Pos(key).Line
		}
	}
	for _, req := range []struct{ key, val string }{{"edge", s.edge}, {"kind", s.kind}, {"version", s.version}, {"owner", s.owner}} {
		switch {
		case !d.Has(req.key):
			d.Errorf(req.key, "missing (required)")
		case req.val == "":
			d.Errorf(req.key, "empty")
		}
	}
	if from, to, ok := strings.Cut(s.edge, "->"); s.edge != "" && (!ok || strings.TrimSpace(from) == "" || strings.TrimSpace(to) == "" || strings.TrimSpace(from) != from || strings.TrimSpace(to) != to) {
		d.Errorf("edge", "%s: want from->to", input.Quote(s.edge))
	}
	if d.Has("per_item") {
		d.OneOf("per_item", "value", doc.PerItem, []string{"one", "many"})
	}
	b.key(doc, s)
	b.escalation(doc, s)
	b.constants(doc, s)
	s.fields = b.fieldMap(doc.Fields, "fields")
	s.rules = b.rules(doc.Rules)
	b.ruleFields(s)
	return s
}

// ruleFields checks that the field a rule reports is one the message has:
// an envelope field or a declared payload field ("payload.lines[].amount").
func (b *specBuilder) ruleFields(s *spec) {
	var known []string
	for _, v := range envelopeVars {
		known = append(known, v.name)
	}
	known = declaredPaths(known, "payload", s.fields)
	for _, r := range s.rules {
		if r.field != "" && !slices.Contains(known, r.field) {
			b.d.Unknown(r.path+".field", "field", r.field, known).Choices = nil
		}
	}
}

// declaredPaths appends the paths of fields under prefix: "payload.x",
// "payload.x.y" for an object's fields, "payload.x[]" and "payload.x[].y"
// for an array's items.
func declaredPaths(out []string, prefix string, fields []*fieldSpec) []string {
	for _, f := range fields {
		p := prefix + "." + f.name
		out = append(out, p)
		out = declaredPaths(out, p, f.fields)
		for it := f.items; it != nil; it = it.items {
			p += "[]"
			out = append(out, p)
			out = declaredPaths(out, p, it.fields)
		}
	}
	return out
}

// key reads the idempotency key template (the default when absent).
func (b *specBuilder) key(doc *contractDoc, s *spec) {
	src := defaultKeyTemplate
	if b.d.Has("idempotency") {
		if !b.d.Check(b.d.Has("idempotency.key") && doc.Idempotency.Key != "", "idempotency.key", "missing") {
			return
		}
		src = doc.Idempotency.Key
	}
	t, err := parseKeyTemplate(src)
	if err != nil {
		b.d.Errorf("idempotency.key", "%v", err)
		return
	}
	s.key, s.keySource = t, src
}

// escalation reads the escalation values (the defaults when absent).
func (b *specBuilder) escalation(doc *contractDoc, s *spec) {
	d := b.d
	e := doc.Escalation
	d.Strings("escalation.values", e.Values, "", nil)
	d.Strings("escalation.ref_required", e.RefRequired, "", nil)
	s.escValues, s.escRef = e.Values, e.RefRequired
	if s.escValues == nil {
		s.escValues = slices.Clone(defaultEscalationValues)
		if !d.Has("escalation.ref_required") {
			s.escRef = nil
		}
		if !d.Has("escalation") {
			s.escRef = []string{"escalated"}
		}
	}
	if d.Has("escalation.values") && len(e.Values) == 0 {
		d.Errorf("escalation.values", "empty")
	}
	for i, r := range s.escRef {
		if !slices.Contains(s.escValues, r) {
			d.Errorf(input.Index("escalation.ref_required", i), "%s is not one of the values %v", input.Quote(r), s.escValues)
		}
	}
}

// constants reads the named values rules may read.
func (b *specBuilder) constants(doc *contractDoc, s *spec) {
	for _, e := range doc.Constants {
		p := input.Join("constants", e.Key)
		switch {
		case !identRE.MatchString(e.Key):
			b.d.Errorf(p, "%s is not an identifier", input.Quote(e.Key))
		case reservedName(e.Key):
			b.d.Errorf(p, "name is taken by an envelope variable or a helper")
		default:
			s.constants = append(s.constants, constant{name: e.Key, value: e.Value, line: e.Pos.Line})
		}
	}
}

// The defaults for optional contract keys.
const defaultKeyTemplate = "{item}:{kind}"

var defaultEscalationValues = []string{"none", "requested", "escalated"}

// fieldMap checks a mapping of field name to field, in order.
func (b *specBuilder) fieldMap(fields input.Ordered[*fieldDoc], path string) []*fieldSpec {
	var out []*fieldSpec
	for _, e := range fields {
		p := input.Join(path, e.Key)
		if !identRE.MatchString(e.Key) {
			b.d.Errorf(p, "field name %s: want letters, digits and _", input.Quote(e.Key))
			continue
		}
		if f := b.field(e.Value, p); f != nil {
			f.name, f.line = e.Key, e.Pos.Line
			out = append(out, f)
		}
	}
	return out
}

// Keys that only make sense for some types.
var typedKeys = []struct {
	key   string
	types []string
}{
	{"allow_empty", []string{"string"}},
	{"format", []string{"string"}},
	{"pattern", []string{"string"}},
	{"min_length", []string{"string"}},
	{"max_length", []string{"string"}},
	{"minimum", []string{"number", "integer"}},
	{"maximum", []string{"number", "integer"}},
	{"exclusive_minimum", []string{"number", "integer"}},
	{"exclusive_maximum", []string{"number", "integer"}},
	{"min_items", []string{"array"}},
	{"max_items", []string{"array"}},
	{"items", []string{"array"}},
	{"fields", []string{"object"}},
}

// field checks one field and that its keys fit its type.
func (b *specBuilder) field(f *fieldDoc, path string) *fieldSpec {
	d := b.d
	if b.fields++; b.fields == MaxContractFields+1 {
		d.Errorf(path, "more than %d fields in one contract: split it", MaxContractFields)
	}
	if f == nil || b.fields > MaxContractFields {
		return nil
	}
	before := d.Count()
	switch {
	case !d.Has(input.Join(path, "type")):
		d.Errorf(input.Join(path, "type"), "missing (required)")
	case !slices.Contains(fieldTypes, f.Type):
		d.Unknown(input.Join(path, "type"), "type", f.Type, fieldTypes)
	}
	if d.Count() > before {
		return nil
	}
	for _, k := range typedKeys {
		if d.Has(input.Join(path, k.key)) && !slices.Contains(k.types, f.Type) {
			d.Errorf(input.Join(path, k.key), "not allowed on type %s", f.Type)
		}
	}
	if f.Format != "" && !slices.Contains(fieldFormats, f.Format) {
		d.Unknown(input.Join(path, "format"), "format", f.Format, fieldFormats)
	}
	if _, err := regexp.Compile(f.Pattern); err != nil {
		d.Errorf(input.Join(path, "pattern"), "%v", err)
	}
	if d.Has(input.Join(path, "enum")) && len(f.Enum) == 0 {
		d.Errorf(input.Join(path, "enum"), "want a non-empty list")
	}
	for i, e := range f.Enum {
		if !enumFits(f.Type, e) {
			d.Errorf(input.Index(input.Join(path, "enum"), i), "%s is not of type %s", render(e), f.Type)
		}
	}
	b.ranges(f, path)
	out := &fieldSpec{typ: f.Type, required: f.Required, nullable: f.Nullable, allowEmpty: f.AllowEmpty, enum: f.Enum,
		format: f.Format, pattern: f.Pattern, minimum: f.Minimum, maximum: f.Maximum, exclMin: f.ExclusiveMinimum, exclMax: f.ExclusiveMaximum,
		minLength: f.MinLength, maxLength: f.MaxLength, minItems: f.MinItems, maxItems: f.MaxItems, doc: f.Description, line: d.Pos(path).Line}
	if f.Items != nil {
		out.items = b.field(f.Items, input.Join(path, "items"))
	}
	out.fields = b.fieldMap(f.Fields, input.Join(path, "fields"))
	return out
}

// ranges checks that a field's bounds leave room for a value: minimum 10
// with maximum 1 accepts nothing.
func (b *specBuilder) ranges(f *fieldDoc, path string) {
	d := b.d
	for _, c := range []struct {
		key string
		n   *int
	}{{"min_length", f.MinLength}, {"max_length", f.MaxLength}, {"min_items", f.MinItems}, {"max_items", f.MaxItems}} {
		if c.n != nil && *c.n < 0 {
			d.Errorf(input.Join(path, c.key), "%d: want 0 or more", *c.n)
		}
	}
	lo, hi := func(a, b *int) bool { return a != nil && b != nil && *a > *b }, func(a, b *float64) bool { return a != nil && b != nil && *a > *b }
	if lo(f.MinLength, f.MaxLength) {
		d.Errorf(input.Join(path, "min_length"), "%d is above max_length %d: no value fits", *f.MinLength, *f.MaxLength)
	}
	if lo(f.MinItems, f.MaxItems) {
		d.Errorf(input.Join(path, "min_items"), "%d is above max_items %d: no value fits", *f.MinItems, *f.MaxItems)
	}
	if hi(f.Minimum, f.Maximum) {
		d.Errorf(input.Join(path, "minimum"), "%v is above maximum %v: no value fits", *f.Minimum, *f.Maximum)
	}
	empty := func(a, b *float64) bool { return a != nil && b != nil && *a >= *b }
	for _, c := range []struct {
		lo, hi       *float64
		loKey, hiKey string
	}{
		{f.ExclusiveMinimum, f.ExclusiveMaximum, "exclusive_minimum", "exclusive_maximum"},
		{f.ExclusiveMinimum, f.Maximum, "exclusive_minimum", "maximum"},
		{f.Minimum, f.ExclusiveMaximum, "minimum", "exclusive_maximum"},
	} {
		if empty(c.lo, c.hi) {
			d.Errorf(input.Join(path, c.loKey), "%v leaves no value below %s %v", *c.lo, c.hiKey, *c.hi)
		}
	}
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

// rules checks the list of CEL rules.
func (b *specBuilder) rules(rules []ruleDoc) []*ruleSpec {
	d := b.d
	if len(rules) > MaxContractRules {
		d.Errorf("rules", "%d rules: more than the %d one contract may have", len(rules), MaxContractRules)
		return nil
	}
	var out []*ruleSpec
	ids := map[string]int{}
	for i, r := range rules {
		p := input.Index("rules", i)
		before := d.Count()
		for _, req := range []struct{ key, val string }{{"id", r.ID}, {"expr", r.Expr}, {"message", r.Message}} {
			switch {
			case !d.Has(p + "." + req.key):
				d.Errorf(p+"."+req.key, "missing (required)")
			case req.val == "":
				d.Errorf(p+"."+req.key, "empty")
			}
		}
		if r.ID != "" && !ruleIDRE.MatchString(r.ID) {
			d.Errorf(p+".id", "%s: want lower-case letters, digits, '.', '_' and '-'", input.Quote(r.ID))
		}
		level := LevelSemantic
		if d.Has(p + ".level") {
			var err error
			if level, err = ParseLevel(r.Level); err != nil {
				d.Errorf(p+".level", "%v", err)
			}
		}
		if d.Has(p+".field") && r.Field == "" {
			d.Errorf(p+".field", "empty")
		}
		line := d.Pos(p).Line
		if prev, dup := ids[r.ID]; dup && r.ID != "" {
			d.Errorf(p+".id", "duplicate id %s (first at line %d)", input.Quote(r.ID), prev)
		} else if isBuiltinRule(r.ID) {
			d.Errorf(p+".id", "%s is reserved for a built-in check", input.Quote(r.ID))
		}
		if d.Count() > before {
			continue
		}
		ids[r.ID] = line
		expr := d.Node(p + ".expr")
		out = append(out, &ruleSpec{id: r.ID, level: level, expr: r.Expr, message: r.Message, field: r.Field, path: p,
			line: line, exprLine: expr.Line, exprCol: expr.Column, block: expr.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0})
	}
	return out
}
