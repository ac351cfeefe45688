package input

import "slices"

// OneOf checks that got, the value at path, is one of choices; what names
// the kind of value in the message ("level": `unknown level "strict"`).
func (d *Decoder) OneOf(path, what, got string, choices []string) bool {
	if slices.Contains(choices, got) {
		return true
	}
	d.Unknown(path, what, got, choices)
	return false
}

// Strings checks a list of strings decoded at path: no element empty, none
// listed twice and, when choices is not nil, each one of them (what names
// an element: "design").
func (d *Decoder) Strings(path string, list []string, what string, choices []string) bool {
	ok := true
	for i, s := range list {
		p := Index(path, i)
		switch {
		case s == "":
			d.Errorf(p, "empty")
		case choices != nil && !slices.Contains(choices, s):
			d.Unknown(p, what, s, choices)
		case slices.Contains(list[:i], s):
			d.Errorf(p, "%s listed twice", Quote(s))
		default:
			continue
		}
		ok = false
	}
	return ok
}

// Check records a problem at path unless ok; it returns ok.
func (d *Decoder) Check(ok bool, path, format string, args ...any) bool {
	if !ok {
		d.Errorf(path, format, args...)
	}
	return ok
}
