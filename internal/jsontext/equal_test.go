package jsontext

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"
)

type namedMap map[string]any

type currency string

func ptr[T any](v T) *T { return &v }

// Equal is JSON Schema's instance equality: numbers by value (0 and -0,
// 1 and 1.0 alike), null apart from {} and [], strings as encoding/json
// writes them.
func TestEqual(t *testing.T) {
	result := func() map[string]any {
		return map[string]any{
			"email_id": "E1", "gross": 1200.5, "duplicate": false, "flags": []any{"a", "b"},
			"lines": []any{map[string]any{"sku": "X", "qty": 3.0}}, "exception": nil,
		}
	}
	changed := func(f func(m map[string]any)) map[string]any { m := result(); f(m); return m }
	var nilMap map[string]any
	var nilList []any
	negZero := math.Copysign(0, -1)
	cases := []struct {
		name string
		a, b any
		want bool
	}{
		{"same result", result(), result(), true},
		{"changed number", result(), changed(func(m map[string]any) { m["gross"] = 1200.51 }), false},
		{"changed nested", result(), changed(func(m map[string]any) { m["lines"].([]any)[0].(map[string]any)["qty"] = 4.0 }), false},
		{"missing key", result(), changed(func(m map[string]any) { delete(m, "flags") }), false},
		{"other key", result(), changed(func(m map[string]any) { delete(m, "flags"); m["flag"] = []any{"a", "b"} }), false},
		{"longer list", result(), changed(func(m map[string]any) { m["flags"] = []any{"a", "b", "c"} }), false},
		{"string for number", result(), changed(func(m map[string]any) { m["gross"] = "1200.5" }), false},
		{"int and float of one value", 3, 3.0, true},
		{"int64 and float", int64(-9), -9.0, true},
		{"uint and int", uint(7), 7, true},
		{"zero and minus zero", 0.0, negZero, true},
		{"int zero and minus zero", 0, negZero, true},
		{"minus zero in a result", changed(func(m map[string]any) { m["gross"] = 0.0 }), changed(func(m map[string]any) { m["gross"] = negZero }), true},
		{"json.Number and float", json.Number("1.50"), 1.5, true},
		{"unparsable json.Number", json.Number("x"), 0.0, false},
		{"float32 as its JSON text", float32(0.1), 0.1, true},
		{"NaN", math.NaN(), math.NaN(), false},
		{"infinity", math.Inf(1), math.Inf(1), false},
		{"nil and nil map", nil, nilMap, true},
		{"nil map and empty map", nilMap, map[string]any{}, false},
		{"nil list and empty list", nilList, []any{}, false},
		{"nil and nil list", nil, nilList, true},
		{"invalid UTF-8 strings written alike", "a\xff", "a\xfe", true},
		{"invalid UTF-8 and U+FFFD", "a\xff", "a\ufffd", true},
		{"invalid UTF-8 strings written apart", "a\xff", "b\xfe", false},
		{"invalid UTF-8 keys written alike", map[string]any{"\xff": 1.0}, map[string]any{"\xfe": 1.0}, true},
		{"HTML characters", "<b>&", "<b>&", true},
		{"escaped look-alike", "<", `\u003c`, false},
		{"named map type", namedMap{"a": 1.0}, map[string]any{"a": 1}, true},
		{"typed list", []string{"a"}, []any{"a"}, true},
		{"struct as its JSON", struct {
			A int `json:"a"`
		}{1}, map[string]any{"a": 1.0}, true},
		{"unencodable", map[string]any{"f": func() {}}, map[string]any{"f": func() {}}, false},
		{"bools", true, false, false},
		{"bool and string", true, "true", false},
		{"int64 and uint8", int64(3), uint8(3), true},
		{"float64 and int", 140.0, 140, true},
		{"different numbers", 140, 140.5, false},
		{"named string", currency("EUR"), "EUR", true},
		{"named string differs", currency("EUR"), "USD", false},
		{"pointer to string", ptr("EUR"), "EUR", true},
		{"nil pointer is null", (*string)(nil), nil, true},
		{"array and list", [2]int{1, 2}, []any{1.0, 2.0}, true},
		{"list order matters", []any{"a", "b"}, []any{"b", "a"}, false},
		{"named-key map", map[currency]float64{"EUR": 1}, map[string]any{"EUR": 1}, true},
		{"null and 0", nil, 0, false},
		{"[]byte is base64", []byte("hi"), "aGk=", true},
		{"time.Time is a JSON string", time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC), "2025-01-02T00:00:00Z", true},
		{"unencodable values never match", make(chan int), make(chan int), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Equal(c.a, c.b); got != c.want {
				t.Errorf("Equal(%#v, %#v) = %v, want %v", c.a, c.b, got, c.want)
			}
			if got := Equal(c.b, c.a); got != c.want {
				t.Errorf("Equal(%#v, %#v) = %v, want %v", c.b, c.a, got, c.want)
			}
		})
	}
}

// On decoded JSON, Equal is what reflect.DeepEqual decides: decoded
// numbers are float64 (compared with ==, so -0 equals 0) and strings are
// valid UTF-8.
func FuzzEqual(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"x"}],"c":null}`), []byte(`{"c":null,"a":[1,{"b":"x"}]}`))
	f.Add([]byte(`{"a":1}`), []byte(`{"a":1.0}`))
	f.Add([]byte(`[0,-0]`), []byte(`[0,0]`))
	f.Add([]byte(`{"a":{}}`), []byte(`{"a":null}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var x, y any
		if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
			return
		}
		want := reflect.DeepEqual(x, y)
		if got := Equal(x, y); got != want {
			t.Fatalf("Equal(%s, %s) = %v, reflect.DeepEqual says %v", a, b, got, want)
		}
		if !Equal(x, x) {
			t.Fatalf("Equal(%s, itself) = false", a)
		}
	})
}

// BenchmarkEqual compares a structured result with its golden copy, as
// design A's scorecard does for every agent-item.
func BenchmarkEqual(b *testing.B) {
	v := map[string]any{
		"email_id": "E1", "doc_type": "invoice", "gross": 1200.5, "net": 1000.0, "tax": 200.5, "duplicate": false,
		"flags": []any{}, "lines": []any{map[string]any{"sku": "X", "qty": 3.0, "unit_price": 400.0, "amount": 1200.0}},
		"escalation": "none", "escalation_ref": "", "register_id": "INV-0001",
	}
	w := Clone(v)
	b.ReportAllocs()
	for b.Loop() {
		if !Equal(v, w) {
			b.Fatal("unequal")
		}
	}
}
