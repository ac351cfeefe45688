package mutants

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
)

func TestDefault(t *testing.T) {
	c, err := Default(invoice.Spec())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Mutants); n < 3*len(AllClasses) {
		t.Errorf("%d mutants, want at least %d", n, 3*len(AllClasses))
	}
	for _, cl := range AllClasses {
		ms := c.ByClass(cl)
		if len(ms) < 3 {
			t.Errorf("class %s: %d mutants, want at least 3", cl, len(ms))
		}
		// Spread: a class's mutants do not all sit in one place.
		locs := map[mission.Location]bool{}
		for _, m := range ms {
			locs[m.Location()] = true
		}
		if cl != Control && len(locs) < 2 {
			t.Errorf("class %s: every mutant at %v", cl, locs)
		}
	}
	if diff := slices.Compare(AllClasses, c.Classes()); diff != 0 {
		t.Errorf("Classes() = %v, want %v", c.Classes(), AllClasses)
	}
	seen := map[string]bool{}
	for _, m := range c.Mutants {
		if seen[m.ID] {
			t.Errorf("duplicate id %s", m.ID)
		}
		seen[m.ID] = true
		if got, ok := c.ByID(m.ID); !ok || got != m {
			t.Errorf("ByID(%s) = %v, %v", m.ID, got, ok)
		}
		if len(strings.Fields(m.Description)) < 8 {
			t.Errorf("%s: description %q says too little", m.ID, m.Description)
		}
		if !strings.HasPrefix(m.Source, invoice.CatalogueName+":") {
			t.Errorf("%s: source %q", m.ID, m.Source)
		}
		// The ground truth follows from the class: an edge for the hand-off
		// classes, whatever the seam, and an agent for the control. A core
		// seam still acts in an agent, which is then an end of the edge.
		op, _ := OperatorByName(m.Operator)
		e, onEdge := m.Location().Edge()
		if onEdge != m.Class.HandOff() {
			t.Errorf("%s (%s, %s): location %s", m.ID, m.Class, op.Seam, m.Location())
		}
		if !op.Seam.OnEdge() && onEdge && e.From != mission.Agent(m.Agent) && e.To != mission.Agent(m.Agent) {
			t.Errorf("%s: acts in %s, which is neither end of its location %s", m.ID, m.Agent, m.Location())
		}
	}
	if _, ok := c.ByID("no-such-mutant"); ok {
		t.Error("ByID found a mutant that is not there")
	}
	again, err := Default(invoice.Spec())
	if err != nil {
		t.Fatal(err)
	}
	if again.Hash() != c.Hash() {
		t.Error("Default hashes differently on a second call")
	}
	again.Mutants[0].ID = "changed"
	if c.Mutants[0].ID == "changed" {
		t.Error("Default shares mutants between calls")
	}
}

func TestOperators(t *testing.T) {
	names := OperatorNames()
	if !slices.IsSorted(names) {
		t.Errorf("names not sorted: %v", names)
	}
	for _, want := range []string{"drop_field", "rename_field", "reformat_field", "retry_without_key", "fresh_key_on_retry",
		"redeliver_without_dedup", "clear_owner", "double_owner", "escalation_flag_meaning", "assume_other_escalated", "wrong_tool_arg"} {
		if _, ok := OperatorByName(want); !ok {
			t.Errorf("no operator %s", want)
		}
	}
	if _, ok := OperatorByName("nope"); ok {
		t.Error("found operator nope")
	}
	for _, op := range Operators() {
		if op.Doc == "" || op.New == nil || !slices.Contains(AllSeams, op.Seam) {
			t.Errorf("%s: incomplete operator", op.Name)
		}
		for _, p := range append(slices.Clone(op.Params), op.Optional...) {
			if !slices.Contains(AllParams, p) {
				t.Errorf("%s: unknown param %s", op.Name, p)
			}
		}
	}
}

// moduleRoot returns the directory holding go.mod.
func moduleRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

// TestDesignsDoNotImportMutants checks that no design can see which defect
// a build carries.
func TestDesignsDoNotImportMutants(t *testing.T) {
	gobin, err := exec.LookPath("go") // go test puts its own go first on PATH
	if err != nil {
		t.Fatalf("no go command to list the dependencies with: %v", err)
	}
	cmd := exec.Command(gobin, "list", "-deps", "./designs/...")
	cmd.Dir = moduleRoot(t)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	const self = "github.com/baton-lab/baton/mutants"
	deps := strings.Fields(string(out))
	if len(deps) == 0 || !slices.Contains(deps, "github.com/baton-lab/baton/mission") {
		t.Fatalf("go list gave no plausible dependency list: %q", out)
	}
	for _, d := range deps {
		if d == self || strings.HasPrefix(d, self+"/") {
			t.Errorf("designs depend on %s", d)
		}
	}
}
