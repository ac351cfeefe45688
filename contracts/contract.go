package contracts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types/ref"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/baton-lab/baton/input"
)

// Contract is one edge's compiled contract. Its exported fields describe it
// for listing and are read-only; checking goes through a [Set].
type Contract struct {
	Edge        string   // "from->to"
	Kind        string   // the message kind the edge carries
	Version     string   // the schema_version messages must carry
	Owner       string   // the one named owner of the next step
	Description string   // what the hand-off is for
	PerItem     string   // "one" (at most one distinct message per item) or "many"
	Key         string   // idempotency key template, e.g. "{item}:{kind}"
	Escalation  []string // allowed escalation values
	RefRequired []string // escalation values that need an escalation_ref
	Closed      bool     // payload fields the contract does not declare are violations
	Fields      []Field  // top-level payload fields, in declaration order
	Rules       []Rule   // the contract's own (CEL) rules, in order
	Source      string   // the file it was read from

	src      []byte
	schema   *jsonschema.Schema
	key      keyTemplate
	consts   map[string]ref.Val
	compiled []compiledRule
}

// Field describes one top-level payload field.
type Field struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
}

// Rule describes one CEL rule of a contract.
type Rule struct {
	ID      string `json:"id"`
	Level   Level  `json:"level"`
	Expr    string `json:"expr"`
	Message string `json:"message"`
	Field   string `json:"field"` // reported field: given, or the first payload field the rule reads
	Line    int    `json:"line"`
}

// compiledRule is a rule's program and what it reads.
type compiledRule struct {
	prg  cel.Program
	refs []string // "payload.gross", "escalation", ... in source order
}

// Parse reads and compiles one contract file. name is used in error
// messages ("name:line: ..."). Every problem is reported here, at load:
// nothing is compiled again when checking.
func Parse(name string, src []byte) (*Contract, error) {
	s, err := parseSpec(name, src)
	if err != nil {
		return nil, err
	}
	return compile(s, bytes.Clone(src))
}

func compile(s *spec, src []byte) (*Contract, error) {
	c := &Contract{
		Edge:        s.edge,
		Kind:        s.kind,
		Version:     s.version,
		Owner:       s.owner,
		Description: s.description,
		PerItem:     s.perItem,
		Key:         s.keySource,
		Escalation:  s.escValues,
		RefRequired: s.escRef,
		Closed:      s.closed,
		Source:      s.file,
		src:         src,
		key:         s.key,
		consts:      map[string]ref.Val{},
	}
	if c.RefRequired == nil {
		c.RefRequired = []string{}
	}
	for _, f := range s.fields {
		c.Fields = append(c.Fields, Field{Name: f.name, Type: f.typ, Required: f.required})
	}
	sch, err := compileSchema(s)
	if err != nil {
		return nil, &input.Error{File: s.file, Pos: input.Pos{Line: s.line["fields"]}, Field: "fields", Err: err}
	}
	c.schema = sch

	env, err := baseEnv()
	if err != nil {
		return nil, fmt.Errorf("cel environment: %w", err)
	}
	if len(s.constants) > 0 {
		var opts []cel.EnvOption
		for _, k := range s.constants {
			val, err := nativeConst(k.value)
			if err != nil {
				return nil, &input.Error{File: s.file, Pos: input.Pos{Line: k.line}, Field: input.Join("constants", k.name), Err: err}
			}
			c.consts[k.name] = val
			opts = append(opts, cel.Variable(k.name, constType(k.value)))
		}
		if env, err = env.Extend(opts...); err != nil {
			return nil, &input.Error{File: s.file, Pos: input.Pos{Line: s.line["constants"]}, Field: "constants", Err: err}
		}
	}
	root := &fieldSpec{typ: "object", fields: s.fields}
	for _, r := range s.rules {
		cr, err := compileRule(env, root, r)
		if err != nil {
			return nil, &input.Error{File: s.file, Pos: input.Pos{Line: err.line}, Field: r.path + ".expr", Problem: strings.TrimPrefix(err.err.Error(), "expr: "), Note: "rule " + r.id}
		}
		field := r.field
		if field == "" {
			for _, ref := range cr.refs {
				if strings.HasPrefix(ref, "payload.") {
					field = ref
					break
				}
			}
		}
		if field == "" && len(cr.refs) > 0 {
			field = cr.refs[0]
		}
		c.Rules = append(c.Rules, Rule{ID: r.id, Level: r.level, Expr: r.expr, Message: r.message, Field: field, Line: r.line})
		c.compiled = append(c.compiled, cr)
	}
	return c, nil
}

// lineError is a compile error at a line of the contract file.
type lineError struct {
	line int
	err  error
}

