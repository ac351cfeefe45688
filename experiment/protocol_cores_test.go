package experiment

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mission/modelcore"
	"github.com/baton-lab/baton/model"
)

// TestProtocolCoresBadInput: a bad cores section is an error naming line
// and field, and never echoes what may be a secret.
func TestProtocolCoresBadInput(t *testing.T) {
	const model = "cores:\n  boundary:\n    core: model\n    endpoint: http://x/v1\n    model: m\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown agent", "cores:\n  auditor:\n    core: policy\n", `p.yaml:2:3: cores.auditor: unknown agent "auditor" (want one of intake, action, boundary, monitor, *)`},
		{"unknown core", "cores:\n  boundary:\n    core: robot\n", `p.yaml:3:11: cores.boundary.core: unknown core "robot" (want one of policy, model)`},
		{"no core", "cores:\n  boundary:\n    model: m\n", "p.yaml:2:3: cores.boundary: core missing: want policy or model"},
		{"no endpoint", "cores:\n  boundary:\n    core: model\n    model: m\n", "p.yaml:2:3: cores.boundary: endpoint missing: a model core needs the endpoint's base URL (http://127.0.0.1:8000/v1)"},
		{"no model", "cores:\n  boundary:\n    core: model\n    endpoint: http://x/v1\n", "p.yaml:2:3: cores.boundary: model missing: a model core needs the model to ask for"},
		{"empty model", "cores:\n  boundary:\n    core: model\n    endpoint: http://x/v1\n    model: \"\"\n", "p.yaml:5:12: cores.boundary.model: empty"},
		{"not http", "cores:\n  boundary:\n    core: model\n    endpoint: ftp://x/v1\n    model: m\n", `p.yaml:4:15: cores.boundary.endpoint: scheme "ftp": want an http(s) base URL such as http://127.0.0.1:8000/v1`},
		{"no host", "cores:\n  boundary:\n    core: model\n    endpoint: http:///v1\n    model: m\n", "p.yaml:4:15: cores.boundary.endpoint: no host: want an http(s) base URL such as http://127.0.0.1:8000/v1"},
		{"password in URL", "cores:\n  boundary:\n    core: model\n    endpoint: ftp://u:s3cret@x/v1\n    model: m\n", "p.yaml:4:15: cores.boundary.endpoint: a base URL without user, password, query or fragment: credentials go in the environment variable named by api_key_env"},
		{"key in query", "cores:\n  boundary:\n    core: model\n    endpoint: http://x/v1?key=s3cret\n    model: m\n", "p.yaml:4:15: cores.boundary.endpoint: a base URL without user, password, query or fragment: credentials go in the environment variable named by api_key_env"},
		{"bad URL", "cores:\n  boundary:\n    core: model\n    endpoint: \"http://u:s3cret%zz@x\"\n    model: m\n", "p.yaml:4:15: cores.boundary.endpoint: not a URL: want an http(s) base URL such as http://127.0.0.1:8000/v1"},
		{"key in protocol", model + "    api_key: s3cret\n", "p.yaml:6:5: cores.boundary.api_key: unknown field (want one of core, endpoint, api_key_env, model, prompt, temperature, max_steps)"},
		{"bad key variable", model + "    api_key_env: 'MY KEY'\n", `p.yaml:6:18: cores.boundary.api_key_env: "MY KEY": want the name of an environment variable (letters, digits, _)`},
		{"hot", model + "    temperature: 3\n", "p.yaml:6:18: cores.boundary.temperature: 3: want a temperature from 0 to 2"},
		{"no steps", model + "    max_steps: 0\n", "p.yaml:6:16: cores.boundary.max_steps: 0: want 1 to 64 model calls"},
		{"unknown setting", model + "    colour: red\n", "p.yaml:6:5: cores.boundary.colour: unknown field (want one of core, endpoint, api_key_env, model, prompt, temperature, max_steps)"},
		{"model settings on a policy", "cores:\n  boundary:\n    core: policy\n    model: m\n", "p.yaml:4:12: cores.boundary.model: a setting of core: model, not of core: policy"},
		{"empty cache", "model_cache: \"\"\n", "p.yaml:1:14: model_cache: empty: want a directory"},
		{"negative token weight", "cost_weights:\n  per_1k_output_tokens: -1\n", "p.yaml:2:25: cost_weights.per_1k_output_tokens: -1: want 0 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseProtocol([]byte(tt.yaml), "p.yaml", "", testMissions())
			if err == nil {
				t.Fatalf("ParseProtocol(%q) = nil error, want %q", tt.yaml, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("ParseProtocol(%q):\n got %s\nwant %s", tt.yaml, got, tt.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error shows the secret: %v", err)
			}
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Errorf("error %v is not an *InputError", err)
			}
		})
	}
}

// TestProtocolCoreOf: an agent's own entry, else "*", else the policy.
func TestProtocolCoreOf(t *testing.T) {
	p, err := ParseProtocol([]byte("cores:\n  \"*\":\n    core: model\n    endpoint: http://x/v1\n    model: any\n  boundary:\n    core: model\n    endpoint: http://y/v1\n    model: own\n    temperature: 0\n  monitor:\n    core: policy\n"), "p.yaml", "", testMissions())
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	want := map[string]CoreSpec{
		"intake":   {Core: CoreModel, Endpoint: "http://x/v1", Model: "any"},
		"action":   {Core: CoreModel, Endpoint: "http://x/v1", Model: "any"},
		"boundary": {Core: CoreModel, Endpoint: "http://y/v1", Model: "own", Temperature: &zero},
		"monitor":  {Core: CorePolicy},
	}
	got := map[string]CoreSpec{}
	for _, a := range invoice.Spec().AgentNames() {
		got[string(a)] = p.CoreOf(a)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("CoreOf (-want +got):\n%s", d)
	}
	d, err := ParseProtocol([]byte("name: x\n"), "p.yaml", "", testMissions())
	if err != nil {
		t.Fatal(err)
	}
	if c := d.CoreOf(invoice.Intake); c.IsModel() {
		t.Errorf("without a cores section CoreOf = %+v, want the policy", c)
	}
}

