package mission

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/baton-lab/baton/internal/jsontext"
)

func stdMarshal(tb testing.TB, v any) string {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// A Handoff writes itself through the encoder as encoding/json writes it,
// inside other values too.
func TestHandoffAppendJSON(t *testing.T) {
	for _, v := range []any{
		&Handoff{ID: "m-E1", Edge: "intake->action", NextOwner: []string{"action"}, Escalation: "none",
			Item: "E1", Payload: map[string]any{"gross": 1234.5, "lines": []any{map[string]any{"sku": "<a&b>"}}, "flags": []any{}}},
		&Handoff{EscalationRef: "ESC-1"},
		map[string]any{"h": &Handoff{ID: "é\u2028", NextOwner: []string{}}, "n": 1.0},
		(*Handoff)(nil),
	} {
		got, ok := jsontext.AppendValue([]byte("prefix:"), v)
		if !ok {
			t.Fatalf("AppendValue(%#v) not ok", v)
		}
		if want := "prefix:" + stdMarshal(t, v); string(got) != want {
			t.Errorf("AppendValue = %s, want %s", got, want)
		}
	}
}

func TestReadDate(t *testing.T) {
	tests := []struct {
		in   any
		want string
		ok   bool
	}{
		{"2026-03-05", "2026-03-05", true},
		{"05/03/2026", "2026-05-03", true},
		{"25/03/2026", "", false},
		{"2026-13-01", "", false},
		{"March 5", "", false},
		{20260305.0, "", false},
	}
	for _, tt := range tests {
		got, ok := ReadDate(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ReadDate(%v) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
