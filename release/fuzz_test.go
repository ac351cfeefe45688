package release

import (
	"strings"
	"testing"

	"github.com/baton-lab/baton/mission/triage"
)

// FuzzParse: any bytes give a protocol or an error naming the file, never
// a panic; what parses also resolves or errors.
func FuzzParse(f *testing.F) {
	f.Add(triage.ReleaseProtocol().Data)
	f.Add(protocol(3, "{supervisor: {misroute: 0.1}}", "{}"))
	f.Add([]byte("rule: [{metric: x}]"))
	f.Add([]byte("baseline: {profile: {a: {b: 2}}}\n"))
	reg := registry(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("f.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if _, err := p.Resolve(reg); err != nil && !strings.HasPrefix(err.Error(), "f.yaml") {
			t.Errorf("error %q does not name the file", err)
		}
	})
}
