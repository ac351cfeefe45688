// Package jsontext is baton's hot-path JSON: it writes, reads, validates,
// compares and copies JSON values byte for byte as encoding/json does,
// without reflection. Every hand-off a run sends and every trace event it
// records goes through it, as do the missions' record encoders and the run
// store's writer.
//
//   - [AppendString], [AppendFloat] and the AppendOpt functions write
//     strings, numbers and omitempty fields; an [Encoder] writes whole
//     decoded values (objects with sorted keys), [AppendValue] one value.
//   - [DecodeObject] reads a JSON object into decoded values, sharing the
//     strings of known keys ([Keys]); [StringField] picks one top-level
//     string out of a document without decoding it; [ValidCompact] says
//     whether raw JSON would be copied unchanged.
//   - [Equal] is the one JSON value equality (JSON Schema's: numbers by
//     mathematical value, so 0 equals -0 and 1 equals 1.0); [Clone] deep
//     copies a decoded value; [Str], [Num], [List] and [Object] read
//     decoded values leniently.
package jsontext

import (
	"math"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// plain marks the bytes a JSON string holds as they are, per escaping mode:
// ASCII from 0x20 except '"' and '\\', and with HTML escaping also except
// '<', '>' and '&'.
var plain = func() (t [2][256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		if c == '"' || c == '\\' {
			continue
		}
		t[0][c] = true
		t[1][c] = c != '<' && c != '>' && c != '&'
	}
	return t
}()

// AppendString appends s as a JSON string, escaped as encoding/json escapes
// it: with html, as json.Marshal does (<, > and & as \u003c, \u003e,
// \u0026); without, as an Encoder with SetEscapeHTML(false). Invalid UTF-8
// becomes \ufffd, and U+2028 and U+2029 are escaped either way.
func AppendString(b []byte, s string, html bool) []byte {
	table := &plain[0]
	if html {
		table = &plain[1]
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if table[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendFloat appends f as encoding/json writes a float64: 'f' format for
// ordinary magnitudes, 'e' with a short exponent below 1e-6 and from 1e21.
// encoding/json refuses NaN and ±Inf; AppendFloat writes null for them, so
// a caller that must refuse them checks first.
func AppendFloat(b []byte, f float64) []byte {
	// A whole number below 2^53 is written as its digits: every integer
	// near it is a float64 too, so no shorter decimal reads back the same.
	// (-0 and NaN fail the test; 0 is written here.)
	if i := int64(f); float64(i) == f && i > -1<<53 && i < 1<<53 && (i != 0 || !math.Signbit(f)) {
		return strconv.AppendInt(b, i, 10)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9, as encoding/json does
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// AppendOptString appends key (`,"name":`) and s as a JSON string (HTML
// escaping off) unless s is empty, as encoding/json writes an omitempty
// string field.
func AppendOptString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return AppendString(append(b, key...), s, false)
}

// AppendOptInt appends key and n unless n is 0, as encoding/json writes an
// omitempty int field.
func AppendOptInt(b []byte, key string, n int) []byte {
	if n == 0 {
		return b
	}
	return strconv.AppendInt(append(b, key...), int64(n), 10)
}

// AppendOptRaw appends key and raw, raw JSON that encoding/json would copy
// unchanged (valid, and with no whitespace to compact away), unless raw
// is empty, as encoding/json writes an omitempty json.RawMessage field. ok
// is false, and b unchanged, when raw is not valid compact JSON.
func AppendOptRaw(b []byte, key string, raw []byte) ([]byte, bool) {
	if len(raw) == 0 {
		return b, true
	}
	if !ValidCompact(raw) {
		return b, false
	}
	return append(append(b, key...), raw...), true
}