func compileRule(env *cel.Env, root *fieldSpec, r *ruleSpec) (compiledRule, *lineError) {
	// exprLine maps a line of the expression to a line of the file.
	exprLine := func(l int) int {
		if l < 1 {
			l = 1
		}
		if r.block {
			return r.exprLine + l
		}
		return r.exprLine + l - 1
	}
	checked, iss := env.Compile(r.expr)
	if iss != nil && iss.Err() != nil {
		errs := iss.Errors()
		if len(errs) == 0 {
			return compiledRule{}, &lineError{r.exprLine, fmt.Errorf("expr: %v", iss.Err())}
		}
		e := errs[0]
		return compiledRule{}, &lineError{exprLine(e.Location.Line()),
			fmt.Errorf("expr: column %d: %s", e.Location.Column()+1, e.Message)}
	}
	if out := checked.OutputType(); !out.IsExactType(cel.BoolType) {
		return compiledRule{}, &lineError{r.exprLine, fmt.Errorf("expr: returns %s, want bool", out)}
	}
	native := checked.NativeRep()
	w := &refWalker{root: root, info: native.SourceInfo()}
	w.walk(native.Expr(), map[string]*resolved{})
	if w.err != nil {
		return compiledRule{}, &lineError{exprLine(native.SourceInfo().GetStartLocation(w.errID).Line()), w.err}
	}
	prg, err := env.Program(checked, cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return compiledRule{}, &lineError{r.exprLine, fmt.Errorf("expr: %w", err)}
	}
	return compiledRule{prg: prg, refs: w.sortedRefs()}, nil
}

// compileSchema builds the JSON Schema (draft 2020-12) of envelope plus
// payload and compiles it.
func compileSchema(s *spec) (*jsonschema.Schema, error) {
	payload := objectSchema(s.fields)
	if s.closed {
		payload["additionalProperties"] = false
	}
	doc := map[string]any{
		"$schema":  "https://json-schema.org/draft/2020-12/schema",
		"type":     "object",
		"required": []any{"id", "edge", "kind", "schema_version", "item", "payload"},
		"properties": map[string]any{
			"id":              map[string]any{"type": "string", "minLength": 1},
			"edge":            map[string]any{"type": "string"},
			"kind":            map[string]any{"type": "string"},
			"schema_version":  map[string]any{"type": "string"},
			"idempotency_key": map[string]any{"type": "string"},
			// null is left to the ownership level ("no owner").
			"next_owner":     map[string]any{"type": []any{"array", "null"}, "items": map[string]any{"type": "string"}},
			"escalation":     map[string]any{"type": "string"},
			"escalation_ref": map[string]any{"type": "string"},
			"item":           map[string]any{"type": "string", "minLength": 1},
			"payload":        payload,
		},
	}
	// Round-trip through JSON so the compiler sees plain JSON values.
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.AssertFormat()
	const url = "mem:///contract.json"
	if err := comp.AddResource(url, v); err != nil {
		return nil, err
	}
	return comp.Compile(url)
}

func objectSchema(fields []*fieldSpec) map[string]any {
	props := map[string]any{}
	required := []any{}
	for _, f := range fields {
		props[f.name] = fieldSchema(f)
		if f.required {
			required = append(required, f.name)
		}
	}
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

func fieldSchema(f *fieldSpec) map[string]any {
	var out map[string]any
	switch f.typ {
	case "object":
		out = objectSchema(f.fields)
	case "any":
		out = map[string]any{}
	default:
		out = map[string]any{"type": f.typ}
	}
	if f.nullable && f.typ != "any" {
		out["type"] = []any{out["type"], "null"}
	}
	// String constraints; with allow_empty, "" skips them.
	str := map[string]any{}
	if f.format != "" {
		str["format"] = f.format
	}
	if f.pattern != "" {
		str["pattern"] = f.pattern
	}
	if f.minLength != nil {
		str["minLength"] = *f.minLength
	}
	if f.maxLength != nil {
		str["maxLength"] = *f.maxLength
	}
	if len(f.enum) > 0 {
		enum := append([]any{}, f.enum...)
		if f.nullable {
			enum = append(enum, nil)
		}
		str["enum"] = enum
	}
	if f.allowEmpty {
		if len(str) > 0 {
			out["if"] = map[string]any{"const": ""}
			out["else"] = str
		}
	} else {
		for k, v := range str {
			out[k] = v
		}
	}
	for k, p := range map[string]*float64{"minimum": f.minimum, "maximum": f.maximum, "exclusiveMinimum": f.exclMin, "exclusiveMaximum": f.exclMax} {
		if p != nil {
			out[k] = *p
		}
	}
	for k, p := range map[string]*int{"minItems": f.minItems, "maxItems": f.maxItems} {
		if p != nil {
			out[k] = *p
		}
	}
	if f.items != nil {
		out["items"] = fieldSchema(f.items)
	}
	return out
}
