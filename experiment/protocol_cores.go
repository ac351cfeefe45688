package experiment

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/reports"
)

// The cores a protocol may give an agent.
const (
	CorePolicy = reports.CorePolicy // the mission's own policy, with the profile's slips
	CoreModel  = reports.CoreModel  // a model behind an OpenAI-compatible endpoint
)

// AllCores lists the core kinds.
var AllCores = []string{CorePolicy, CoreModel}

// AnyAgent is the key of the cores section that applies to every agent
// without an entry of its own.
const AnyAgent = "*"

// Bounds of a model core's settings.
const (
	maxModelSteps  = 64
	maxTemperature = 2
)

// CoreSpec is the core a protocol gives an agent (its "cores" section,
// keyed by agent or "*"): the mission's policy, or a model. A model core
// names the endpoint's base URL, the model, and optionally the environment
// variable holding the API key (never the key itself), the prompt file
// (default: the mission's own prompt of the agent), the temperature and the
// most model calls of one turn.
type CoreSpec struct {
	Core        string   `json:"core"`
	Endpoint    string   `json:"endpoint,omitempty"`
	APIKeyEnv   string   `json:"api_key_env,omitempty"`
	Model       string   `json:"model,omitempty"`
	Prompt      string   `json:"prompt,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	MaxSteps    int      `json:"max_steps,omitempty"`
}

// IsModel reports whether the spec is a model core.
func (c CoreSpec) IsModel() bool { return c.Core == CoreModel }

// CoreOf returns the core the protocol gives agent a: its own entry, else
// the "*" entry, else the policy.
func (p *Protocol) CoreOf(a mission.Agent) CoreSpec {
	if c, ok := p.Cores[string(a)]; ok {
		return c
	}
	if c, ok := p.Cores[AnyAgent]; ok {
		return c
	}
	return CoreSpec{Core: CorePolicy}
}

// coreKeys are the protocol's cores entries in name order ("*" first).
func (p *Protocol) coreKeys() []string { return slices.Sorted(maps.Keys(p.Cores)) }

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkCores checks the cores section (protocol_decode.go's checkProtocol
// calls it): per agent of the mission (or "*"), its core and a model
// core's settings; and model_cache.
func checkCores(d *input.Decoder, p *Protocol, spec *mission.Spec) {
	d.Check(!d.Has("model_cache") || p.ModelCache != "", "model_cache", "empty: want a directory")
	for _, agent := range p.coreKeys() {
		f := input.Join("cores", agent)
		if agent != AnyAgent && !spec.HasAgent(mission.Agent(agent)) {
			d.Unknown(f, "agent", agent, append(agentNames(spec), AnyAgent))
			continue
		}
		checkCore(d, p.Cores[agent], f)
	}
}

// checkCore checks one core's settings.
func checkCore(d *input.Decoder, c CoreSpec, f string) {
	has := func(key string) bool { return d.Has(input.Join(f, key)) }
	switch {
	case !has("core"):
		d.Errorf(f, "core missing: want %s", strings.Join(AllCores, " or "))
		return
	case !d.OneOf(input.Join(f, "core"), "core", c.Core, AllCores):
		return
	case c.Core == CorePolicy:
		for _, k := range []string{"endpoint", "model", "api_key_env", "prompt", "temperature", "max_steps"} {
			if has(k) {
				d.Errorf(input.Join(f, k), "a setting of core: model, not of core: policy")
			}
		}
		return
	}
	if !has("endpoint") {
		d.Errorf(f, "endpoint missing: a model core needs the endpoint's base URL (http://127.0.0.1:8000/v1)")
	} else if problem := endpointProblem(c.Endpoint); problem != "" {
		d.Errorf(input.Join(f, "endpoint"), "%s", problem)
	}
	if !has("model") {
		d.Errorf(f, "model missing: a model core needs the model to ask for")
	}
	d.Check(!has("model") || c.Model != "", input.Join(f, "model"), "empty")
	d.Check(!has("prompt") || c.Prompt != "", input.Join(f, "prompt"), "empty")
	d.Check(!has("api_key_env") || envName.MatchString(c.APIKeyEnv), input.Join(f, "api_key_env"),
		"%s: want the name of an environment variable (letters, digits, _)", input.Quote(c.APIKeyEnv))
	if c.Temperature != nil {
		d.Check(*c.Temperature >= 0 && *c.Temperature <= maxTemperature, input.Join(f, "temperature"),
			"%v: want a temperature from 0 to %d", *c.Temperature, maxTemperature)
	}
	d.Check(!has("max_steps") || c.MaxSteps >= 1 && c.MaxSteps <= maxModelSteps, input.Join(f, "max_steps"),
		"%d: want 1 to %d model calls", c.MaxSteps, maxModelSteps)
}

// endpointProblem says what is wrong with an endpoint's base URL: it must
// be http(s) with a host, and carry no credentials (a protocol is copied
// into every run folder and manifest).
func endpointProblem(s string) string {
	// The URL is not echoed: it may carry a secret.
	const want = "want an http(s) base URL such as http://127.0.0.1:8000/v1"
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "not a URL: " + want
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return "a base URL without user, password, query or fragment: credentials go in the environment variable named by api_key_env"
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("scheme %s: %s", input.Quote(u.Scheme), want)
	case u.Host == "":
		return "no host: " + want
	}
	return ""
}

// cloneCores returns a deep copy of a cores section.
func cloneCores(cores map[string]CoreSpec) map[string]CoreSpec {
	if cores == nil {
		return nil
	}
	out := make(map[string]CoreSpec, len(cores))
	for k, c := range cores {
		if c.Temperature != nil {
			t := *c.Temperature
			c.Temperature = &t
		}
		out[k] = c
	}
	return out
}
