package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/baton-lab/baton/internal/version"
	"github.com/baton-lab/baton/reports"
)

// ManifestSchema identifies manifest.json's layout.
const ManifestSchema = "baton.manifest/v1"

// Files of a run folder.
const (
	ManifestFile = "manifest.json"
	ProtocolCopy = "protocol.yaml"
	StoreFile    = "runs.db"
	InputsDir    = "inputs"
	ResultsFile  = "results.json"
)

// Manifest is manifest.json: what a run was, with which versions of
// everything, and when. Started and Finished are the only wall-clock
// fields of a run folder besides the store's wall_ns column and WallMS.
type Manifest struct {
	Schema   string           `json:"schema"`
	Protocol ManifestProtocol `json:"protocol"`
	// Settings is the protocol as the run applied it (defaults filled in,
	// seed and trials overrides applied).
	Settings *Protocol `json:"settings"`
	Seed     uint64    `json:"seed"`
	Trials   int       `json:"trials"`

	Baton   string     `json:"baton"`
	Go      string     `json:"go"`
	Mission MissionRef `json:"mission"`
	Hashes  Hashes     `json:"hashes"`
	Inputs  []Input    `json:"inputs"`
	// Tree is the hash tree of everything the run read (the protocol, each
	// file it names, the stack's embedded inputs): the one a lock records.
	Tree InputTree `json:"inputs_tree"`
	// Deviations are the settings the run changed from its locked
	// protocol, each with its reason (Options.Deviate).
	Deviations []reports.Deviation `json:"deviations"`

	Builds    int      `json:"builds"`
	Scenarios int      `json:"scenarios"`
	Designs   []string `json:"designs"`
	Items     int      `json:"items"`

	Workers  int    `json:"workers"`
	Started  string `json:"started"`
	Finished string `json:"finished,omitempty"`
	Sessions int    `json:"sessions"` // 1, plus one per resume
	Complete bool   `json:"complete"`
	Valid    *bool  `json:"valid,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// WallMS is each design's summed wall-clock time (ms), kept here
	// rather than in results.json, which must be byte-stable.
	WallMS map[string]int64 `json:"wall_ms,omitempty"`
	// Models is what each model-backed agent ran on (models.go), and
	// ModelUse each design's model calls ("obs" the observation runs),
	// summed over sessions: answers made by an endpoint and served from
	// the cache depend on what the cache held, so, like WallMS, they are
	// kept here rather than in results.json.
	Models   []ModelProvenance           `json:"models,omitempty"`
	ModelUse map[string]reports.ModelUse `json:"model_use,omitempty"`
	// Selection is what the sweep executed and what it took from the
	// clean twins (selection.go), over every session.
	Selection *reports.Selection `json:"selection,omitempty"`
}

// ManifestProtocol identifies the protocol file a run used.
type ManifestProtocol struct {
	Name   string `json:"name"`
	Path   string `json:"path"` // absolute path of the original, "" for the embedded default
	SHA256 string `json:"sha256"`
	Locked bool   `json:"locked"`
}

// Hashes identify the catalogue, scenarios and contracts a run used.
type Hashes struct {
	Catalogue string `json:"catalogue"`
	Scenarios string `json:"scenarios"`
	Contracts string `json:"contracts"`
}

// Input is one file (or folder) the protocol names, as copied into the run
// folder: the protocol field, the path as written, the copy relative to the
// run folder and its hash.
type Input struct {
	Field  string `json:"field"`
	Path   string `json:"path"`
	Copy   string `json:"copy"`
	SHA256 string `json:"sha256"`
}

// batonVersion returns the main module's version and VCS revision.
func batonVersion() string { return version.String() }

func goVersion() string { return runtime.Version() }

// ReadManifest reads a run folder's manifest.json.
func ReadManifest(runDir string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(runDir, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("read manifest: %s: %w", filepath.Join(runDir, ManifestFile), err)
	}
	if m.Schema != ManifestSchema {
		return nil, fmt.Errorf("read manifest: %s: schema %q, want %q", filepath.Join(runDir, ManifestFile), m.Schema, ManifestSchema)
	}
	return &m, nil
}

func writeManifest(runDir string, m *Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	return writeAtomic(filepath.Join(runDir, ManifestFile), append(data, '\n'))
}

// VerifyRun checks that a run folder still stands for the protocol it ran:
// the folder's copy protocol.yaml must hash to the recorded hash and each
// input copy likewise ([ErrProtocolChanged]). The originals are not the
// record: a changed or removed original is no error ([OriginalChanges]
// notes it). It returns the manifest.
func VerifyRun(runDir string) (*Manifest, error) {
	m, err := ReadManifest(runDir)
	if err != nil {
		return nil, fmt.Errorf("verify run: %w", err)
	}
	data, err := os.ReadFile(filepath.Join(runDir, ProtocolCopy))
	if err != nil {
		return m, fmt.Errorf("verify run: %w", err)
	}
	if got := HashBytes(data); got != m.Protocol.SHA256 {
		return m, fmt.Errorf("verify run: %w: the run folder's %s hashes to %s, the run recorded %s", ErrProtocolChanged, ProtocolCopy, got, m.Protocol.SHA256)
	}
	for _, in := range m.Inputs {
		got, err := hashPath(filepath.Join(runDir, in.Copy))
		if err != nil {
			return m, fmt.Errorf("verify run: input %s: %w", in.Field, err)
		}
		if got != in.SHA256 {
			return m, fmt.Errorf("verify run: %w: input copy %s hashes to %s, the run recorded %s", ErrProtocolChanged, in.Copy, got, in.SHA256)
		}
	}
	return m, nil
}

// OriginalChanges notes, for a verified run folder, each original file —
// the protocol at its recorded path and every file it names — that changed
// since the run started (a removed one is not noted: the copy is the
// record). The run used its folder's copies, so the notes are for the
// reader, not a reason to refuse the run.
func OriginalChanges(m *Manifest) []string {
	if m.Protocol.Path == "" {
		return nil
	}
	var out []string
	note := func(what, path, recorded string, hash func(string) (string, error)) {
		got, err := hash(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			out = append(out, fmt.Sprintf("%s %s cannot be read (%v); the run folder's copy is what the run used", what, path, err))
		case got != recorded:
			out = append(out, fmt.Sprintf("%s %s changed since the run started (now %s, the run recorded %s); the run folder's copy is intact and is what the run used", what, path, short(got), short(recorded)))
		}
	}
	note("the original protocol", m.Protocol.Path, m.Protocol.SHA256, func(p string) (string, error) {
		data, err := os.ReadFile(p)
		return HashBytes(data), err
	})
	dir := filepath.Dir(m.Protocol.Path)
	for _, in := range m.Inputs {
		path := in.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		note("the original of "+in.Field, path, in.SHA256, hashPath)
	}
	return out
}

// copyInputs copies every file or folder the protocol names
// ([namedInputs]) into the run folder's inputs/, so the run can be resumed
// and replayed from the folder alone.
func copyInputs(p *Protocol, runDir string) ([]Input, error) {
	var out []Input
	for i, n := range namedInputs(p) {
		src := p.Path(n.path)
		copyRel := filepath.Join(InputsDir, fmt.Sprintf("%02d-%s", i, filepath.Base(src)))
		if err := copyPath(src, filepath.Join(runDir, copyRel)); err != nil {
			return nil, p.wrapf(n.field, err, "copy into the run folder")
		}
		h, err := hashPath(filepath.Join(runDir, copyRel))
		if err != nil {
			return nil, err
		}
		out = append(out, Input{Field: n.field, Path: n.path, Copy: filepath.ToSlash(copyRel), SHA256: h})
	}
	return out, nil
}

// copyPath copies a file, or a folder's *.yaml and *.yml files.
func copyPath(src, dst string) error {
	names, dir, err := inputFiles(src)
	if err != nil {
		return err
	}
	if !dir {
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return writeAtomic(dst, data)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, n := range names {
		if err := copyPath(filepath.Join(src, n), filepath.Join(dst, n)); err != nil {
			return err
		}
	}
	return nil
}

// hashPath hashes a file, or a folder's *.yaml and *.yml files (names and
// contents, in name order): what the loaders read of it ([hashInput]).
func hashPath(path string) (string, error) {
	h, _, err := hashInput(path)
	return h, err
}

// inputResolver maps the paths a protocol names to a run folder's copies.
func inputResolver(runDir string, inputs []Input) func(string) string {
	m := map[string]string{}
	for _, in := range inputs {
		m[in.Path] = filepath.Join(runDir, filepath.FromSlash(in.Copy))
	}
	return func(p string) string {
		if c, ok := m[p]; ok {
			return c
		}
		return p
	}
}
