package coordination_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
	"github.com/baton-lab/baton/mission/triage"
)

// reversed re-encodes a JSON object with its keys, and its payload's,
// in reverse sorted order: the same message in other bytes.
func reversed(tb testing.TB, raw string) string {
	tb.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		tb.Fatalf("%s: %v", raw, err)
	}
	keys := slices.Sorted(maps.Keys(m))
	slices.Reverse(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		v := string(m[k])
		if k == "payload" && strings.HasPrefix(v, "{") {
			v = reversed(tb, v)
		}
		fmt.Fprintf(&b, "%q:%s", k, v)
	}
	b.WriteByte('}')
	return b.String()
}

// rewrites turn a hand-off's bytes (wire or parsed) into other bytes.
// All but "renamed" keep the message's meaning; "renamed" changes a key
// to another of the same length.
var rewrites = []struct {
	name    string
	parsed  bool // applied to the parsed view alone, not the wire bytes
	rewrite func(tb testing.TB, s string) string
}{
	{"reordered", false, reversed},
	{"escaped key", false, func(_ testing.TB, s string) string { return strings.Replace(s, `"item":`, `"\u0069tem":`, 1) }},
	{"escaped value", false, func(_ testing.TB, s string) string {
		// the item's first character as a \u escape
		at := strings.Index(s, `"item":"`) + len(`"item":"`)
		if at < len(`"item":"`) || at >= len(s) {
			return s
		}
		return s[:at] + fmt.Sprintf(`\u%04x`, s[at]) + s[at+1:]
	}},
	{"spaced", false, func(_ testing.TB, s string) string { return strings.ReplaceAll(s, `,"`, `, "`) }},
	{"renamed", true, func(_ testing.TB, s string) string { return strings.Replace(s, `"item":`, `"itex":`, 1) }},
}

// rewritten returns src with every hand-off's bytes rewritten by rw.
func rewritten(tb testing.TB, src coordination.Source, parsedOnly bool, rw func(testing.TB, string) string) coordination.Source {
	tb.Helper()
	tr := &mission.Trace{Events: slices.Clone(src.Trace.Events)}
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Raw != "" && !parsedOnly {
			e.Raw = rw(tb, e.Raw)
		}
		if len(e.Parsed) > 0 {
			e.Parsed = json.RawMessage(rw(tb, string(e.Parsed)))
		}
	}
	src.Trace = tr
	return src
}

// memoSources returns sources of several missions and builds, each trace
// also with its hand-offs' bytes rewritten every way.
func memoSources(tb testing.TB) (srcs []coordination.Source, renamed map[int]int) {
	tb.Helper()
	m, sc := toyMission(tb)
	var base []coordination.Source
	for _, b := range []mission.Build{mission.Clean(), mission.NewBuild(toySeams{emit: func(e mission.Edge, msg *mission.Message) {
		if p := msg.Object("payload"); p != nil {
			p.Delete("amount")
		}
	}}, nil)} {
		_, run := derive(tb, m, sc, b, 1, mission.Env{}, nil)
		base = append(base, coordination.Source{Trial: sc.ID, System: "toy", Mission: m, Scenario: sc, Trace: run.Trace, Cost: run.Cost})
	}
	for _, m := range []mission.Mission{invoice.New(), triage.New()} {
		all := cleanSources(tb, m, 1)
		base = append(base, all[:8]...)
		base = append(base, all[len(all)-8:]...)
	}
	renamed = map[int]int{}
	for _, src := range base {
		at := len(srcs)
		srcs = append(srcs, src)
		for _, rw := range rewrites {
			if rw.name == "renamed" {
				renamed[len(srcs)] = at
			}
			srcs = append(srcs, rewritten(tb, src, rw.parsed, rw.rewrite))
		}
	}
	return srcs, renamed
}

// TestDeriverMatchesDerive: what a Deriver remembers changes no record.
// One Deriver derives traces of three missions, in turns, twice over, each
// also with its hand-offs in other bytes (keys reordered or escaped,
// values escaped, spaces between fields, a key renamed); every record
// equals the one Derive makes alone.
func TestDeriverMatchesDerive(t *testing.T) {
	srcs, renamed := memoSources(t)
	dv := coordination.NewDeriver()
	for pass := range 2 {
		for i, src := range srcs {
			want, err := coordination.Derive(src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := dv.Derive(src)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("pass %d, source %d (%s): Deriver's record (-Derive +Deriver):\n%s", pass, i, src.Trial, diff)
			}
		}
	}
	// The renamed key shows in the record: a memo that took one message
	// for the other would fail above.
	for i, orig := range renamed {
		a, _ := coordination.Derive(srcs[orig])
		b, _ := coordination.Derive(srcs[i])
		if cmp.Equal(a, b) {
			t.Errorf("source %d: renaming a key changed nothing in the record", i)
		}
	}
}

// TestDeriverConcurrent: goroutines sharing one Deriver derive what
// Derive derives (run with -race).
func TestDeriverConcurrent(t *testing.T) {
	srcs, _ := memoSources(t)
	want := make([]*coordination.Record, len(srcs))
	for i, src := range srcs {
		var err error
		if want[i], err = coordination.Derive(src); err != nil {
			t.Fatal(err)
		}
	}
	dv := coordination.NewDeriver()
	got := make([][]*coordination.Record, 3)
	var wg sync.WaitGroup
	for g := range got {
		wg.Go(func() {
			for i := range srcs {
				j := (i + g*len(srcs)/len(got)) % len(srcs) // each starts elsewhere
				rec, err := dv.Derive(srcs[j])
				if err != nil {
					t.Error(err)
					return
				}
				if got[g] == nil {
					got[g] = make([]*coordination.Record, len(srcs))
				}
				got[g][j] = rec
			}
		})
	}
	wg.Wait()
	for g := range got {
		if diff := cmp.Diff(want, got[g]); diff != "" {
			t.Errorf("goroutine %d (-Derive +Deriver):\n%s", g, diff)
		}
	}
}
