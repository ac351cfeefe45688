package experiment

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// InputKind is what an input of a run is: the protocol itself, a file the
// protocol names, or what the binary embeds.
type InputKind int

// Input kinds. A new kind of input (a prompt file, a second mission's
// files) is a new constant here and a line in [namedInputs].
const (
	KindProtocol  InputKind = iota // the protocol file
	KindScenarios                  // a scenario file or folder
	KindCatalogue                  // a mutant catalogue
	KindContracts                  // a contract file or folder
	KindPrompt                     // a model core's prompt file
	KindEmbedded                   // what the binary embeds, by the stack's hash
)

// AllInputKinds lists every input kind.
var AllInputKinds = []InputKind{KindProtocol, KindScenarios, KindCatalogue, KindContracts, KindPrompt, KindEmbedded}

var inputKindNames = []string{"protocol", "scenarios", "catalogue", "contracts", "prompt", "embedded"}

func (k InputKind) String() string {
	if k < 0 || int(k) >= len(inputKindNames) {
		return fmt.Sprintf("InputKind(%d)", int(k))
	}
	return inputKindNames[k]
}

// MarshalText writes the kind's name.
func (k InputKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *InputKind) UnmarshalText(b []byte) error {
	i := slices.Index(inputKindNames, string(b))
	if i < 0 {
		return fmt.Errorf("input kind %q: want one of %s", b, strings.Join(inputKindNames, ", "))
	}
	*k = InputKind(i)
	return nil
}

// FileHash is one file of a folder input, by its name in the folder.
type FileHash struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// InputEntry is one input of a run: its name (the protocol field that
// names it, "protocol" for the protocol itself, "stack.<part>" for what
// the binary embeds), its kind, its path as the protocol writes it ("" for
// embedded inputs) and its hash; a folder lists its files too, and hashes
// to the hash of those lines.
type InputEntry struct {
	Name   string     `json:"name"`
	Kind   InputKind  `json:"kind"`
	Path   string     `json:"path,omitempty"`
	SHA256 string     `json:"sha256"`
	Files  []FileHash `json:"files,omitempty"`
}

// InputTree is the hash tree of everything a run reads: the protocol and
// every file it names, and the embedded scenarios, catalogue and contracts
// by the stack's hashes. Root is the SHA-256 of its entries' lines
// "kind name sha256 path". The lock records it and so does the manifest.
type InputTree struct {
	Root    string       `json:"root"`
	Entries []InputEntry `json:"entries"`
}

// seal computes the root from the entries.
func (t *InputTree) seal() {
	var b strings.Builder
	for _, e := range t.Entries {
		fmt.Fprintf(&b, "%s %s %s %s\n", e.Kind, e.Name, e.SHA256, e.Path)
	}
	t.Root = HashBytes([]byte(b.String()))
}

// entry returns the entry of a name.
func (t InputTree) entry(name string) (InputEntry, bool) {
	for _, e := range t.Entries {
		if e.Name == name {
			return e, true
		}
	}
	return InputEntry{}, false
}

// namedInput is one file a protocol names: the field, the kind and the
// path as written.
type namedInput struct {
	field string
	kind  InputKind
	path  string
}

// namedInputs lists every file the protocol names, in a fixed order: the
// scenario files, the catalogue (unless the embedded default), the contract
// files. A protocol field that names a new file (a core's prompt) adds its
// line here, and the lock, the manifest and the run folder's copies follow.
func namedInputs(p *Protocol) []namedInput {
	var list []namedInput
	for i, f := range p.Scenarios.Files {
		list = append(list, namedInput{fmt.Sprintf("scenarios.files[%d]", i), KindScenarios, f})
	}
	if p.Mutants.Catalogue != CatalogueDefault {
		list = append(list, namedInput{"mutants.catalogue", KindCatalogue, p.Mutants.Catalogue})
	}
	for i, f := range p.Contracts.Files {
		list = append(list, namedInput{fmt.Sprintf("contracts.files[%d]", i), KindContracts, f})
	}
	return append(list, promptInputs(p)...)
}

// inputTree builds the hash tree of what a plan reads: the protocol, each
// named file (read through path, which maps a name to the file to read:
// the protocol's folder, or a run folder's copies) and the stack's hashes
// of the scenarios, catalogue and contracts it resolved.
func inputTree(p *Protocol, pl *plan, path func(string) string) (InputTree, error) {
	t := InputTree{Entries: []InputEntry{{Name: "protocol", Kind: KindProtocol, Path: filepath.Base(p.Source), SHA256: p.SHA256}}}
	for _, n := range namedInputs(p) {
		e := InputEntry{Name: n.field, Kind: n.kind, Path: n.path}
		var err error
		if e.SHA256, e.Files, err = hashInput(path(n.path)); err != nil {
			return t, p.wrapf(n.field, err, "hash")
		}
		t.Entries = append(t.Entries, e)
	}
	for _, s := range []struct{ name, sha string }{
		{"stack.scenarios", pl.scenariosHash}, {"stack.catalogue", pl.catalogueHash}, {"stack.contracts", pl.contractsHash},
		{"stack.mission", HashBytes([]byte(pl.mission.Spec().Name + " " + pl.mission.Spec().Version))},
	} {
		t.Entries = append(t.Entries, InputEntry{Name: s.name, Kind: KindEmbedded, SHA256: s.sha})
	}
	t.Entries = append(t.Entries, pl.cores.treeEntries()...)
	t.seal()
	return t, nil
}

