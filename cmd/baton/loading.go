package main

import (
	"context"
	"fmt"
)

// loading runs load, a read of input files that does not watch ctx, and
// gives up on it when ctx ends first: Ctrl-C stops a listing within a
// moment even inside a long load (the process exits, and the load with
// it). load must write nothing and change nothing.
func loading[T any](ctx context.Context, load func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := load()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("interrupted while loading: %w", context.Cause(ctx))
	}
}
