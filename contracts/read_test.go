package contracts

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/input"
)

func TestReadMessages(t *testing.T) {
	one := `{"edge":"a->b","kind":"k","payload":{"n":1}}`
	tests := []struct {
		name  string
		src   string
		lines []int
	}{
		{"one object", one, []int{1}},
		{"one object over lines", "\n{\n  \"edge\": \"a->b\",\n  \"payload\": {}\n}\n", []int{2}},
		{"an array", "[\n" + one + ",\n" + one + "\n]\n", []int{2, 3}},
		{"JSON Lines", one + "\n\n" + one + "\n", []int{1, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, err := ReadMessages("m.json", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			var lines []int
			for _, m := range msgs {
				lines = append(lines, m.Line)
			}
			if diff := cmp.Diff(tt.lines, lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadMessagesErrors is the bad-input table of checked messages: each
// row a broken file and its one-line, located error.
func TestReadMessagesErrors(t *testing.T) {
	one := `{"edge":"a->b","kind":"k","payload":{"n":1}}`
	tests := []struct {
		name, src, want string
	}{
		{"empty", " \n", "m.json:1: empty file, want a JSON hand-off message"},
		{"malformed object", "{\n  \"edge\": \"a->b\",\n  \"kind\" \"k\"\n}\n", "m.json:3:10: invalid JSON: invalid character '\"' after object key"},
		{"cut short", "{\n  \"edge\": \"a->b\",\n", "m.json:3:1: invalid JSON: unexpected end of input"},
		{"JSON Lines, line 2 broken", one + "\nhello\n", "m.json:2:1: invalid JSON: invalid character 'h' looking for beginning of value"},
		{"JSON Lines, line 3 not an object", one + "\n" + one + "\n[1]\n", "m.json:3:1: want a JSON object, got a list"},
		{"array of a number", "[1]", "m.json:1:2: [0]: want a JSON object, got number 1"},
		{"array cut short", "[" + one + ",", "m.json:1:47: invalid JSON: unexpected end of input"},
		{"after the array", "[" + one + "]\n{}", "m.json:2:1: more after the array: want one array of messages"},
		{"two objects on a line", one + " {}", "m.json:1:46: \"{\" after the object: want one object"},
		{"duplicate envelope key", `{"edge":"a->b","edge":"b->c"}`, "m.json:1:16: edge: duplicate key (first at line 1)"},
		{"duplicate payload key", "{\"edge\":\"a->b\",\n\"payload\":{\"n\":1,\n\"n\":2}}", "m.json:3:1: payload.n: duplicate key (first at line 2)"},
		{"invalid UTF-8", "{\"edge\":\"a->b\",\"kind\":\"k\xff\"}", "m.json:1:25: invalid UTF-8 (byte 0xff): not a text file"},
		{"byte order mark", "\xef\xbb\xbf" + one, "m.json:1:1: starts with a UTF-8 byte order mark: save the file without it"},
		{"unknown envelope key", `{"edge":"a->b","paylod":{}}`, `m.json:1:16: paylod: unknown key, did you mean "payload"? (want one of id, edge, kind, schema_version, idempotency_key, next_owner, escalation, escalation_ref, item, payload)`},
		{"infinite number", `{"edge":"a->b","payload":{"net":1e999}}`, "m.json:1:33: payload.net: want a finite number, got 1e999"},
		{"in a list", `{"edge":"a->b","payload":{"lines":[{"q":1},{"q":2e400}]}}`, "m.json:1:49: payload.lines[1].q: want a finite number, got 2e400"},
		{"huge key not echoed", `{"` + strings.Repeat("k", 3000) + `":1}`, `m.json:1:2: ["` + strings.Repeat("k", 64) + `"… (3000 bytes)]: unknown key (want one of id, edge, kind, schema_version, idempotency_key, next_owner, escalation, escalation_ref, item, payload)`},
		{"too large", strings.Repeat(" ", MaxMessagesBytes+1), "m.json: 16777217 bytes: larger than the 16 MiB a file of messages may be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadMessages("m.json", []byte(tt.src))
			if err == nil {
				t.Fatal("want an error")
			}
			var e *input.Error
			if !errors.As(err, &e) {
				t.Errorf("error %T is not an *input.Error", err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestReadMessagesFlood checks that a file of many bad lines reports a
// few dozen and counts the rest.
func TestReadMessagesFlood(t *testing.T) {
	src := `{"edge":"a->b"}` + "\n" + strings.Repeat("nope\n", 5000)
	_, err := ReadMessages("m.json", []byte(src))
	var l *input.List
	if !errors.As(err, &l) || len(l.Errs) != input.DefaultMaxErrors {
		t.Fatalf("got %v, want %d problems kept", err, input.DefaultMaxErrors)
	}
	if n := strings.Count(err.Error(), "\n"); n != input.DefaultMaxErrors {
		t.Errorf("%d lines, want %d and a count", n+1, input.DefaultMaxErrors+1)
	}
}

func FuzzReadMessages(f *testing.F) {
	for _, s := range []string{`{"edge":"a->b","payload":{"n":1}}`, "[{}, {}]", "{}\n{}\n", "{\n}", `{"a":1,"a":2}`, "\xef\xbb\xbf{}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := ReadMessages("f.json", data)
		if err != nil {
			var e *input.Error
			if !errors.As(err, &e) || e.File != "f.json" {
				t.Fatalf("error %v (%T) does not name the file", err, err)
			}
			return
		}
		for _, m := range msgs {
			if m.Line < 1 || len(m.Raw) == 0 || m.Raw[0] != '{' {
				t.Fatalf("message %q at line %d", m.Raw, m.Line)
			}
		}
	})
}
