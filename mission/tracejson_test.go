package mission

import (
	"bytes"
	"encoding/json"
	"testing"
)

// MarshalJSONL writes what encoding/json writes, for the traces of every
// default scenario under heavy faults and slips.
func TestMarshalJSONLMatchesStd(t *testing.T) {
	scs, err := DefaultScenarios()
	if err != nil {
		t.Fatal(err)
	}
	env := Env{Faults: scaled(protocolFaults, 10), Profile: Profile{
		Intake: {Misclassify: 0.2, Misread: 0.2, Misroute: 0.2}, Action: {Misroute: 0.2},
		Boundary: {SkipLookup: 0.2, Misroute: 0.2},
	}}
	m := Reference()
	for _, sc := range scs {
		for seed := range uint64(3) {
			checkJSONL(t, sc.ID, m.Run(Clean(), sc, seed, env).Trace)
		}
	}
}

// Events with unusual contents: escapes, HTML, invalid UTF-8, raw JSON
// that encoding/json must compact, and raw JSON it must refuse.
func TestMarshalJSONLEdgeCases(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ev      Event
		wantErr bool
	}{
		{name: "empty", ev: Event{}},
		{name: "every field", ev: Event{Seq: 3, At: -5, Kind: EventToolCall, Agent: Boundary, Item: "E1",
			Decision: "d", Choice: "c", TokensIn: 1, TokensOut: -2, Tool: "t", Args: json.RawMessage(`{"a":1}`),
			Output: json.RawMessage(`[1,"x y",null]`), Error: "e", Key: "k", Attempt: 2, Effect: "f",
			Edge: "intake->action", Raw: `{"a":"<b>&\"q\"\n"}`, Parsed: json.RawMessage(`"s"`),
			To: []Agent{Action, Monitor}, Reason: "r"}},
		{name: "strings to escape", ev: Event{Item: "\x00\x1f\u2028\u2029\\ \"é€", Raw: "bad\xff\xfeutf8", Reason: "<script>"}},
		{name: "raw with whitespace", ev: Event{Args: json.RawMessage("{ \"a\" : [1, 2],\n\t\"b\":\"x  y\" }")}},
		{name: "raw with escaped quote", ev: Event{Output: json.RawMessage(`{"a":"q\" b","c":1}`)}},
		{name: "invalid raw", ev: Event{Parsed: json.RawMessage(`{"a":`)}, wantErr: true},
		{name: "empty list of owners", ev: Event{To: []Agent{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &Trace{Events: []Event{tc.ev, tc.ev}}
			if tc.wantErr {
				if _, err := tr.MarshalJSONL(); err == nil {
					t.Fatal("no error")
				}
				return
			}
			checkJSONL(t, tc.name, tr)
		})
	}
}

func FuzzMarshalJSONL(f *testing.F) {
	f.Add("E1", `{"a":"b"}`, `{"x":1}`, "raw\n")
	f.Add("\xff", "{ }", `[1, 2]`, "<&>")
	f.Fuzz(func(t *testing.T, item, args, output, raw string) {
		tr := &Trace{Events: []Event{{Kind: EventToolCall, Item: item, Args: json.RawMessage(args),
			Output: json.RawMessage(output), Raw: raw}}}
		want, wantErr := tr.marshalJSONLStd()
		got, gotErr := tr.MarshalJSONL()
		if (wantErr == nil) != (gotErr == nil) || !bytes.Equal(want, got) {
			t.Fatalf("MarshalJSONL = %q, %v; encoding/json %q, %v", got, gotErr, want, wantErr)
		}
	})
}

func checkJSONL(tb testing.TB, name string, tr *Trace) {
	tb.Helper()
	want, err := tr.marshalJSONLStd()
	if err != nil {
		tb.Fatal(err)
	}
	got, err := tr.MarshalJSONL()
	if err != nil {
		tb.Fatal(err)
	}
	if !bytes.Equal(want, got) {
		w, g := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
		for i := range min(len(w), len(g)) {
			if !bytes.Equal(w[i], g[i]) {
				tb.Fatalf("%s: line %d differs:\nencoding/json %s\nMarshalJSONL  %s", name, i+1, w[i], g[i])
			}
		}
		tb.Fatalf("%s: %d lines, encoding/json %d", name, len(g), len(w))
	}
}

// AppendJSONL appends what MarshalJSONL returns and keeps what b held,
// also when it falls back to encoding/json or fails.
func TestAppendJSONL(t *testing.T) {
	run := Reference().Run(Clean(), scenarioByID(t, "T2"), 3, Env{Faults: protocolFaults})
	odd := &Trace{Events: []Event{{Kind: EventResult, Output: json.RawMessage("{ \"a\": 1 }")}}}
	bad := &Trace{Events: []Event{{Kind: EventResult, Output: json.RawMessage(`{"a":`)}}}
	for _, tr := range []*Trace{run.Trace, odd} {
		want, err := tr.MarshalJSONL()
		if err != nil {
			t.Fatal(err)
		}
		got, err := tr.AppendJSONL([]byte("head\n"))
		if err != nil || string(got) != "head\n"+string(want) {
			t.Errorf("AppendJSONL = %q, %v; want head and %q", got, err, want)
		}
	}
	if got, err := bad.AppendJSONL([]byte("head\n")); err == nil || string(got) != "head\n" {
		t.Errorf("AppendJSONL of invalid JSON = %q, %v; want the head back and an error", got, err)
	}
}
