package contracts

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/interpreter"
)

// envelopeVars are the CEL variables bound from a message's envelope, with
// their CEL types. A missing or wrongly typed envelope field is bound as the
// type's zero value (the schema level reports it).
var envelopeVars = []struct {
	name string
	typ  *cel.Type
}{
	{"id", cel.StringType},
	{"edge", cel.StringType},
	{"kind", cel.StringType},
	{"schema_version", cel.StringType},
	{"idempotency_key", cel.StringType},
	{"next_owner", cel.ListType(cel.StringType)},
	{"escalation", cel.StringType},
	{"escalation_ref", cel.StringType},
	{"item", cel.StringType},
	{"payload", cel.MapType(cel.StringType, cel.DynType)},
}

// helperFuncs are the functions the package adds to CEL.
var helperFuncs = []string{"sum", "abs"}

// celReserved are CEL's reserved words, which cannot name a constant.
var celReserved = []string{"as", "break", "const", "continue", "else", "false", "for", "function", "if",
	"import", "in", "let", "loop", "package", "namespace", "null", "return", "true", "var", "void", "while"}

func reservedName(name string) bool {
	return isEnvelopeVar(name) || slices.Contains(helperFuncs, name) || slices.Contains(celReserved, name)
}

func isEnvelopeVar(name string) bool {
	for _, v := range envelopeVars {
		if v.name == name {
			return true
		}
	}
	return false
}

// baseEnv is the CEL environment every contract extends with its constants.
var baseEnv = sync.OnceValues(func() (*cel.Env, error) {
	opts := []cel.EnvOption{
		cel.CrossTypeNumericComparisons(true),
		cel.Function("sum",
			cel.Overload("sum_list", []*cel.Type{cel.ListType(cel.DynType)}, cel.DoubleType,
				cel.UnaryBinding(sumList))),
		cel.Function("abs",
			cel.Overload("abs_double", []*cel.Type{cel.DoubleType}, cel.DoubleType,
				cel.UnaryBinding(func(v ref.Val) ref.Val { return types.Double(math.Abs(float64(v.(types.Double)))) })),
			cel.Overload("abs_int", []*cel.Type{cel.IntType}, cel.IntType,
				cel.UnaryBinding(func(v ref.Val) ref.Val {
					i := v.(types.Int)
					if i == math.MinInt64 {
						return types.NewErr("abs: integer overflow")
					}
					if i < 0 {
						return -i
					}
					return i
				}))),
	}
	for _, v := range envelopeVars {
		opts = append(opts, cel.Variable(v.name, v.typ))
	}
	return cel.NewEnv(opts...)
})

// sumList adds up a list of numbers as a double; null elements count 0.
func sumList(v ref.Val) ref.Val {
	l, ok := v.(traits.Lister)
	if !ok {
		return types.NewErr("sum: want a list, got %s", v.Type().TypeName())
	}
	var total float64
	it := l.Iterator()
	for it.HasNext() == types.True {
		switch e := it.Next().(type) {
		case types.Double:
			total += float64(e)
		case types.Int:
			total += float64(e)
		case types.Uint:
			total += float64(e)
		case types.Null:
		default:
			return types.NewErr("sum: element of type %s is not a number", e.Type().TypeName())
		}
	}
	return types.Double(total)
}

// constType is the CEL type declared for a constant's value.
func constType(v any) *cel.Type {
	switch v.(type) {
	case float64:
		return cel.DoubleType
	case string:
		return cel.StringType
	case bool:
		return cel.BoolType
	case []any:
		return cel.ListType(cel.DynType)
	case map[string]any:
		return cel.MapType(cel.StringType, cel.DynType)
	}
	return cel.DynType
}

// activation binds one decoded message (and the contract's constants) to
// the CEL variables, without building a map per message.
type activation struct {
	m      *decoded
	consts map[string]ref.Val
}

var _ interpreter.Activation = (*activation)(nil)

// ResolveName implements [interpreter.Activation].
func (a *activation) ResolveName(name string) (any, bool) {
	m := a.m
	switch name {
	case "id":
		return m.str("id"), true
	case "edge":
		return m.str("edge"), true
	case "kind":
		return m.str("kind"), true
	case "schema_version":
		return m.str("schema_version"), true
	case "idempotency_key":
		return m.str("idempotency_key"), true
	case "escalation":
		return m.str("escalation"), true
	case "escalation_ref":
		return m.str("escalation_ref"), true
	case "item":
		return m.str("item"), true
	case "next_owner":
		if m.ownersOK {
			return m.owners, true
		}
		return []string{}, true
	case "payload":
		return m.payload, true
	}
	v, ok := a.consts[name]
	return v, ok
}

// Parent implements [interpreter.Activation].
func (a *activation) Parent() interpreter.Activation { return nil }

// nativeConst converts a constant to a CEL value once, at load.
func nativeConst(v any) (ref.Val, error) {
	val := types.DefaultTypeAdapter.NativeToValue(v)
	if types.IsError(val) {
		return nil, fmt.Errorf("constant: %v", val)
	}
	return val, nil
}