// hashInput hashes a file, or a folder's *.yaml and *.yml files (what the
// loaders read), each listed.
func hashInput(path string) (string, []FileHash, error) {
	names, dir, err := inputFiles(path)
	if err != nil {
		return "", nil, err
	}
	if !dir {
		data, err := os.ReadFile(path)
		if err != nil {
			return "", nil, err
		}
		return HashBytes(data), nil, nil
	}
	var files []FileHash
	var b strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(path, n))
		if err != nil {
			return "", nil, err
		}
		h := HashBytes(data)
		files = append(files, FileHash{Path: n, SHA256: h})
		fmt.Fprintf(&b, "%s  %s\n", h, n)
	}
	return HashBytes([]byte(b.String())), files, nil
}

// inputFiles lists what a run reads of path: the file itself, or a
// folder's *.yaml and *.yml files in name order.
func inputFiles(path string) (names []string, dir bool, err error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, false, err
	}
	if !info.IsDir() {
		return nil, false, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, true, err
	}
	for _, e := range entries { // ReadDir sorts by name
		if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
			names = append(names, e.Name())
		}
	}
	return names, true, nil
}

// Lock file layout: sha256sum's, so that `sha256sum -c FILE.sha256` in the
// protocol's folder checks every file, with comment lines (which sha256sum
// skips) carrying the tree: a header with the root, then per input a line
// "# input <kind> <name> <sha256> <path>" ("-" for no path) followed by
// its files' sha256sum lines.
const lockHeader = "# baton.lock/v2 root "

// formatLock writes a tree as a lock file.
func formatLock(t InputTree) []byte {
	var b bytes.Buffer
	b.WriteString(lockHeader + t.Root + "\n")
	for _, e := range t.Entries {
		fmt.Fprintf(&b, "# input %s %s %s %s\n", e.Kind, e.Name, e.SHA256, cmp.Or(e.Path, "-"))
		switch {
		case e.Path == "":
		case len(e.Files) == 0 && e.Kind != KindEmbedded:
			fmt.Fprintf(&b, "%s  %s\n", e.SHA256, e.Path)
		default:
			for _, f := range e.Files {
				fmt.Fprintf(&b, "%s  %s\n", f.SHA256, filepath.ToSlash(filepath.Join(e.Path, f.Path)))
			}
		}
	}
	return b.Bytes()
}

// errLegacyLock marks a lock written before locks covered the protocol's
// inputs: it holds the protocol's hash alone.
var errLegacyLock = errors.New("the lock holds the protocol file's hash alone (an older baton): it does not cover the files the protocol names; lock the protocol again")

// parseLock reads a lock file back into its tree. A file of one
// sha256sum line is a legacy lock: its tree holds the protocol entry only,
// and errLegacyLock says so.
func parseLock(file string, data []byte) (InputTree, error) {
	var t InputTree
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		switch {
		case strings.HasPrefix(text, lockHeader):
			t.Root = strings.TrimSpace(strings.TrimPrefix(text, lockHeader))
		case strings.HasPrefix(text, "# input "):
			f := strings.SplitN(strings.TrimPrefix(text, "# input "), " ", 4)
			var e InputEntry
			if len(f) != 4 || e.Kind.UnmarshalText([]byte(f[0])) != nil || f[1] == "" || f[2] == "" || (e.Kind != KindEmbedded && !isSHA256(f[2])) {
				return t, fmt.Errorf("%s:%d: want \"# input <kind> <name> <sha256> <path>\", got %q", file, line, text)
			}
			e.Name, e.SHA256 = f[1], f[2]
			if f[3] != "-" {
				e.Path = f[3]
			}
			t.Entries = append(t.Entries, e)
		case strings.HasPrefix(text, "#"), strings.TrimSpace(text) == "":
		case t.Root != "":
			// A file's sha256sum line, for sha256sum -c: the tree is in
			// the comments.
		default: // a legacy lock: the protocol's line alone
			fields := strings.Fields(text)
			if len(fields) < 2 || !isSHA256(fields[0]) {
				return t, fmt.Errorf("%s:%d: want \"<sha256>  <file>\", got %q", file, line, text)
			}
			t.Entries = append(t.Entries, InputEntry{Name: "protocol", Kind: KindProtocol, Path: fields[1], SHA256: strings.ToLower(fields[0])})
		}
	}
	if err := sc.Err(); err != nil {
		return t, fmt.Errorf("%s: %w", file, err)
	}
	if len(t.Entries) == 0 {
		return t, fmt.Errorf("%s: no hashes", file)
	}
	if t.Root == "" {
		return t, fmt.Errorf("%s: %w", file, errLegacyLock)
	}
	return t, nil
}

// isSHA256 reports whether s is a hex SHA-256.
func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// diffTrees lists, for a mismatch, each input whose hash differs, is new
// or is gone, by name and path.
func diffTrees(locked, now InputTree) []string {
	var out []string
	for _, e := range now.Entries {
		l, ok := locked.entry(e.Name)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s (%s) is not in the lock", e.Name, cmp.Or(e.Path, e.Kind.String())))
		case l.SHA256 != e.SHA256 || l.Path != e.Path:
			out = append(out, fmt.Sprintf("%s (%s) hashes to %s, the lock records %s (%s)", e.Name, cmp.Or(e.Path, e.Kind.String()), short(e.SHA256), short(l.SHA256), cmp.Or(l.Path, l.Kind.String())))
		}
	}
	for _, l := range locked.Entries {
		if _, ok := now.entry(l.Name); !ok {
			out = append(out, fmt.Sprintf("%s (%s) is locked but the protocol no longer names it", l.Name, cmp.Or(l.Path, l.Kind.String())))
		}
	}
	return out
}
