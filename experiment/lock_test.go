package experiment

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/reports"
)

// extraMutant is a user catalogue extending the default one by a context
// loss.
const extraMutant = `mutants:
  - id: my-drop-tax
    class: context_loss
    operator: drop_field
    edge: intake->action
    field: tax
    description: the new extractor no longer forwards tax
`

// moreMutant is one more catalogue entry, added after a lock.
const moreMutant = `  - id: my-drop-net
    class: context_loss
    operator: drop_field
    edge: intake->action
    field: net
    description: drops net
`

// controlOnly replaces the default catalogue by one control mutant.
const controlOnly = `mutants:
  - id: my-ctl
    class: control
    operator: wrong_tool_arg
    agent: boundary
    tool: schedule_payment
    arg: currency
    value: USD
    description: pays in the wrong currency
`

// lockFixture writes a protocol naming a catalogue and a contracts folder.
func lockFixture(tb testing.TB) (dir, protocol string) {
	tb.Helper()
	dir = tb.TempDir()
	protocol = filepath.Join(dir, "p.yaml")
	writeFile(tb, protocol, "name: locked\nscenarios:\n  ids: [S01]\ntrials: 1\nmutants:\n  catalogue: cat.yaml\n  mode: extend\ncontracts:\n  files: [my-contracts/]\n")
	writeFile(tb, filepath.Join(dir, "cat.yaml"), extraMutant)
	src, err := os.ReadFile(filepath.Join("..", "mission", "invoice", "contracts", "intake-action.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	writeFile(tb, filepath.Join(dir, "my-contracts", "intake-action.yaml"), string(src))
	return dir, protocol
}

func TestLock(t *testing.T) {
	dir, path := lockFixture(t)
	if locked, err := CheckLock(path, LockOptions{Stack: NewStack(testMissions())}); err != nil || locked {
		t.Fatalf("CheckLock before Lock = %v, %v; want false, nil", locked, err)
	}
	tree, err := Lock(path, LockOptions{Stack: NewStack(testMissions())})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range tree.Entries {
		names = append(names, e.Kind.String()+" "+e.Name)
	}
	want := "protocol protocol,catalogue mutants.catalogue,contracts contracts.files[0],embedded stack.scenarios,embedded stack.catalogue,embedded stack.contracts,embedded stack.mission"
	if got := strings.Join(names, ","); got != want || len(tree.Root) != 64 {
		t.Errorf("tree entries %s, root %q; want %s", got, tree.Root, want)
	}
	lock := string(readFile(t, LockFile(path)))
	for _, line := range []string{"# baton.lock/v2 root " + tree.Root + "\n", "  p.yaml\n", "  cat.yaml\n", "  my-contracts/intake-action.yaml\n", "# input embedded stack.catalogue "} {
		if !strings.Contains(lock, line) {
			t.Errorf("lock file lacks %q:\n%s", line, lock)
		}
	}
	if locked, err := CheckLock(path, LockOptions{Stack: NewStack(testMissions())}); err != nil || !locked {
		t.Fatalf("CheckLock after Lock = %v, %v; want true, nil", locked, err)
	}
	t.Run("sha256sum checks every file", func(t *testing.T) {
		if _, err := exec.LookPath("sha256sum"); err != nil {
			t.Skip("no sha256sum")
		}
		cmd := exec.Command("sha256sum", "--strict", "-c", filepath.Base(LockFile(path)))
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil || strings.Count(string(out), ": OK") != 3 {
			t.Errorf("sha256sum -c: %v\n%s", err, out)
		}
	})

	// Each input is covered: a change to any refuses, naming it.
	edits := []struct {
		name, file, add, want string
	}{
		{"the protocol", "p.yaml", "review_sample: 10\n", "protocol (p.yaml) hashes to"},
		{"a mutant added to the catalogue", "cat.yaml", moreMutant, "mutants.catalogue (cat.yaml) hashes to"},
		{"a contract file of a folder", "my-contracts/intake-action.yaml", "# reviewed\n", "contracts.files[0] (my-contracts/) hashes to"},
	}
	for _, e := range edits {
		t.Run("refuses "+e.name, func(t *testing.T) {
			f := filepath.Join(dir, e.file)
			before := readFile(t, f)
			defer os.WriteFile(f, before, 0o644)
			writeFile(t, f, string(before)+e.add)
			_, err := CheckLock(path, LockOptions{Stack: NewStack(testMissions())})
			if !errors.Is(err, ErrLockMismatch) || !strings.Contains(err.Error(), e.want) {
				t.Errorf("CheckLock = %v, want ErrLockMismatch naming %q", err, e.want)
			}
		})
	}
	t.Run("a file the loaders do not read changes nothing", func(t *testing.T) {
		writeFile(t, filepath.Join(dir, "my-contracts", "NOTES.txt"), "not a contract")
		defer os.Remove(filepath.Join(dir, "my-contracts", "NOTES.txt"))
		if _, err := CheckLock(path, LockOptions{Stack: NewStack(testMissions())}); err != nil {
			t.Errorf("CheckLock with a non-YAML file added = %v", err)
		}
	})
	t.Run("a legacy lock of the protocol alone is refused", func(t *testing.T) {
		defer os.WriteFile(LockFile(path), []byte(lock), 0o644)
		writeFile(t, LockFile(path), HashBytes(readFile(t, path))+"  p.yaml\n")
		_, err := CheckLock(path, LockOptions{Stack: NewStack(testMissions())})
		if !errors.Is(err, ErrLockMismatch) || !strings.Contains(err.Error(), "older baton") {
			t.Errorf("CheckLock with a legacy lock = %v, want ErrLockMismatch saying it is an older lock", err)
		}
	})
}

func TestLockRefusesWhatWouldDiscardARun(t *testing.T) {
	tests := []struct {
		name, protocol, catalogue, want string
	}{
		{"a catalogue without a control", "name: x\nmutants:\n  catalogue: cat.yaml\n  mode: replace\n", extraMutant,
			"p.yaml:3:14: mutants.catalogue: selects no control mutant"},
		{"a class selection without the control", "name: x\nmutants:\n  classes: [context_loss]\n", "",
			"p.yaml:3:12: mutants.classes: selects no control mutant"},
		{"an empty scenario selection", "name: x\nscenarios:\n  include_tags: [currency:USD]\n  exclude_tags: [currency:USD]\n", "",
			"scenarios: selects no scenario"},
		{"an unknown design", "name: x\ndesigns: [A, Z]\n", "", "designs[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "p.yaml")
			writeFile(t, path, tt.protocol)
			if tt.catalogue != "" {
				writeFile(t, filepath.Join(dir, "cat.yaml"), tt.catalogue)
			}
			_, err := Lock(path, LockOptions{Stack: NewStack(testMissions())})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Lock = %v, want an error with %q", err, tt.want)
			}
			if _, err := os.Stat(LockFile(path)); err == nil {
				t.Error("Lock wrote a lock")
			}
		})
	}
	t.Run("a replacing catalogue with a control locks", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "p.yaml")
		writeFile(t, path, "name: x\nmutants:\n  catalogue: cat.yaml\n  mode: replace\n")
		writeFile(t, filepath.Join(dir, "cat.yaml"), controlOnly)
		if _, err := Lock(path, LockOptions{Stack: NewStack(testMissions())}); err != nil {
			t.Errorf("Lock = %v", err)
		}
	})
}

