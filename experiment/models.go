package experiment

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/modelcore"
	"github.com/baton-lab/baton/model"
	"github.com/baton-lab/baton/reports"
)

// ModelCacheDir is the run folder's cache of model answers.
const ModelCacheDir = "model-cache"

// modelAgent is one agent a plan plays with a model.
type modelAgent struct {
	agent  mission.Agent
	key    string // its entry in the protocol's cores: the agent or "*"
	spec   CoreSpec
	prompt string // the prompt file as the manifest names it
	core   *modelcore.Core
}

// coreSet is a plan's model-backed agents, in flow order, and, once bound,
// what answers them.
type coreSet struct {
	agents  []*modelAgent
	clients []*model.Client
	bound   map[mission.Agent]*modelcore.Core
	// use counts model calls per design ("" the observation runs).
	use map[string]*modelcore.Use
	// stores are the caches' stores: the run folder's, then the shared one.
	stores []model.Store
	// reported are the model ids workers reported, and workerEndpoints
	// the endpoints they asked, by agent (a distributed sweep's; on a
	// worker, workerEndpoints are its own).
	reported, workerEndpoints map[mission.Agent][]string
}

// resolveCores reads the prompt of every agent the protocol gives a model
// core and builds the core, unbound: its hashes are known before any run.
func (pl *plan) resolveCores(path func(string) string) error {
	p, spec := pl.proto, pl.mission.Spec()
	pl.cores = &coreSet{}
	for _, a := range spec.AgentNames() {
		c := p.CoreOf(a)
		if !c.IsModel() {
			continue
		}
		key := string(a)
		if _, own := p.Cores[key]; !own {
			key = AnyAgent
		}
		text, name, err := readPrompt(spec, a, c.Prompt, path)
		if err != nil {
			return p.wrapf("cores."+key+".prompt", err, "prompt of %s", a)
		}
		core, err := modelcore.New(spec, modelcore.Config{Agent: a, Instructions: text, Model: c.Model,
			Temperature: c.Temperature, MaxSteps: c.MaxSteps})
		if err != nil {
			return p.wrapf("cores."+key, err, "model core of %s", a)
		}
		pl.cores.agents = append(pl.cores.agents, &modelAgent{agent: a, key: key, spec: c, prompt: name, core: core})
	}
	return nil
}

// readPrompt returns an agent's prompt: the protocol's file (read through
// path), else the mission's own (Spec.Prompts/<agent>.md), and its name.
func readPrompt(spec *mission.Spec, a mission.Agent, file string, path func(string) string) (text, name string, err error) {
	if file != "" {
		data, err := os.ReadFile(path(file))
		return string(data), file, err
	}
	name = "mission/" + spec.Name + "/prompts/" + string(a) + ".md"
	if spec.Prompts == nil {
		return "", name, fmt.Errorf("mission %s has no prompts: name a prompt file", spec.Name)
	}
	data, err := fs.ReadFile(spec.Prompts, string(a)+".md")
	if errors.Is(err, fs.ErrNotExist) {
		return "", name, fmt.Errorf("mission %s has no prompt for %s: name a prompt file", spec.Name, a)
	}
	return string(data), name, err
}

// promptInputs are the prompt files a protocol names, for namedInputs.
func promptInputs(p *Protocol) []namedInput {
	var out []namedInput
	for _, k := range p.coreKeys() {
		if c := p.Cores[k]; c.IsModel() && c.Prompt != "" {
			out = append(out, namedInput{"cores." + k + ".prompt", KindPrompt, c.Prompt})
		}
	}
	return out
}

// treeEntries are what the model cores add to the inputs' hash tree: the
// mission's embedded prompts used, and each core's tool definitions and
// result schema (what the binary gives the model).
func (cs *coreSet) treeEntries() []InputEntry {
	var out []InputEntry
	if cs == nil {
		return nil
	}
	for _, ma := range cs.agents {
		h := ma.core.Hashes()
		if ma.spec.Prompt == "" {
			out = append(out, InputEntry{Name: "stack.prompt." + string(ma.agent), Kind: KindPrompt, SHA256: h.Prompt})
		}
		out = append(out,
			InputEntry{Name: "stack.tools." + string(ma.agent), Kind: KindEmbedded, SHA256: h.Tools},
			InputEntry{Name: "stack.result." + string(ma.agent), Kind: KindEmbedded, SHA256: h.ResultSchema})
	}
	return out
}

// coreOptions say how a run's model cores reach their models.
type coreOptions struct {
	ctx context.Context
	// offline answers from the caches alone: a miss is an error (replay).
	offline bool
	// check asks each endpoint for its models first (a new run).
	check bool
	// shared overrides the protocol's model_cache.
	shared string
	// worker, when set, binds a distributed worker's cores: its own
	// endpoint and key, its own folder's cache and the workers' shared
	// store, never the protocol's model_cache (a coordinator's path).
	worker *JobModels
}

