package score

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The example files under testdata are the documentation of each format:
// their reports are golden files (go test ./score -update), read after
// every rewrite.
func TestMainKindsGolden(t *testing.T) {
	for _, tt := range []struct {
		kind Kind
		file string
	}{
		{KindSkills, "skills.jsonl"},
		{KindVoice, "voice.json"},
		{KindKnowledge, "knowledge.jsonl"},
		{KindCoordination, "coordination.jsonl"},
	} {
		for _, asJSON := range []bool{false, true} {
			name := string(tt.kind) + ".txt.golden"
			if asJSON {
				name = string(tt.kind) + ".json.golden"
			}
			t.Run(name, func(t *testing.T) {
				var out bytes.Buffer
				if err := Main(context.Background(), "testdata/"+tt.file, Options{Kind: tt.kind, JSON: asJSON, Stdout: &out, Env: noEnv}); err != nil {
					t.Fatal(err)
				}
				if asJSON && !json.Valid(out.Bytes()) {
					t.Fatal("not JSON")
				}
				golden(t, name, out.String())
			})
		}
	}
}

func TestMainKindErrors(t *testing.T) {
	bad := t.TempDir() + "/bad.jsonl"
	if err := os.WriteFile(bad, []byte("{\"request\":\"A\"}\n{\"request\":\"B\",\"activated\":[1]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := Main(context.Background(), bad, Options{Kind: KindSkills, Stdout: &out})
	if !errors.Is(err, ErrBadField) || !strings.HasSuffix(err.Error(), "bad.jsonl:2: activated[0]: want string, got number") ||
		!strings.HasPrefix(err.Error(), "read skills: ") {
		t.Errorf("err = %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("printed %q before failing", out.String())
	}
	if err := Main(context.Background(), "testdata/nowhere.json", Options{Kind: KindVoice, Stdout: &out}); err == nil || !strings.Contains(err.Error(), "nowhere.json") {
		t.Errorf("missing file: err = %v", err)
	}
	// A file of another kind is refused with a located error, not scored.
	err = Main(context.Background(), "testdata/skills.jsonl", Options{Kind: KindKnowledge, Stdout: &out})
	if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), "skills.jsonl:1: request: unknown key") {
		t.Errorf("skills read as knowledge: err = %v", err)
	}
}

func TestParseKind(t *testing.T) {
	for _, k := range AllKinds {
		if got, err := ParseKind(k.String()); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %q, %v", k, got, err)
		}
	}
	_, err := ParseKind("skill")
	if diff := cmp.Diff(`kind "skill": want one of runs, skills, voice, knowledge, coordination`, err.Error()); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}
