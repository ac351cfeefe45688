package designs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWireDiff(t *testing.T) {
	const msg = `{"id":"m1","edge":"a->b","next_owner":["b"],"payload":{"n":1,"s":"x"}}`
	for _, tc := range []struct {
		name, want, got string
		fields          []string
	}{
		{"same bytes", msg, msg, nil},
		{"same bytes, not JSON", `{"a":`, `{"a":`, nil},
		{"same value, other bytes", msg, `{"payload":{"s":"x","n":1.0},"next_owner":["b"],"edge":"a->b","id":"m1"}`, nil},
		{"payload field changed", msg, `{"id":"m1","edge":"a->b","next_owner":["b"],"payload":{"n":2,"s":"x"}}`, []string{"payload.n"}},
		{"envelope and payload", msg, `{"id":"m1","edge":"a->b","next_owner":["c"],"payload":{"s":"x","t":0}}`, []string{"next_owner", "payload.n", "payload.t"}},
		{"not JSON", msg, `{"id":`, []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fields, diff := wireDiff([]byte(tc.want), []byte(tc.got))
			if d := cmp.Diff(tc.fields, fields); d != "" {
				t.Errorf("wireDiff fields (-want +got):\n%s", d)
			}
			if (diff == "") != (len(tc.fields) == 0) {
				t.Errorf("wireDiff diff = %q with fields %v", diff, fields)
			}
		})
	}
}
