package jsontext

// Readers for decoded JSON values (tool results, hand-off payloads). They
// never fail: a missing or unreadable value reads as the zero value.

// Str returns v if it is a string, else "".
func Str(v any) string {
	s, _ := v.(string)
	return s
}

// List returns v as a list of values, whether it decoded as []any or was
// built as []string or []map[string]any.
func List(v any) []any {
	switch l := v.(type) {
	case []any:
		return l
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out
	case []map[string]any:
		out := make([]any, len(l))
		for i, m := range l {
			out[i] = m
		}
		return out
	}
	return nil
}

// Object returns v if it is an object, else nil.
func Object(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// Num reads a number: a Go number as it is, a string the way a forgiving
// parser does ([LenientNumber]). ok is false for anything else.
func Num(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case float32:
		return float64(n), true
	case int32:
		return float64(n), true
	case string:
		return LenientNumber(n)
	}
	return 0, false
}

// LenientNumber reads a number written as a string the way a forgiving
// parser does: every non-digit is taken as a separator and dropped, so
// "1.234,50" and "1234,50" both read as 123450. A leading minus is kept.
func LenientNumber(s string) (float64, bool) {
	var n float64
	digits := 0
	neg := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			n = n*10 + float64(c-'0')
			digits++
		case c == '-' && digits == 0:
			neg = true
		}
	}
	if digits == 0 {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// HasString reports whether l holds the string s.
func HasString(l []any, s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}
