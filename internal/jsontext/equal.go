package jsontext

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Equal reports whether a and b are the same JSON value. It is baton's one
// JSON value equality (tool arguments, structured results, recorded runs),
// and it follows JSON Schema's instance equality (draft 2020-12, section
// 4.2.2): both null, both booleans with the same value, both strings with
// the same characters, both numbers with the same mathematical value, both
// arrays with equal elements in order, or both objects with the same keys
// and equal values under each.
//
// So numbers compare by value whatever their Go type or text: 1 (an int),
// 1.0 and json.Number("1.0") are equal, and so are 0 and -0 (encoding/json
// writes "-0", but it is the number 0). A float32 is the number its JSON
// text reads back as (float32(0.1) is 0.1). NaN and the infinities are not
// JSON numbers: they equal nothing, themselves included. Strings compare as
// encoding/json writes them: invalid UTF-8 reads as U+FFFD. A nil map or
// slice is null, not the empty object or array. Values of other Go types
// (structs, named maps, json.Marshaler) are compared as the JSON value
// their encoding/json encoding decodes to; a value encoding/json cannot
// encode equals nothing.
//
// The common cases (what a decoded JSON document holds) are decided
// without reflection or allocation.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		if b == nil {
			return true
		}
	case string:
		if y, ok := b.(string); ok {
			return equalString(x, y)
		}
	case bool:
		if y, ok := b.(bool); ok {
			return x == y
		}
	case float64:
		if y, ok := b.(float64); ok {
			return finite(x) && x == y
		}
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			return equalObject(x, y)
		}
	case []any:
		if y, ok := b.([]any); ok {
			if (x == nil) != (y == nil) || len(x) != len(y) {
				return false
			}
			for i := range x {
				if !Equal(x[i], y[i]) {
					return false
				}
			}
			return true
		}
	}
	if fa, ok := fastNumber(a); ok {
		if fb, ok := fastNumber(b); ok {
			return finite(fa) && fa == fb
		}
	}
	return equalReflect(reflect.ValueOf(a), reflect.ValueOf(b))
}

// equalString compares two strings as encoding/json writes them.
func equalString(x, y string) bool {
	if x == y {
		return true
	}
	if utf8.ValidString(x) && utf8.ValidString(y) {
		return false
	}
	return coerced(x) == coerced(y)
}

// coerced is s with every byte that is not valid UTF-8 replaced by U+FFFD,
// as encoding/json writes it.
func coerced(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r) // utf8.RuneError for an invalid byte
		i += size
	}
	return b.String()
}

func equalObject(x, y map[string]any) bool {
	if (x == nil) != (y == nil) || len(x) != len(y) {
		return false // null vs {}, or a different number of members
	}
	for k, xv := range x {
		yv, ok := y[k]
		if !ok {
			// Keys that are not valid UTF-8 may be written alike.
			return !(validKeys(x) && validKeys(y)) && viaJSON(x, y)
		}
		if !Equal(xv, yv) {
			return false
		}
	}
	return true
}

func validKeys(m map[string]any) bool {
	for k := range m {
		if !utf8.ValidString(k) {
			return false
		}
	}
	return true
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

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
// that does not parse and for a number that is not finite.
func number(v reflect.Value) (float64, bool) {
	var f float64
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(v.Uint()), true
	case reflect.Float32:
		f = float32ToJSON(float32(v.Float()))
	case reflect.Float64:
		f = v.Float()
	case reflect.String: // json.Number
		var err error
		if f, err = strconv.ParseFloat(v.String(), 64); err != nil {
			return 0, false
		}
	}
	return f, finite(f)
}

// equalReflect compares two values of any Go types as JSON values.
func equalReflect(a, b reflect.Value) bool {
	a, ka := classify(a)
	b, kb := classify(b)
	if ka == kindOther || kb == kindOther {
		return viaJSON(value(a), value(b))
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
		return equalString(a.String(), b.String())
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
			if !vb.IsValid() {
				return viaJSON(value(a), value(b))
			}
			if !equalReflect(it.Value(), vb) {
				return false
			}
		}
		return true
	}
	return false
}

func value(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	return v.Interface()
}

// viaJSON compares a and b as the values their encoding/json encodings
// decode to. A value encoding/json cannot encode equals nothing.
func viaJSON(a, b any) bool {
	da, okA := decoded(a)
	db, okB := decoded(b)
	return okA && okB && equalDecoded(da, db)
}

func decoded(v any) (any, bool) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, false
	}
	return out, true
}

// equalDecoded is Equal on values encoding/json decoded: valid UTF-8
// throughout, so it never needs to decode again.
func equalDecoded(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equalDecoded(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalDecoded(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return Equal(a, b)
}
