package mission

import (
	"math"
	"strconv"
	"time"
)

// Readers for decoded JSON values (tool results, hand-off payloads). They
// never fail: a missing or unreadable value reads as the zero value, and ok
// says whether the value was there and readable.

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) (float64, bool) {
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
		return lenientNumber(n)
	}
	return 0, false
}

// lenientNumber reads a number written as a string the way a forgiving
// parser does: every non-digit is taken as a separator and dropped, so
// "1.234,50" and "1234,50" both read as 123450. A leading minus is kept.
func lenientNumber(s string) (float64, bool) {
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

// list returns v as a list of values, whether it decoded as []any or was
// built as another slice type by a seam.
func list(v any) []any {
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
	case []Agent:
		out := make([]any, len(l))
		for i, a := range l {
			out[i] = string(a)
		}
		return out
	}
	return nil
}

func object(v any) map[string]any {
	switch m := v.(type) {
	case map[string]any:
		return m
	case Result:
		return m
	}
	return nil
}

// round2 rounds to cents.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

// cents returns x in integer cents.
func cents(x float64) int64 { return int64(math.Round(x * 100)) }

// readDate reads a date the way the mission's parsers do: "YYYY-MM-DD" as
// is; "DD/MM/YYYY" as MM/DD/YYYY when both parts are at most 12 (the silent
// misreading of a day-first date), else unreadable.
func readDate(v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	if len(s) == 10 && s[4] == '-' && s[7] == '-' {
		y, ok1 := atoi(s[0:4])
		m, ok2 := atoi(s[5:7])
		d, ok3 := atoi(s[8:10])
		if ok1 && ok2 && ok3 && y > 0 && m >= 1 && m <= 12 && d >= 1 && d <= 31 {
			return s, true
		}
		return "", false
	}
	if len(s) == 10 && s[2] == '/' && s[5] == '/' {
		a, ok1 := atoi(s[0:2])
		b, ok2 := atoi(s[3:5])
		_, ok3 := atoi(s[6:10])
		if ok1 && ok2 && ok3 && a >= 1 && a <= 12 && b >= 1 && b <= 12 {
			// Read as MM/DD/YYYY: a is the month, b the day.
			return s[6:10] + "-" + s[0:2] + "-" + s[3:5], true
		}
	}
	return "", false
}

func atoi(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, len(s) > 0
}

// addDays returns date (YYYY-MM-DD) plus n days, or "" if date is unreadable.
func addDays(date string, n int) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return ""
	}
	return t.AddDate(0, 0, n).Format(time.DateOnly)
}

// fmtNum writes a number the way encoding/json does for ordinary values.
func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// containsFold reports whether s contains sub, ignoring ASCII case and
// treating a space in sub as any run of white space (so a phrase broken
// over lines still matches); sub must be lower case.
func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	lower, upper := sub[0], sub[0]
	if lower >= 'a' && lower <= 'z' {
		upper -= 'a' - 'A'
	}
	for i := 0; i < len(s); i++ {
		// Only a position whose byte can match sub's first one can start
		// a match (a leading space in sub matches white space only).
		if c := s[i]; lower != ' ' && c != lower && c != upper || lower == ' ' && !isSpace(c) {
			continue
		}
		if matchFoldAt(s, i, sub) {
			return true
		}
	}
	return false
}

func matchFoldAt(s string, i int, sub string) bool {
	for j := 0; j < len(sub); j++ {
		if sub[j] == ' ' {
			if i >= len(s) || !isSpace(s[i]) {
				return false
			}
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			continue
		}
		if i >= len(s) {
			return false
		}
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != sub[j] {
			return false
		}
		i++
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func hasString(l []any, s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}
