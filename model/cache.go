package model

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// CacheFormat names the format of a cache entry and of the key derivation;
// it changes when either does.
const CacheFormat = "baton-model-cache/1"

// Cache errors.
var (
	// ErrNotStored is a [Store]'s answer for a key it does not hold.
	ErrNotStored = errors.New("not stored")
	// ErrOffline is a miss of an offline cache.
	ErrOffline = errors.New("model cache is offline")
)

// Key is a request's cache key: the hex SHA-256 of [CacheFormat], the
// trial's sample index and the request's canonical bytes (see
// [RequestKey]). It is a valid file name and NATS key-value key.
type Key string

// RequestKey returns the cache key of req, whose Model must be set: the
// hex SHA-256 of "baton-model-cache/1\n", the decimal sample index, "\n",
// and the [Canonical] form of the request body the client sends (model,
// messages, tools, tool choice, temperature, max tokens, seed).
func RequestKey(req Request) (Key, error) {
	if req.Model == "" {
		return "", errors.New("request key: no model")
	}
	body, err := encodeRequest(req)
	if err != nil {
		return "", fmt.Errorf("request key: %w", err)
	}
	canon, err := Canonical(body)
	if err != nil {
		return "", fmt.Errorf("request key: %w", err)
	}
	h := sha256.New()
	h.Write([]byte(CacheFormat + "\n" + strconv.Itoa(req.Sample) + "\n"))
	h.Write(canon)
	return Key(hex.EncodeToString(h.Sum(nil))), nil
}

// Store keeps cache entries by key. [DirStore] keeps them in a
// directory; a NATS key-value bucket fits the same two calls (Get; Create,
// then Get when the key exists).
type Store interface {
	// Get returns the entry stored under key, or an error wrapping
	// [ErrNotStored].
	Get(ctx context.Context, key Key) ([]byte, error)
	// Add stores entry under key unless an entry is there already, and
	// returns the entry now stored: the first writer wins, so concurrent
	// writers of one key all end up with the same answer.
	Add(ctx context.Context, key Key, entry []byte) ([]byte, error)
}

// entry is one stored answer (see the package documentation).
type entry struct {
	Format   string   `json:"format"`
	Key      Key      `json:"key"`
	Sample   int      `json:"sample"`
	Model    string   `json:"model"`
	Response Response `json:"response"`
}

func encodeEntry(key Key, req Request, resp Response) ([]byte, error) {
	raw, err := marshal(entry{Format: CacheFormat, Key: key, Sample: req.Sample, Model: req.Model, Response: resp})
	if err != nil {
		return nil, err
	}
	return Canonical(raw)
}

func decodeEntry(raw []byte, key Key) (Response, error) {
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return Response{}, fmt.Errorf("entry %s is damaged: %w", key, err)
	}
	if e.Format != CacheFormat || e.Key != key {
		return Response{}, fmt.Errorf("entry %s is damaged: format %q, key %q", key, e.Format, e.Key)
	}
	return e.Response, nil
}

// CacheOptions configure a [Cache].
type CacheOptions struct {
	// Model is the model of requests that name none; "" takes the next
	// Chatter's Model() if it has one.
	Model string
	// Offline makes a miss an error wrapping [ErrOffline] instead of a
	// call to the endpoint: replay and resume.
	Offline bool
}

// Cache answers requests from its stores and sends only misses to the
// next Chatter, so that a run repeated, resumed or replayed gets the same
// answers byte for byte, and builds that send the same request share one
// answer. Stores are searched in order (the run folder's first, a shared
// one after); an answer found in a later store is copied into the earlier
// ones, and a new answer is added from the last store to the first, each
// taking the answer the wider store kept. Identical requests in flight at
// once are sent once. It is safe for concurrent use.
type Cache struct {
	next    Chatter
	stores  []Store
	model   string
	offline bool

	mu       sync.Mutex
	inflight map[Key]*flight

	made, served             atomic.Int64
	prompt, completion       atomic.Int64
	madePrompt, madeComplete atomic.Int64
}

type flight struct {
	done chan struct{}
	resp Response
	err  error
}

// NewCache returns a cache in front of next (nil: offline) over stores.
func NewCache(next Chatter, opt CacheOptions, stores ...Store) (*Cache, error) {
	if len(stores) == 0 {
		return nil, errors.New("model cache: no store")
	}
	m := opt.Model
	if named, ok := next.(interface{ Model() string }); ok && m == "" {
		m = named.Model()
	}
	return &Cache{next: next, stores: stores, model: m, offline: opt.Offline || next == nil, inflight: map[Key]*flight{}}, nil
}

// MissError is a request an offline cache does not hold.
type MissError struct {
	Key    Key
	Sample int
	Model  string
}

func (e *MissError) Error() string {
	return fmt.Sprintf("model cache: no stored answer for a request to %s (sample %d, key %s) and the cache is offline: "+
		"replay and resume never call the endpoint; run with the endpoint reachable to fill the cache", e.Model, e.Sample, e.Key)
}

// Unwrap returns [ErrOffline].
func (e *MissError) Unwrap() error { return ErrOffline }

// Chat answers req from the stores, or from the next Chatter on a miss.
func (c *Cache) Chat(ctx context.Context, req Request) (Response, error) {
	if req.Model == "" {
		req.Model = c.model
	}
	key, err := RequestKey(req)
	if err != nil {
		return Response{}, fmt.Errorf("model cache: %w", err)
	}
	if resp, ok, err := c.lookup(ctx, key); err != nil || ok {
		if ok {
			keyLogFrom(ctx).add(key)
		}
		return resp, err
	}
	if c.offline {
		return Response{}, &MissError{Key: key, Sample: req.Sample, Model: req.Model}
	}
	for {
		resp, retry, err := c.once(ctx, key, req)
		if !retry {
			if err == nil {
				keyLogFrom(ctx).add(key)
			}
			return resp, err
		}
	}
}

