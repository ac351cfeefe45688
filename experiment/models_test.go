package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mission/modelcore"
	"github.com/baton-lab/baton/mission/triage"
	"github.com/baton-lab/baton/model"
	"github.com/baton-lab/baton/reports"
)

// scriptedEndpoint serves the invoice mission's player (the policy cores
// with the default protocol's slips) in process, as `baton model serve
// --mission invoice` does over a socket.
func scriptedEndpoint(tb testing.TB) *httptest.Server { return missionEndpoint(tb, invoice.New()) }

// missionEndpoint serves m's player in process, as `baton model serve
// --mission` does over a socket.
func missionEndpoint(tb testing.TB, m mission.Mission) *httptest.Server {
	tb.Helper()
	p, err := MissionProtocol(m)
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := model.NewServer(map[string]model.Player{
		modelcore.PlayerModel(m.Spec().Name): modelcore.NewPlayer(m, p.Profile),
	})
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	tb.Cleanup(ts.Close)
	return ts
}

// modelProtocol is the default protocol at a few trials with every core
// model-backed against the endpoint at url.
func modelProtocol(url string) string {
	return modelCores("name: default\ntrials: 2\n", url, "invoice-policy")
}

// modelCores adds to a protocol a model core for every agent, playing
// model at the endpoint at url.
func modelCores(protocol, url, model string) string {
	return fmt.Sprintf("%scores:\n  \"*\":\n    core: model\n    endpoint: %s/v1\n    model: %s\n", protocol, url, model)
}

// detectionCells are the parts of results.json that say what each design
// detected and flagged: they must not depend on who plays the agents.
type detectionCells struct {
	Validity            reports.Validity
	Detection           []reports.DetectionRow
	DetectionByMutant   []reports.MutantDetection
	DetectionByScenario []reports.ScenarioDetection
	Localisation        []reports.LocalisationRow
	FalseAlarms         []reports.FalseAlarmRow
	PairedByMutant      []reports.PairedMutant
}

func readDetection(tb testing.TB, runDir string) detectionCells {
	tb.Helper()
	r, err := reports.LoadResults(filepath.Join(runDir, ResultsFile))
	if err != nil {
		tb.Fatal(err)
	}
	return detectionCells{r.Validity, r.Detection, r.DetectionByMutant, r.DetectionByScenario, r.Localisation, r.FalseAlarms, r.PairedByMutant}
}

func modelUse(tb testing.TB, runDir string) map[string]reports.ModelUse {
	tb.Helper()
	man, err := ReadManifest(runDir)
	if err != nil {
		tb.Fatal(err)
	}
	return man.ModelUse
}

