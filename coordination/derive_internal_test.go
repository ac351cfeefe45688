package coordination

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzKeysOf: reading only the keys of a hand-off gives the fields that
// decoding it whole gives, whenever the key reader accepts it.
func FuzzKeysOf(f *testing.F) {
	for _, s := range []string{
		`{"id":"m-1","edge":"a->b","next_owner":["b"],"payload":{"amount":1.5,"lines":[{"x":"}"}],"note":"a \"q\" b"},"item":"E1"}`,
		`{"payload":[],"x":null}`, `{}`, `{"a":{"b":{"c":[1,2,{"d":"]"}]}},"payload":{}}`, `[1]`, `{"a\u0062":1}`, `{"a":tru`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := keysOf(raw, newFieldCache())
		m := jsonObject(raw)
		if !ok {
			return
		}
		if m == nil {
			t.Fatalf("keysOf read %q, which is not a JSON object", raw)
		}
		if diff := cmp.Diff(fieldNames(m, newFieldCache()), got); diff != "" {
			t.Errorf("keysOf(%q) (-decoded +keys):\n%s", raw, diff)
		}
	})
}
