package sandbox

import (
	"encoding/json"
	"math"
	"strconv"
)

// Argument readers. Each returns a VAL-422 error naming the field when it is
// missing (or empty, where a value is needed) or of the wrong type.

// needStr reads a required, non-empty string.
func needStr(a Args, name string) (string, *Error) {
	v, ok := a[name]
	if !ok || v == nil {
		return "", errInvalid("missing field " + name)
	}
	s, ok := v.(string)
	if !ok {
		return "", errInvalid("field " + name + ": want string, got " + typeName(v))
	}
	if s == "" {
		return "", errInvalid("missing field " + name)
	}
	return s, nil
}

// presentStr reads a required string that may be empty ("" is a value, for
// instance the supplier id of an unknown supplier).
func presentStr(a Args, name string) (string, *Error) {
	v, ok := a[name]
	if !ok || v == nil {
		return "", errInvalid("missing field " + name)
	}
	s, ok := v.(string)
	if !ok {
		return "", errInvalid("field " + name + ": want string, got " + typeName(v))
	}
	return s, nil
}

// optStr reads an optional string: absent or null is "".
func optStr(a Args, name string) (string, *Error) {
	v, ok := a[name]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", errInvalid("field " + name + ": want string, got " + typeName(v))
	}
	return s, nil
}

// needNum reads a required finite number.
func needNum(a Args, name string) (float64, *Error) {
	v, ok := a[name]
	if !ok || v == nil {
		return 0, errInvalid("missing field " + name)
	}
	return toNum(name, v)
}

// optNum reads an optional finite number: absent or null is 0.
func optNum(a Args, name string) (float64, *Error) {
	v, ok := a[name]
	if !ok || v == nil {
		return 0, nil
	}
	return toNum(name, v)
}

func toNum(name string, v any) (float64, *Error) {
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
			return 0, errInvalid("field " + name + ": want number, got " + strconv.Quote(string(n)))
		}
	default:
		return 0, errInvalid("field " + name + ": want number, got " + typeName(v))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errInvalid("field " + name + ": want a finite number")
	}
	return f, nil
}

// typeName names a decoded JSON value's type the way an API error would.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64, float32, int, int64, int32, json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any, []map[string]any, []ReportEntry:
		return "array"
	case map[string]any, Args:
		return "object"
	}
	return "unknown"
}
