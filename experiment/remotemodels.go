package experiment

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/modelcore"
	"github.com/baton-lab/baton/model"
)

// Model-backed cores on workers: each worker binds the job's model cores
// to its own endpoint ([JobRunner.BindModels]) behind a cache over its
// job folder and a store every worker shares ([ModelRemote]); a unit's
// answer names the cache keys of every model answer its items used, and
// the coordinator copies those entries from the shared store into the
// run folder's model-cache/, so that replay, --resume and an offline
// rerun of the distributed run call no endpoint. Its model cores are
// bound offline: the coordinator never asks an endpoint itself.

// A ModelRemote is a [Remote] whose workers share their model answers in
// a store the coordinator reads too. A sweep with model cores needs one.
type ModelRemote interface {
	Remote
	// ModelStore opens the store the workers add their answers to.
	ModelStore(ctx context.Context) (model.Store, error)
}

// JobModels say how a worker's model cores reach their models.
type JobModels struct {
	// Endpoint, when set, is the base URL every model core asks instead
	// of the protocol's endpoint: the worker's own.
	Endpoint string
	// APIKey is the key sent to the endpoint. With an Endpoint, "" sends
	// none; without, "" reads the protocol's api_key_env from this
	// process's environment, as a local run does.
	APIKey string
	// Shared, when set, is searched after the job folder's cache, and
	// every new answer is added to it: the store the workers share.
	Shared model.Store
}

// Check reports an Endpoint that is not an http(s) base URL.
func (m JobModels) Check() error {
	if m.Endpoint == "" {
		return nil
	}
	if err := (model.Config{BaseURL: m.Endpoint, Model: "any"}).Validate(); err != nil {
		return fmt.Errorf("model endpoint: %w", err)
	}
	return nil
}

// BindModels gives the job's model cores what answers them on this
// worker (see [JobModels]), after asking the endpoint for its models. A
// job with model cores executes no unit before it is bound; one without
// needs no binding.
func (r *JobRunner) BindModels(ctx context.Context, m JobModels) error {
	if err := r.pl.bindCores(r.dir, coreOptions{ctx: ctx, check: true, worker: &m}); err != nil {
		return fmt.Errorf("bind model cores: %w", err)
	}
	return nil
}

// Close releases the endpoints' connections.
func (r *JobRunner) Close() { r.pl.cores.close() }

// unbound reports whether the job has model cores not yet bound.
func (r *JobRunner) unbound() bool {
	cs := r.pl.cores
	return cs != nil && len(cs.agents) > 0 && cs.bound == nil
}

// unitModels is what a unit's model calls leave in its answer: the cache
// keys of every answer its items used, each design's model calls (""
// the observation run) and the model ids the endpoint reported, by agent.
type unitModels struct {
	Keys     []model.Key                    `json:"keys"`
	Use      map[string]modelcore.UseCounts `json:"use"`
	Reported map[string][]string            `json:"reported,omitempty"`
	// Endpoints are the endpoints (without credentials) the worker's
	// cores asked, by agent.
	Endpoints map[string][]string `json:"endpoints,omitempty"`

	log model.KeyLog
}

// unitModels returns a unit's empty record; nil without model cores.
func (r *JobRunner) unitModels() *unitModels {
	if cs := r.pl.cores; cs == nil || len(cs.agents) == 0 {
		return nil
	}
	return &unitModels{Use: map[string]modelcore.UseCounts{}}
}

// slot returns ctx handing the counter of the item evaluated under it
// to h; ctx itself and nil without model cores.
func (um *unitModels) slot(ctx context.Context) (context.Context, *slotUse) {
	if um == nil {
		return ctx, nil
	}
	h := &slotUse{}
	return context.WithValue(ctx, slotUseKey{}, h), h
}

// count adds the model calls of the item in slot, which h was handed.
func (um *unitModels) count(pl *plan, slot int, h *slotUse) {
	if um == nil || h == nil || h.use == nil {
		return
	}
	u := h.use
	design := ""
	if slot > 0 {
		design = pl.designs[slot-1].ID
	}
	um.Use[design] = um.Use[design].Add(u.Counts())
}

