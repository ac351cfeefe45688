package distributed

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/model"
)

// TestCacheStoreFirstWriterWins: two workers' stores over one bucket see
// each other's entries, and concurrent writers of one key all get the
// first entry stored.
func TestCacheStoreFirstWriterWins(t *testing.T) {
	ctx := context.Background()
	js := connect(t)
	a, err := OpenCache(ctx, js())
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenCache(ctx, js())
	if err != nil {
		t.Fatal(err)
	}
	const key = model.Key("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	if _, err := a.Get(ctx, key); !errors.Is(err, model.ErrNotStored) {
		t.Fatalf("Get of a missing key = %v, want ErrNotStored", err)
	}
	if got, err := a.Add(ctx, key, []byte(`{"n":1}`)); err != nil || string(got) != `{"n":1}` {
		t.Fatalf("first Add = %q, %v", got, err)
	}
	if got, err := b.Get(ctx, key); err != nil || string(got) != `{"n":1}` {
		t.Fatalf("the other worker's Get = %q, %v; want the first worker's entry", got, err)
	}
	const other = model.Key("fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210")
	got := make([]string, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := a
			if i%2 == 1 {
				s = b
			}
			e, err := s.Add(ctx, other, []byte{'0' + byte(i)})
			if err != nil {
				t.Error(err)
			}
			got[i] = string(e)
		}()
	}
	wg.Wait()
	first, err := a.Get(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, len(got))
	for i := range want {
		want[i] = string(first)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("concurrent Adds (-want +got):\n%s", d)
	}
}
