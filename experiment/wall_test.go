package experiment

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/baton-lab/baton/mission"
)

// assertWallNull checks that every cost row of results.json has the
// wall_ms key, null: wall-clock time would break byte-stable results.
func assertWallNull(tb testing.TB, results []byte) {
	tb.Helper()
	var r struct {
		Cost []map[string]json.RawMessage `json:"cost"`
	}
	if err := json.Unmarshal(results, &r); err != nil {
		tb.Fatalf("results.json: %v", err)
	}
	if len(r.Cost) == 0 {
		tb.Fatal("results.json has no cost rows")
	}
	for _, row := range r.Cost {
		w, ok := row["wall_ms"]
		if !ok || string(w) != "null" {
			tb.Errorf("cost row %s: wall_ms = %s (present %v), want null", row["design"], w, ok)
		}
	}
}

// slowMission is fakeMission whose runs take measurable wall time.
type slowMission struct {
	fakeMission
	run, core time.Duration
}

func (m slowMission) Run(ctx context.Context, b mission.Build, sc *mission.Scenario, seed uint64, env mission.Env) (*mission.Run, error) {
	time.Sleep(m.run)
	return m.fakeMission.Run(ctx, b, sc, seed, env)
}

func (m slowMission) RunCore(ctx context.Context, b mission.Build, agent mission.Agent, sc *mission.Scenario, in mission.CoreInput, seed uint64, env mission.Env) (*mission.CoreRun, error) {
	time.Sleep(m.core)
	return m.fakeMission.RunCore(ctx, b, agent, sc, in, seed, env)
}

// TestSharedRunsChargeWall: design B is served the observation run and
// design C design A's core run; each must still be charged the wall time
// those runs took when they executed.
func TestSharedRunsChargeWall(t *testing.T) {
	const run, core = 15 * time.Millisecond, 8 * time.Millisecond
	st := fakeStack()
	st.Missions, _ = mission.NewRegistry(slowMission{run: run, core: core})
	_, runDir, err := runProtocol(t, st, "name: fake\ntrials: 1\nseed: 11\n", Options{Workers: 2})
	finished(t, err)
	s, err := openStore(filepath.Join(runDir, StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer s.db.Close()
	rows, err := s.db.Query("SELECT id, design, wall_ns FROM items")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := map[string]time.Duration{"": run, "A": core, "B": run, "C": core}
	n := 0
	for rows.Next() {
		var id, design string
		var ns int64
		if err := rows.Scan(&id, &design, &ns); err != nil {
			t.Fatal(err)
		}
		n++
		if got := time.Duration(ns); got < want[design] {
			t.Errorf("item %s: wall %v, want at least %v (the run it used)", id, got, want[design])
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 36 {
		t.Errorf("items = %d, want 36", n)
	}
}

// TestMatchersStored: design A's matcher counts reach runs.db and
// results.json's trajectory_matchers.
func TestMatchersStored(t *testing.T) {
	sum, runDir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 2})
	finished(t, err)
	s, err := openStore(filepath.Join(runDir, StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer s.db.Close()
	var n, exact, nameOnly, order, flagged int
	if err := s.db.QueryRow(`SELECT sum(match_n), sum(match_exact), sum(match_name_only), sum(match_order_ignored), sum(flagged)
		FROM items WHERE design = 'A'`).Scan(&n, &exact, &nameOnly, &order, &flagged); err != nil {
		t.Fatal(err)
	}
	if n != 54 || exact != 54-flagged || nameOnly != 54 || order != 54-flagged || flagged == 0 {
		t.Errorf("stored A matchers n=%d exact=%d name-only=%d order-ignored=%d (flagged %d), want 54, 54-flagged, 54, 54-flagged",
			n, exact, nameOnly, order, flagged)
	}
	rows := sum.Results.TrajectoryMatchers
	if len(rows) != 1 || rows[0].Design != "A" || rows[0].N != n || rows[0].Exact != exact || rows[0].NameOnly != nameOnly {
		t.Errorf("trajectory matchers = %+v, want one row for A with the stored counts", rows)
	}
	var r struct {
		Rows []struct {
			Design string `json:"design"`
			N      int    `json:"n"`
		} `json:"trajectory_matchers"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(runDir, ResultsFile)), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 1 || r.Rows[0].N != 54 {
		t.Errorf("results.json trajectory_matchers = %+v", r.Rows)
	}
}
