package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A toy system of record: notes, written by a scribe, read by anyone.

type notes struct {
	Notes []note `json:"notes"`
}

type note struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

func (n *notes) CopyFrom(src Records) { n.Notes = CloneInto(n.Notes, src.(*notes).Notes) }
func (n *notes) Clone() Records       { c := *n; c.Notes = append([]note(nil), n.Notes...); return &c }
func (n *notes) Reset()               { n.Notes = Emptied(n.Notes) }
func (n *notes) Sort()                {}
func (n *notes) IDs(fn func(int, string)) {
	for _, x := range n.Notes {
		fn(0, x.ID)
	}
}
func (n *notes) AppendJSON(b []byte) ([]byte, error) {
	j, err := json.Marshal(n)
	return append(b, j...), err
}

var _ Records = (*notes)(nil)

var noteArgs = Object("a note",
	Prop("text", true, Schema{Type: TypeString, NonEmpty: true}),
	Prop("weight", false, Schema{Type: TypeNumber}),
	Prop("tags", false, Schema{Type: TypeArray, Items: &Schema{Type: TypeString, Enum: []string{"a", "b"}}}),
	Prop("meta", false, *Object("", Prop("by", true, Schema{Type: TypeString}))),
	Prop("urgent", false, Schema{Type: TypeBoolean}),
)

