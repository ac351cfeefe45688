package contracts

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// decoded is one message decoded once, for every check.
type decoded struct {
	doc      map[string]any
	payload  map[string]any // nil when absent or not an object
	owners   []string
	ownersOK bool // next_owner is a list of strings
}

// str returns an envelope field as a string, "" when absent or not one.
func (m *decoded) str(key string) string {
	s, _ := m.doc[key].(string)
	return s
}

// decode reads raw as a JSON object. It returns nil and the reason when it
// is not one.
func decode(raw []byte) (*decoded, string) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err.Error()
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, "not a JSON object: " + render(v)
	}
	m := &decoded{doc: doc}
	m.payload, _ = doc["payload"].(map[string]any)
	if list, ok := doc["next_owner"].([]any); ok {
		m.ownersOK = true
		m.owners = make([]string, 0, len(list))
		for _, o := range list {
			s, ok := o.(string)
			if !ok {
				m.ownersOK = false
				m.owners = nil
				break
			}
			m.owners = append(m.owners, s)
		}
	}
	return m, ""
}

// maxRender bounds how much of a value a violation quotes.
const maxRender = 96

// render writes v as compact JSON for a violation's Got, cut short when
// long.
func render(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	s := string(b)
	if len(s) > maxRender {
		cut := maxRender
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// quoteList writes a list of values for an Expected: "one of a, b, c".
func quoteList(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = render(v)
	}
	return strings.Join(parts, ", ")
}
