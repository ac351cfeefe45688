package mission

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/baton-lab/baton/internal/jsontext"
)

// hashCases are events whose JSON Lines do not round-trip byte for byte
// through encoding/json's decoder unless the compact encoding takes
// strings and raw JSON as the JSON Lines carry them.
var hashCases = []struct {
	name string
	ev   Event
}{
	{"empty", Event{}},
	{"every field", Event{Seq: 3, At: -5, Kind: EventToolCall, Agent: "boundary", Item: "E1",
		Decision: "d", Choice: "c", TokensIn: 1, TokensOut: -2, Tool: "t", Args: json.RawMessage(`{"a":1}`),
		Output: json.RawMessage(`[1,"x y",null]`), Error: "e", Key: "k", Attempt: 2, Effect: "f",
		Edge: "intake->action", Raw: `{"a":"<b>&\"q\"\n"}`, Parsed: json.RawMessage(`"s"`),
		To: []Agent{"action", "monitor"}, Reason: "r"}},
	{"strings to escape", Event{Item: "\x00\x1f\u2028\u2029\\ \"é€", Reason: "<script>"}},
	{"invalid UTF-8", Event{Raw: "bad\xff\xfeutf8\xe2\x82", Error: "\xc3"}},
	{"raw with whitespace", Event{Args: json.RawMessage("{ \"a\" : [1, 2],\n\t\"b\":\"x  y\" }")}},
	{"empty list of owners", Event{To: []Agent{}}},
}

// The compact encoding recovered from a trace's JSON Lines is the
// trace's own: a stored trace's bytes check against its identity.
func TestAppendCompactJSONL(t *testing.T) {
	for _, tc := range hashCases {
		t.Run(tc.name, func(t *testing.T) {
			checkCompactJSONL(t, &Trace{Events: []Event{tc.ev, tc.ev}})
		})
	}
	// One trace of them all, and wire bytes valid, then invalid of the
	// same length, then valid again: each is taken as it is.
	t.Run("one trace", func(t *testing.T) {
		tr := &Trace{}
		for _, tc := range hashCases {
			tr.Events = append(tr.Events, tc.ev)
		}
		for _, raw := range []string{`{"a":"xy"}`, `{"a":"xy"}`, "{\"a\":\"x\xff\"}", `{"a":"xy"}`, "{\"a\":\"x\xff\"}"} {
			tr.Events = append(tr.Events, Event{Kind: EventSent, Raw: raw}, Event{Kind: EventReceived, Raw: raw})
		}
		checkCompactJSONL(t, tr)
	})
}

// checkCompactJSONL checks that tr's compact encoding is what its JSON
// Lines give back.
func checkCompactJSONL(tb testing.TB, tr *Trace) {
	tb.Helper()
	jsonl, err := tr.MarshalJSONL()
	if err != nil {
		tb.Fatal(err)
	}
	got, err := AppendCompactJSONL(nil, jsonl)
	if err != nil {
		tb.Fatal(err)
	}
	if want := tr.AppendCompact(nil); !bytes.Equal(want, got) {
		tb.Errorf("from JSON Lines %q\nfrom the trace  %q", got, want)
	}
}

// A file of several runs, each introduced by its {"run":...} line.
func TestAppendCompactJSONLRuns(t *testing.T) {
	a := &Trace{Events: []Event{hashCases[1].ev}}
	b := &Trace{Events: []Event{hashCases[2].ev, hashCases[0].ev}}
	var file, want []byte
	for _, r := range []struct {
		name string
		tr   *Trace
	}{{"golden/intake", a}, {"isolated/\"x\"", b}} {
		hdr, _ := json.Marshal(map[string]string{"run": r.name})
		file = append(append(file, hdr...), '\n')
		file, _ = r.tr.AppendJSONL(file)
		want = r.tr.AppendCompact(AppendCompactRun(want, r.name))
	}
	got, err := AppendCompactJSONL(nil, file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("from JSON Lines %q\nfrom the traces %q", got, want)
	}
	if _, err := AppendCompactJSONL(nil, []byte("{\"seq\":1,\n")); err == nil {
		t.Error("a broken line gave no error")
	}
}

