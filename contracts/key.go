package contracts

import (
	"fmt"
	"strings"
)

// keyTemplate is a parsed idempotency key template such as "{item}:{kind}".
// Placeholders: {item} (the envelope's item), {kind} and {edge} (the
// contract's), and {*} (any suffix, only at the end).
type keyTemplate []keyPart

type keyPart struct {
	lit string // literal text, when ph is ""
	ph  string // "item", "kind", "edge" or "*"
}

func parseKeyTemplate(src string) (keyTemplate, error) {
	var t keyTemplate
	rest := src
	for rest != "" {
		open := strings.IndexAny(rest, "{}")
		if open < 0 {
			t = append(t, keyPart{lit: rest})
			break
		}
		if rest[open] == '}' {
			return nil, fmt.Errorf("template %q: unmatched }", src)
		}
		if open > 0 {
			t = append(t, keyPart{lit: rest[:open]})
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("template %q: unmatched {", src)
		}
		name := rest[open+1 : open+end]
		switch name {
		case "item", "kind", "edge", "*":
		default:
			return nil, fmt.Errorf("template %q: unknown placeholder {%s} (want {item}, {kind}, {edge}, {*})", src, name)
		}
		t = append(t, keyPart{ph: name})
		rest = rest[open+end+1:]
		if name == "*" && rest != "" {
			return nil, fmt.Errorf("template %q: {*} must come last", src)
		}
	}
	hasItem := false
	for _, p := range t {
		hasItem = hasItem || p.ph == "item"
	}
	if !hasItem {
		return nil, fmt.Errorf("template %q: must contain {item}, or keys are not per item", src)
	}
	return t, nil
}

// match reports whether key fits the template for item on contract c,
// without allocating.
func (t keyTemplate) match(key, item string, c *Contract) bool {
	rest := key
	for _, p := range t {
		var s string
		switch p.ph {
		case "":
			s = p.lit
		case "item":
			s = item
		case "kind":
			s = c.Kind
		case "edge":
			s = c.Edge
		case "*":
			return true
		}
		if !strings.HasPrefix(rest, s) {
			return false
		}
		rest = rest[len(s):]
	}
	return rest == ""
}

// expand writes the key the template expects for item, with "*" for {*}.
func (t keyTemplate) expand(item string, c *Contract) string {
	var b strings.Builder
	for _, p := range t {
		switch p.ph {
		case "":
			b.WriteString(p.lit)
		case "item":
			b.WriteString(item)
		case "kind":
			b.WriteString(c.Kind)
		case "edge":
			b.WriteString(c.Edge)
		case "*":
			b.WriteString("*")
		}
	}
	return b.String()
}