// TestModelCoresMatchPolicy runs the default invoice protocol with every
// core a model played by the scripted mission player over HTTP: the
// detection table is the policy run's at the same seeds. With the server
// stopped, the folder resumes, its items replay byte for byte, and a new
// run answers from its cache alone.
func TestModelCoresMatchPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the default protocol twice over HTTP")
	}
	if raceEnabled {
		t.Skip("some 160,000 model calls are too slow under the race detector; TestModelResume and TestMixedCores run model cores under it")
	}
	st := realStack(t)
	ts := scriptedEndpoint(t)
	proto := modelProtocol(ts.URL)
	modDir := matchPolicy(t, st, "name: default\ntrials: 2\n", proto)
	if use := modelUse(t, modDir); use["A"].Made == 0 {
		t.Errorf("design A's golden inputs asked the endpoint nothing new: %+v", use)
	}
	results := readFile(t, filepath.Join(modDir, ResultsFile))
	ts.Close() // from here on the endpoint is gone: the cache alone answers

	t.Run("resume offline", func(t *testing.T) {
		opt := Options{ProtocolPath: filepath.Join(filepath.Dir(modDir), "p.yaml"), RunDir: modDir, Resume: true,
			Workers: 2, Stack: st, Logger: zerolog.Nop()}
		if _, err := Run(context.Background(), opt); err != nil {
			t.Fatalf("resume with the server stopped: %v", err)
		}
		if !bytes.Equal(results, readFile(t, filepath.Join(modDir, ResultsFile))) {
			t.Error("results.json changed on resume")
		}
	})

	t.Run("replay offline", func(t *testing.T) {
		ids := keptItems(t, modDir, "build = 'clean'", 4)
		ids = append(ids, keptItems(t, modDir, "build != 'clean' AND flagged = 1", 3)...)
		for _, id := range ids {
			res, err := st.Replay(modDir, id)
			if err != nil {
				t.Errorf("Replay(%s) with the server stopped: %v", id, err)
				continue
			}
			if got, err := HashTrace(res.Trace); err != nil || got != res.TraceSHA {
				t.Errorf("Replay(%s): trace hashes to %s (%v), stored %s", id, got, err, res.TraceSHA)
			}
			if res.StoredTrace != nil && !bytes.Equal(res.StoredTrace, res.Trace) {
				t.Errorf("Replay(%s): stored trace %d bytes, replayed %d bytes", id, len(res.StoredTrace), len(res.Trace))
			}
			if !res.Match() {
				t.Errorf("Replay(%s): %v", id, res.Differences)
			}
		}
	})

	t.Run("new run from the cache", func(t *testing.T) {
		// Two scenarios at one trial: their trial seeds are the first run's.
		narrow := proto + "scenarios:\n  ids: [S01, S14]\n"
		_, dir, err := runProtocol(t, st, narrow, Options{Workers: 2, Trials: 1, ModelOffline: true,
			ModelCache: filepath.Join(modDir, ModelCacheDir)})
		finished(t, err)
		const first = "trial = 1 AND scenario IN ('S01', 'S14')"
		if d := cmp.Diff(itemRows(t, modDir, first), itemRows(t, dir, first)); d != "" {
			t.Errorf("the trial-1 items of the run from the cache differ (-first run +cached):\n%s", d)
		}
		for d, u := range modelUse(t, dir) {
			if u.Made != 0 || u.Served == 0 {
				t.Errorf("design %s: the cached run made %d calls and served %d, want none made", d, u.Made, u.Served)
			}
		}
	})
}

// matchPolicy runs protocol with the policy cores and model (the same
// protocol with model cores) and fails unless their detection cells and
// items' verdicts agree and every design asked the model; it returns the
// model run's folder.
func matchPolicy(t *testing.T, st *Stack, protocol, model string) string {
	t.Helper()
	_, polDir, err := runProtocol(t, st, protocol, Options{Workers: 2})
	finished(t, err)
	want := readDetection(t, polDir)
	_, modDir, err := runProtocol(t, st, model, Options{Workers: 2})
	finished(t, err)
	if d := cmp.Diff(want, readDetection(t, modDir)); d != "" {
		t.Fatalf("detection with model cores differs from the policy cores' (-policy +model):\n%s", d)
	}
	const verdicts = "SELECT id, flagged, blame, findings FROM items ORDER BY id"
	if d := cmp.Diff(queryRows(t, polDir, verdicts), queryRows(t, modDir, verdicts)); d != "" {
		t.Errorf("items' verdicts with model cores differ from the policy cores' (-policy +model):\n%s", d)
	}
	use := modelUse(t, modDir)
	for _, d := range []string{ObservationDesign, "A", "B", "C"} {
		if use[d].Made+use[d].Served == 0 {
			t.Errorf("design %s: no model call (%+v)", d, use[d])
		}
	}
	if use[ObservationDesign].Made == 0 {
		t.Errorf("no call reached the endpoint: %+v", use)
	}
	return modDir
}

// TestTriageModelCoresMatchPolicy is TestModelCoresMatchPolicy on the
// triage mission's default protocol at two trials: its prompts resolve
// and the scripted player re-plays its policy cores. (Design A may ask
// the endpoint nothing new: triage's goldens are what the clean run
// hands on.)
func TestTriageModelCoresMatchPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the triage protocol twice over HTTP")
	}
	if raceEnabled {
		t.Skip("too many model calls for the race detector; TestModelResume and TestMixedCores run model cores under it")
	}
	reg, err := mission.NewRegistry(invoice.New(), triage.New())
	if err != nil {
		t.Fatal(err)
	}
	st := NewStack(reg)
	ts := missionEndpoint(t, triage.New())
	const proto = "name: triage\nmission:\n  name: triage\ntrials: 2\n"
	matchPolicy(t, st, proto, modelCores(proto, ts.URL, modelcore.PlayerModel(triage.Name)))
}