// TestRunRefusesAControlLessCatalogue: an unlocked run refuses up front
// what the validity gate would discard after all the work.
func TestRunRefusesAControlLessCatalogue(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.yaml")
	writeFile(t, path, "name: x\nscenarios:\n  ids: [S01]\ntrials: 1\nmutants:\n  catalogue: cat.yaml\n  mode: replace\n")
	writeFile(t, filepath.Join(dir, "cat.yaml"), extraMutant)
	opt := Options{ProtocolPath: path, RunDir: filepath.Join(dir, "run"), Logger: zerolog.Nop(), Missions: testMissions()}
	if _, err := Run(context.Background(), opt); err == nil || !strings.Contains(err.Error(), "selects no control mutant") {
		t.Errorf("Run = %v, want the control-less catalogue refused", err)
	}
	if _, err := os.Stat(opt.RunDir); err == nil {
		t.Error("a refused run made its folder")
	}
}

func TestLockedRunOverrides(t *testing.T) {
	dir := t.TempDir()
	pf := filepath.Join(dir, "p.yaml")
	writeFile(t, pf, fakeProtocol)
	if _, err := Lock(pf, LockOptions{Stack: fakeStack()}); err != nil {
		t.Fatal(err)
	}
	seed := uint64(99)
	opt := Options{ProtocolPath: pf, Workers: 2, Stack: fakeStack(), Logger: zerolog.Nop(), Trials: 2, Seed: &seed}

	// Overrides without a reason are refused before anything is written.
	opt.RunDir = filepath.Join(dir, "refused")
	_, err := Run(context.Background(), opt)
	if !errors.Is(err, ErrLockedOverride) || !strings.Contains(err.Error(), "--trials 2 (locked: 3) and --seed 99 (locked: 11)") || !strings.Contains(err.Error(), "--deviate") {
		t.Errorf("Run with overrides = %v, want ErrLockedOverride naming both and --deviate", err)
	}
	if _, err := os.Stat(opt.RunDir); err == nil {
		t.Error("a refused run made its folder")
	}

	// With a reason the run goes ahead and every record says so.
	opt.RunDir, opt.Deviate = filepath.Join(dir, "deviated"), "pilot on fewer trials"
	sum, err := Run(context.Background(), opt)
	finished(t, err)
	want := []reports.Deviation{
		{Setting: "trials", Locked: "3", Ran: "2", Reason: "pilot on fewer trials"},
		{Setting: "seed", Locked: "11", Ran: "99", Reason: "pilot on fewer trials"},
	}
	m, err := ReadManifest(opt.RunDir)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Protocol.Locked || !sameDeviations(m.Deviations, want) || m.Deviations[0].Reason != want[0].Reason || m.Trials != 2 || m.Seed != 99 {
		t.Errorf("manifest locked %v deviations %+v trials %d seed %d; want locked with %+v", m.Protocol.Locked, m.Deviations, m.Trials, m.Seed, want)
	}
	if got := sum.Results.Protocol; !got.Locked || len(got.Deviations) != 2 || got.Deviations[1] != want[1] || got.InputsSHA256 != m.Tree.Root {
		t.Errorf("results protocol %+v; want locked, the deviations and the tree root %s", got, m.Tree.Root)
	}
	md := string(readFile(t, filepath.Join(opt.RunDir, "report.md")))
	top := md[:strings.Index(md, "## Validity")]
	for _, s := range []string{"DEVIATED from the locked protocol in 2 settings", "trials: locked 3, ran 2; reason: pilot on fewer trials", "seed: locked 11, ran 99"} {
		if !strings.Contains(top, s) {
			t.Errorf("report.md does not say %q before the validity gate:\n%s", s, top)
		}
	}
	html := string(readFile(t, filepath.Join(opt.RunDir, "report.html")))
	if i, v := strings.Index(html, "DEVIATED"), strings.Index(html, `id="validity"`); i < 0 || i > v {
		t.Error("report.html does not show the deviation before the validity gate")
	}

	// Resuming the deviated run needs no new reason: the manifest has it.
	opt.Resume, opt.Deviate = true, ""
	if _, err := Run(context.Background(), opt); err != nil && !errors.As(err, new(*reports.DiscardedError)) {
		t.Errorf("resume of a deviated run = %v", err)
	}

	// A reason without a locked protocol, or without an override, is refused.
	opt.Resume, opt.Deviate, opt.RunDir = false, "why", filepath.Join(dir, "no-override")
	opt.Trials, opt.Seed = 0, nil
	if _, err := Run(context.Background(), opt); err == nil || !strings.Contains(err.Error(), "no setting of the run differs") {
		t.Errorf("Run with --deviate and no override = %v", err)
	}
	os.Remove(LockFile(pf))
	opt.RunDir = filepath.Join(dir, "unlocked")
	if _, err := Run(context.Background(), opt); err == nil || !strings.Contains(err.Error(), "not locked") {
		t.Errorf("Run with --deviate on an unlocked protocol = %v", err)
	}
}

