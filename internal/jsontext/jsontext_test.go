package jsontext

import (
	"bytes"
	"encoding/json"
	"testing"
)

func std(tb testing.TB, s string, html bool) []byte {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		tb.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

var samples = []string{
	"", "plain", "quote\" back\\slash", "ctl\x01\x1f\n\r\t\b\f\x7f", "<script>&</script>",
	"héllo €", "\u2028\u2029", "bad\xffutf8", "\xed\xa0\x80", "tab\there",
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, html := range []bool{false, true} {
		for _, s := range samples {
			if got, want := AppendString(nil, s, html), std(t, s, html); !bytes.Equal(got, want) {
				t.Errorf("AppendString(%q, html=%v) = %s, want %s", s, html, got, want)
			}
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range samples {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, html bool) {
		if got, want := AppendString(nil, s, html), std(t, s, html); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q, html=%v) = %s, want %s", s, html, got, want)
		}
	})
}
