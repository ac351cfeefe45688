package distributed

import (
	"context"
	"fmt"
	"testing"

	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/experiment"
)

// benchProtocol has 90 units (3 builds x 3 scenarios x 10 trials) of 5
// items each.
const benchProtocol = `name: bench
trials: 10
seed: 3
scenarios:
  ids: [S01, S14, S25]
mutants:
  ids: [ctl-boundary-payment-currency, cl-intake-action-currency]
`

// BenchmarkSweep runs benchProtocol on an embedded server with 1, 2 and
// 4 workers, each on its own connection, in this process; "local" is
// the local sweep with one worker. Each run is a new job, which every
// worker opens (rebuilds the plan) before its first unit.
func BenchmarkSweep(b *testing.B) {
	ctx := context.Background()
	sweep := func(b *testing.B, remote experiment.Remote) {
		for b.Loop() {
			if err := runIn(ctx, b, b.TempDir(), benchProtocol, remote, false); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(90*b.N)/b.Elapsed().Seconds(), "units/s")
	}
	b.Run("local", func(b *testing.B) { sweep(b, nil) })
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			js := connect(b)
			wctx, stop := context.WithCancel(ctx)
			wait := startWorkers(wctx, b, js, n, nil)
			defer func() { stop(); wait() }()
			sweep(b, &Remote{JS: js(), Logger: zerolog.Nop()})
		})
	}
}
