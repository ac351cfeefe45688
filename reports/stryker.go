package reports

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// The mutation-testing-elements report: the JSON format of Stryker's
// report schema (stryker-mutator/mutation-testing-elements,
// packages/report-schema/src/mutation-testing-report-schema.json, schema
// version 2), which Stryker's HTML viewer and dashboard read, as PIT,
// Stryker4s, Stryker.NET and Infection write it. baton writes one per
// design: its mutants, grouped by the catalogue file whose entry defines
// each (a generated mutant's is the run folder's exact list), located at
// the entry's lines, with their status in that design, the scenarios that
// killed and covered them.

// MutationSchemaVersion is the schema version baton's mutation reports
// follow.
const MutationSchemaVersion = "2"

// Mutation report thresholds (the viewer's colours): a score at or above
// high is good, below low bad, as Stryker's defaults.
const (
	mutationHigh = 80
	mutationLow  = 60
)

// MutationSources is what a mutation report needs beside the results:
// the catalogue files the mutants' sources name, by that name, and the
// scenarios, which are the report's tests.
type MutationSources struct {
	Files map[string][]byte
	// TestFile names the group the tests are listed under (the mission's
	// scenarios, "mission/<name>/scenarios").
	TestFile string
	Tests    []MutationTest
}

// MutationTest is one test of a mutation report: a scenario.
type MutationTest struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// SetMutationSources makes [WriteAll] and [Files] include a mutation
// report per design ([MutationReportFile]). A Results read back from
// results.json has none set, so re-rendering leaves the reports as they
// were.
func (r *Results) SetMutationSources(src *MutationSources) { r.sources = src }

// MutationReportFile is the name of a design's mutation report in the run
// folder.
func MutationReportFile(design string) string { return "mutation-report-" + design + ".json" }

// mutationFiles lists the mutation reports of r, one per design, when r
// has its sources.
func mutationFiles(r *Results) []File {
	if r.sources == nil {
		return nil
	}
	designs, _ := designsAndClasses(r)
	out := make([]File, 0, len(designs))
	for _, d := range designs {
		out = append(out, File{MutationReportFile(d), func(w io.Writer) error {
			b, err := MutationReport(r, d, r.sources)
			if err == nil {
				_, err = w.Write(b)
			}
			return err
		}})
	}
	return out
}

// Stryker's mutant statuses.
const (
	strykerKilled     = "Killed"
	strykerSurvived   = "Survived"
	strykerNoCoverage = "NoCoverage"
	strykerIgnored    = "Ignored"
	strykerPending    = "Pending"
)

// strykerStatus maps a baton status to the schema's, with the reason. A
// mutant that did no harm is Ignored, so the viewer's mutation score
// counts only harmful mutants: killed over killed plus survived plus not
// covered, the harmful view of detection.
func strykerStatus(status string) (string, string) {
	switch status {
	case StatusKilled:
		return strykerKilled, "detected in a trial in which it did harm"
	case StatusSurvived:
		return strykerSurvived, "harmful in some trial (an end state differed from the clean twin's), its harmful trials never detected"
	case StatusNoCoverage:
		return strykerNoCoverage, "no scenario reached its target"
	case StatusFlaggedBenign:
		return strykerIgnored, "flagged_benign: detected, but it never did harm (no end state differed from the clean twin's): a violation that did no damage"
	case StatusBenign:
		return strykerIgnored, "benign: its trace changed, its end state never did"
	case StatusEquivalent:
		return strykerIgnored, "equivalent: it reached its target and changed no trace"
	}
	return strykerPending, "not observed: no integrated run to compare with its clean twin"
}

type strykerPosition struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

type strykerLocation struct {
	Start strykerPosition `json:"start"`
	End   strykerPosition `json:"end"`
}

type strykerMutant struct {
	ID             string          `json:"id"`
	MutatorName    string          `json:"mutatorName"`
	Description    string          `json:"description,omitempty"`
	Location       strykerLocation `json:"location"`
	Status         string          `json:"status"`
	StatusReason   string          `json:"statusReason"`
	KilledBy       []string        `json:"killedBy,omitempty"`
	CoveredBy      []string        `json:"coveredBy"`
	TestsCompleted int             `json:"testsCompleted"`
}

type strykerFile struct {
	Language string          `json:"language"`
	Source   string          `json:"source"`
	Mutants  []strykerMutant `json:"mutants"`
}

type strykerTests struct {
	Tests []MutationTest `json:"tests"`
}

type strykerReport struct {
	SchemaVersion string                  `json:"schemaVersion"`
	Thresholds    map[string]int          `json:"thresholds"`
	Framework     map[string]string       `json:"framework"`
	Config        map[string]any          `json:"config"`
	Files         map[string]*strykerFile `json:"files"`
	TestFiles     map[string]strykerTests `json:"testFiles"`
}