// TestMixedCores runs a build whose boundary agent alone is a model (its
// prompt from the protocol, its key from an environment variable) beside
// policy cores: every item's verdict is the all-policy run's, the key
// reaches the endpoint and nothing else, and the prompt is in the
// manifest and the inputs' hash tree.
func TestMixedCores(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real stack over HTTP")
	}
	const key = "sk-test-4f9c2e7a1b"
	t.Setenv("BATON_TEST_MODEL_KEY", key)
	m := invoice.New()
	srv, err := model.NewServer(map[string]model.Player{"invoice-policy": modelcore.NewPlayer(m, mustDefaultProtocol(t).Profile)})
	if err != nil {
		t.Fatal(err)
	}
	var calls, unauthorised atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			calls.Add(1)
			if r.Header.Get("Authorization") != "Bearer "+key {
				unauthorised.Add(1)
			}
		}
		srv.ServeHTTP(w, r)
	}))
	defer ts.Close()

	st := realStack(t)
	_, polDir, err := runProtocol(t, st, smallProtocol, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "boundary.md"), "You are the boundary agent. Decide by the tools' results.\n")
	writeFile(t, filepath.Join(dir, "p.yaml"), smallProtocol+"cores:\n  boundary:\n    core: model\n    endpoint: "+ts.URL+"/v1\n    model: invoice-policy\n    api_key_env: BATON_TEST_MODEL_KEY\n    prompt: boundary.md\n")
	var logs bytes.Buffer
	opt := Options{ProtocolPath: filepath.Join(dir, "p.yaml"), RunDir: filepath.Join(dir, "run"), Workers: 2, Stack: st,
		Logger: zerolog.New(&logs).Level(zerolog.DebugLevel)}
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	const verdicts = "SELECT id, flagged, blame, findings FROM items ORDER BY id"
	if d := cmp.Diff(queryRows(t, polDir, verdicts), queryRows(t, opt.RunDir, verdicts)); d != "" {
		t.Errorf("verdicts with a model boundary differ from the policy's (-policy +mixed):\n%s", d)
	}
	if calls.Load() == 0 || unauthorised.Load() != 0 {
		t.Errorf("%d model calls, %d without the key", calls.Load(), unauthorised.Load())
	}

	man, err := ReadManifest(opt.RunDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(man.Models) != 1 || man.Models[0].Agent != "boundary" || man.Models[0].Prompt != "boundary.md" ||
		man.Models[0].Endpoint != ts.URL+"/v1" || man.Models[0].Prompt == "" {
		t.Errorf("manifest models = %+v, want the boundary's model core with its prompt file", man.Models)
	}
	var prompt *InputEntry
	for i, e := range man.Tree.Entries {
		if e.Name == "cores.boundary.prompt" {
			prompt = &man.Tree.Entries[i]
		}
	}
	if prompt == nil || prompt.Kind != KindPrompt || prompt.SHA256 != HashBytes(readFile(t, filepath.Join(dir, "boundary.md"))) {
		t.Errorf("inputs tree entry of the prompt = %+v, want kind prompt with the file's hash", prompt)
	}

	// The key is in no file of the run folder and no log line.
	if bytes.Contains(logs.Bytes(), []byte(key)) {
		t.Error("a log line carries the API key")
	}
	err = filepath.WalkDir(opt.RunDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil && bytes.Contains(data, []byte(key)) {
			t.Errorf("%s carries the API key", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzProtocolCores: a cores section is accepted only with settings a
// model core can use, and never with a credential in it; every error
// names file and line.
func FuzzProtocolCores(f *testing.F) {
	f.Add([]byte("cores:\n  \"*\":\n    core: model\n    endpoint: http://127.0.0.1:8000/v1\n    model: m\n    temperature: 0.7\n    max_steps: 8\n"))
	f.Add([]byte("cores:\n  boundary: {core: model, endpoint: \"https://u:p@x/v1?k=1\", model: m, api_key_env: K}\n  intake: {core: policy}\n"))
	f.Add([]byte("cores:\n  monitor:\n    core: model\n    endpoint: http://x\n    model: m\n    api_key: k\n    prompt: p.md\n"))
	f.Add([]byte("model_cache: cache\ncost_weights: {per_1k_input_tokens: 0.5, per_1k_output_tokens: 1.5}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProtocol(data, "fuzz.yaml", "", testMissions())
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !errLine.MatchString(line) {
					t.Fatalf("error line %q does not start with file:line", line)
				}
			}
			return
		}
		for agent, c := range p.Cores {
			if !c.IsModel() {
				continue
			}
			if problem := endpointProblem(c.Endpoint); problem != "" || c.Model == "" {
				t.Fatalf("accepted model core %s with endpoint %q (%s), model %q", agent, c.Endpoint, problem, c.Model)
			}
			if c.Temperature != nil && (*c.Temperature < 0 || *c.Temperature > maxTemperature) || c.MaxSteps < 0 || c.MaxSteps > maxModelSteps {
				t.Fatalf("accepted model core %s with temperature %v, max steps %d", agent, c.Temperature, c.MaxSteps)
			}
		}
	})
}
