package triage

import (
	"io/fs"
	"strings"
	"testing"
)

// TestPromptsCoverAgents: every agent has a prompt for its model-backed
// core, opening with its version line, and every prompt is an agent's.
func TestPromptsCoverAgents(t *testing.T) {
	spec := Spec()
	if spec.Prompts == nil {
		t.Fatal("the spec has no prompts")
	}
	want := map[string]bool{}
	for _, a := range spec.AgentNames() {
		name := string(a) + ".md"
		want[name] = true
		data, err := fs.ReadFile(spec.Prompts, name)
		if err != nil {
			t.Errorf("agent %s: %v", a, err)
			continue
		}
		head := "<!-- baton prompt " + Name + "/" + string(a) + " v"
		if !strings.HasPrefix(string(data), head) {
			t.Errorf("%s: first line %q, want it to start %q", name, strings.SplitN(string(data), "\n", 2)[0], head)
		}
	}
	files, err := fs.Glob(spec.Prompts, "*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !want[f] {
			t.Errorf("prompt %s is no agent's", f)
		}
	}
}