// TestLockedRunRefusesEditedCatalogue: a mutant added to the catalogue
// after the lock does not run under the locked hash.
func TestLockedRunRefusesEditedCatalogue(t *testing.T) {
	dir, path := lockFixture(t)
	if _, err := Lock(path, LockOptions{Stack: NewStack(testMissions())}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "cat.yaml"), extraMutant+moreMutant)
	opt := Options{ProtocolPath: path, RunDir: filepath.Join(dir, "run"), Logger: zerolog.Nop(), Missions: testMissions()}
	_, err := Run(context.Background(), opt)
	if !errors.Is(err, ErrLockMismatch) || !strings.Contains(err.Error(), "mutants.catalogue (cat.yaml)") {
		t.Errorf("Run = %v, want ErrLockMismatch naming the catalogue", err)
	}
	if _, err := os.Stat(opt.RunDir); err == nil {
		t.Error("a refused run made its folder")
	}
}

// FuzzParseLock: a lock file of any bytes parses or fails cleanly, and a
// lock formatted from the tree it parsed to parses back to that tree.
func FuzzParseLock(f *testing.F) {
	tree := InputTree{Entries: []InputEntry{
		{Name: "protocol", Kind: KindProtocol, Path: "p.yaml", SHA256: strings.Repeat("a", 64)},
		{Name: "contracts.files[0]", Kind: KindContracts, Path: "my contracts/", SHA256: strings.Repeat("b", 64),
			Files: []FileHash{{Path: "x.yaml", SHA256: strings.Repeat("c", 64)}}},
		{Name: "stack.catalogue", Kind: KindEmbedded, SHA256: "fake-catalogue"},
	}}
	tree.seal()
	f.Add(formatLock(tree))
	f.Add([]byte(strings.Repeat("d", 64) + "  p.yaml\n"))
	f.Add([]byte("# baton.lock/v2 root x\n# input nonsense\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := parseLock("f.sha256", data)
		if err != nil {
			return
		}
		again, err := parseLock("f.sha256", formatLock(got))
		if err != nil {
			t.Fatalf("a formatted lock does not parse: %v", err)
		}
		if again.Root != got.Root || len(again.Entries) != len(got.Entries) {
			t.Fatalf("round trip: %+v, then %+v", got, again)
		}
	})
}

