package mission

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Events with unusual contents: escapes, HTML, invalid UTF-8, raw JSON
// that encoding/json must compact, and raw JSON it must refuse.
func TestMarshalJSONLEdgeCases(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ev      Event
		wantErr bool
	}{
		{name: "empty", ev: Event{}},
		{name: "every field", ev: Event{Seq: 3, At: -5, Kind: EventToolCall, Agent: "boundary", Item: "E1",
			Decision: "d", Choice: "c", TokensIn: 1, TokensOut: -2, Tool: "t", Args: json.RawMessage(`{"a":1}`),
			Output: json.RawMessage(`[1,"x y",null]`), Error: "e", Key: "k", Attempt: 2, Effect: "f",
			Edge: "intake->action", Raw: `{"a":"<b>&\"q\"\n"}`, Parsed: json.RawMessage(`"s"`),
			To: []Agent{"action", "monitor"}, Reason: "r"}},
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
		tb.Fatalf("%s: MarshalJSONL\n%s\nencoding/json\n%s", name, got, want)
	}
}
