package score

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// equalArgs compares two argument maps as JSON objects; nil equals empty.
func equalArgs(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb, ok := b[k]
		if !ok || !equalValue(va, vb) {
			return false
		}
	}
	return true
}

// equalValue compares two Go values as the JSON values they encode to.
// The common cases are handled without reflection or allocation.
func equalValue(a, b any) bool {
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return x == y
		}
	case float64:
		if y, ok := b.(float64); ok {
			return x == y
		}
	case bool:
		if y, ok := b.(bool); ok {
			return x == y
		}
	case nil:
		if b == nil {
			return true
		}
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			if (x == nil) != (y == nil) {
				return false // null vs {}
			}
			return equalArgs(x, y)
		}
	case []any:
		if y, ok := b.([]any); ok {
			if (x == nil) != (y == nil) || len(x) != len(y) {
				return false
			}
			for i := range x {
				if !equalValue(x[i], y[i]) {
					return false
				}
			}
			return true
		}
	}
	if fa, ok := fastNumber(a); ok {
		if fb, ok := fastNumber(b); ok {
			return fa == fb
		}
	}
	return equalReflect(reflect.ValueOf(a), reflect.ValueOf(b))
}

// fastNumber converts the built-in numeric types to float64.
func fastNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint64:
		return float64(n), true
	case uint32:
		return float64(n), true
	case float32:
		return float32ToJSON(n), true
	}
	return 0, false
}

// float32ToJSON returns the float64 that a float32 reads back as from its
// JSON encoding (0.1 rather than 0.10000000149011612).
func float32ToJSON(f float32) float64 {
	g, err := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	if err != nil {
		return float64(f)
	}
	return g
}

// kind is the JSON kind of a reflected value.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindObject
	kindArray
	kindOther // has its own JSON encoding: compare via encoding/json
)

var (
	typeNumber        = reflect.TypeFor[json.Number]()
	typeJSONMarshaler = reflect.TypeFor[json.Marshaler]()
	typeTextMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// classify dereferences pointers and interfaces and returns v's JSON kind.
func classify(v reflect.Value) (reflect.Value, kind) {
	for {
		if !v.IsValid() {
			return v, kindNull
		}
		t := v.Type()
		if t == typeNumber {
			return v, kindNumber
		}
		if t.Implements(typeJSONMarshaler) || t.Implements(typeTextMarshaler) {
			return v, kindOther
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				return v, kindNull
			}
			v = v.Elem()
			continue
		case reflect.Bool:
			return v, kindBool
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
			reflect.Float32, reflect.Float64:
			return v, kindNumber
		case reflect.String:
			return v, kindString
		case reflect.Map:
			if t.Key().Kind() != reflect.String {
				return v, kindOther
			}
			if v.IsNil() {
				return v, kindNull
			}
			return v, kindObject
		case reflect.Slice:
			if t.Elem().Kind() == reflect.Uint8 {
				return v, kindOther // []byte encodes as base64
			}
			if v.IsNil() {
				return v, kindNull
			}
			return v, kindArray
		case reflect.Array:
			return v, kindArray
		}
		return v, kindOther
	}
}

// number returns a numeric value as float64; ok is false for a json.Number
// that does not parse.
func number(v reflect.Value) (float64, bool) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(v.Uint()), true
	case reflect.Float32:
		return float32ToJSON(float32(v.Float())), true
	case reflect.Float64:
		return v.Float(), true
	case reflect.String: // json.Number
		f, err := strconv.ParseFloat(v.String(), 64)
		return f, err == nil && !math.IsInf(f, 0)
	}
	return 0, false
}

// equalReflect compares two values of any Go types as JSON values.
func equalReflect(a, b reflect.Value) bool {
	a, ka := classify(a)
	b, kb := classify(b)
	if ka == kindOther || kb == kindOther {
		ca, okA := canonical(a, ka)
		cb, okB := canonical(b, kb)
		return okA && okB && equalValue(ca, cb)
	}
	if ka != kb {
		return false
	}
	switch ka {
	case kindNull:
		return true
	case kindBool:
		return a.Bool() == b.Bool()
	case kindNumber:
		fa, okA := number(a)
		fb, okB := number(b)
		return okA && okB && fa == fb
	case kindString:
		return a.String() == b.String()
	case kindArray:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !equalReflect(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case kindObject:
		if a.Len() != b.Len() {
			return false
		}
		kt := b.Type().Key()
		for it := a.MapRange(); it.Next(); {
			vb := b.MapIndex(reflect.ValueOf(it.Key().String()).Convert(kt))
			if !vb.IsValid() || !equalReflect(it.Value(), vb) {
				return false
			}
		}
		return true
	}
	return false
}

// canonical turns a value into the any that decoding its JSON encoding
// gives. Only values of kind other are marshalled.
func canonical(v reflect.Value, k kind) (any, bool) {
	if k != kindOther {
		if !v.IsValid() {
			return nil, true
		}
		return v.Interface(), true
	}
	raw, err := json.Marshal(v.Interface())
	if err != nil {
		return nil, false
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, false
	}
	return out, true
}