func toyRegistry(tb testing.TB) *Registry {
	tb.Helper()
	find := Object("", Prop("id", false, Schema{Type: TypeString}), Prop("text", false, Schema{Type: TypeString}))
	find.AnyOf = [][]string{{"id", "text"}}
	reg, err := NewRegistry(Setup{
		Records: func() Records { return new(notes) },
		Kinds:   []RecordKind{{Name: "note", Prefix: "N"}},
		Tools: []Tool{
			{Name: "write_note", Access: Write, Record: "note", ResultID: "note_id", Agents: []string{"scribe"}, Args: noteArgs,
				Handler: func(tx *Tx, a Args) (Result, string, *Error) {
					n := tx.Records.(*notes)
					id := tx.NewID()
					n.Notes = append(n.Notes, note{ID: id, Text: a["text"].(string)})
					return Result{"note_id": id}, id, nil
				}},
			{Name: "find_note", Agents: []string{"scribe", "reader"}, Args: find,
				Handler: func(tx *Tx, a Args) (Result, string, *Error) {
					for _, x := range tx.Records.(*notes).Notes {
						if x.ID == a["id"] || x.Text == a["text"] {
							return Result{"id": x.ID, "text": x.Text}, "", nil
						}
					}
					return nil, "", NotFound("no such note")
				}},
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}

func TestRegistry(t *testing.T) {
	reg := toyRegistry(t)
	for _, tc := range []struct {
		agent, tool string
		want        bool
	}{{"scribe", "write_note", true}, {"reader", "write_note", false}, {"reader", "find_note", true}, {"scribe", "burn", false}} {
		if got := reg.Permitted(tc.agent, tc.tool); got != tc.want {
			t.Errorf("Permitted(%s, %s) = %v", tc.agent, tc.tool, got)
		}
	}
	if w := reg.Writer("note"); w != "scribe" {
		t.Errorf("Writer(note) = %q", w)
	}
	if r := reg.RecordOf("find_note"); r != "" {
		t.Errorf("RecordOf(find_note) = %q, want \"\" for a read", r)
	}
	bad := []Setup{
		{Kinds: nil},
		{Records: func() Records { return new(notes) }, Tools: []Tool{{Name: "x", Agents: []string{"a"}}}},
		{Records: func() Records { return new(notes) }, Tools: []Tool{{Name: "x", Agents: []string{"a"}, Handler: func(*Tx, Args) (Result, string, *Error) { return nil, "", nil }, Access: Write, Record: "nope"}}},
	}
	for i, s := range bad {
		if _, err := NewRegistry(s); err == nil {
			t.Errorf("setup %d: no error", i)
		}
	}
}

// The engine's fault rates per tool are what FaultRates.Rate gives.
func TestCompileRates(t *testing.T) {
	reg := toyRegistry(t)
	r := FaultRates{
		"*": {Unavailable: 0.1, Latency: 0.2, Redelivery: 0.9, TimeoutBeforeCommit: 0.01, Refusal: 0.02,
			RateLimit: 0.03, TimeoutAfterCommit: 0.04},
		"find_note": {Unavailable: 0.5, TimeoutAfterCommit: 0.3, Refusal: 0},
		"transport": {Redelivery: 0.4},
	}
	got := make([][numDrawn]float64, len(reg.tools))
	for ti := range got {
		got[ti] = [numDrawn]float64{7, 7, 7, 7, 7, 7} // a recycled sandbox's
	}
	reg.compileRates(got, r)
	for ti, tl := range reg.tools {
		for k, kind := range drawnKinds {
			if want := r.Rate(tl.Name, kind); got[ti][k] != want {
				t.Errorf("%s %s: compiled %v, Rate says %v", tl.Name, kind, got[ti][k], want)
			}
		}
	}
}

func TestSchemaCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		args Args
		want string
	}{
		{"ok", Args{"text": "hi", "weight": 2, "tags": []any{"a"}, "meta": map[string]any{"by": "me"}, "urgent": true}, ""},
		{"missing", Args{}, "missing field text"},
		{"null is missing", Args{"text": nil}, "missing field text"},
		{"empty", Args{"text": ""}, "missing field text"},
		{"type", Args{"text": 5.0}, "field text: want string, got number"},
		{"not finite", Args{"text": "x", "weight": math.Inf(1)}, "field weight: want a finite number"},
		{"json.Number", Args{"text": "x", "weight": json.Number("x")}, `field weight: want number, got "x"`},
		{"enum item", Args{"text": "x", "tags": []any{"a", "c"}}, `field tags[1]: unknown value "c" (want a, b)`},
		{"item type", Args{"text": "x", "tags": []any{nil}}, "field tags[0]: want string, got null"},
		{"array", Args{"text": "x", "tags": "a"}, "field tags: want array, got string"},
		{"nested", Args{"text": "x", "meta": map[string]any{}}, "missing field meta.by"},
		{"object", Args{"text": "x", "meta": []any{}}, "field meta: want object, got array"},
		{"boolean", Args{"text": "x", "urgent": "yes"}, "field urgent: want boolean, got string"},
		{"extra fields are allowed", Args{"text": "x", "colour": "red"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if e := noteArgs.Check(tc.args); e != nil {
				got = e.Message
				if e.Code != CodeInvalid {
					t.Errorf("code %s, want %s", e.Code, CodeInvalid)
				}
			}
			if got != tc.want {
				t.Errorf("Check = %q, want %q", got, tc.want)
			}
		})
	}
	find, _ := toyRegistry(t).Tool("find_note")
	if e := find.Args.Check(Args{"id": ""}); e == nil || e.Message != "missing field id (or text)" {
		t.Errorf("anyOf: %v", e)
	}
	// Items are checked unnamed and a failing one again, named: the
	// message names the item and the field in it.
	lines := Object("", Prop("lines", true, Schema{Type: TypeArray, Items: Object("",
		Prop("sku", true, Schema{Type: TypeString, NonEmpty: true}), Prop("qty", true, Schema{Type: TypeNumber}))}))
	for _, tc := range []struct {
		items []any
		want  string
	}{
		{[]any{map[string]any{"sku": "A", "qty": 1.0}, map[string]any{"sku": "B", "qty": 2.0}}, ""},
		{[]any{map[string]any{"sku": "A", "qty": 1.0}, map[string]any{"sku": "", "qty": 2.0}}, "missing field lines[1].sku"},
		{[]any{map[string]any{"sku": "A", "qty": "1"}}, "field lines[0].qty: want number, got string"},
		{[]any{map[string]any{"sku": "A", "qty": 1.0}, "B"}, "field lines[1]: want object, got string"},
	} {
		got := ""
		if e := lines.Check(Args{"lines": tc.items}); e != nil {
			got = e.Message
		}
		if got != tc.want {
			t.Errorf("lines %v: Check = %q, want %q", tc.items, got, tc.want)
		}
	}
}

// A schema's JSON is a JSON Schema that accepts and rejects what Check
// does, for arguments that are decoded JSON (the validator does not check
// finiteness, which JSON cannot write, nor, for anyOf groups, emptiness).
func TestSchemaJSON(t *testing.T) {
	raw, err := json.Marshal(noteArgs)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("note.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("note.json")
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	for _, in := range []string{`{"text":"hi"}`, `{}`, `{"text":""}`, `{"text":1}`, `{"text":"x","tags":["a","c"]}`,
		`{"text":"x","meta":{}}`, `{"text":"x","weight":null}`, `{"text":"x","urgent":false,"tags":[]}`} {
		var v any
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatal(err)
		}
		schemaOK := sch.Validate(v) == nil
		checkOK := noteArgs.Check(v.(map[string]any)) == nil
		if schemaOK != checkOK {
			t.Errorf("%s: JSON Schema accepts %v, Check %v (schema %s)", in, schemaOK, checkOK, raw)
		}
	}
}

func TestCallAndIDs(t *testing.T) {
	reg := toyRegistry(t)
	initial := &State{Records: &notes{Notes: []note{{ID: "N-12344", Text: "old"}, {ID: "X-9", Text: "other"}}}}
	s := New(reg, initial, Config{}, NewDice(1), nil)
	res, err := s.Call("scribe", "write_note", "I1", Args{"text": "new"}, "I1:write_note", 0)
	if err != nil || res["note_id"] != "N-12345" {
		t.Fatalf("write = %v, %v; want N-12345 after the initial N-12344", res, err)
	}
	again, err := s.Call("scribe", "write_note", "I1", Args{"text": "changed"}, "I1:write_note", 1)
	if err != nil || again["note_id"] != "N-12345" {
		t.Fatalf("replay = %v, %v", again, err)
	}
	if _, err := s.Call("reader", "write_note", "I1", Args{"text": "x"}, "", 0); err == nil {
		t.Fatal("a forbidden write succeeded")
	}
	if _, err := s.Call("scribe", "write_note", "I1", Args{"text": 1.0}, "", 0); err == nil {
		t.Fatal("an invalid write succeeded")
	}
	got := s.Snapshot()
	if n := len(got.Records.(*notes).Notes); n != 3 {
		t.Errorf("%d notes, want 3 (the replay and the refused calls write nothing)", n)
	}
	var outcomes []string
	for _, l := range got.Log {
		outcomes = append(outcomes, l.Outcome+" "+l.Code+" "+l.Effect)
	}
	want := []string{"ok  N-12345", "replayed  N-12345", "forbidden AUTH-403 ", "error VAL-422 "}
	if diff := cmp.Diff(want, outcomes); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	// The initial state is not changed by the run.
	if n := len(initial.Records.(*notes).Notes); n != 2 {
		t.Errorf("initial holds %d notes", n)
	}
	// A recycled sandbox starts over.
	s.Recycle()
	s2 := New(reg, nil, Config{}, NewDice(1), nil)
	if res, _ := s2.Call("scribe", "write_note", "I1", Args{"text": "x"}, "I1:write_note", 0); res["note_id"] != "N-0001" {
		t.Errorf("first id of an empty sandbox = %v", res["note_id"])
	}
}

func TestStateJSON(t *testing.T) {
	for _, tc := range []struct {
		st   State
		want string
	}{
		{State{}, `{"log":null}`},
		{State{Records: &notes{}}, `{"notes":null,"log":null}`},
		{State{Records: &notes{Notes: []note{{ID: "N-1", Text: "<&>"}}}, Log: []LogEntry{{Seq: 1, Agent: "a", Outcome: "ok", Key: "k"}}},
			`{"notes":[{"id":"N-1","text":"\u003c\u0026\u003e"}],"log":[{"seq":1,"at_ms":0,"agent":"a","tool":"","item":"","key":"k","outcome":"ok"}]}`},
	} {
		got, err := json.Marshal(tc.st)
		if err != nil || string(got) != tc.want {
			t.Errorf("json.Marshal = %s, %v; want %s", got, err, tc.want)
		}
	}
	empty := struct{ Records }{&emptyRecords{}}
	if got, _ := (State{Records: empty.Records}).AppendJSON(nil); string(got) != `{"log":null}` {
		t.Errorf("records with no members: %s", got)
	}
}

// emptyRecords encode as {}.
type emptyRecords struct{ notes }

func (*emptyRecords) AppendJSON(b []byte) ([]byte, error) { return append(b, "{}"...), nil }

func TestReadLog(t *testing.T) {
	log := []LogEntry{
		{Agent: "a", Item: "I1", Tool: "t", Outcome: OutcomeError, Code: CodeUnavailable},
		{Agent: "a", Item: "I2", Tool: "t", Outcome: OutcomeError, Code: CodeTimeout},
		{Agent: "a", Item: "I2", Tool: "t", Outcome: OutcomeOK, Effect: "N-1"},
		{Agent: "a", Item: "I3", Tool: "u", Outcome: OutcomeError, Code: CodeDailyLimit},
		{Agent: "a", Item: "I4", Tool: "u", Outcome: OutcomeForbidden, Code: CodeForbidden},
	}
	f := ReadLog(log)
	got := map[string]Evidence{}
	for _, item := range []string{"I1", "I2", "I3", "I4", "I5"} {
		got[item] = f.Evidence(item)
	}
	want := map[string]Evidence{
		"I1": {Retry: true, Failure: true}, "I2": {Failure: true}, "I3": {Refusal: true, Failure: true}, "I4": {Failure: true}, "I5": {},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
	if !f.Written("N-1") || f.Written("N-2") {
		t.Error("Written")
	}
	if f.LastCallFailed("t") || !f.LastCallFailed("u") {
		t.Errorf("LastCallFailed t %v u %v", f.LastCallFailed("t"), f.LastCallFailed("u"))
	}
}

func BenchmarkSchemaCheck(b *testing.B) {
	args := Args{"text": "hi", "weight": 2.0, "tags": []any{"a", "b"}, "meta": map[string]any{"by": "me"}}
	b.ReportAllocs()
	for b.Loop() {
		if e := noteArgs.Check(args); e != nil {
			b.Fatal(e)
		}
	}
}

// TestErrorText: an error reads "kind code: message", as fmt wrote it
// before Error was built without fmt (the text reaches every trace).
func TestErrorText(t *testing.T) {
	for _, e := range []*Error{
		{Kind: ErrRateLimited, Code: CodeRateLimited, Message: "too many requests", RetryAfter: 2 * time.Second},
		{Kind: ErrInvalid, Code: "VAL-422", Message: "missing field \xffamount"},
		{},
	} {
		if got, want := e.Error(), fmt.Sprintf("%s %s: %s", e.Kind, e.Code, e.Message); got != want {
			t.Errorf("Error() = %q, want %q", got, want)
		}
	}
}

// TestReusedSandboxIsFresh: a sandbox emptied after one run and reset for
// another answers, logs, fires and ends exactly as a new one does, byte
// for byte, whatever the first run left (records, idempotency keys, id
// counters, faults, the draws' key prefixes of another seed).
func TestReusedSandboxIsFresh(t *testing.T) {
	reg := toyRegistry(t)
	rates := FaultRates{"*": {TimeoutBeforeCommit: 0.15, TimeoutAfterCommit: 0.15, Refusal: 0.1, Unavailable: 0.1, RateLimit: 0.1, Latency: 0.2}}
	first := &State{Records: &notes{Notes: []note{{ID: "N-0007", Text: "kept"}, {ID: "N-0012", Text: "also"}}}}
	play := func(s *Sandbox) []byte {
		var out []byte
		for i := range 60 {
			agent, tool := "scribe", "write_note"
			args := Args{"text": "note " + strconv.Itoa(i%7)}
			switch i % 3 {
			case 1:
				agent, tool, args = "reader", "find_note", Args{"text": "note 3"}
			case 2:
				agent = "reader" // forbidden
			}
			item := "E" + strconv.Itoa(i%5)
			res, err := s.Call(agent, tool, item, args, item+":"+tool, i%3)
			out = fmt.Appendf(out, "%d %v %v\n", i, res, err)
		}
		end, err := s.Snapshot().AppendJSON(out)
		if err != nil {
			t.Fatal(err)
		}
		fired, err := json.Marshal(s.Fired())
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Appendf(end, "\n%s\n%d", fired, s.Clock().Elapsed())
	}
	for _, tc := range []struct {
		name    string
		initial *State
		cfg     Config
		seed    uint64
	}{
		{"empty initial state, another seed", nil, Config{Faults: rates}, 2},
		{"same initial state and seed", first, Config{Faults: rates}, 1},
		{"no faults, other latency", first, Config{Latency: time.Second}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			used := newSandbox(reg)
			used.reset(first, Config{Faults: rates}, NewDice(1), nil)
			if play(used); len(used.Fired()) == 0 {
				t.Fatal("the first run fired no fault: the test shows nothing")
			}
			used.empty()
			used.reset(tc.initial, tc.cfg, NewDice(tc.seed), nil)
			fresh := newSandbox(reg)
			fresh.reset(tc.initial, tc.cfg, NewDice(tc.seed), nil)
			if diff := cmp.Diff(string(play(fresh)), string(play(used))); diff != "" {
				t.Errorf("reused sandbox differs from a new one (-new +reused):\n%s", diff)
			}
		})
	}
}

// TestFaultDrawsFollowAgent: a tool called by two agents in turn draws
// each call's fault under the caller's key, as the dice draw it.
func TestFaultDrawsFollowAgent(t *testing.T) {
	reg := toyRegistry(t)
	d := NewDice(7)
	s := New(reg, nil, Config{Faults: FaultRates{"find_note": {TimeoutBeforeCommit: 0.5}}}, d, nil)
	defer s.Recycle()
	fired := 0
	for i := range 64 {
		agent := []string{"scribe", "reader"}[i%2]
		item := "E" + strconv.Itoa(i/4)
		_, err := s.Call(agent, "find_note", item, Args{"id": "N-1"}, "", i%2)
		want := d.Chance(0.5, agent, FaultKey("find_note", TimeoutBeforeCommit), item, i%2)
		if got := err != nil && err.(*Error).Kind == ErrTimeout; got != want {
			t.Errorf("call %d by %s on %s: timed out %v, the dice say %v", i, agent, item, got, want)
		}
		if want {
			fired++
		}
	}
	if fired == 0 || fired == 64 {
		t.Errorf("%d of 64 calls timed out: the test shows nothing", fired)
	}
}

// TestSeedsMetAgain: a sandbox that runs trial seeds in turn, meeting
// each again with the fault draws' prefixes its registry kept for it,
// answers each run exactly as a sandbox of a new registry does.
func TestSeedsMetAgain(t *testing.T) {
	reg := toyRegistry(t)
	cfg := Config{Faults: FaultRates{"*": {TimeoutBeforeCommit: 0.2, TimeoutAfterCommit: 0.2, Unavailable: 0.1, Latency: 0.2}}}
	play := func(s *Sandbox) string {
		var out []byte
		for i := range 40 {
			agent := []string{"scribe", "reader"}[i%2]
			res, err := s.Call(agent, "find_note", "E"+strconv.Itoa(i%4), Args{"id": "N-0001"}, "", i%3)
			out = fmt.Appendf(out, "%d %v %v\n", i, res, err)
		}
		fired, err := json.Marshal(s.Fired())
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%s%s\n%d", out, fired, s.Clock().Elapsed())
	}
	used := newSandbox(reg)
	runs := map[uint64]string{}
	for _, seed := range []uint64{1, 2, 1, 3, 2, 2, 1} {
		used.reset(nil, cfg, NewDice(seed), nil)
		got := play(used)
		used.empty()
		fresh := newSandbox(toyRegistry(t))
		fresh.reset(nil, cfg, NewDice(seed), nil)
		if want := play(fresh); got != want {
			t.Fatalf("seed %d met again differs from a new sandbox:\n%s\nwant\n%s", seed, got, want)
		}
		runs[seed] = got
	}
	if runs[1] == runs[2] || runs[2] == runs[3] {
		t.Error("two seeds gave the same run: the test shows nothing")
	}
}

// BenchmarkCallSeeds is a run's worth of faulty calls on a sandbox reset
// for each of a sweep's trial seeds in turn.
func BenchmarkCallSeeds(b *testing.B) {
	reg := toyRegistry(b)
	cfg := Config{Faults: FaultRates{"*": {TimeoutBeforeCommit: 0.02, TimeoutAfterCommit: 0.02, Refusal: 0.02, Unavailable: 0.02, RateLimit: 0.02, Latency: 0.02}}}
	s := newSandbox(reg)
	args := Args{"id": "N-0001"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.reset(nil, cfg, NewDice(uint64(i%64)), nil)
		for c := range 8 {
			s.Call("reader", "find_note", "E"+strconv.Itoa(c), args, "", 0)
		}
		s.empty()
	}
}

// TestIDsPastKept: ids come in order, four digits at least, the same
// whether the registry kept them or the sandbox writes them, and after
// the highest authored id.
func TestIDsPastKept(t *testing.T) {
	reg := toyRegistry(t)
	for _, tc := range []struct {
		initial *State
		first   int
	}{
		{nil, 1},
		{&State{Records: &notes{Notes: []note{{ID: "N-0060", Text: "authored"}}}}, 61},
		{&State{Records: &notes{Notes: []note{{ID: "N-12000", Text: "authored"}}}}, 12001},
	} {
		s := New(reg, tc.initial, Config{}, NewDice(1), nil)
		for n := tc.first; n < tc.first+keptIDs+8; n++ {
			res, err := s.Call("scribe", "write_note", "E1", Args{"text": "x"}, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("N-%04d", n); res["note_id"] != want {
				t.Fatalf("id %d: got %v, want %s", n, res["note_id"], want)
			}
		}
		s.Recycle()
	}
}

// TestSeedsShared: sandboxes of one registry drawing the same seeds at
// once (their prefixes computed by whichever draws first) fire what a
// sandbox of a registry of its own fires.
func TestSeedsShared(t *testing.T) {
	reg := toyRegistry(t)
	cfg := Config{Faults: FaultRates{"*": {TimeoutBeforeCommit: 0.2, Unavailable: 0.2, Latency: 0.2}}}
	play := func(s *Sandbox) string {
		for i := range 30 {
			agent := []string{"scribe", "reader"}[i%2]
			s.Call(agent, "find_note", "E"+strconv.Itoa(i%4), Args{"id": "N-0001"}, "", i%3)
		}
		fired, _ := json.Marshal(s.Fired())
		return string(fired)
	}
	want := make([]string, 8)
	for seed := range want {
		s := newSandbox(toyRegistry(t))
		s.reset(nil, cfg, NewDice(uint64(seed)), nil)
		want[seed] = play(s)
	}
	errs := make(chan string, 4*len(want))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for seed := range want {
				s := New(reg, nil, cfg, NewDice(uint64(seed)), nil)
				if got := play(s); got != want[seed] {
					errs <- fmt.Sprintf("seed %d: fired %s, want %s", seed, got, want[seed])
				}
				s.Recycle()
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
