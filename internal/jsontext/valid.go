package jsontext

// ValidCompact reports whether raw is one valid JSON value with no
// whitespace outside its strings: what an encoding/json Encoder with HTML
// escaping off copies unchanged when raw is a json.RawMessage. It is sound,
// not complete: it may say false for valid compact JSON nested deeper than
// it tracks, never true for anything else. Strings are checked as
// encoding/json checks them (escapes, no control bytes; other bytes pass).
func ValidCompact(raw []byte) bool {
	const maxDepth = 64
	var stack [maxDepth]byte
	depth, i, n := 0, 0, len(raw)
	const (
		wantValue = iota
		wantKey
		afterValue
	)
	state := wantValue
	for {
		switch state {
		case wantValue:
			if i >= n {
				return false
			}
			switch c := raw[i]; {
			case c == '{' || c == '[':
				i++
				end := byte('}')
				if c == '[' {
					end = ']'
				}
				if i < n && raw[i] == end {
					i++
					state = afterValue
					continue
				}
				if depth == maxDepth {
					return false
				}
				stack[depth] = c
				depth++
				if c == '{' {
					state = wantKey
				}
				continue
			case c == '"':
				if i = skipJSONString(raw, i); i < 0 {
					return false
				}
			case c == '-' || c >= '0' && c <= '9':
				if i = skipJSONNumber(raw, i); i < 0 {
					return false
				}
			case c == 't':
				if i = skipLiteral(raw, i, "true"); i < 0 {
					return false
				}
			case c == 'f':
				if i = skipLiteral(raw, i, "false"); i < 0 {
					return false
				}
			case c == 'n':
				if i = skipLiteral(raw, i, "null"); i < 0 {
					return false
				}
			default:
				return false
			}
			state = afterValue
		case wantKey:
			if i >= n || raw[i] != '"' {
				return false
			}
			if i = skipJSONString(raw, i); i < 0 || i >= n || raw[i] != ':' {
				return false
			}
			i++
			state = wantValue
		case afterValue:
			if depth == 0 {
				return i == n
			}
			if i >= n {
				return false
			}
			top := stack[depth-1]
			switch raw[i] {
			case ',':
				i++
				state = wantValue
				if top == '{' {
					state = wantKey
				}
			case '}':
				if top != '{' {
					return false
				}
				depth--
				i++
			case ']':
				if top != '[' {
					return false
				}
				depth--
				i++
			default:
				return false
			}
		}
	}
}

// skipJSONString returns the index after the string starting at raw[i]
// ('"'), or -1 when it is not a valid JSON string.
func skipJSONString(raw []byte, i int) int {
	for i++; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			i++
			if i >= len(raw) {
				return -1
			}
			switch raw[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(raw) {
					return -1
				}
				for _, h := range raw[i+1 : i+5] {
					if !isHex(h) {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		case c < 0x20:
			return -1
		}
	}
	return -1
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// skipJSONNumber returns the index after the number starting at raw[i], or
// -1 when it is not a valid JSON number.
func skipJSONNumber(raw []byte, i int) int {
	n := len(raw)
	if raw[i] == '-' {
		i++
	}
	switch {
	case i < n && raw[i] == '0':
		i++
	case i < n && raw[i] >= '1' && raw[i] <= '9':
		for i++; i < n && isDigit(raw[i]); i++ {
		}
	default:
		return -1
	}
	if i < n && raw[i] == '.' {
		i++
		if i >= n || !isDigit(raw[i]) {
			return -1
		}
		for i++; i < n && isDigit(raw[i]); i++ {
		}
	}
	if i < n && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		if i < n && (raw[i] == '+' || raw[i] == '-') {
			i++
		}
		if i >= n || !isDigit(raw[i]) {
			return -1
		}
		for i++; i < n && isDigit(raw[i]); i++ {
		}
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func skipLiteral(raw []byte, i int, lit string) int {
	if len(raw)-i < len(lit) || string(raw[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}
