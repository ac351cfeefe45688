package model

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// specialKey has characters that every encoding changes.
const specialKey = `sk-<live>&"q"/+=%7e-0123456789abcdef`

// leaks reports the longest run of s's characters that is a substring
// of secret and longer than MaxVisible, or "".
func leaks(s, secret string) string {
	for n := len(secret); n > MaxVisible; n-- {
		for i := 0; i+n <= len(secret); i++ {
			if strings.Contains(s, secret[i:i+n]) {
				return secret[i : i+n]
			}
		}
	}
	return ""
}

func TestRedactorEncodings(t *testing.T) {
	r := NewRedactor(specialKey)
	jsonHTML, _ := json.Marshal(specialKey) // \u003c, \u003e, \u0026
	jsonTwice, _ := json.Marshal(strings.Trim(string(jsonHTML), `"`))
	encodings := map[string]string{
		"raw":              specialKey,
		"JSON (HTML-safe)": strings.Trim(string(jsonHTML), `"`),
		"JSON (plain)":     `sk-<live>&\"q\"/+=%7e-0123456789abcdef`,
		"JSON with \\/":    `sk-<live>&\"q\"\/+=%7e-0123456789abcdef`,
		"JSON twice":       strings.Trim(string(jsonTwice), `"`),
		"HTML entities":    html.EscapeString(specialKey),
		"query escaped":    url.QueryEscape(specialKey),
		"path escaped":     url.PathEscape(specialKey),
		"lower-case hex":   strings.ToLower(url.QueryEscape(specialKey)),
	}
	for name, enc := range encodings {
		t.Run(name, func(t *testing.T) {
			got := r.String("before " + enc + " after")
			if got != "before "+Redacted+" after" {
				t.Errorf("String(%s) = %q", enc, got)
			}
		})
	}
}

func TestRedactorBase64(t *testing.T) {
	r := NewRedactor(testKey)
	for _, prefix := range []string{"", "a", "ab", "Bearer ", "user:", `{"key":"`} {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
			text := enc.EncodeToString([]byte(prefix + testKey + `"} tail`))
			got := r.String(text)
			if !strings.Contains(got, Redacted) {
				t.Fatalf("base64 of %q+key not redacted: %s", prefix, got)
			}
			// Decode what is left at every alignment: no run of the key
			// longer than MaxVisible comes back.
			for _, part := range strings.Split(got, Redacted) {
				for skip := range 4 {
					if skip > len(part) {
						break
					}
					p := part[skip:]
					p = p[:len(p)/4*4]
					dec, _ := enc.Strict().DecodeString(p)
					if dec == nil {
						dec, _ = base64.StdEncoding.DecodeString(strings.TrimRight(p, "="))
					}
					if l := leaks(string(dec), testKey); l != "" {
						t.Errorf("base64 of %q+key: %q decodes to key run %q", prefix, got, l)
					}
				}
			}
		}
	}
}

func TestRedactorPrefixes(t *testing.T) {
	r := NewRedactor(testKey, specialKey)
	for _, key := range []string{testKey, specialKey} {
		for n := 0; n <= len(key); n++ {
			text := "key: " + key[:n] + "... and more"
			got := r.String(text)
			if n <= MaxVisible {
				if got != text {
					t.Errorf("%d characters: %q changed to %q", n, text, got)
				}
				continue
			}
			if want := "key: " + Redacted + "... and more"; got != want {
				t.Errorf("a key cut after %d characters: got %q, want %q", n, got, want)
			}
		}
	}
}

func TestRedactorShortKey(t *testing.T) {
	r := NewRedactor("k")
	if got := r.String("the task, Bearer k"); got != "the task, Bearer "+Redacted {
		t.Errorf("got %q: a short key is redacted after Bearer only", got)
	}
	if got := NewRedactor().String("Bearer x"); got != "Bearer x" {
		t.Errorf("no secret: got %q", got)
	}
	var nilR *Redactor
	if nilR.String("a") != "a" {
		t.Errorf("a nil redactor changed text")
	}
}

func TestRedactorError(t *testing.T) {
	r := NewRedactor(testKey)
	err := r.Error(fmt.Errorf("call with %s: %w", testKey, context.Canceled))
	if strings.Contains(err.Error(), testKey) || !errors.Is(err, context.Canceled) {
		t.Errorf("Error = %v (Is canceled %v): want redacted and still canceled", err, errors.Is(err, context.Canceled))
	}
	if errors.Unwrap(err) != nil {
		t.Errorf("a redacted error unwraps to the unredacted one")
	}
}