// bindCores gives the plan's model cores what answers them: one client per
// endpoint (none offline) behind a cache over the run folder's
// model-cache/ and the shared directory, and sets them in the plan's
// environment.
func (pl *plan) bindCores(runDir string, o coreOptions) error {
	cs := pl.cores
	if cs == nil || len(cs.agents) == 0 {
		return nil
	}
	shared := pl.proto.Path(cmpOr(o.shared, pl.proto.ModelCache))
	if o.worker != nil {
		shared = ""
	}
	if err := cs.openStores(runDir, shared); err != nil {
		return err
	}
	if o.worker != nil && o.worker.Shared != nil {
		cs.stores = append(cs.stores, o.worker.Shared)
	}
	cs.use = map[string]*modelcore.Use{"": {}}
	for _, d := range pl.designs {
		cs.use[d.ID] = &modelcore.Use{}
	}
	caches := map[string]*model.Cache{}
	cs.bound = map[mission.Agent]*modelcore.Core{}
	cores := map[mission.Agent]mission.Core{}
	for a, c := range pl.env.Cores {
		cores[a] = c
	}
	for _, ma := range cs.agents {
		endpoint := o.endpoint(ma) + "\x00" + ma.spec.APIKeyEnv
		cache, ok := caches[endpoint]
		if !ok {
			var err error
			if cache, err = cs.newCache(ma, o); err != nil {
				return pl.proto.wrapf("cores."+ma.key, err, "model core of %s", ma.agent)
			}
			caches[endpoint] = cache
		}
		core := ma.core.Bind(cache)
		cs.bound[ma.agent], cores[ma.agent] = core, core
		if o.worker != nil && !o.offline {
			cs.workerEndpoints = addSorted(cs.workerEndpoints, ma.agent, []string{model.StripURL(o.endpoint(ma))})
		}
	}
	pl.env.Cores = cores
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// openStores opens the run folder's cache and the shared one.
func (cs *coreSet) openStores(runDir, shared string) error {
	own, err := model.OpenDir(filepath.Join(runDir, ModelCacheDir))
	if err != nil {
		return fmt.Errorf("model cache: %w", err)
	}
	cs.stores = []model.Store{own}
	if shared != "" {
		st, err := model.OpenDir(shared)
		if err != nil {
			return fmt.Errorf("shared model cache: %w", err)
		}
		cs.stores = append(cs.stores, st)
	}
	return nil
}

// newCache returns the cache of ma's endpoint: in front of a new client,
// or offline.
func (cs *coreSet) newCache(ma *modelAgent, o coreOptions) (*model.Cache, error) {
	if o.offline {
		return model.NewCache(nil, model.CacheOptions{Offline: true}, cs.stores...)
	}
	key, err := o.apiKey(ma)
	if err != nil {
		return nil, err
	}
	client, err := model.NewClient(model.Config{BaseURL: o.endpoint(ma), Model: ma.spec.Model, APIKey: key})
	if err != nil {
		return nil, err
	}
	cs.clients = append(cs.clients, client)
	if o.check {
		if err := checkServed(o.ctx, client, ma.spec.Model); err != nil {
			return nil, err
		}
	}
	return model.NewCache(client, model.CacheOptions{}, cs.stores...)
}

// endpoint is the base URL ma's core asks: a worker's own, else the
// protocol's.
func (o coreOptions) endpoint(ma *modelAgent) string {
	if o.worker != nil && o.worker.Endpoint != "" {
		return o.worker.Endpoint
	}
	return ma.spec.Endpoint
}

// apiKey is the key ma's core sends: a worker's own, else (a worker on
// the protocol's endpoint, or a local run) the protocol's api_key_env
// read from this process's environment.
func (o coreOptions) apiKey(ma *modelAgent) (string, error) {
	if w := o.worker; w != nil && (w.APIKey != "" || w.Endpoint != "") {
		return w.APIKey, nil
	}
	env := ma.spec.APIKeyEnv
	if env == "" {
		return "", nil
	}
	key, set := os.LookupEnv(env)
	if !set || key == "" {
		return "", fmt.Errorf("api_key_env: environment variable %s is not set", env)
	}
	return key, nil
}

// checkServed asks an endpoint for its models: unreachable, refusing the
// key, or not serving the model is an error; an endpoint without the
// models route is given the benefit of the doubt.
func checkServed(ctx context.Context, c *model.Client, name string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ids, err := c.Models(ctx)
	var me *model.Error
	switch {
	case errors.As(err, &me) && me.Status == 404:
		return nil
	case err != nil:
		return err
	case !slices.Contains(ids, name):
		return fmt.Errorf("model %q is not served by %s (it serves %s)", name, c.Endpoint(), strings.Join(ids, ", "))
	}
	return nil
}

// offlineEnv returns env with the model cores answering from the caches
// alone.
func (cs *coreSet) offlineEnv(env mission.Env) (mission.Env, error) {
	if cs == nil || len(cs.bound) == 0 {
		return env, nil
	}
	cache, err := model.NewCache(nil, model.CacheOptions{Offline: true}, cs.stores...)
	if err != nil {
		return env, err
	}
	cores := maps.Clone(env.Cores)
	for a, c := range cs.bound {
		cores[a] = c.Bind(cache)
	}
	env.Cores = cores
	return env, nil
}

// close releases the clients.
func (cs *coreSet) close() {
	if cs == nil {
		return
	}
	for _, c := range cs.clients {
		c.Close()
	}
	cs.clients = nil
}

// itemUse returns ctx counting one item's model calls, and the counter;
// nil without model cores.
func (cs *coreSet) itemUse(ctx context.Context) (context.Context, *modelcore.Use) {
	if cs == nil || cs.use == nil {
		return ctx, nil
	}
	u := &modelcore.Use{}
	if h, ok := ctx.Value(slotUseKey{}).(*slotUse); ok {
		h.use = u
	}
	return modelcore.WithUse(ctx, u), u
}

// slotUse, in a context, is handed the counter of the item evaluated
// under it: a worker's answer carries each item's model calls.
type slotUse struct{ use *modelcore.Use }

type slotUseKey struct{}

// count adds an item's model calls to its design's.
func (cs *coreSet) count(design string, u *modelcore.Use) {
	if cs != nil && cs.use != nil && u != nil {
		cs.use[design].Add(u.Counts())
	}
}

// ModelProvenance is what a model-backed agent of a run was: the endpoint
// (without credentials), the model asked for and the ids the endpoint
// reported, the prompt file and the hashes of what the model was given.
// It never holds a secret.
type ModelProvenance struct {
	Agent          string   `json:"agent"`
	Endpoint       string   `json:"endpoint"`
	Model          string   `json:"model"`
	ReportedModels []string `json:"reported_models"`
	Prompt         string   `json:"prompt"`
	model.Hashes
	Temperature *float64 `json:"temperature,omitempty"`
	MaxSteps    int      `json:"max_steps"`
	// WorkerEndpoints are the endpoints (without credentials) distributed
	// workers asked instead of Endpoint, or as well.
	WorkerEndpoints []string `json:"worker_endpoints,omitempty"`
}

// provenance returns the model agents' provenance, the model ids reported
// in earlier sessions (before) added to this session's.
func (cs *coreSet) provenance(before []ModelProvenance) []ModelProvenance {
	if cs == nil || len(cs.agents) == 0 {
		return nil
	}
	out := make([]ModelProvenance, 0, len(cs.agents))
	for _, ma := range cs.agents {
		steps := ma.spec.MaxSteps
		if steps == 0 {
			steps = model.DefaultMaxSteps
		}
		mp := ModelProvenance{Agent: string(ma.agent), Endpoint: model.StripURL(ma.spec.Endpoint), Model: ma.spec.Model,
			ReportedModels: []string{}, Prompt: ma.prompt, Hashes: ma.core.Hashes(), Temperature: ma.spec.Temperature, MaxSteps: steps}
		for _, b := range before {
			if b.Agent == mp.Agent {
				mp.ReportedModels = append(mp.ReportedModels, b.ReportedModels...)
				mp.WorkerEndpoints = append(mp.WorkerEndpoints, b.WorkerEndpoints...)
			}
		}
		mp.WorkerEndpoints = append(mp.WorkerEndpoints, cs.workerEndpoints[ma.agent]...)
		slices.Sort(mp.WorkerEndpoints)
		mp.WorkerEndpoints = slices.Compact(mp.WorkerEndpoints)
		if c := cs.bound[ma.agent]; c != nil {
			mp.ReportedModels = append(mp.ReportedModels, c.Reported()...)
		}
		mp.ReportedModels = append(mp.ReportedModels, cs.reported[ma.agent]...)
		slices.Sort(mp.ReportedModels)
		mp.ReportedModels = slices.Compact(mp.ReportedModels)
		out = append(out, mp)
	}
	return out
}

// addUse returns before plus this session's model calls, per design.
func (cs *coreSet) addUse(before map[string]reports.ModelUse) map[string]reports.ModelUse {
	if cs == nil || cs.use == nil {
		return before
	}
	out := map[string]reports.ModelUse{}
	for d, u := range before {
		out[d] = u
	}
	for d, u := range cs.use {
		name := cmpOr(d, ObservationDesign)
		c, o := u.Counts(), out[name]
		out[name] = reports.ModelUse{Made: o.Made + c.Made, Served: o.Served + c.Served,
			PromptTokens: o.PromptTokens + c.PromptTokens, CompletionTokens: o.CompletionTokens + c.CompletionTokens}
	}
	return out
}

// coreInfo describes an agent's model core for the methods section.
func (mp ModelProvenance) coreInfo() reports.CoreInfo {
	reported := "none yet"
	if len(mp.ReportedModels) > 0 {
		reported = strings.Join(mp.ReportedModels, ", ")
	}
	temp := "the endpoint's default"
	if mp.Temperature != nil {
		temp = strconv.FormatFloat(*mp.Temperature, 'g', -1, 64)
	}
	return reports.CoreInfo{Agent: mp.Agent, Kind: reports.CoreModel, Model: mp.Model, Prompt: mp.Hashes.Prompt,
		Detail: fmt.Sprintf("model %s at %s (reported: %s), prompt %s, temperature %s, at most %d model calls a turn, tool definitions sha256 %s",
			mp.Model, mp.Endpoint, reported, mp.Prompt, temp, mp.MaxSteps, short(mp.Tools))}
}
