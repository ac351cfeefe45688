package invoice

import (
	"testing"

	"github.com/baton-lab/baton/mission"
)

// BenchmarkTraceAppendCompact is a four-email day's trace identity: its
// compact encoding, as a sweep hashes every run's.
func BenchmarkTraceAppendCompact(b *testing.B) {
	tr := mustRun(New(), mission.Clean(), scenarioByID(b, "T2"), 1, mission.Env{Faults: protocolFaults}).Trace
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = tr.AppendCompact(buf[:0])
	}
	b.SetBytes(int64(len(buf)))
}
