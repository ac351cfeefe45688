package contracts

import (
	"fmt"
	"slices"
	"strings"

	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
)

// refWalker checks that a rule reads only declared payload fields, and
// collects what it reads (top-level payload fields and envelope variables)
// so a violation can show their values.
//
// The check is conservative: it follows payload.a.b chains, index
// expressions with literal keys, and comprehension variables ranging over a
// declared array; a path through an undeclared shape ("object" without
// fields, "any") is not followed.
type refWalker struct {
	root  *fieldSpec
	info  *ast.SourceInfo
	err   error
	errID int64
	refs  []exprRef
}

// exprRef is one thing a rule reads: "payload.gross" or "escalation".
type exprRef struct {
	name   string
	line   int
	column int
}

// resolved is what the walker knows about a subexpression.
type resolved struct {
	spec *fieldSpec
	path string
}

func (w *refWalker) note(name string, id int64) {
	loc := w.info.GetStartLocation(id)
	for _, r := range w.refs {
		if r.name == name {
			return
		}
	}
	w.refs = append(w.refs, exprRef{name: name, line: loc.Line(), column: loc.Column()})
}

func (w *refWalker) fail(id int64, format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf(format, args...)
		w.errID = id
	}
}

// sortedRefs returns what the rule reads in source order.
func (w *refWalker) sortedRefs() []string {
	refs := slices.Clone(w.refs)
	slices.SortStableFunc(refs, func(a, b exprRef) int {
		if a.line != b.line {
			return a.line - b.line
		}
		return a.column - b.column
	})
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.name
	}
	return out
}

func (w *refWalker) walk(e ast.Expr, scope map[string]*resolved) *resolved {
	if w.err != nil || e == nil {
		return nil
	}
	switch e.Kind() {
	case ast.IdentKind:
		name := e.AsIdent()
		if r, ok := scope[name]; ok {
			return r
		}
		if name == "payload" {
			return &resolved{spec: w.root, path: "payload"}
		}
		if isEnvelopeVar(name) {
			w.note(name, e.ID())
		}
		return nil
	case ast.SelectKind:
		s := e.AsSelect()
		base := w.walk(s.Operand(), scope)
		return w.child(base, s.FieldName(), e.ID())
	case ast.CallKind:
		c := e.AsCall()
		if c.IsMemberFunction() {
			w.walk(c.Target(), scope)
		}
		var args []*resolved
		for _, a := range c.Args() {
			args = append(args, w.walk(a, scope))
		}
		if c.FunctionName() == "_[_]" && len(c.Args()) == 2 && args[0] != nil {
			base, idx := args[0], c.Args()[1]
			if idx.Kind() == ast.LiteralKind {
				if s, ok := idx.AsLiteral().(types.String); ok {
					return w.child(base, string(s), e.ID())
				}
			}
			if base.spec.typ == "array" && base.spec.items != nil {
				return &resolved{spec: base.spec.items, path: base.path + "[]"}
			}
		}
		return nil
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		rng := w.walk(c.IterRange(), scope)
		w.walk(c.AccuInit(), scope)
		inner := make(map[string]*resolved, len(scope)+3)
		for k, v := range scope {
			inner[k] = v
		}
		var elem *resolved
		if rng != nil && rng.spec.typ == "array" && rng.spec.items != nil {
			elem = &resolved{spec: rng.spec.items, path: rng.path + "[]"}
		}
		// Shadow the loop variables: nil means "not followed".
		inner[c.AccuVar()] = nil
		if c.HasIterVar2() {
			inner[c.IterVar()] = nil
			inner[c.IterVar2()] = elem
		} else {
			inner[c.IterVar()] = elem
		}
		w.walk(c.LoopCondition(), inner)
		w.walk(c.LoopStep(), inner)
		w.walk(c.Result(), inner)
		return nil
	case ast.ListKind:
		for _, el := range e.AsList().Elements() {
			w.walk(el, scope)
		}
	case ast.MapKind:
		for _, en := range e.AsMap().Entries() {
			if en.Kind() == ast.MapEntryKind {
				me := en.AsMapEntry()
				w.walk(me.Key(), scope)
				w.walk(me.Value(), scope)
			}
		}
	case ast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			if f.Kind() == ast.StructFieldKind {
				w.walk(f.AsStructField().Value(), scope)
			}
		}
	}
	return nil
}

// child resolves base.name, failing on a field the contract does not
// declare.
func (w *refWalker) child(base *resolved, name string, id int64) *resolved {
	if base == nil || base.spec == nil {
		return nil
	}
	path := base.path + "." + name
	if base.spec == w.root {
		w.note(path, id)
	}
	switch base.spec.typ {
	case "object":
		if base.spec != w.root && len(base.spec.fields) == 0 {
			return nil // an object of any shape
		}
		c, ok := base.spec.child(name)
		if !ok {
			w.fail(id, "%s is not a declared field (declared: %s)", path, fieldNames(base.spec.fields))
			return nil
		}
		return &resolved{spec: c, path: path}
	case "any":
		return nil
	}
	w.fail(id, "%s: %s is a %s, it has no fields", path, base.path, base.spec.typ)
	return nil
}

func fieldNames(fs []*fieldSpec) string {
	if len(fs) == 0 {
		return "none"
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}
