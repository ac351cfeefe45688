package jsontext

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

func std(tb testing.TB, s string, html bool) []byte {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		tb.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

var samples = []string{
	"", "plain", "quote\" back\\slash", "ctl\x01\x1f\n\r\t\b\f\x7f", "<script>&</script>",
	"héllo €", "\u2028\u2029", "bad\xffutf8", "\xed\xa0\x80", "tab\there",
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, html := range []bool{false, true} {
		for _, s := range samples {
			if got, want := AppendString(nil, s, html), std(t, s, html); !bytes.Equal(got, want) {
				t.Errorf("AppendString(%q, html=%v) = %s, want %s", s, html, got, want)
			}
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range samples {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, html bool) {
		if got, want := AppendString(nil, s, html), std(t, s, html); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q, html=%v) = %s, want %s", s, html, got, want)
		}
	})
}

var floats = []float64{0, math.Copysign(0, -1), 1, -1.5, 3.14159, 1e-6, 9.99e-7, 1e-7, 1.5e-9, 1e20, 1e21, -2.5e22,
	123456789012345678, math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1 + 0.2,
	119, -42, 1 << 53, 1<<53 - 1, -(1<<53 - 1), -(1 << 53), 1<<53 + 2, 1 << 62, -(1 << 63), 1 << 63, 9.2e18, 1e15, 999999999999999.9}

func TestAppendFloatMatchesEncodingJSON(t *testing.T) {
	for _, f := range floats {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendFloat(nil, f); !bytes.Equal(got, want) {
			t.Errorf("AppendFloat(%v) = %s, want %s", f, got, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got := AppendFloat(nil, f); string(got) != "null" {
			t.Errorf("AppendFloat(%v) = %s, want null", f, got)
		}
	}
}

func FuzzAppendFloat(f *testing.F) {
	for _, x := range floats {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		want, err := json.Marshal(x)
		if err != nil {
			t.Skip("encoding/json refuses it")
		}
		if got := AppendFloat(nil, x); !bytes.Equal(got, want) {
			t.Fatalf("AppendFloat(%v) = %s, want %s", x, got, want)
		}
	})
}

// BenchmarkAppendFloat writes amounts as hand-offs carry them: whole and
// with cents.
func BenchmarkAppendFloat(b *testing.B) {
	var buf []byte
	for b.Loop() {
		buf = AppendFloat(AppendFloat(buf[:0], 1190), 19.99)
	}
}
