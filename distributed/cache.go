package distributed

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/baton-lab/baton/model"
)

// CacheBucket is the key-value bucket of the shared model response cache.
const CacheBucket = "baton_model_cache"

// CacheStore is a [model.Store] over a JetStream key-value bucket: the
// model response cache every worker shares, so a request answered on one
// worker is not paid for again on another.
type CacheStore struct {
	kv jetstream.KeyValue
}

var _ model.Store = (*CacheStore)(nil)

// OpenCache opens (making it if it is missing) the shared cache bucket.
func OpenCache(ctx context.Context, js jetstream.JetStream) (*CacheStore, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: CacheBucket, Description: "baton model response cache"})
	if err != nil {
		return nil, fmt.Errorf("open model cache: %w", err)
	}
	return &CacheStore{kv: kv}, nil
}

// Get returns the entry of key.
func (c *CacheStore) Get(ctx context.Context, key model.Key) ([]byte, error) {
	e, err := c.kv.Get(ctx, string(key))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return nil, fmt.Errorf("model cache %s: %w", short(key), model.ErrNotStored)
	case err != nil:
		return nil, fmt.Errorf("model cache %s: %w", short(key), err)
	}
	return e.Value(), nil
}

// Add stores entry under key unless the key holds one: the first writer
// wins, and every writer gets the stored entry back.
func (c *CacheStore) Add(ctx context.Context, key model.Key, entry []byte) ([]byte, error) {
	_, err := c.kv.Create(ctx, string(key), entry)
	switch {
	case err == nil:
		return entry, nil
	case errors.Is(err, jetstream.ErrKeyExists):
		e, err := c.kv.Get(ctx, string(key))
		if err != nil {
			return nil, fmt.Errorf("model cache %s: %w", short(key), err)
		}
		return e.Value(), nil
	}
	return nil, fmt.Errorf("model cache %s: %w", short(key), err)
}

func short(k model.Key) string {
	if len(k) > 12 {
		return string(k[:12])
	}
	return string(k)
}