// keptItems returns up to n items of a run that match where and kept
// their trace's hash, by id.
func keptItems(tb testing.TB, runDir, where string, n int) []string {
	tb.Helper()
	var err error
	ids := queryRows(tb, runDir, fmt.Sprintf(`SELECT id FROM items WHERE trace_sha256 != '' AND %s ORDER BY id LIMIT %d`, where, n))
	if len(ids) == 0 {
		tb.Fatalf("no item kept its trace where %s", where)
	}
	for i, id := range ids {
		if ids[i], err = strconv.Unquote(id); err != nil {
			tb.Fatal(err)
		}
	}
	return ids
}

// itemRows dumps the items that match where (wall time aside) and their
// findings.
func itemRows(tb testing.TB, runDir, where string) []string {
	tb.Helper()
	items := queryRows(tb, runDir, `SELECT id, seed, flagged, blame, findings, model_calls, tool_calls, tokens, tokens_in, slipped, faulted, reached, success, run_sha256, trace_sha256 FROM items i WHERE `+where+` ORDER BY id`)
	if len(items) == 0 {
		tb.Fatalf("%s: no items where %s", runDir, where)
	}
	return append(items, queryRows(tb, runDir, `SELECT f.item_id, f.seq, f.rule, f.message, f.location, f.evidence FROM findings f WHERE f.item_id IN (SELECT id FROM items i WHERE `+where+`) ORDER BY f.item_id, f.seq`)...)
}

// queryRows returns the rows of one query on a run's store, as the
// store's own checks print them.
func queryRows(tb testing.TB, runDir, q string) []string {
	tb.Helper()
	s, err := openStoreIn(runDir)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.db.Close()
	rows, err := queryStrings(s.db, q)
	if err != nil {
		tb.Fatal(err)
	}
	return rows
}

// resumeProtocol is smallProtocol on two of its scenarios and two of its
// mutants: one mostly executed (7 of its 16 items taken from the twins),
// one taken whole.
const resumeProtocol = `name: resume
designs: [A, B, C]
trials: 2
seed: 3
scenarios:
  ids: [S01, S49]
mutants:
  ids: [ctl-boundary-payment-currency, da-boundary-payment-fresh-key]
`

// TestModelResume interrupts a model-backed run and resumes it: the
// results are the uninterrupted run's, and the resumed session asks the
// endpoint nothing the first session had an answer to (one worker: at
// most the request in flight at the interruption is asked again).
func TestModelResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real stack over HTTP")
	}
	ts := scriptedEndpoint(t)
	var mu sync.Mutex
	sent := map[string]int{}
	count := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			mu.Lock()
			sent[HashBytes(body)]++
			mu.Unlock()
		}
		ts.Config.Handler.ServeHTTP(w, r)
	}))
	defer count.Close()
	proto := resumeProtocol + "cores:\n  \"*\":\n    core: model\n    endpoint: " + count.URL + "/v1\n    model: invoice-policy\n"
	st := realStack(t)
	sum, whole, err := runProtocol(t, st, proto, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	results := readFile(t, filepath.Join(whole, ResultsFile))
	clear(sent)

	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "p.yaml"), proto)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt := Options{ProtocolPath: filepath.Join(dir, "p.yaml"), RunDir: filepath.Join(dir, "run"), Workers: 1,
		Stack: interrupting(st, int64(sum.Items/3), cancel), Logger: zerolog.Nop()}
	if _, err := Run(ctx, opt); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Run = %v, want context.Canceled", err)
	}
	opt.Resume, opt.Stack = true, st
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(results, readFile(t, filepath.Join(opt.RunDir, ResultsFile))) {
		t.Error("results.json of the resumed model-backed run differs from the uninterrupted one's")
	}
	var again int
	for _, n := range sent {
		again += n - 1
	}
	if again > 1 {
		t.Errorf("%d requests were sent again after the resume, want at most the one in flight", again)
	}
	if len(sent) == 0 {
		t.Error("no request reached the endpoint")
	}
}
