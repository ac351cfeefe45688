package input

// Entry is one key of a mapping decoded into an [Ordered] map, with where
// the key was written.
type Entry[V any] struct {
	Key   string
	Value V
	Pos   Pos
}

// Ordered is a mapping decoded in the file's order (a contract's fields,
// a family member's variables), where a Go map would lose it.
type Ordered[V any] []Entry[V]

// orderedMap marks the Ordered types for the decoder.
type orderedMap interface{ orderedMap() }

func (Ordered[V]) orderedMap() {}

// Get returns the value of key.
func (o Ordered[V]) Get(key string) (V, bool) {
	for _, e := range o {
		if e.Key == key {
			return e.Value, true
		}
	}
	var zero V
	return zero, false
}

// Keys returns the keys in order.
func (o Ordered[V]) Keys() []string {
	out := make([]string, len(o))
	for i, e := range o {
		out[i] = e.Key
	}
	return out
}