// done fills in the keys and the reported ids.
func (um *unitModels) done(cs *coreSet) *unitModels {
	if um == nil {
		return nil
	}
	um.Keys = um.log.Keys()
	um.Reported, um.Endpoints = map[string][]string{}, map[string][]string{}
	for a, c := range cs.bound {
		if ids := c.Reported(); len(ids) > 0 {
			um.Reported[string(a)] = ids
		}
		if e := cs.workerEndpoints[a]; len(e) > 0 {
			um.Endpoints[string(a)] = e
		}
	}
	return um
}

// sinkModels takes the model part of the workers' answers on the
// coordinator.
type sinkModels struct {
	ctx    context.Context
	cs     *coreSet
	shared model.Store
}

// newSinkModels returns what takes the model part of a sweep's answers;
// nil without model cores.
func newSinkModels(ctx context.Context, cs *coreSet, remote Remote) (*sinkModels, error) {
	if cs == nil || len(cs.agents) == 0 {
		return nil, nil
	}
	mr, ok := remote.(ModelRemote)
	if !ok {
		return nil, fmt.Errorf("the protocol has model cores and the remote (%T) shares no model answers", remote)
	}
	shared, err := mr.ModelStore(ctx)
	if err != nil {
		return nil, fmt.Errorf("shared model cache: %w", err)
	}
	return &sinkModels{ctx: ctx, cs: cs, shared: shared}, nil
}

// take copies the answers a unit used into the run folder's caches and
// counts its model calls; an answer the shared store does not hold, or a
// unit without its model part, is an error (the answer is refused).
func (m *sinkModels) take(um *unitModels) error {
	if m == nil {
		return nil
	}
	if um == nil {
		return errors.New("no model calls recorded: the worker played no model core")
	}
	for _, d := range slices.Sorted(maps.Keys(um.Use)) {
		if _, ok := m.cs.use[d]; !ok {
			return fmt.Errorf("model calls of design %q, which the run does not have", d)
		}
	}
	if err := m.copyAll(um.Keys); err != nil {
		return err
	}
	for d, c := range um.Use {
		m.cs.use[d].Add(c)
	}
	for a, ids := range um.Reported {
		if m.cs.bound[mission.Agent(a)] != nil {
			m.cs.reported = addSorted(m.cs.reported, mission.Agent(a), ids)
		}
	}
	for a, e := range um.Endpoints {
		if m.cs.bound[mission.Agent(a)] != nil {
			m.cs.workerEndpoints = addSorted(m.cs.workerEndpoints, mission.Agent(a), e)
		}
	}
	return nil
}

// copiers bounds the entries a coordinator fetches from the shared
// store at once: each is a round trip to the server.
const copiers = 8

// copyAll copies the shared store's entries of the keys the run folder's
// cache lacks into the run folder's caches.
func (m *sinkModels) copyAll(keys []model.Key) error {
	var missing []model.Key
	for _, key := range keys {
		_, err := m.cs.stores[0].Get(m.ctx, key)
		switch {
		case errors.Is(err, model.ErrNotStored):
			missing = append(missing, key)
		case err != nil:
			return err
		}
	}
	errs := make([]error, len(missing))
	sem := make(chan struct{}, copiers)
	var wg sync.WaitGroup
	for i, key := range missing {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = m.copy(key)
			<-sem
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// copy adds the shared store's entry of key to the run folder's caches.
func (m *sinkModels) copy(key model.Key) error {
	stores := m.cs.stores
	raw, err := m.shared.Get(m.ctx, key)
	if err != nil {
		return fmt.Errorf("model answer %s: %w", key, err)
	}
	for i := len(stores) - 1; i >= 0; i-- {
		if raw, err = stores[i].Add(m.ctx, key, raw); err != nil {
			return fmt.Errorf("model answer %s: %w", key, err)
		}
	}
	return nil
}

// addSorted adds vs to a's sorted set in m, making m if it is nil.
func addSorted(m map[mission.Agent][]string, a mission.Agent, vs []string) map[mission.Agent][]string {
	if m == nil {
		m = map[mission.Agent][]string{}
	}
	r := append(m[a], vs...)
	slices.Sort(r)
	m[a] = slices.Compact(r)
	return m
}
