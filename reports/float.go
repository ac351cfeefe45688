package reports

import (
	"math"
	"strconv"

	"github.com/baton-lab/baton/internal/jsontext"
)

// F4 is a float that results.json keeps at full precision (the shortest
// decimal that reads back as the same float64) and that the renderers —
// report.md, report.html and the CSVs — print rounded to 4 decimal places
// ([F4.String]). Every verdict is computed from the unrounded value.
type F4 float64

// Round4 rounds v to 4 decimal places.
func Round4(v float64) float64 {
	r := math.Round(v*1e4) / 1e4
	if r == 0 {
		return 0 // no negative zero
	}
	return r
}

// String formats f rounded to 4 decimal places, shortest form ("0.2",
// "0.1183", "1"), as the renderers print it. NaN and infinities format as
// "null".
func (f F4) String() string {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "null"
	}
	return strconv.FormatFloat(Round4(v), 'f', -1, 64)
}

// MarshalJSON writes f at full precision, as encoding/json writes a
// float64; NaN and infinities as null.
func (f F4) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	if v == 0 {
		v = 0 // no negative zero
	}
	return jsontext.AppendFloat(make([]byte, 0, 24), v), nil
}

// f4 turns a computed value into an F4, unrounded.
func f4(v float64) F4 { return F4(v) }

// CI is a 95% interval, low then high.
type CI [2]F4

// ciOf returns lo and hi as a CI.
func ciOf(lo, hi float64) CI { return CI{f4(lo), f4(hi)} }

// wilsonCI returns the Wilson interval of k/n as a CI.
func wilsonCI(k, n int) CI { return ciOf(Wilson(k, n)) }

// rateOf returns k/n as an F4 (0 when n is 0).
func rateOf(k, n int) F4 { return f4(ratio(k, n)) }
