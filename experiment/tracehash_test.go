package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/mission"
)

// legacyRunHash is how an older baton hashed a unit's integrated run:
// SHA-256 of its trace's JSON Lines, then its end state's JSON.
func legacyRunHash(tb testing.TB, run *mission.Run) string {
	tb.Helper()
	tr, err := run.Trace.MarshalJSONL()
	if err != nil {
		tb.Fatal(err)
	}
	end, err := run.End.AppendJSON(nil)
	if err != nil {
		tb.Fatal(err)
	}
	h := sha256.New()
	h.Write(tr)
	h.Write(end)
	return hex.EncodeToString(h.Sum(nil))
}

// TestRunHashAgreesWithLegacy: results.json reads run hashes only to
// compare a mutated unit with its clean twin (trace_diffs) and end hashes
// to compare end states (harm), so it stays byte-identical as long as the
// compact hash makes the same units equal as the old SHA-256 of the JSON
// Lines did. Every unit of the default catalogue on a few scenarios is
// compared with its twin both ways; the units must include some equal to
// their twin and some not, or the test shows nothing.
func TestRunHashAgreesWithLegacy(t *testing.T) {
	pl := preparedPlan(t, "name: hashes\ntrials: 2\nseed: 5\nscenarios:\n  ids: [S01, S14, S25, S49]\n")
	type hashes struct{ run, legacy, end string }
	clean := map[string]hashes{} // scenario/trial -> the clean twin's
	same, differ := 0, 0
	for i := range pl.units() {
		u := pl.unitAt(i)
		out, err := pl.evaluate(context.Background(), u, 0, newUnitMemo(true))
		if err != nil {
			t.Fatal(err)
		}
		it := out.row.item
		records, err := out.run.End.Records.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := HashBytes(records); it.EndHash != want {
			t.Errorf("%s: end hash %s, want the SHA-256 of the records %s", out.row.id, short(it.EndHash), short(want))
		}
		h := hashes{it.TraceHash, legacyRunHash(t, out.run), it.EndHash}
		key := fmt.Sprintf("%s/%d", it.Scenario, it.Trial)
		if u.build == 0 {
			clean[key] = h
			continue
		}
		twin := clean[key]
		if (h.run == twin.run) != (h.legacy == twin.legacy) {
			t.Errorf("%s: run hash equal to its twin's %v, legacy hash equal %v", out.row.id, h.run == twin.run, h.legacy == twin.legacy)
		}
		if h.legacy == twin.legacy {
			same++
		} else {
			differ++
		}
	}
	if same == 0 || differ == 0 {
		t.Errorf("%d units equal to their clean twin, %d different: want some of each", same, differ)
	}
	t.Logf("%d units equal to their clean twin, %d different", same, differ)
}

// TestOlderTraceHashRefused: a run folder whose runs.db records no
// trace_hash was made by a baton that hashed traces with SHA-256 of their
// JSON Lines; replaying or resuming it says so rather than report every
// item as a mismatch.
func TestOlderTraceHashRefused(t *testing.T) {
	_, runDir, err := runProtocol(t, fakeStack(), fakeProtocol, Options{Workers: 2, TraceSample: 1})
	finished(t, err)
	st := fakeStack()
	const id = "ctl-amount/A/S2/3"
	if _, err := st.Replay(runDir, id); err != nil {
		t.Fatalf("Replay(%s) of this baton's run: %v", id, err)
	}
	s, err := openStore(filepath.Join(runDir, StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	if alg, err := s.traceAlgorithm(); err != nil || alg != TraceHashAlgorithm {
		t.Errorf("trace_hash = %q, %v; want %q", alg, err, TraceHashAlgorithm)
	}
	if _, err := s.db.Exec("DELETE FROM meta WHERE key = 'trace_hash'"); err != nil {
		t.Fatal(err)
	}
	s.db.Close()
	if _, err := st.Replay(runDir, id); !errors.Is(err, ErrTraceHash) || !strings.Contains(err.Error(), legacyTraceHash) {
		t.Errorf("Replay of an older run = %v, want ErrTraceHash naming %s", err, legacyTraceHash)
	}
	opt := Options{ProtocolPath: filepath.Join(filepath.Dir(runDir), "p.yaml"), RunDir: runDir, Resume: true, Stack: st, Logger: zerolog.Nop()}
	if _, err := Run(context.Background(), opt); !errors.Is(err, ErrTraceHash) {
		t.Errorf("resume of an older run = %v, want ErrTraceHash", err)
	}
}

// checkTrace checks a trace's bytes with the algorithm its store names.
func TestCheckTrace(t *testing.T) {
	tr := &mission.Trace{Events: []mission.Event{{Seq: 1, Kind: mission.EventResult, Agent: "a", Reason: "r\xff"}}}
	b, err := tr.MarshalJSONL()
	if err != nil {
		t.Fatal(err)
	}
	want := hash64(tr.AppendCompact(nil))
	for _, tc := range []struct {
		name, alg, sha string
		ok             bool
	}{
		{"this baton's", TraceHashAlgorithm, want, true},
		{"another trace's", TraceHashAlgorithm, hash64([]byte("x")), false},
		{"an older baton's", legacyTraceHash, HashBytes(b), true},
		{"an older baton's, other bytes", legacyTraceHash, HashBytes(append(b, '\n')), false},
		{"this baton's hash in an older store", legacyTraceHash, want, false},
	} {
		if got, ok := checkTrace(tc.alg, b, tc.sha); ok != tc.ok {
			t.Errorf("%s: checkTrace = %s, %v; want %v", tc.name, got, ok, tc.ok)
		}
	}
}

// BenchmarkRunHash is the run hash of one observation run (S43, three
// emails, clean build) as this baton takes it (compact) and as an older
// one did (legacy: the trace's JSON Lines and the end state's JSON through
// SHA-256), side by side.
func BenchmarkRunHash(b *testing.B) {
	m := testMissions().Default()
	scs, _, err := m.Scenarios()
	if err != nil {
		b.Fatal(err)
	}
	var sc *mission.Scenario
	for _, s := range scs {
		if s.ID == "S43" {
			sc = s
		}
	}
	run, err := m.Run(context.Background(), mission.Clean(), sc, 1, mission.Env{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("compact", func(b *testing.B) {
		memo := newUnitMemo(true)
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := runHashes(run.Trace, run.End, memo); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("legacy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			legacyRunHash(b, run)
		}
	})
}

// BenchmarkHashTrace is the check of a stored trace's bytes against its
// hash (resume, replay, export): the JSON Lines read back into their
// compact encoding.
func BenchmarkHashTrace(b *testing.B) {
	m := testMissions().Default()
	scs, _, err := m.Scenarios()
	if err != nil {
		b.Fatal(err)
	}
	run, err := m.Run(context.Background(), mission.Clean(), scs[len(scs)-1], 1, mission.Env{})
	if err != nil {
		b.Fatal(err)
	}
	jsonl, err := run.Trace.MarshalJSONL()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(jsonl)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := HashTrace(jsonl); err != nil {
			b.Fatal(err)
		}
	}
}
