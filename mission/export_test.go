package mission

import "github.com/baton-lab/baton/internal/jsontext"

// Readings returns how many readings m's memo of the clean parser holds,
// and the wire bytes of those whose hand-off no longer encodes as it did
// when it was read (a core changed what every run shares).
func Readings(m Mission) (n int, changed []string) {
	e, err := kernelOf(m)
	if err != nil {
		panic(err)
	}
	enc := jsontext.GetEncoder()
	defer jsontext.PutEncoder(enc)
	e.readings.mu.RLock()
	defer e.readings.mu.RUnlock()
	for _, rd := range e.readings.m {
		n++
		if rd.h != nil && string(enc.Encode(rd.h)) != string(rd.parsed) {
			changed = append(changed, rd.raw)
		}
	}
	return n, changed
}
