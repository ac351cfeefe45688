package mission

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

// TestLoadSuite checks the suite's hash against one computed by hand, that
// its files parse in name order with the prefix in their names, and that
// Scenarios hands out copies.
func TestLoadSuite(t *testing.T) {
	files := fstest.MapFS{
		"scenarios/b.yaml": {Data: []byte("S2")},
		"scenarios/a.yaml": {Data: []byte("S1")},
		"scenarios/x.txt":  {Data: []byte("ignored")},
	}
	var parsed []string
	parse := func(name string, data []byte) ([]*Scenario, error) {
		parsed = append(parsed, name)
		return []*Scenario{{ID: string(data)}}, nil
	}
	s, err := LoadSuite(SuiteFiles{FS: files, Pattern: "scenarios/*.yaml", Prefix: "m/", Parse: parse,
		GoldenFS: fstest.MapFS{}, GoldenDir: "golden", Spec: &Spec{Name: "toy"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(parsed, " "); got != "m/scenarios/a.yaml m/scenarios/b.yaml" {
		t.Errorf("parsed %s, want the two YAML files in name order, prefixed", got)
	}
	h := sha256.Sum256([]byte("scenarios/a.yaml\x002\x00S1scenarios/b.yaml\x002\x00S2"))
	scs, hash := s.Scenarios()
	if want := hex.EncodeToString(h[:]); hash != want {
		t.Errorf("hash %s, want %s", hash, want)
	}
	if len(scs) != 2 || scs[0].ID != "S1" || scs[1].ID != "S2" {
		t.Fatalf("scenarios %v, want S1, S2", scs)
	}
	scs[0].ID = "changed"
	if again, _ := s.Scenarios(); again[0].ID != "S1" {
		t.Error("changing a returned scenario changed the suite")
	}

	bad := func(string, []byte) ([]*Scenario, error) { return nil, errors.New("boom") }
	if _, err := LoadSuite(SuiteFiles{FS: files, Pattern: "scenarios/*.yaml", Parse: bad, GoldenFS: fstest.MapFS{}, GoldenDir: "golden"}); err == nil || !strings.Contains(err.Error(), "load default scenarios") {
		t.Errorf("err = %v, want the parse error wrapped", err)
	}
}
