package mission

import (
	"embed"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// goldenFS holds the reviewed golden files of the default scenarios
// (scenarios/golden/<scenario-id>.json, plus a README).
//
//go:embed scenarios/golden
var goldenFS embed.FS

// goldenDir is the directory of the default scenarios' golden files,
// relative to the mission package.
const goldenDir = "scenarios/golden"

// goldenFilePath returns the path of scenario id's golden file, relative to
// the mission package.
func goldenFilePath(id string) string { return goldenDir + "/" + id + ".json" }

// attachDefaultGoldens parses the embedded golden files and sets the
// goldens of every scenario of scs that has one recorded for its current
// version (same [ScenarioFingerprint]). A file for a scenario not in scs,
// or recorded for another version of it, is not used: that scenario keeps
// no goldens, so designs record them on the fly, and TestGoldenFiles fails
// until the file is re-recorded and reviewed. A file that does not parse,
// or whose scenario differs from its name, is an error. Each file's name
// and bytes are written to h, in name order, for [ScenariosHash].
func attachDefaultGoldens(scs []*Scenario, h io.Writer) error {
	names, err := fs.Glob(goldenFS, goldenDir+"/*.json")
	if err != nil {
		return fmt.Errorf("load golden files: %w", err)
	}
	slices.Sort(names)
	byID := make(map[string]*Scenario, len(scs))
	for _, sc := range scs {
		byID[sc.ID] = sc
	}
	for _, name := range names {
		data, err := goldenFS.ReadFile(name)
		if err != nil {
			return fmt.Errorf("load golden files: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
		f, err := ParseGoldenFile(name, data)
		if err != nil {
			return fmt.Errorf("load golden files: %w", err)
		}
		if id := strings.TrimSuffix(path.Base(name), ".json"); f.Scenario != id {
			return fmt.Errorf("load golden files: %s: scenario: file is named for %s, holds %q", name, id, f.Scenario)
		}
		sc := byID[f.Scenario]
		if sc == nil || f.ScenarioSHA256 != ScenarioFingerprint(sc) {
			continue
		}
		if sc.Golden, err = f.Goldens(); err != nil {
			return fmt.Errorf("load golden files: %s: %w", name, err)
		}
	}
	return nil
}
