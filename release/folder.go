package release

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/baton-lab/baton/internal/folder"
)

// ErrHold and ErrInconclusive mark a release run whose verdict is not
// ship, for the command line's exit codes.
var (
	ErrHold         = errors.New("release decision: hold")
	ErrInconclusive = errors.New("release decision: inconclusive")
)

// Err returns nil for ship, or the verdict's error naming the candidate.
func (r *Result) Err() error {
	switch r.Verdict {
	case Hold:
		return fmt.Errorf("%w %s", ErrHold, r.Candidate.Name)
	case Inconclusive:
		return fmt.Errorf("%w on %s", ErrInconclusive, r.Candidate.Name)
	}
	return nil
}

// JSON returns the result as indented JSON with a final newline.
func (r *Result) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("encode release result: %w", err)
	}
	return b.Bytes(), nil
}

// NewFolder makes a new run folder under out: <protocol>-<seed>-release,
// then -2, -3, … when that exists.
func NewFolder(out, protocol string, seed uint64) (string, error) {
	return folder.New(out, fmt.Sprintf("%s-%d-release", protocol, seed))
}

// Manifest says what produced a release run folder: the binary, Go, the
// mission, and the SHA-256 of the protocol's bytes and of the mission's
// scenario suite.
type Manifest struct {
	Baton          string `json:"baton"`
	Go             string `json:"go"`
	Mission        string `json:"mission"`
	MissionVersion string `json:"mission_version"`
	ProtocolSHA256 string `json:"protocol_sha256"`
	SuiteSHA256    string `json:"suite_sha256"`
	Verdict        string `json:"verdict"`
}

// WriteFolder writes the protocol as run, manifest.json, results.json,
// report.md and report.html into dir; each file is written whole or not
// at all.
func WriteFolder(dir string, protocol []byte, man Manifest, r *Result) error {
	js, err := r.JSON()
	if err != nil {
		return err
	}
	sum := sha256.Sum256(protocol)
	man.ProtocolSHA256, man.Mission, man.MissionVersion, man.Verdict = hex.EncodeToString(sum[:]), r.Mission, r.MissionVersion, r.Verdict.String()
	mj, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	var md, page bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		return err
	}
	if err := WriteHTML(&page, r); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{"protocol.yaml", protocol}, {"manifest.json", append(mj, '\n')}, {"results.json", js}, {"report.md", md.Bytes()}, {"report.html", page.Bytes()}} {
		if err := writeAtomic(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