// MutationReport returns design's mutation-testing-elements report of r:
// each mutant with its status in that design (see [strykerStatus]),
// killedBy the scenarios in which the design detected it (for a killed
// mutant), coveredBy those in which its seam reached its target, located
// at its catalogue entry. The bytes are the same for the same results.
func MutationReport(r *Results, design string, src *MutationSources) ([]byte, error) {
	if src == nil {
		src = &MutationSources{}
	}
	killedBy := map[string][]string{}
	for _, x := range r.DetectionByScenario {
		if x.Design == design && x.Detected > 0 {
			killedBy[x.Build] = append(killedBy[x.Build], x.Scenario)
		}
	}
	rep := strykerReport{
		SchemaVersion: MutationSchemaVersion,
		Thresholds:    map[string]int{"high": mutationHigh, "low": mutationLow},
		Framework:     map[string]string{"name": "baton"},
		Config: map[string]any{"design": design, "protocol": r.Protocol.Name, "protocol_sha256": r.Protocol.SHA256, "seed": r.Protocol.Seed,
			"trials": r.Protocol.Trials, "contract_level": r.Protocol.ContractLevel, "mutants": r.Provenance},
		Files:     map[string]*strykerFile{},
		TestFiles: map[string]strykerTests{cmp.Or(src.TestFile, "scenarios"): {Tests: src.Tests}},
	}
	if src.Tests == nil {
		rep.TestFiles[cmp.Or(src.TestFile, "scenarios")] = strykerTests{Tests: []MutationTest{}}
	}
	if r.baton != "" {
		rep.Framework["version"] = r.baton
	}
	locs := entryLocations(r.Mutants, src.Files)
	for _, x := range r.Mutants {
		file, loc := locs[x.ID].file, locs[x.ID].loc
		f := rep.Files[file]
		if f == nil {
			f = &strykerFile{Language: "yaml", Source: string(src.Files[file])}
			rep.Files[file] = f
		}
		status, reason := strykerStatus(cmp.Or(x.Statuses[design], x.Status))
		m := strykerMutant{ID: x.ID, MutatorName: x.Operator, Description: x.Description, Location: loc, Status: status,
			StatusReason: reason, CoveredBy: x.CoveredBy, TestsCompleted: len(src.Tests)}
		if m.CoveredBy == nil {
			m.CoveredBy = []string{}
		}
		switch {
		case status == strykerKilled:
			m.KilledBy = killedBy[x.ID]
		case len(killedBy[x.ID]) > 0:
			m.StatusReason += "; flagged in " + strings.Join(killedBy[x.ID], ", ")
		}
		f.Mutants = append(f.Mutants, m)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return nil, fmt.Errorf("mutation report %s: %w", design, err)
	}
	return b.Bytes(), nil
}

// entryLocation is where a mutant's catalogue entry sits.
type entryLocation struct {
	file string
	loc  strykerLocation
}

// entryLocations places each mutant at its catalogue entry: from the line
// its source names to the line before the next entry of the same file (or
// the file's end), blank and comment lines at the end left out. A mutant
// without a source sits at line 1 of "mutants.yaml".
func entryLocations(rows []MutantRow, files map[string][]byte) map[string]entryLocation {
	type entry struct {
		id   string
		line int
	}
	byFile := map[string][]entry{}
	for _, x := range rows {
		file, line := splitFileLine(x.Source)
		byFile[file] = append(byFile[file], entry{x.ID, line})
	}
	out := make(map[string]entryLocation, len(rows))
	for file, es := range byFile {
		lines := strings.Split(string(files[file]), "\n")
		slices.SortStableFunc(es, func(a, b entry) int { return cmp.Compare(a.line, b.line) })
		for i, e := range es {
			end := len(lines)
			if i+1 < len(es) && es[i+1].line > e.line {
				end = es[i+1].line - 1
			}
			for end > e.line && end <= len(lines) && isBlankOrComment(lines[end-1]) {
				end--
			}
			end = max(end, e.line)
			startCol, endCol := 1, 1
			if e.line <= len(lines) {
				startCol = len(lines[e.line-1]) - len(strings.TrimLeft(lines[e.line-1], " ")) + 1
			}
			if end <= len(lines) {
				endCol = len(lines[end-1]) + 1
			}
			out[e.id] = entryLocation{file: file, loc: strykerLocation{
				Start: strykerPosition{Line: e.line, Column: startCol},
				End:   strykerPosition{Line: end, Column: max(endCol, 1)},
			}}
		}
	}
	return out
}

func isBlankOrComment(l string) bool {
	t := strings.TrimSpace(l)
	return t == "" || strings.HasPrefix(t, "#")
}

// splitFileLine splits "file:line"; without a line it is line 1, and
// without a source the file is "mutants.yaml".
func splitFileLine(s string) (string, int) {
	if s == "" {
		return "mutants.yaml", 1
	}
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 1
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n < 1 {
		return s, 1
	}
	return s[:i], n
}