func FuzzRedactor(f *testing.F) {
	f.Add("", "", 0)
	f.Add("Bearer ", `"}`, 10)
	f.Add("\\u003c", "sk-", 30)
	r := NewRedactor(testKey)
	f.Fuzz(func(t *testing.T, before, after string, cut int) {
		for _, text := range []string{before + testKey + after, before + testKey[:min(max(cut, 0), len(testKey))] + after} {
			got := r.String(text)
			if leaks(got, testKey) != "" && leaks(before+after, testKey) == "" {
				t.Fatalf("String(%q) = %q leaks %q", text, got, leaks(got, testKey))
			}
		}
	})
}

// TestClientKeyNeverLeaks: a hostile endpoint echoes the key in every
// place a client may show: the error body (cut at 200 characters around
// it), headers, JSON-escaped, in a successful answer.
func TestClientKeyNeverLeaks(t *testing.T) {
	tests := []struct {
		name string
		key  string
		// handler answers; it sees the Authorization header.
		handler func(w http.ResponseWriter, auth string)
	}{
		{"echoed in a 401 body", testKey, func(w http.ResponseWriter, auth string) {
			http.Error(w, "bad credentials: "+auth, http.StatusUnauthorized)
		}},
		{"echoed JSON-escaped", specialKey, func(w http.ResponseWriter, auth string) {
			raw, _ := json.Marshal(map[string]string{"error": "invalid key " + auth})
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(raw)
		}},
		{"in headers", testKey, func(w http.ResponseWriter, auth string) {
			w.Header().Set("X-Request-Id", "req-"+auth)
			w.Header().Set("Retry-After", auth)
			w.WriteHeader(http.StatusTooManyRequests)
		}},
		{"cut by the server", testKey, func(w http.ResponseWriter, auth string) {
			http.Error(w, "bad key "+auth[:30]+"...", http.StatusUnauthorized)
		}},
	}
	for off := 170; off <= 210; off += 3 {
		tests = append(tests, struct {
			name    string
			key     string
			handler func(w http.ResponseWriter, auth string)
		}{fmt.Sprintf("straddling the 200-character cut at %d", off), testKey, func(w http.ResponseWriter, auth string) {
			http.Error(w, strings.Repeat(".", off-len("Bearer "))+auth+" trailing text", http.StatusForbidden)
		}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, func(_ int, _ string, w http.ResponseWriter) (int, string) { return 0, "" })
			f.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { tt.handler(w, r.Header.Get("Authorization")) })
			cfg := f.config()
			cfg.APIKey = tt.key
			c := newTestClient(t, cfg)
			var w waits
			w.install(c)
			var hooked []string
			c.onRetry = func(r Retry) { hooked = append(hooked, r.Err.Error()) }
			_, err := c.Chat(background(), Request{})
			if err == nil {
				t.Fatal("want an error")
			}
			texts := append([]string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", cfg), cfg.String()}, hooked...)
			for e := errors.Unwrap(err); e != nil; e = errors.Unwrap(e) {
				texts = append(texts, e.Error())
			}
			for _, s := range texts {
				if l := leaks(s, tt.key); l != "" {
					t.Errorf("leaks %q: %s", l, s)
				}
			}
			if !strings.Contains(err.Error(), Redacted) && !strings.Contains(tt.name, "straddling") {
				t.Errorf("err = %v, want the key shown as %s", err, Redacted)
			}
		})
	}
}

func TestClientRedactsAnswers(t *testing.T) {
	f := newFake(t, func(_ int, _ string, w http.ResponseWriter) (int, string) {
		raw, _ := json.Marshal("your key is " + specialKey)
		args, _ := json.Marshal(`{"token":"` + specialKey + `"}`)
		return http.StatusOK, `{"choices":[{"message":{"content":` + string(raw) +
			`,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":` + string(args) + `}}]}}]}`
	})
	cfg := f.config()
	cfg.APIKey = specialKey
	resp, err := newTestClient(t, cfg).Chat(background(), Request{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "your key is "+Redacted || resp.ToolCalls[0].Arguments != `{"token":"`+Redacted+`"}` {
		t.Errorf("answer not redacted: %+v", resp)
	}
}

func TestClientRedactsURLCredentials(t *testing.T) {
	f := newFake(t, func(int, string, http.ResponseWriter) (int, string) { return 500, "oops" })
	u, _ := url.Parse(f.URL)
	cfg := f.config()
	cfg.BaseURL = "http://admin:hunter2-password@" + u.Host + "/v1?api-key=azure-secret-key-123"
	c := newTestClient(t, cfg)
	_, err := c.Chat(background(), Request{})
	for _, secret := range []string{"hunter2-password", "azure-secret-key-123", "admin"} {
		if strings.Contains(err.Error(), secret) || strings.Contains(c.Endpoint(), secret) {
			t.Errorf("%q leaks in %v / %s", secret, err, c.Endpoint())
		}
	}
	if f.count() == 0 {
		t.Errorf("the query was not kept on the request route")
	}
}
