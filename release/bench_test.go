package release

import (
	"context"
	"testing"

	"github.com/baton-lab/baton/mission/triage"
)

// BenchmarkDefaultProtocol decides the embedded default release protocol
// (200 runs) once per iteration.
func BenchmarkDefaultProtocol(b *testing.B) {
	f := triage.ReleaseProtocol()
	pl := plan(b, f.Name, f.Data)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decide(context.Background(), pl, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
