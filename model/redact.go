package model

import (
	"encoding/base64"
	"errors"
	"html"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/baton-lab/baton/internal/jsontext"
)

// Redaction.
const (
	// Redacted replaces a secret.
	Redacted = "[REDACTED]"
	// MinSecretLen is the shortest secret redacted wherever it occurs. A
	// shorter "key" (local endpoints take "x" or "none") would mangle
	// ordinary words and protects nothing; it is redacted only after
	// "Bearer ".
	MinSecretLen = 8
	// MaxVisible is the most leading characters of a secret that may stay
	// visible where text holds a cut secret: any run of more than
	// MaxVisible of them is redacted.
	MaxVisible = 5
)

// A Redactor removes secrets from text: the whole secret and any prefix
// of more than [MaxVisible] characters (a secret cut by a truncation, ours
// or the server's), raw and in every encoding a secret travels in: JSON
// string escaping (with and without HTML escaping, "\/", escaped twice),
// HTML entities, URL escaping (upper- and lower-case hex), and base64 and
// base64url at each of the three alignments a secret can have inside a
// longer encoded text ("Basic ..." credentials, tokens in a JSON Web Token).
//
// Every path that can carry endpoint text — client errors, the bodies of
// responses before they are decoded, logs, reports, --json output — goes
// through one Redactor, and always before any truncation. A nil *Redactor
// redacts nothing. It is safe for concurrent use.
type Redactor struct {
	pats  []redactPattern
	first [256][]int // indices into pats by first byte
}

// redactPattern is one encoded form of a secret; at least min of its
// leading bytes must match for the match to be redacted, and the first
// keep bytes of a match stay ("Bearer " before a short key).
type redactPattern struct {
	text string
	min  int
	keep int
}

// NewRedactor returns a redactor of the non-empty secrets.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		switch {
		case s == "":
		case len(s) < MinSecretLen:
			r.pats = append(r.pats, redactPattern{"Bearer " + s, len("Bearer " + s), len("Bearer ")})
		default:
			r.pats = append(r.pats, encodings(s)...)
		}
	}
	slices.SortFunc(r.pats, func(a, b redactPattern) int { return strings.Compare(a.text, b.text) })
	r.pats = slices.CompactFunc(r.pats, func(a, b redactPattern) bool { return a.text == b.text })
	for i, p := range r.pats {
		r.first[p.text[0]] = append(r.first[p.text[0]], i)
	}
	return r
}

// encodings lists the forms of secret s.
func encodings(s string) []redactPattern {
	head := s[:prefixLen(s)] // the shortest prefix that must not show
	perRune := func(enc func(string) string) redactPattern {
		return redactPattern{text: enc(s), min: len(enc(head))}
	}
	jsonEsc := func(html bool) func(string) string {
		return func(v string) string {
			q := string(jsontext.AppendString(nil, v, html))
			return q[1 : len(q)-1]
		}
	}
	lowerHex := func(enc func(string) string) func(string) string {
		return func(v string) string { return lowerPercent(enc(v)) }
	}
	slash := func(v string) string { return strings.ReplaceAll(jsonEsc(false)(v), "/", `\/`) }
	twice := func(html bool) func(string) string {
		return func(v string) string { return jsonEsc(html)(jsonEsc(html)(v)) }
	}
	pats := []redactPattern{
		perRune(func(v string) string { return v }),
		perRune(jsonEsc(false)), perRune(jsonEsc(true)), perRune(slash), perRune(twice(false)), perRune(twice(true)),
		perRune(html.EscapeString),
		perRune(url.QueryEscape), perRune(url.PathEscape),
		perRune(lowerHex(url.QueryEscape)), perRune(lowerHex(url.PathEscape)),
	}
	// base64: at offset k the secret's bytes from k on fall in whole
	// groups of three whatever precedes them.
	for k := range 3 {
		body := s[k:]
		body = body[:len(body)/3*3]
		if len(body) < 6 {
			continue
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			pats = append(pats, redactPattern{text: enc.EncodeToString([]byte(body)), min: 8}) // 8 chars = 6 bytes
		}
	}
	return pats
}

// prefixLen is the byte length of the first MaxVisible+1 runes of s.
func prefixLen(s string) int {
	n := 0
	for i := 0; i <= MaxVisible && n < len(s); i++ {
		_, size := utf8.DecodeRuneInString(s[n:])
		n += size
	}
	return n
}

// lowerPercent lower-cases the hex digits of %XX escapes.
func lowerPercent(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			for j := i + 1; j <= i+2; j++ {
				if 'A' <= b[j] && b[j] <= 'F' {
					b[j] += 'a' - 'A'
				}
			}
			i += 2
		}
	}
	return string(b)
}

// String returns s with every secret, and every long enough prefix of one,
// in every encoding, replaced by [Redacted].
func (r *Redactor) String(s string) string {
	if r == nil || len(r.pats) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		n, keep := r.match(s[i:])
		if n == 0 {
			i++
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last : i+keep])
		b.WriteString(Redacted)
		i += n
		last = i
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// Bytes is String for a byte slice; it returns b itself when nothing is
// redacted.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil || len(r.pats) == 0 {
		return b
	}
	s := r.String(string(b))
	if len(s) == len(b) && s == string(b) {
		return b
	}
	return []byte(s)
}

// match returns the length of the longest redactable match at the start
// of s (0 if none) and how many of its bytes to keep.
func (r *Redactor) match(s string) (n, keep int) {
	for _, i := range r.first[s[0]] {
		p := r.pats[i]
		if m := commonPrefix(s, p.text); m >= p.min && m > n {
			n, keep = m, p.keep
		}
	}
	return n, keep
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// Error returns err with its message redacted. The result answers
// errors.Is like err (so sentinels and context errors still test true)
// but errors.As and errors.Unwrap reach nothing that could hold a secret.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	return &redactedError{msg: r.String(err.Error()), orig: err}
}

type redactedError struct {
	msg  string
	orig error
}

func (e *redactedError) Error() string        { return e.msg }
func (e *redactedError) Is(target error) bool { return errors.Is(e.orig, target) }
