package reports

import (
	"math"
	"strconv"
)

// F4 is a float that marshals rounded to 4 decimal places in fixed-point
// notation, so results.json and the CSVs are byte-stable.
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
// "0.1183", "1"). NaN and infinities format as "null".
func (f F4) String() string {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "null"
	}
	return strconv.FormatFloat(Round4(v), 'f', -1, 64)
}

// MarshalJSON writes f rounded to 4 decimal places.
func (f F4) MarshalJSON() ([]byte, error) { return []byte(f.String()), nil }

// f4 rounds v to 4 decimal places as an F4, so a Results in memory equals
// the one read back from results.json.
func f4(v float64) F4 { return F4(Round4(v)) }

// CI is a 95% interval, low then high.
type CI [2]F4

// wilsonCI returns the Wilson interval of k/n as a CI.
func wilsonCI(k, n int) CI {
	lo, hi := Wilson(k, n)
	return CI{f4(lo), f4(hi)}
}

// rateOf returns k/n as an F4 (0 when n is 0).
func rateOf(k, n int) F4 { return f4(ratio(k, n)) }
