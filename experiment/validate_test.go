package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"runs", "name: ok\nscenarios:\n  ids: [S01]\ntrials: 1\n", ""},
		{"unknown scenario", "name: x\nscenarios:\n  ids: [S999]\n", "p.yaml:3:9: scenarios.ids"},
		{"unknown tag", "name: x\nscenarios:\n  include_tags: [colour:blue]\n", "p.yaml:3:18: scenarios.include_tags"},
		{"unknown key", "name: x\ntrails: 3\n", "p.yaml:2:1: trails: unknown field, did you mean \"trials\"?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Validate(testMissions(), path)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Validate error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := Validate(testMissions(), ""); err != nil {
		t.Errorf("the embedded default protocol does not validate: %v", err)
	}
}
