package experiment

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/mission"
)

// TestSameEventEveryField: two events that differ in any one field are
// not the same event, so the verdict memo never takes one run for
// another.
func TestSameEventEveryField(t *testing.T) {
	base := mission.Event{Seq: 1, At: 2, Kind: mission.EventToolCall, Agent: "a", Item: "i", Decision: "d", Choice: "c",
		TokensIn: 3, TokensOut: 4, Tool: "t", Args: json.RawMessage(`{"x":1}`), Output: json.RawMessage(`{}`), Error: "e",
		Key: "k", Attempt: 5, Effect: "f", Edge: "a->b", Raw: "r", Parsed: json.RawMessage(`[]`), To: []mission.Agent{"b"}, Reason: "why"}
	if !sameEvent(&base, &base) {
		t.Fatal("an event is not the same as itself")
	}
	typ := reflect.TypeFor[mission.Event]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		other := base
		v := reflect.ValueOf(&other).Elem().Field(i)
		switch v.Kind() {
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + 1)
		case reflect.String:
			v.SetString(v.String() + "'")
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				v.SetBytes(append(v.Bytes()[:len(v.Bytes()):len(v.Bytes())], ' '))
			} else {
				v.Set(reflect.Append(v, v.Index(0)))
			}
		default:
			t.Fatalf("field %s of kind %s: teach the test (and sameEvent) about it", f.Name, v.Kind())
		}
		if sameEvent(&base, &other) {
			t.Errorf("events differing in %s are the same event", f.Name)
		}
	}
	noArgs, emptyArgs := base, base
	noArgs.Args, emptyArgs.Args = nil, json.RawMessage{}
	if sameEvent(&noArgs, &emptyArgs) {
		t.Errorf("nil and empty args are the same event")
	}
}

// TestVerdictMemo: the memo remembers a run the second time its hash
// comes and gives its verdicts from then on, only for the same run; a run
// that only shares the hash (a memo keyed by the hash alone would take it
// for the other) is derived.
func TestVerdictMemo(t *testing.T) {
	sc, other := &mission.Scenario{ID: "S01"}, &mission.Scenario{ID: "S02"}
	run := func(args string, cost int) *mission.Run {
		return &mission.Run{Trace: &mission.Trace{Events: []mission.Event{
			{Seq: 1, Kind: mission.EventToolCall, Agent: "a", Tool: "t", Args: json.RawMessage(args)},
		}}, Cost: mission.Cost{ToolCalls: cost}}
	}
	vm := &verdictMemo{}
	derived := 0
	get := func(sc *mission.Scenario, r *mission.Run, success bool) []coordination.Verdict {
		t.Helper()
		vs, err := vm.verdicts("h", sc, r, success, func() ([]coordination.Verdict, error) {
			derived++
			return []coordination.Verdict{coordination.Verdict(fmt.Sprintf("%s %s %d %v", sc.ID, r.Trace.Events[0].Args, r.Cost.ToolCalls, success))}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return vs
	}
	first := run(`{"x":1}`, 1)
	tests := []struct {
		name    string
		sc      *mission.Scenario
		run     *mission.Run
		success bool
		want    string
		derives int
	}{
		{"first", sc, first, true, `S01 {"x":1} 1 true`, 1},
		{"second: remembered", sc, first, true, `S01 {"x":1} 1 true`, 2},
		{"same run", sc, first, true, `S01 {"x":1} 1 true`, 2},
		{"equal run", sc, run(`{"x":1}`, 1), true, `S01 {"x":1} 1 true`, 2},
		{"other args", sc, run(`{"x":2}`, 1), true, `S01 {"x":2} 1 true`, 3},
		{"other cost", sc, run(`{"x":1}`, 2), true, `S01 {"x":1} 2 true`, 4},
		{"other success", sc, run(`{"x":1}`, 1), false, `S01 {"x":1} 1 false`, 5},
		{"other scenario", other, run(`{"x":1}`, 1), true, `S02 {"x":1} 1 true`, 6},
		{"remembered still", sc, run(`{"x":1}`, 1), true, `S01 {"x":1} 1 true`, 6},
	}
	for _, tt := range tests {
		got := get(tt.sc, tt.run, tt.success)
		if diff := cmp.Diff([]coordination.Verdict{coordination.Verdict(tt.want)}, got); diff != "" {
			t.Errorf("%s: verdicts (-want +got):\n%s", tt.name, diff)
		}
		if derived != tt.derives {
			t.Errorf("%s: %d derivations, want %d", tt.name, derived, tt.derives)
		}
	}
	// The memo owns its raw JSON: a run whose bytes change afterwards is
	// not the remembered one.
	vm = &verdictMemo{}
	r := run(`{"x":3}`, 1)
	get(sc, r, true)
	get(sc, r, true)
	r.Trace.Events[0].Args[5] = '4'
	if got := get(sc, r, true); got[0] != `S01 {"x":4} 1 true` {
		t.Errorf("after the run's bytes changed: %s, want them derived again", got[0])
	}
}

// TestVerdictMemoBounded: the memo forgets rather than grow past its
// bound.
func TestVerdictMemoBounded(t *testing.T) {
	vm := &verdictMemo{}
	big := make([]byte, 64<<10)
	for i := range big {
		big[i] = 'x'
	}
	for i := range 100 {
		r := &mission.Run{Trace: &mission.Trace{Events: []mission.Event{{Seq: i, Raw: string(big)}}}}
		for range 2 { // remembered the second time
			if _, err := vm.verdicts(fmt.Sprint(i), &mission.Scenario{}, r, true, func() ([]coordination.Verdict, error) { return nil, nil }); err != nil {
				t.Fatal(err)
			}
		}
		if vm.held > verdictMemoBytes {
			t.Fatalf("after %d runs the memo holds %d bytes, over %d", i+1, vm.held, verdictMemoBytes)
		}
	}
	if len(vm.m) == 0 || len(vm.m) >= 100 {
		t.Errorf("memo holds %d runs of 100", len(vm.m))
	}
}
