package experiment

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mission/modelcore"
	"github.com/baton-lab/baton/model"
)

// TestWorkerEndpoint: a worker's model cores ask its own endpoint with
// its own key (none if it has none), else the protocol's endpoint with
// the key the protocol's api_key_env names in the worker's environment.
func TestWorkerEndpoint(t *testing.T) {
	t.Setenv("PROTO_KEY", "proto-secret")
	ma := &modelAgent{spec: CoreSpec{Core: CoreModel, Endpoint: "http://proto/v1", Model: "m", APIKeyEnv: "PROTO_KEY"}}
	type got struct{ Endpoint, Key, Err string }
	for _, tc := range []struct {
		name string
		o    coreOptions
		want got
	}{
		{"local run", coreOptions{}, got{"http://proto/v1", "proto-secret", ""}},
		{"worker without its own", coreOptions{worker: &JobModels{}}, got{"http://proto/v1", "proto-secret", ""}},
		{"worker with a key alone", coreOptions{worker: &JobModels{APIKey: "own-secret"}}, got{"http://proto/v1", "own-secret", ""}},
		{"worker with its own endpoint", coreOptions{worker: &JobModels{Endpoint: "http://own/v1", APIKey: "own-secret"}}, got{"http://own/v1", "own-secret", ""}},
		{"own endpoint without a key sends none", coreOptions{worker: &JobModels{Endpoint: "http://own/v1"}}, got{"http://own/v1", "", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, err := tc.o.apiKey(ma)
			g := got{Endpoint: tc.o.endpoint(ma), Key: key}
			if err != nil {
				g.Err = err.Error()
			}
			if d := cmp.Diff(tc.want, g); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	t.Setenv("PROTO_KEY", "")
	if _, err := (coreOptions{worker: &JobModels{}}).apiKey(ma); err == nil {
		t.Error("a worker on the protocol's endpoint without the protocol's key: no error")
	}
}

// TestJobModelsCheck: a worker's endpoint must be an http(s) base URL,
// and the error shows no credentials.
func TestJobModelsCheck(t *testing.T) {
	for _, tc := range []struct {
		endpoint string
		ok       bool
	}{{"", true}, {"http://127.0.0.1:8000/v1", true}, {"https://user:pw@gpu-1/v1", true}, {"ftp://user:pw@gpu-1/v1", false}, {"gpu-1:8000", false}} {
		err := JobModels{Endpoint: tc.endpoint}.Check()
		if (err == nil) != tc.ok {
			t.Errorf("Check(%q) = %v, want ok %v", tc.endpoint, err, tc.ok)
		}
		if err != nil && strings.Contains(err.Error(), "pw@") {
			t.Errorf("Check(%q) = %v: shows the credentials", tc.endpoint, err)
		}
	}
}

// TestSinkModels: the coordinator copies the answers a unit used from
// the shared store into the run folder's caches and counts its calls; an
// answer the shared store lacks, a design the run does not have, or a
// unit without its model part is refused, counting nothing.
func TestSinkModels(t *testing.T) {
	ctx := context.Background()
	const have, lack = model.Key("aa00000000000000000000000000000000000000000000000000000000000000"), model.Key("bb00000000000000000000000000000000000000000000000000000000000000")
	newSink := func() (*sinkModels, *model.MemStore) {
		own, shared := model.NewMemStore(), model.NewMemStore()
		if _, err := shared.Add(ctx, have, []byte(`{"entry":1}`)); err != nil {
			t.Fatal(err)
		}
		cs := &coreSet{agents: []*modelAgent{{agent: "a"}}, stores: []model.Store{own}, use: map[string]*modelcore.Use{"": {}, "B": {}}}
		return &sinkModels{ctx: ctx, cs: cs, shared: shared}, own
	}
	use := map[string]modelcore.UseCounts{"B": {Made: 1, Served: 2}}
	for _, tc := range []struct {
		name   string
		um     *unitModels
		wantOK bool
	}{
		{"copied", &unitModels{Keys: []model.Key{have}, Use: use}, true},
		{"an answer the shared store lacks", &unitModels{Keys: []model.Key{have, lack}, Use: use}, false},
		{"a design the run does not have", &unitModels{Keys: []model.Key{have}, Use: map[string]modelcore.UseCounts{"Z": {Made: 1}}}, false},
		{"no model part", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, own := newSink()
			err := m.take(tc.um)
			if (err == nil) != tc.wantOK {
				t.Fatalf("take = %v, want ok %v", err, tc.wantOK)
			}
			got := m.cs.use["B"].Counts()
			if !tc.wantOK {
				if got != (modelcore.UseCounts{}) {
					t.Errorf("a refused unit counted %+v", got)
				}
				return
			}
			if raw, err := own.Get(ctx, have); err != nil || string(raw) != `{"entry":1}` {
				t.Errorf("run folder's cache: %s, %v; want the shared entry", raw, err)
			}
			if d := cmp.Diff(modelcore.UseCounts{Made: 1, Served: 2}, got); d != "" {
				t.Errorf("design B's calls (-want +got):\n%s", d)
			}
		})
	}
}