// Traces that differ in any one field, or in how a string splits between
// neighbouring fields, encode differently.
func TestAppendCompactDistinguishes(t *testing.T) {
	base := hashCases[1].ev
	variants := map[string]func(e *Event){
		"seq":        func(e *Event) { e.Seq++ },
		"at":         func(e *Event) { e.At = 0 },
		"kind":       func(e *Event) { e.Kind = EventResult },
		"agent/item": func(e *Event) { e.Agent, e.Item = "boundaryE", "1" },
		"tokens":     func(e *Event) { e.TokensIn, e.TokensOut = e.TokensOut, e.TokensIn },
		"args":       func(e *Event) { e.Args = json.RawMessage(`{"a":2}`) },
		"output":     func(e *Event) { e.Output = nil },
		"attempt":    func(e *Event) { e.Attempt = 0 },
		"raw":        func(e *Event) { e.Raw += " " },
		"parsed":     func(e *Event) { e.Parsed, e.Reason = nil, `"s"r` },
		"owners":     func(e *Event) { e.To = e.To[:1] },
		"reason":     func(e *Event) { e.Reason = "" },
	}
	want := (&Trace{Events: []Event{base}}).AppendCompact(nil)
	seen := map[string]string{string(want): "base"}
	for name, change := range variants {
		e := base
		e.To = append([]Agent(nil), base.To...)
		change(&e)
		got := string((&Trace{Events: []Event{e}}).AppendCompact(nil))
		if other, ok := seen[got]; ok {
			t.Errorf("%s encodes as %s does", name, other)
		}
		seen[got] = name
	}
}

func FuzzAppendCompactJSONL(f *testing.F) {
	f.Add("E1", `{"a":"b"}`, "raw\n", "x")
	f.Add("\xff", "{ }", "<&>\xe2", "")
	f.Fuzz(func(t *testing.T, item, args, raw, reason string) {
		tr := &Trace{Events: []Event{{Kind: EventToolCall, Item: item, Args: json.RawMessage(args), Raw: raw, Reason: reason}}}
		jsonl, err := tr.MarshalJSONL()
		if err != nil {
			return // not JSON: no trace file to check
		}
		got, err := AppendCompactJSONL(nil, jsonl)
		if err != nil {
			t.Fatalf("AppendCompactJSONL(%q): %v", jsonl, err)
		}
		if want := tr.AppendCompact(nil); !bytes.Equal(want, got) {
			t.Fatalf("from JSON Lines %q\nfrom the trace  %q", got, want)
		}
	})
}

// rawCases are raw JSON fields, compact or not, and not JSON at all.
var rawCases = []string{
	``, `{}`, `{"a":1}`, `[1,"x y",null]`, `{"a":"q\\"}`, `{"a":"q\\\" b"}`, `{"a":"\\\\"} `,
	"{ \"a\" : [1, 2],\n\t\"b\":\"x  y\" }", `"unterminated `, `{"a":"b" `, ` 1`, `tru e`, "\"\xff\"",
	`{"a":"\" }"}`, `{"a":"\\" }`, `{"a":"\"","b" : 1}`, `{"a":"\\" , "b":1}`,
}

// appendCompactRaw gives what it gave when it validated raw first: raw
// when it is compact JSON, else what json.Compact makes of it, else raw.
func TestAppendCompactRaw(t *testing.T) {
	for _, raw := range rawCases {
		if got, want := appendCompactRaw(nil, []byte(raw)), appendCompactRawValidated(nil, []byte(raw)); !bytes.Equal(got, want) {
			t.Errorf("appendCompactRaw(%q) = %q, want %q", raw, got, want)
		}
	}
}

// appendCompactRawValidated is appendCompactRaw as it was: a validation
// of raw first.
func appendCompactRawValidated(b []byte, raw []byte) []byte {
	if len(raw) > 0 && !jsontext.ValidCompact(raw) {
		var c bytes.Buffer
		if json.Compact(&c, raw) == nil {
			raw = c.Bytes()
		}
	}
	return append(binary.AppendUvarint(b, uint64(len(raw))), raw...)
}

func FuzzAppendCompactRaw(f *testing.F) {
	for _, raw := range rawCases {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if got, want := appendCompactRaw(nil, []byte(raw)), appendCompactRawValidated(nil, []byte(raw)); !bytes.Equal(got, want) {
			t.Fatalf("appendCompactRaw(%q) = %q, want %q", raw, got, want)
		}
	})
}