// TestResumeRefusesAChangedCopy: a resumed run reads the run folder's
// copies, which must still hash to the tree the run started with.
func TestResumeRefusesAChangedCopy(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.yaml")
	writeFile(t, path, "name: x\nscenarios:\n  ids: [S01]\ntrials: 1\nmutants:\n  catalogue: cat.yaml\n  mode: replace\n")
	writeFile(t, filepath.Join(dir, "cat.yaml"), controlOnly)
	opt := Options{ProtocolPath: path, RunDir: filepath.Join(dir, "run"), Workers: 1, Logger: zerolog.Nop(), Missions: testMissions()}
	if _, err := Run(context.Background(), opt); err != nil && !errors.As(err, new(*reports.DiscardedError)) {
		t.Fatal(err)
	}
	m, err := ReadManifest(opt.RunDir)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := m.Tree.entry("mutants.catalogue"); !ok || e.SHA256 != HashBytes([]byte(controlOnly)) || len(m.Tree.Root) != 64 {
		t.Fatalf("manifest tree %+v: want the catalogue entry", m.Tree)
	}
	copyFile := filepath.Join(opt.RunDir, m.Inputs[0].Copy)
	writeFile(t, copyFile, controlOnly+"  # edited\n")
	opt.Resume = true
	if _, err := Run(context.Background(), opt); !errors.Is(err, ErrProtocolChanged) || !strings.Contains(err.Error(), "mutants.catalogue") {
		t.Errorf("resume with a changed copy = %v, want ErrProtocolChanged naming the catalogue", err)
	}
}

// TestLockInterrupted: a lock that Ctrl-C interrupts writes no lock file.
func TestLockInterrupted(t *testing.T) {
	_, path := lockFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Lock(path, LockOptions{Stack: NewStack(testMissions()), Context: ctx})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Lock = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(LockFile(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file: %v, want none", err)
	}
}
