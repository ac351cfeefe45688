// Command baton is a seeded-defect mutation harness for multi-agent
// missions: it plants known defects into a mission, evaluates every mutated
// build with several evaluation designs, and reports what each design
// catches, where it points, what it costs, and how it agrees with people.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
