package score

import (
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readVoiceFile(f *os.File, name string) (*VoiceFile, error) { return ReadVoice(f, name) }

// The seed's worked micro-kata: action at 3900 and correction end at 4200
// on a common clock. At ±250 ms the difference is [-800, +200]: both
// orders fit. At ±50 ms it is [-400, -200]: the action was early.
func TestVoiceSeedExample(t *testing.T) {
	r := ScoreVoice(readTestdata(t, "voice.json", readVoiceFile))
	type verdict struct {
		Status           OrderingStatus
		Event, Ref, Diff Interval
		Events           []string
	}
	got := map[string]verdict{}
	for _, res := range r.Results {
		if res.Constraint == "action-after-correction" && res.Status != OrderMissing {
			got[res.Task] = verdict{res.Status, *res.EventMS, *res.ReferenceMS, *res.DifferenceMS, res.Events}
		}
	}
	want := map[string]verdict{
		"voice-refund-817":       {OrderIndeterminate, Interval{3650, 4150}, Interval{3950, 4450}, Interval{-800, 200}, []string{"e4", "e5"}},
		"voice-refund-817-tight": {OrderViolated, Interval{3850, 3950}, Interval{4150, 4250}, Interval{-400, -200}, []string{"e4", "e5"}},
		"voice-refund-902":       {OrderSatisfied, Interval{4680, 4720}, Interval{3350, 3450}, Interval{1230, 1370}, []string{"e5", "e3"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("action-after-correction (-want +got):\n%s", diff)
	}
	c := r.Constraints[0]
	type counts struct{ Satisfied, Violated, Indeterminate, N, Missing int }
	gotC := counts{c.Satisfied.Count, c.Violated.Count, c.Indeterminate.Count, c.Satisfied.N, len(c.Missing)}
	if diff := cmp.Diff(counts{1, 1, 1, 3, 1}, gotC); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"voice-refund-911"}, c.Missing); diff != "" {
		t.Errorf("missing tasks (-want +got):\n%s", diff)
	}
}

func TestOrderingCheck(t *testing.T) {
	ev := func(id, typ string, at, bound int64) VoiceEvent {
		return VoiceEvent{ID: id, Type: typ, AtMS: at, BoundMS: new(bound)}
	}
	after := OrderingConstraint{ID: "c", Event: "act", Relation: RelationAfter, Reference: "end"}
	before := OrderingConstraint{ID: "c", Event: "confirm", Relation: RelationBefore, Reference: "act"}
	tests := []struct {
		name   string
		c      OrderingConstraint
		events []VoiceEvent
		want   OrderingStatus
		diff   *Interval
		pair   []string
	}{
		{"after, clearly", after, []VoiceEvent{ev("a", "act", 1000, 10), ev("b", "end", 500, 10)}, OrderSatisfied, &Interval{480, 520}, []string{"a", "b"}},
		{"after, touching zero is not after", after, []VoiceEvent{ev("a", "act", 500, 0), ev("b", "end", 500, 0)}, OrderViolated, &Interval{0, 0}, []string{"a", "b"}},
		{"after, lower bound zero", after, []VoiceEvent{ev("a", "act", 550, 25), ev("b", "end", 500, 25)}, OrderIndeterminate, &Interval{0, 100}, []string{"a", "b"}},
		{"before, clearly", before, []VoiceEvent{ev("a", "confirm", 100, 10), ev("b", "act", 500, 10)}, OrderSatisfied, &Interval{-420, -380}, []string{"a", "b"}},
		{"before, violated", before, []VoiceEvent{ev("a", "confirm", 900, 10), ev("b", "act", 500, 10)}, OrderViolated, &Interval{380, 420}, []string{"a", "b"}},
		{"one violated pair of several", after, []VoiceEvent{ev("e1", "end", 100, 0), ev("a1", "act", 300, 0), ev("e2", "end", 400, 0)},
			OrderViolated, &Interval{-100, -100}, []string{"a1", "e2"}},
		{"the closest satisfied pair is shown", after, []VoiceEvent{ev("e1", "end", 100, 0), ev("e2", "end", 250, 0), ev("a1", "act", 300, 0)},
			OrderSatisfied, &Interval{50, 50}, []string{"a1", "e2"}},
		{"events without ids are named by index", after, []VoiceEvent{ev("", "end", 100, 0), ev("", "act", 300, 0)},
			OrderSatisfied, &Interval{200, 200}, []string{"events[1]", "events[0]"}},
		{"different clocks cannot decide", after, []VoiceEvent{ev("a", "act", 9000, 0), {ID: "b", Type: "end", AtMS: 100, BoundMS: new(int64(0)), Clock: "asr"}},
			OrderIndeterminate, &Interval{8900, 8900}, []string{"a", "b"}},
		{"missing reference", after, []VoiceEvent{ev("a", "act", 1000, 10)}, OrderMissing, nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.c.Check(VoiceTask{Task: "t", Clock: "rec", Events: tt.events})
			if res.Status != tt.want {
				t.Errorf("status = %s, want %s", res.Status, tt.want)
			}
			if diff := cmp.Diff(tt.diff, res.DifferenceMS); diff != "" {
				t.Errorf("difference (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.pair, res.Events); diff != "" {
				t.Errorf("deciding pair (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadVoiceErrors(t *testing.T) {
	head := "{\n\"constraints\": [{\"id\": \"c\", \"event\": \"act\", \"relation\": \"after\", \"reference\": \"end\"}],\n\"tasks\": [\n"
	tests := []readErrorCase{
		{"missing bound", head + "{\"task\": \"t\", \"clock\": \"rec\", \"events\": [\n{\"type\": \"act\", \"at_ms\": 1, \"bound_ms\": 5},\n{\"type\": \"end\", \"at_ms\": 2}]}]}", ErrBadValue,
			"voice.json:6: tasks[0].events[1].bound_ms: missing bound: give the ± of the timestamp (0 if exact)"},
		{"negative bound", head + "{\"task\": \"t\", \"clock\": \"rec\", \"events\": [\n{\"type\": \"act\", \"at_ms\": 1, \"bound_ms\": -5}]}]}", ErrBadValue,
			"voice.json:5: tasks[0].events[0].bound_ms: -5: want 0 to 1000000000000000"},
		{"fractional milliseconds", head + "{\"task\": \"t\", \"clock\": \"rec\", \"events\": [\n{\"type\": \"act\", \"at_ms\": 1.5, \"bound_ms\": 5}]}]}", ErrBadField,
			"voice.json:5: tasks[0].events[0].at_ms: want an integer of 64 bits, got 1.5"},
		{"unknown relation", "{\"constraints\": [{\"id\": \"c\", \"event\": \"a\", \"relation\": \"during\", \"reference\": \"b\"}], \"tasks\": []}", ErrBadValue,
			`voice.json:1: constraints[0].relation: "during": want after or before`},
		{"no constraint", "{\"tasks\": [{\"task\": \"t\", \"clock\": \"c\", \"events\": []}]}", ErrBadValue,
			"voice.json:1: constraints: no constraint: declare at least one before the timelines"},
		{"same type twice", "{\"constraints\": [{\"id\": \"c\", \"event\": \"a\", \"relation\": \"after\", \"reference\": \"a\"}], \"tasks\": []}", ErrBadValue,
			`voice.json:1: constraints[0].reference: same type as the event ("a"): an order needs two types`},
		{"duplicate task", head + "{\"task\": \"t\", \"clock\": \"rec\", \"events\": []},\n{\"task\": \"t\", \"clock\": \"rec\", \"events\": []}]}", ErrDuplicateID,
			`voice.json:5: tasks[1].task: duplicate id "t" (first at tasks[0].task)`},
		{"duplicate event id", head + "{\"task\": \"t\", \"clock\": \"rec\", \"events\": [{\"id\": \"e\", \"type\": \"act\", \"at_ms\": 1, \"bound_ms\": 5},\n{\"id\": \"e\", \"type\": \"end\", \"at_ms\": 1, \"bound_ms\": 5}]}]}", ErrDuplicateID,
			`voice.json:5: tasks[0].events[1].id: duplicate id "e" (first at tasks[0].events[0].id)`},
		{"no clock", head + "{\"task\": \"t\", \"events\": []}]}", ErrBadValue,
			"voice.json:4: tasks[0].clock: missing clock: name the common clock of the timestamps"},
		{"unknown key", head + "{\"task\": \"t\", \"clock\": \"rec\", \"events\": [{\"type\": \"act\", \"at\": 1}]}]}", ErrUnknownKey,
			`voice.json:4: tasks[0].events[0].at: unknown key "at" (want one of: at_ms, bound_ms, clock, id, type, value)`},
		{"two documents", head + "{\"task\": \"t\", \"clock\": \"rec\", \"events\": []}]}\n{}", ErrNotJSON,
			"voice.json:5: not JSON: object after the top-level object"},
	}
	checkReadErrors(t, tests, func(r io.Reader) error {
		_, err := ReadVoice(r, "voice.json")
		return err
	})
}

func FuzzReadVoice(f *testing.F) {
	seed, err := os.ReadFile("testdata/voice.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(seed))
	f.Add(`{"constraints":[{"id":"c","event":"a","relation":"before","reference":"b"}],"tasks":[{"task":"t","clock":"k","events":[{"type":"a","at_ms":-1000000000000000,"bound_ms":1000000000000000},{"type":"b","at_ms":1000000000000000,"bound_ms":0,"clock":"j"}]}]}`)
	f.Add(`{"constraints":[],"tasks":[]}`)
	f.Fuzz(func(t *testing.T, input string) {
		vf, err := ReadVoice(strings.NewReader(input), "fuzz.json")
		if err != nil {
			checkLocated(t, err, "fuzz.json")
			return
		}
		r := ScoreVoice(vf)
		for _, res := range r.Results {
			if d := res.DifferenceMS; d != nil && d[0] > d[1] {
				t.Fatalf("difference %v is not an interval", *d)
			}
		}
		raw, err := json.Marshal(vf)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ReadVoice(strings.NewReader(string(raw)), "again.json")
		if err != nil {
			t.Fatalf("re-reading what was accepted: %v\n%s", err, raw)
		}
		if diff := cmp.Diff(vf, again); diff != "" {
			t.Fatalf("round trip (-first +again):\n%s", diff)
		}
	})
}