// KeyLog collects the keys of the requests a [Cache] answers under one
// context ([WithKeyLog]): what a distributed worker tells the coordinator
// to copy into the run folder's cache. It is safe for concurrent use; a
// nil *KeyLog collects nothing.
type KeyLog struct {
	mu   sync.Mutex
	keys map[Key]bool
}

type keyLogKey struct{}

// WithKeyLog returns ctx carrying l: every cache answering a request
// under it adds the request's key to l.
func WithKeyLog(ctx context.Context, l *KeyLog) context.Context {
	return context.WithValue(ctx, keyLogKey{}, l)
}

func keyLogFrom(ctx context.Context) *KeyLog {
	l, _ := ctx.Value(keyLogKey{}).(*KeyLog)
	return l
}

func (l *KeyLog) add(k Key) {
	if l == nil {
		return
	}
	l.mu.Lock()
	if l.keys == nil {
		l.keys = map[Key]bool{}
	}
	l.keys[k] = true
	l.mu.Unlock()
}

// Keys returns the keys collected, sorted.
func (l *KeyLog) Keys() []Key {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Sorted(maps.Keys(l.keys))
}

// once sends req unless an identical request is in flight, whose answer
// it then shares; retry is true when that request was cancelled by its
// own caller and this one should be sent after all.
func (c *Cache) once(ctx context.Context, key Key, req Request) (resp Response, retry bool, err error) {
	c.mu.Lock()
	if f, ok := c.inflight[key]; ok {
		c.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return Response{}, false, ctx.Err()
		}
		if f.err != nil && (errors.Is(f.err, context.Canceled) || errors.Is(f.err, context.DeadlineExceeded)) && ctx.Err() == nil {
			return Response{}, true, nil
		}
		if f.err != nil {
			return Response{}, false, f.err
		}
		c.count(f.resp, false)
		resp = f.resp
		resp.Cached = true
		return resp, false, nil
	}
	f := &flight{done: make(chan struct{})}
	c.inflight[key] = f
	c.mu.Unlock()

	f.resp, f.err = c.fetch(ctx, key, req)
	c.mu.Lock()
	delete(c.inflight, key)
	c.mu.Unlock()
	close(f.done)
	return f.resp, false, f.err
}

// lookup searches the stores in order.
func (c *Cache) lookup(ctx context.Context, key Key) (Response, bool, error) {
	for i, s := range c.stores {
		raw, err := s.Get(ctx, key)
		if errors.Is(err, ErrNotStored) {
			continue
		}
		if err != nil {
			return Response{}, false, fmt.Errorf("model cache: %w", err)
		}
		resp, err := decodeEntry(raw, key)
		if err != nil {
			return Response{}, false, fmt.Errorf("model cache: %w", err)
		}
		for _, earlier := range c.stores[:i] {
			if _, err := earlier.Add(ctx, key, raw); err != nil {
				return Response{}, false, fmt.Errorf("model cache: %w", err)
			}
		}
		c.count(resp, false)
		resp.Cached = true
		return resp, true, nil
	}
	return Response{}, false, nil
}

// fetch asks the next Chatter and stores the answer.
func (c *Cache) fetch(ctx context.Context, key Key, req Request) (Response, error) {
	resp, err := c.next.Chat(ctx, req)
	if err != nil {
		return Response{}, err
	}
	raw, err := encodeEntry(key, req, resp)
	if err != nil {
		return Response{}, fmt.Errorf("model cache: encode entry: %w", err)
	}
	stored := raw
	for i := len(c.stores) - 1; i >= 0; i-- {
		if stored, err = c.stores[i].Add(ctx, key, stored); err != nil {
			return Response{}, fmt.Errorf("model cache: %w", err)
		}
	}
	if !bytes.Equal(stored, raw) { // another writer's answer won
		if resp, err = decodeEntry(stored, key); err != nil {
			return Response{}, fmt.Errorf("model cache: %w", err)
		}
	}
	c.count(resp, true)
	return resp, nil
}

func (c *Cache) count(resp Response, made bool) {
	c.prompt.Add(resp.Usage.PromptTokens)
	c.completion.Add(resp.Usage.CompletionTokens)
	if made {
		c.made.Add(1)
		c.madePrompt.Add(resp.Usage.PromptTokens)
		c.madeComplete.Add(resp.Usage.CompletionTokens)
	} else {
		c.served.Add(1)
	}
}

// CacheStats counts a cache's answers.
type CacheStats struct {
	Made      int64 // answers fetched from the endpoint
	Served    int64 // answers served from a store (or a request in flight)
	Usage     Usage // tokens of every answer, made or served: the cost of the run as if uncached
	MadeUsage Usage // tokens of the answers made: what the endpoint billed
}

// Stats returns the cache's counters.
func (c *Cache) Stats() CacheStats {
	return CacheStats{
		Made: c.made.Load(), Served: c.served.Load(),
		Usage:     Usage{PromptTokens: c.prompt.Load(), CompletionTokens: c.completion.Load()},
		MadeUsage: Usage{PromptTokens: c.madePrompt.Load(), CompletionTokens: c.madeComplete.Load()},
	}
}
