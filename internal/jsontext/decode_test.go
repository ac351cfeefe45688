package jsontext

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func stdMarshal(tb testing.TB, v any) string {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// selfWriting writes itself through the encoder, as a mission's envelope
// type does.
type selfWriting struct{ ID string }

func (s selfWriting) AppendJSONValue(e *Encoder, b []byte) []byte {
	b = append(b, `{"id":`...)
	b = AppendString(b, s.ID, false)
	return append(b, '}')
}

func (s selfWriting) MarshalJSON() ([]byte, error) { return s.AppendJSONValue(nil, nil), nil }

// TestEncoderMatchesStd: the encoder writes what encoding/json writes
// (HTML escaping off).
func TestEncoderMatchesStd(t *testing.T) {
	values := []any{
		nil, true, false, 0.0, math.Copysign(0, -1), 1.5, 2319.07, 1e21, 1e-7, 123456789.125, -3.0, 1e20,
		"", "plain", "quote\" back\\slash", "ctl\x01\x1f\n\r\t\b\f", "<script>&</script>", "héllo €", "\u2028\u2029",
		"bad\xffutf8", map[string]any{}, []any{}, []any{nil, 1.0, "x"},
		map[string]any{"b": 1.0, "a": []any{map[string]any{"z": "1", "y": false}}, "é": "k"},
		map[string]any{"x": []string{"a", "b"}}, map[string]any{"n": 7, "m": int64(-9), "s": selfWriting{"<&>"}},
		struct{ A int }{1},
	}
	var e Encoder
	for _, v := range values {
		want := stdMarshal(t, v)
		if got := string(e.Encode(v)); got != want {
			t.Errorf("Encode(%#v) = %s, want %s", v, got, want)
		}
	}
}

// AppendValue writes what encoding/json writes, after what the buffer
// held, and says when encoding/json would have failed instead.
func TestAppendValue(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		ok   bool
	}{
		{"object", map[string]any{"b": "é\u2028", "a": nil, "c": []string{"x"}}, true},
		{"NaN", map[string]any{"gross": math.NaN()}, false},
		{"infinity", []any{math.Inf(-1)}, false},
		{"unsupported", map[string]any{"f": func() {}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := AppendValue([]byte("prefix:"), tc.v)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if want := "prefix:" + stdMarshal(t, tc.v); string(got) != want {
				t.Errorf("AppendValue = %s, want %s", got, want)
			}
		})
	}
}

// TestDecodeObjectMatchesStd: the decoder accepts and rejects what
// encoding/json does, with the same values.
func TestDecodeObjectMatchesStd(t *testing.T) {
	for _, in := range decodeSeeds {
		checkDecode(t, []byte(in))
	}
}

var decodeSeeds = []string{
	`{}`, `null`, ` {"a":1} `, `{"a":[1,2,{"b":null}],"c":"d\u00e9\ud83d\ude00\n","e":true,"f":-0.5e+3}`,
	`{"a":"\ud800"}`, `{"a":"\ud800\u0041"}`, `{"a":"x\xffy"}`, `{"a":1,"a":2}`, `{"a":01}`, `{"a":1.}`,
	`{"a":-}`, `{"a":1e}`, `{"a":"\x01"}`, `{"a":"\q"}`, `{"a":tru}`, `{"a":1,}`, `[1]`, `"s"`, `{"a":1}x`,
	`{"a":1e400}`, `{a:1}`, `{"a" 1}`, `{"a":[1 2]}`, ``, `{"payload":{"gross":"1.234,50","lines":[]}}`,
	`{"a":"\/\b\f\r\t\"\\"}`, `{"a":"\u00"}`,
}

var seedKeys = NewKeys("a", "payload", "gross")

func checkDecode(t *testing.T, in []byte) {
	t.Helper()
	var want map[string]any
	wantErr := json.Unmarshal(in, &want)
	for _, keys := range []*Keys{nil, seedKeys} {
		got, gotErr := DecodeObject(in, keys)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("decode %q: err %v, encoding/json err %v", in, gotErr, wantErr)
		}
		if wantErr != nil {
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("decode %q (-encoding/json +jsontext):\n%s", in, diff)
		}
	}
}

func FuzzDecodeObject(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkDecode(t, in)
	})
}

func TestLenientNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1234,50", 123450, true}, {"1.234,50", 123450, true}, {"-12", -12, true}, {"1-2", 12, true},
		{"abc", 0, false}, {"", 0, false}, {"€ 5", 5, true},
	} {
		got, ok := LenientNumber(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("LenientNumber(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// Clone copies containers: the copy equals the original, and changing it
// (at the top or inside) leaves the original alone.
func TestClone(t *testing.T) {
	mk := func() map[string]any {
		return map[string]any{"a": []any{map[string]any{"b": 1.0}}, "m": map[string]any{"c": "x"}, "raw": []byte("x"), "n": nil, "s": "t"}
	}
	orig := mk()
	c := Clone(orig).(map[string]any)
	if diff := cmp.Diff(mk(), c); diff != "" {
		t.Errorf("copy differs (-want +got):\n%s", diff)
	}
	c["a"].([]any)[0].(map[string]any)["b"] = 2.0
	c["m"].(map[string]any)["c"] = "y"
	c["raw"].([]byte)[0] = 'y'
	c["s"], c["new"] = "u", 1.0
	if diff := cmp.Diff(mk(), orig); diff != "" {
		t.Errorf("original changed (-want +got):\n%s", diff)
	}
	if CloneObject(nil) != nil {
		t.Error("CloneObject(nil) != nil")
	}
}

// Keys and short strings a decoder has seen before are shared, never
// confused: documents with more distinct ones than it remembers, read
// twice, decode as encoding/json decodes them.
func TestDecodeSeenKeys(t *testing.T) {
	var docs [][]byte
	for d := range 3 {
		m := map[string]any{}
		for i := range 600 {
			var v any = float64(i)
			if i%2 == 1 {
				v = strconv.Itoa(i % 97) // short values recur too
			}
			m[string(rune('a'+d))+strconv.Itoa(i*7%601)] = v
		}
		b, err := json.Marshal(map[string]any{"outer": m, "list": []any{m, map[string]any{"a0": "x"}}})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, b)
	}
	for round := range 2 {
		for i, doc := range docs {
			var want map[string]any
			if err := json.Unmarshal(doc, &want); err != nil {
				t.Fatal(err)
			}
			got, err := DecodeObject(doc, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("round %d, document %d (-want +got):\n%s", round, i, diff)
			}
		}
	}
}

// Numbers a decoder has seen before are shared bit for bit: 0 is not -0.
func TestDecodeSeenNumbers(t *testing.T) {
	for range 2 {
		m, err := DecodeObject([]byte(`{"z":0,"n":-0,"f":1.5,"g":-1.5}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		if z, n := m["z"].(float64), m["n"].(float64); math.Signbit(z) || !math.Signbit(n) {
			t.Errorf("0 decoded as %v (sign %v), -0 as %v (sign %v)", z, math.Signbit(z), n, math.Signbit(n))
		}
		if m["f"] != 1.5 || m["g"] != -1.5 {
			t.Errorf("got %v, %v, want 1.5, -1.5", m["f"], m["g"])
		}
	}
}

func BenchmarkDecodeObject(b *testing.B) {
	doc := []byte(`{"edge":"intake->match","escalation":"none","escalation_ref":"","id":"m-inv-1-intake->match-1",` +
		`"idempotency_key":"inv-1:invoice","item":"inv-1","kind":"invoice","next_owner":["match"],"payload":{"currency":"EUR",` +
		`"due_date":"2026-02-01","email_id":"e-1","gross":119,"invoice_date":"2026-01-02","invoice_number":"INV-1",` +
		`"lines":[{"qty":2,"sku":"a"}],"net":100,"tax":19},"schema_version":"1"}`)
	for b.Loop() {
		if _, err := DecodeObject(doc, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCloneObject copies a parsed hand-off's payload, as every
// consumer of a remembered reading gets one.
func BenchmarkCloneObject(b *testing.B) {
	m := map[string]any{"invoice_number": "INV-1", "invoice_date": "2026-01-02", "email_id": "e-1", "due_date": "2026-02-01",
		"gross": 119.0, "net": 100.0, "tax": 19.0, "lines": []any{map[string]any{"sku": "a", "qty": 2.0}}, "currency": "EUR",
		"supplier": "ACME", "po_number": "PO-1", "flags": []any{}}
	b.ReportAllocs()
	for b.Loop() {
		_ = CloneObject(m)
	}
}
