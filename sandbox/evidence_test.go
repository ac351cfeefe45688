package sandbox

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mapFacts is ReadLog as it was, reading the whole log into maps at once:
// the oracle of TestReadLogAsMaps.
type mapFacts struct {
	written  map[string]bool
	evidence map[string]Evidence
	lastFail map[string]bool
}

func readLogMaps(log []LogEntry) *mapFacts {
	f := &mapFacts{written: map[string]bool{}, evidence: map[string]Evidence{}, lastFail: map[string]bool{}}
	type callKey struct{ agent, item, tool string }
	pending := map[callKey]bool{}
	for i := range log {
		e := &log[i]
		if e.Effect != "" {
			f.written[e.Effect] = true
		}
		switch {
		case e.Outcome == OutcomeOK || e.Outcome == OutcomeReplayed:
			f.lastFail[e.Tool] = false
		case e.Outcome == OutcomeError && (RetryableCode(e.Code) || CodeKind(e.Code) == ErrRefused):
			f.lastFail[e.Tool] = true
		}
		k := callKey{e.Agent, e.Item, e.Tool}
		switch e.Outcome {
		case OutcomeOK, OutcomeReplayed:
			if pending[k] {
				pending[k] = false
			}
		case OutcomeError, OutcomeForbidden:
			ev := f.evidence[e.Item]
			ev.Failure = true
			if e.Outcome == OutcomeError {
				switch CodeKind(e.Code) {
				case ErrTimeout, ErrUnavailable, ErrRateLimited:
					pending[k] = true
				case ErrRefused:
					ev.Refusal = true
				}
			}
			f.evidence[e.Item] = ev
		}
	}
	for k, p := range pending {
		if p {
			ev := f.evidence[k.item]
			ev.Retry = true
			f.evidence[k.item] = ev
		}
	}
	return f
}

var (
	logNames    = []string{"", "a", "b", "c"}
	logOutcomes = []string{OutcomeOK, OutcomeReplayed, OutcomeError, OutcomeForbidden, "other"}
	logCodes    = []string{"", CodeForbidden, CodeTokenExpired, CodeBadRequest, CodeInvalid, CodeNotFound,
		CodeDailyLimit, CodeUnavailable, CodeTimeout, CodeRateLimited, "X-1"}
)

// logFrom makes a log of small vocabularies from bytes, four per entry.
func logFrom(data []byte) []LogEntry {
	var log []LogEntry
	for i := 0; i+4 <= len(data); i += 4 {
		b := data[i : i+4]
		log = append(log, LogEntry{
			Seq: len(log) + 1, Agent: logNames[b[0]%4], Item: logNames[b[0]/4%4], Tool: logNames[b[0]/16%4],
			Outcome: logOutcomes[int(b[1])%len(logOutcomes)], Code: logCodes[int(b[2])%len(logCodes)],
			Effect: logNames[b[3]%4],
		})
	}
	return log
}

// compareFacts checks every question ReadLog answers against the maps.
func compareFacts(tb testing.TB, log []LogEntry) {
	tb.Helper()
	want, got := readLogMaps(log), ReadLog(log)
	for _, name := range append(logNames, "z") {
		if w, g := want.written[name], got.Written(name); w != g {
			tb.Fatalf("Written(%q) = %v, want %v; log %+v", name, g, w, log)
		}
		if diff := cmp.Diff(want.evidence[name], got.Evidence(name)); diff != "" {
			tb.Fatalf("Evidence(%q) (-want +got):\n%s\nlog %+v", name, diff, log)
		}
		if w, g := want.lastFail[name], got.LastCallFailed(name); w != g {
			tb.Fatalf("LastCallFailed(%q) = %v, want %v; log %+v", name, g, w, log)
		}
	}
}

// TestReadLogAsMaps checks ReadLog against the map reading it replaced on
// random logs.
func TestReadLogAsMaps(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		data := make([]byte, 4*rnd.IntN(12))
		for i := range data {
			data[i] = byte(rnd.Uint32())
		}
		compareFacts(t, logFrom(data))
	}
}

func FuzzReadLog(f *testing.F) {
	f.Add([]byte{0x11, 2, 8, 0, 0x11, 0, 0, 1})
	f.Add([]byte{0x05, 2, 7, 2, 0x05, 2, 9, 0, 0x15, 1, 0, 3})
	f.Fuzz(func(t *testing.T, data []byte) { compareFacts(t, logFrom(data)) })
}

func BenchmarkReadLog(b *testing.B) {
	rnd := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 4*40) // a day's few dozen calls
	for i := range data {
		data[i] = byte(rnd.Uint32())
	}
	log := logFrom(data)
	b.ReportAllocs()
	for b.Loop() {
		f := ReadLog(log)
		for _, name := range logNames {
			f.Evidence(name)
			f.Written(name)
		}
		f.LastCallFailed("a")
	}
}
