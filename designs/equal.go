package designs

import (
	"bytes"
	"math"
	"unicode/utf8"
)

// sameJSON reports whether a and b marshal to the same JSON bytes, what
// comparing [canonical] of each decides, without marshalling either when
// both are made of the values a decoded JSON document holds (objects,
// arrays, strings, finite numbers, booleans, null). Anything else falls
// back to comparing the marshalled bytes.
func sameJSON(a, b any) bool {
	if eq, ok := quickSameJSON(a, b); ok {
		return eq
	}
	return bytes.Equal(canonical(a), canonical(b))
}

// quickSameJSON compares a and b as JSON values; ok is false when it cannot
// tell without marshalling (types it does not know, or values whose JSON
// is not one-to-one with them: mixed numeric types, NaN and infinities,
// invalid UTF-8, nil maps and slices, which marshal to null).
func quickSameJSON(a, b any) (eq, ok bool) {
	switch x := a.(type) {
	case nil:
		if b == nil {
			return true, true
		}
	case string:
		if y, isStr := b.(string); isStr {
			if x == y {
				return true, true
			}
			return false, utf8.ValidString(x) && utf8.ValidString(y)
		}
	case bool:
		if y, isBool := b.(bool); isBool {
			return x == y, true
		}
	case float64:
		if y, isFloat := b.(float64); isFloat && finite(x) && finite(y) {
			// Go writes the shortest text that reads back as the same
			// float64, and -0 as "-0": equal bits, equal bytes.
			return math.Float64bits(x) == math.Float64bits(y), true
		}
	case int:
		if y, isInt := b.(int); isInt {
			return x == y, true
		}
	case map[string]any:
		if y, isMap := b.(map[string]any); isMap && x != nil && y != nil {
			return sameObject(x, y)
		}
	case []any:
		if y, isList := b.([]any); isList && x != nil && y != nil {
			if len(x) != len(y) {
				return false, true
			}
			for i := range x {
				if eq, ok := quickSameJSON(x[i], y[i]); !ok || !eq {
					return eq, ok
				}
			}
			return true, true
		}
	}
	return false, false
}

// sameObject compares two JSON objects key by key. Keys are checked for
// valid UTF-8 only once a difference is found: keys that are not valid
// UTF-8 may write the same bytes, so that objects differing in Go are the
// same JSON.
func sameObject(x, y map[string]any) (eq, ok bool) {
	if len(x) != len(y) {
		return false, true // a different number of members
	}
	for k, xv := range x {
		yv, present := y[k]
		if !present {
			return false, validKeys(x) && validKeys(y)
		}
		if eq, ok := quickSameJSON(xv, yv); !ok {
			return false, false
		} else if !eq {
			return false, validKeys(x) && validKeys(y)
		}
	}
	return true, true
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
