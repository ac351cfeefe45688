package designs

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/baton-lab/baton/sandbox"
)

// sameJSON decides exactly what comparing the marshalled bytes decides,
// including where Go values and their JSON are not one-to-one.
func TestSameJSONAgreesWithCanonical(t *testing.T) {
	result := func() map[string]any {
		return map[string]any{
			"email_id": "E1", "gross": 1200.5, "duplicate": false, "flags": []any{"a", "b"},
			"lines": []any{map[string]any{"sku": "X", "qty": 3.0}}, "exception": nil,
		}
	}
	changed := func(f func(m map[string]any)) map[string]any { m := result(); f(m); return m }
	var nilMap map[string]any
	var nilList []any
	cases := []struct {
		name string
		a, b any
	}{
		{"same result", result(), result()},
		{"changed number", result(), changed(func(m map[string]any) { m["gross"] = 1200.51 })},
		{"changed nested", result(), changed(func(m map[string]any) { m["lines"].([]any)[0].(map[string]any)["qty"] = 4.0 })},
		{"missing key", result(), changed(func(m map[string]any) { delete(m, "flags") })},
		{"other key", result(), changed(func(m map[string]any) { delete(m, "flags"); m["flag"] = []any{"a", "b"} })},
		{"longer list", result(), changed(func(m map[string]any) { m["flags"] = []any{"a", "b", "c"} })},
		{"string for number", result(), changed(func(m map[string]any) { m["gross"] = "1200.5" })},
		{"int and float same text", 3, 3.0},
		{"int and float", 3, 3.5},
		{"ints", 3, 3},
		{"zero and minus zero", 0.0, math.Copysign(0, -1)},
		{"NaN", math.NaN(), math.NaN()},
		{"infinity", math.Inf(1), math.Inf(1)},
		{"nil and nil map", nil, nilMap},
		{"nil map and empty map", nilMap, map[string]any{}},
		{"nil list and empty list", nilList, []any{}},
		{"nil and nil list", nil, nilList},
		{"invalid UTF-8 strings", "a\xff", "a\xfe"},
		{"invalid UTF-8 keys", map[string]any{"\xff": 1.0}, map[string]any{"\xfe": 1.0}},
		{"invalid UTF-8 keys, values swapped", map[string]any{"\xfe": 1.0, "\xff": 2.0}, map[string]any{"\xfd": 1.0, "\xfe": 2.0}},
		{"HTML characters", "<b>&", "<b>&"},
		{"escaped look-alike", "<", `\u003c`},
		{"named map type", sandbox.Args{"a": 1.0}, map[string]any{"a": 1.0}},
		{"typed list", []string{"a"}, []any{"a"}},
		{"bools", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := bytes.Equal(canonical(c.a), canonical(c.b))
			if got := sameJSON(c.a, c.b); got != want {
				t.Errorf("sameJSON(%#v, %#v) = %v, comparing the JSON says %v", c.a, c.b, got, want)
			}
			if got := sameJSON(c.b, c.a); got != want {
				t.Errorf("sameJSON(%#v, %#v) = %v, comparing the JSON says %v", c.b, c.a, got, want)
			}
		})
	}
}

func FuzzSameJSON(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"x"}],"c":null}`), []byte(`{"c":null,"a":[1,{"b":"x"}]}`))
	f.Add([]byte(`{"a":1}`), []byte(`{"a":1.0}`))
	f.Add([]byte(`[0,-0]`), []byte(`[0,0]`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var x, y any
		if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
			return
		}
		want := bytes.Equal(canonical(x), canonical(y))
		if got := sameJSON(x, y); got != want {
			t.Fatalf("sameJSON(%s, %s) = %v, comparing the JSON says %v", a, b, got, want)
		}
	})
}
