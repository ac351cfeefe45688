package triage

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDeskReadRemembers: a desk's remembered reading of a text is the
// reading of that text, whatever it read before, including texts that
// share a subject or a body and texts past the memo's bound.
func TestDeskReadRemembers(t *testing.T) {
	scs, _, err := DefaultScenarios()
	if err != nil {
		t.Fatal(err)
	}
	var texts []readKey
	for _, sc := range scs {
		for _, in := range sc.Inputs {
			texts = append(texts, readKey{in.Subject, in.Body}, readKey{in.Subject, ""}, readKey{"", in.Body},
				readKey{in.Body, in.Subject})
		}
	}
	d := newDesk()
	for round := range 2 {
		for _, k := range texts {
			if diff := cmp.Diff(read(k.subject, k.body), d.read(k.subject, k.body), cmp.AllowUnexported(reading{})); diff != "" {
				t.Fatalf("round %d, %q / %q: desk's reading differs (-read +desk):\n%s", round, k.subject, k.body, diff)
			}
		}
	}
	if n := len(d.readings); n == 0 || n > maxReadings {
		t.Errorf("desk remembers %d readings, want 1 to %d", n, maxReadings)
	}
	full := newDesk()
	for i := range maxReadings + 10 {
		full.read(strconv.Itoa(i), "")
	}
	if n := len(full.readings); n != maxReadings {
		t.Errorf("desk remembers %d readings after %d texts, want %d", n, maxReadings+10, maxReadings)
	}
	if got, want := full.read("charged twice INV-1", "50 EUR"), read("charged twice INV-1", "50 EUR"); got != want {
		t.Errorf("full desk reads %+v, want %+v", got, want)
	}
}
