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

func main() { os.Exit(runMain()) }

// runMain runs the command line of this process, cancelled by Ctrl-C or
// SIGTERM, and returns the exit code.
func runMain() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
}
