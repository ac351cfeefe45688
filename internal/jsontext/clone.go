package jsontext

import "slices"

// Clone returns a deep copy of a decoded JSON value: every object and
// array (and []byte) is copied, other values are shared. A nil map or
// slice stays nil.
func Clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, y := range x {
			out[k] = Clone(y)
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = Clone(y)
		}
		return out
	case []byte:
		return slices.Clone(x)
	}
	return v
}

// CloneObject returns a deep copy of a decoded JSON object.
func CloneObject(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return Clone(m).(map[string]any)
}
