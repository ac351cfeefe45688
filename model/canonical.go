package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/baton-lab/baton/internal/jsontext"
)

// Canonical returns the canonical form of the JSON text raw: no
// insignificant white space, object keys sorted by their UTF-8 bytes (a
// duplicated key keeps its last value), strings escaped as encoding/json
// escapes them without HTML escaping, and numbers written once: an
// integer literal as its digits (without a sign on zero), any other
// number as encoding/json writes a float64 (so 1.0, 1e0 and 1 are all 1).
// Two texts with the same JSON value have the same canonical bytes, which
// is what request keys and definition hashes need.
func Canonical(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("canonical json: data after the value")
	}
	return appendCanonical(make([]byte, 0, len(raw)), v)
}

func appendCanonical(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case string:
		return jsontext.AppendString(b, v, false), nil
	case json.Number:
		return appendNumber(b, string(v))
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendCanonical(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontext.AppendString(b, k, false)
			b = append(b, ':')
			var err error
			if b, err = appendCanonical(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("canonical json: unexpected %T", v)
}

func appendNumber(b []byte, n string) ([]byte, error) {
	if isIntLiteral(n) {
		if n == "-0" {
			n = "0"
		}
		return append(b, n...), nil
	}
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, fmt.Errorf("canonical json: number %s out of range", n)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.AppendInt(b, int64(f), 10), nil
	}
	return jsontext.AppendFloat(b, f), nil
}

func isIntLiteral(n string) bool {
	n = strings.TrimPrefix(n, "-")
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		if n[i] < '0' || n[i] > '9' {
			return false
		}
	}
	return true
}

// HashText returns the hex SHA-256 of b: the hash of a prompt file.
func HashText(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// HashJSON returns the hex SHA-256 of the canonical form of raw, so that
// a schema reformatted or with its keys reordered keeps its hash.
func HashJSON(raw []byte) (string, error) {
	c, err := Canonical(raw)
	if err != nil {
		return "", err
	}
	return HashText(c), nil
}

// HashTools returns the hash of a list of tool definitions, in the order
// given (the order a model sees them in): the canonical JSON of the list
// of {"name", "description", "parameters"} objects.
func HashTools(tools []Tool) (string, error) {
	raw, err := marshal(tools)
	if err != nil {
		return "", fmt.Errorf("hash tools: %w", err)
	}
	h, err := HashJSON(raw)
	if err != nil {
		return "", fmt.Errorf("hash tools: %w", err)
	}
	return h, nil
}
