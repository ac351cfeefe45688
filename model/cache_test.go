package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// countingChatter answers every request with an answer naming its
// sample and counts the calls; hold, if set, blocks each call.
type countingChatter struct {
	n    atomic.Int64
	hold chan struct{}
}

func (c *countingChatter) Model() string { return "m" }

func (c *countingChatter) Chat(ctx context.Context, req Request) (Response, error) {
	n := c.n.Add(1)
	if c.hold != nil {
		select {
		case <-c.hold:
		case <-ctx.Done():
			return Response{}, ctx.Err()
		}
	}
	return Response{Content: fmt.Sprintf(`{"sample":%d,"call":%d}`, req.Sample, n), Usage: Usage{10, 2}, Model: "m-1"}, nil
}

func cacheRequest(sample int) Request {
	return Request{
		Messages: []Message{{Role: RoleSystem, Content: "sys"}, {Role: RoleUser, Content: `{"in":1}`}},
		Tools:    []Tool{{Name: "t", Parameters: []byte(`{"type":"object","properties":{"a":{"type":"string"}}}`)}},
		Sample:   sample,
	}
}

func openDir(tb testing.TB, dir string) *DirStore {
	tb.Helper()
	s, err := OpenDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestCacheHitsAndMisses(t *testing.T) {
	next := &countingChatter{}
	dir := t.TempDir()
	c, err := NewCache(next, CacheOptions{}, openDir(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.Chat(background(), cacheRequest(0))
	if err != nil || first.Cached {
		t.Fatalf("first = %+v, %v", first, err)
	}
	again, err := c.Chat(background(), cacheRequest(0))
	if err != nil || !again.Cached || again.Content != first.Content {
		t.Errorf("again = %+v, %v; want the stored answer", again, err)
	}
	other, err := c.Chat(background(), cacheRequest(1))
	if err != nil || other.Cached || other.Content == first.Content {
		t.Errorf("sample 1 = %+v, %v; want a new answer", other, err)
	}
	if next.n.Load() != 2 {
		t.Errorf("endpoint called %d times, want 2", next.n.Load())
	}
	want := CacheStats{Made: 2, Served: 1, Usage: Usage{30, 6}, MadeUsage: Usage{20, 4}}
	if diff := cmp.Diff(want, c.Stats()); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	// A new process (a resume) over the same folder, offline, gets both.
	off, err := NewCache(nil, CacheOptions{Model: "m"}, openDir(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []int{0, 1} {
		resp, err := off.Chat(background(), cacheRequest(s))
		if err != nil || !resp.Cached {
			t.Errorf("offline sample %d: %+v, %v", s, resp, err)
		}
	}
	_, err = off.Chat(background(), cacheRequest(2))
	var miss *MissError
	if !errors.As(err, &miss) || !errors.Is(err, ErrOffline) || miss.Sample != 2 || !strings.Contains(err.Error(), "the cache is offline") {
		t.Errorf("offline miss: err = %v, want a MissError for sample 2", err)
	}
}

func TestCacheOfflineNeverCalls(t *testing.T) {
	next := &countingChatter{}
	c, err := NewCache(next, CacheOptions{Offline: true}, NewMemStore())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat(background(), cacheRequest(0)); !errors.Is(err, ErrOffline) || next.n.Load() != 0 {
		t.Errorf("err = %v, %d calls; want ErrOffline and no call", err, next.n.Load())
	}
}

func TestRequestKey(t *testing.T) {
	base := cacheRequest(0)
	base.Model = "m"
	key := func(r Request) Key {
		k, err := RequestKey(r)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	reordered := base
	reordered.Tools = []Tool{{Name: "t", Parameters: []byte("{ \"properties\": {\"a\": {\"type\": \"string\"}},\n \"type\": \"object\" }")}}
	if key(base) != key(reordered) {
		t.Errorf("a schema with its keys reordered and spaced gets another key")
	}
	for name, change := range map[string]func(*Request){
		"sample":   func(r *Request) { r.Sample = 1 },
		"model":    func(r *Request) { r.Model = "m2" },
		"message":  func(r *Request) { r.Messages = append(r.Messages, Message{Role: RoleUser, Content: "x"}) },
		"seed":     func(r *Request) { s := int64(0); r.Seed = &s },
		"tool doc": func(r *Request) { r.Tools = []Tool{{Name: "t", Description: "d"}} },
	} {
		r := base
		change(&r)
		if key(r) == key(base) {
			t.Errorf("changing the %s keeps the key", name)
		}
	}
	if _, err := RequestKey(cacheRequest(0)); err == nil {
		t.Errorf("a request without a model has a key")
	}
}

func TestCacheSharedStore(t *testing.T) {
	next := &countingChatter{}
	shared := NewMemStore()
	one, _ := NewCache(next, CacheOptions{}, NewMemStore(), shared)
	first, err := one.Chat(background(), cacheRequest(0))
	if err != nil {
		t.Fatal(err)
	}
	// Another run, its own folder empty, finds the shared answer and
	// keeps a copy: it can replay without the shared store.
	run := NewMemStore()
	two, _ := NewCache(next, CacheOptions{}, run, shared)
	got, err := two.Chat(background(), cacheRequest(0))
	if err != nil || got.Content != first.Content || run.Len() != 1 || next.n.Load() != 1 {
		t.Errorf("got %+v, %v; run store %d entries, %d calls: want the shared answer copied", got, err, run.Len(), next.n.Load())
	}
}

func TestCacheDamagedEntry(t *testing.T) {
	dir := t.TempDir()
	req := cacheRequest(0)
	req.Model = "m"
	key, _ := RequestKey(req)
	p := filepath.Join(dir, string(key[:2]), string(key)+".json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"format":"baton-model-cache/1","key":"`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := NewCache(&countingChatter{}, CacheOptions{}, openDir(t, dir))
	if _, err := c.Chat(background(), req); err == nil || !strings.Contains(err.Error(), "entry "+string(key)+" is damaged") {
		t.Errorf("err = %v, want the damaged entry named", err)
	}
}

func TestCacheInFlightSharing(t *testing.T) {
	next := &countingChatter{hold: make(chan struct{})}
	c, _ := NewCache(next, CacheOptions{}, NewMemStore())
	var wg sync.WaitGroup
	answers := make([]string, 8)
	for i := range answers {
		wg.Go(func() {
			resp, err := c.Chat(background(), cacheRequest(0))
			if err != nil {
				t.Error(err)
			}
			answers[i] = resp.Content
		})
	}
	for next.n.Load() == 0 {
		runtimeGosched()
	}
	close(next.hold)
	wg.Wait()
	for _, a := range answers {
		if a != answers[0] {
			t.Errorf("answers differ: %v", answers)
		}
	}
	if s := c.Stats(); next.n.Load() != 1 || s.Made != 1 || s.Served != 7 {
		t.Errorf("%d calls, stats %+v: want one call shared by eight requests", next.n.Load(), s)
	}
}

func TestDirStoreConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	const writers, keys = 8, 20
	got := make([][keys][]byte, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			s := openDir(t, dir) // one store per writer, as in separate processes
			for k := range keys {
				stored, err := s.Add(background(), testKeyN(k), fmt.Appendf(nil, `{"writer":%d}`, w))
				if err != nil {
					t.Error(err)
				}
				got[w][k] = stored
			}
		})
	}
	wg.Wait()
	s := openDir(t, dir)
	for k := range keys {
		onDisk, err := s.Get(background(), testKeyN(k))
		if err != nil {
			t.Fatal(err)
		}
		for w := range writers {
			if !bytes.Equal(got[w][k], onDisk) {
				t.Errorf("key %d: writer %d was told %s, the store holds %s", k, w, got[w][k], onDisk)
			}
		}
	}
	assertNoTemp(t, dir)
}

// TestDirStoreConcurrentProcesses runs several processes that add
// different entries for the same keys: each is told what the store holds.
func TestDirStoreConcurrentProcesses(t *testing.T) {
	if dir := os.Getenv("BATON_MODEL_CACHE_WRITER"); dir != "" {
		s := openDir(t, dir)
		for k := range 20 {
			stored, err := s.Add(background(), testKeyN(k), fmt.Appendf(nil, `{"pid":%d}`, os.Getpid()))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Printf("%d %s\n", k, stored)
		}
		return
	}
	dir := t.TempDir()
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDirStoreConcurrentProcesses$", "-test.count=1")
		cmd.Env = append(os.Environ(), "BATON_MODEL_CACHE_WRITER="+dir)
		out := &bytes.Buffer{}
		cmd.Stdout = out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	s := openDir(t, dir)
	for i, out := range outs {
		n := 0
		for line := range strings.Lines(out.String()) {
			k, entry, ok := strings.Cut(strings.TrimSpace(line), " ")
			idx, err := strconv.Atoi(k)
			if !ok || err != nil {
				continue // go test's own output
			}
			n++
			onDisk, _ := s.Get(background(), testKeyN(idx))
			if entry != string(onDisk) {
				t.Errorf("process %d, key %d: told %s, the store holds %s", i, idx, entry, onDisk)
			}
		}
		if n != 20 {
			t.Errorf("process %d reported %d keys, want 20:\n%s", i, n, out)
		}
	}
	assertNoTemp(t, dir)
}

func testKeyN(n int) Key { return Key(fmt.Sprintf("%064x", n+0xabc0)) }

func assertNoTemp(tb testing.TB, dir string) {
	tb.Helper()
	left, _ := filepath.Glob(filepath.Join(dir, "*", ".tmp-*"))
	if len(left) > 0 {
		tb.Errorf("temporary files left: %v", left)
	}
}

func TestDirStoreRefusesBadKeys(t *testing.T) {
	s := openDir(t, t.TempDir())
	for _, k := range []Key{"", "../../etc/passwd", Key(strings.Repeat("A", 64)), Key(strings.Repeat("a", 63))} {
		if _, err := s.Get(background(), k); err == nil || errors.Is(err, ErrNotStored) {
			t.Errorf("Get(%q): err = %v, want a bad-key error", k, err)
		}
		if _, err := s.Add(background(), k, []byte("{}")); err == nil {
			t.Errorf("Add(%q) succeeded", k)
		}
	}
}

// TestKeyLog: a cache adds the key of every request it answers under a
// context with a key log, made or served, and no key of a failed one.
func TestKeyLog(t *testing.T) {
	ctx := context.Background()
	c, err := NewCache(&countingChatter{}, CacheOptions{}, NewMemStore())
	if err != nil {
		t.Fatal(err)
	}
	var log KeyLog
	lctx := WithKeyLog(ctx, &log)
	var want []Key
	for _, sample := range []int{2, 1, 2} { // 2 is served the second time
		if _, err := c.Chat(lctx, cacheRequest(sample)); err != nil {
			t.Fatal(err)
		}
	}
	for _, sample := range []int{1, 2} {
		r := cacheRequest(sample)
		r.Model = "m"
		k, err := RequestKey(r)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, k)
	}
	slices.Sort(want)
	if _, err := c.Chat(ctx, cacheRequest(3)); err != nil { // no log
		t.Fatal(err)
	}
	off, err := NewCache(nil, CacheOptions{Model: "m"}, NewMemStore())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := off.Chat(lctx, cacheRequest(4)); !errors.Is(err, ErrOffline) {
		t.Fatalf("offline miss: %v", err)
	}
	if d := cmp.Diff(want, log.Keys()); d != "" {
		t.Errorf("keys (-want +got):\n%s", d)
	}
}
