package experiment

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

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

// cores reads the cores section: per agent of the mission (or "*"), its
// core and a model core's settings.
func (d *decoder) cores(v *yaml.Node, key string) map[string]CoreSpec {
	out := map[string]CoreSpec{}
	d.mapping(v, key, func(agent string, k2, v2 *yaml.Node) {
		f := key + "." + agent
		if agent != AnyAgent && !d.spec.HasAgent(mission.Agent(agent)) {
			d.failf(k2.Line, f, "unknown agent %q (known: %s, or %q for every agent)", agent, joinAgents(d.spec), AnyAgent)
			return
		}
		var c CoreSpec
		given := map[string]bool{}
		d.mapping(v2, f, func(key3 string, k3, v3 *yaml.Node) {
			given[key3] = true
			d.coreField(&c, f, key3, k3, v3)
		})
		d.checkCore(&c, given, f, deref(v2).Line)
		out[agent] = c
	})
	return out
}

// coreField reads one setting of a core.
func (d *decoder) coreField(c *CoreSpec, f, key string, k, v *yaml.Node) {
	f3 := f + "." + key
	switch key {
	case "core":
		c.Core, _ = d.enum(v, f3, AllCores...)
	case "endpoint":
		if s, ok := d.str(v, f3); ok {
			if problem := endpointProblem(s); problem != "" {
				d.failf(v.Line, f3, "%s", problem)
			}
			c.Endpoint = s
		}
	case "api_key_env":
		if s, ok := d.str(v, f3); ok {
			if !envName.MatchString(s) {
				d.failf(v.Line, f3, "%q: want the name of an environment variable (letters, digits, _)", truncate(s))
			}
			c.APIKeyEnv = s
		}
	case "api_key", "key", "token":
		d.failf(k.Line, f3, "never write a key in a protocol: put it in an environment variable and name that variable in api_key_env")
	case "model", "prompt":
		if s, ok := d.str(v, f3); ok {
			if s == "" {
				d.failf(v.Line, f3, "empty")
			}
			if key == "model" {
				c.Model = s
			} else {
				c.Prompt = s
			}
		}
	case "temperature":
		if x, ok := d.float(v, f3); ok {
			if x < 0 || x > maxTemperature {
				d.failf(v.Line, f3, "%v: want a temperature from 0 to %d", x, maxTemperature)
			}
			c.Temperature = &x
		}
	case "max_steps":
		if n, ok := d.int(v, f3); ok {
			if n < 1 || n > maxModelSteps {
				d.failf(v.Line, f3, "%d: want 1 to %d model calls", n, maxModelSteps)
			}
			c.MaxSteps = n
		}
	default:
		d.unknown(k, f3)
	}
}

// checkCore checks a core's settings together; given are the keys the
// entry has (a key given with a bad value is reported once, where it is).
func (d *decoder) checkCore(c *CoreSpec, given map[string]bool, f string, line int) {
	switch {
	case c.Core == "":
		if !given["core"] {
			d.failf(line, f+".core", "missing: want %s", strings.Join(AllCores, " or "))
		}
	case c.Core == CorePolicy:
		if c.Endpoint != "" || c.Model != "" || c.APIKeyEnv != "" || c.Prompt != "" || c.Temperature != nil || c.MaxSteps != 0 {
			d.failf(line, f, "endpoint, model, api_key_env, prompt, temperature and max_steps are settings of core: model")
		}
	case c.Endpoint == "" && !given["endpoint"]:
		d.failf(line, f+".endpoint", "missing: a model core needs the endpoint's base URL (http://127.0.0.1:8000/v1)")
	case c.Model == "" && !given["model"]:
		d.failf(line, f+".model", "missing: a model core needs the model to ask for")
	}
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
		return fmt.Sprintf("scheme %q: %s", truncate(u.Scheme), want)
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
