package experiment

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/baton-lab/baton/mutants"
	"github.com/baton-lab/baton/reports"
)

// generatedProtocol runs a seeded sample of the invoice mission's
// generated space, one mutant per class, beside the catalogue's controls.
const generatedProtocol = `name: generated
trials: 1
seed: 3
scenarios:
  ids: [S01, S14]
mutants:
  space: generated
  per_class: 1
  seed: 5
`

func TestGeneratedSpaceRun(t *testing.T) {
	_, dir, err := runProtocol(t, realStack(t), generatedProtocol, Options{Workers: 2})
	finished(t, err)
	var r reports.Results
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, ResultsFile)), &r); err != nil {
		t.Fatal(err)
	}
	spec := testMissions().Default().Spec()
	list := readFile(t, filepath.Join(dir, GeneratedList))
	cat, err := mutants.Parse(mutants.GeneratedName, list, spec)
	if err != nil {
		t.Fatalf("the run folder's list does not read back: %v", err)
	}
	var listed, generated, hand []string
	for _, m := range cat.Mutants {
		listed = append(listed, m.ID)
	}
	for _, b := range r.Mutants {
		switch b.Origin {
		case reports.OriginGenerated:
			generated = append(generated, b.ID)
			if !strings.HasPrefix(b.Source, mutants.GeneratedName+":") {
				t.Errorf("generated mutant %s: source %q, want its line in %s", b.ID, b.Source, mutants.GeneratedName)
			}
		default:
			hand = append(hand, b.ID)
			if b.Class != string(mutants.Control) {
				t.Errorf("hand-written mutant %s of class %s runs beside the generated space; only controls should", b.ID, b.Class)
			}
		}
	}
	slices.Sort(listed)
	slices.Sort(generated)
	if diff := cmp.Diff(listed, generated); diff != "" {
		t.Errorf("the run folder's list is not the generated mutants that ran (-list +ran):\n%s", diff)
	}
	if len(generated) != len(mutants.AllClasses) {
		t.Errorf("%d generated mutants, want one per class (%d)", len(generated), len(mutants.AllClasses))
	}
	if len(hand) == 0 || r.Validity.ControlMutants != len(hand) {
		t.Errorf("validity gated on %d control mutants, want the %d hand-written ones", r.Validity.ControlMutants, len(hand))
	}
	pv := r.Provenance
	if pv.Space != SpaceGenerated || pv.PerClass != 1 || pv.SampleSeed != 5 || pv.List != GeneratedList ||
		pv.Generated != len(generated) || pv.HandWritten != len(hand) || pv.CatalogueSHA256 == "" || pv.ContractsSHA256 == "" {
		t.Errorf("provenance = %+v", pv)
	}
	for _, d := range []string{"A", "B", "C"} {
		var rep struct {
			Files map[string]struct {
				Mutants []struct{ ID string } `json:"mutants"`
			} `json:"files"`
		}
		if err := json.Unmarshal(readFile(t, filepath.Join(dir, reports.MutationReportFile(d))), &rep); err != nil {
			t.Fatalf("%s: %v", reports.MutationReportFile(d), err)
		}
		var ids []string
		for _, f := range rep.Files {
			for _, m := range f.Mutants {
				ids = append(ids, m.ID)
			}
		}
		slices.Sort(ids)
		want := slices.Sorted(slices.Values(append(slices.Clone(hand), generated...)))
		if diff := cmp.Diff(want, ids); diff != "" {
			t.Errorf("%s lists (-want +got):\n%s", reports.MutationReportFile(d), diff)
		}
	}
}

func TestSpaceKeysNeedTheGeneratedSpace(t *testing.T) {
	_, err := ParseProtocol([]byte("mutants:\n  per_class: 3\n"), "p.yaml", "", testMissions())
	if err == nil || !strings.Contains(err.Error(), "mutants.per_class") {
		t.Errorf("per_class without the generated space: %v, want an error naming mutants.per_class", err)
	}
	p, err := ParseProtocol([]byte("mutants:\n  space: both\n  per_class: 3\n  seed: 9\n"), "p.yaml", "", testMissions())
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Mutants; got.Space != SpaceBoth || got.PerClass != 3 || got.SampleSeed != 9 {
		t.Errorf("mutants = %+v", got)
	}
}

// TestGeneratedListInTheHashes: the catalogue hash the manifest and the
// input tree record covers the exact list of generated mutants, so a
// different sample (or space) is a different run.
func TestGeneratedListInTheHashes(t *testing.T) {
	hash := func(mutantsYAML string) string {
		t.Helper()
		p, err := ParseProtocol([]byte(mutantsYAML), "p.yaml", "", testMissions())
		if err != nil {
			t.Fatal(err)
		}
		pl, err := resolve(p, realStack(t), p.Path)
		if err != nil {
			t.Fatal(err)
		}
		return pl.hashes().Catalogue
	}
	cat := hash("name: x\n")
	s5 := hash("mutants:\n  space: generated\n  per_class: 2\n  seed: 5\n")
	s6 := hash("mutants:\n  space: generated\n  per_class: 2\n  seed: 6\n")
	if cat == s5 || s5 == s6 {
		t.Errorf("catalogue hashes: catalogue %s, sample seed 5 %s, seed 6 %s: want all different", short(cat), short(s5), short(s6))
	}
	if again := hash("mutants:\n  space: generated\n  per_class: 2\n  seed: 5\n"); again != s5 {
		t.Errorf("the same sample hashes %s, then %s", short(s5), short(again))
	}
}

// TestBenignMutantOnTheMission runs a generated mutant that design C
// flags but that leaves every end state as the clean twin's (action no
// longer forwards bank_account; boundary pays from the supplier record):
// it is flagged_benign, and the harmful view counts none of its flags.
func TestBenignMutantOnTheMission(t *testing.T) {
	const benign = "drop_field.action-boundary.bank_account"
	_, dir, err := runProtocol(t, realStack(t), `name: benign
trials: 2
seed: 3
scenarios:
  ids: [S01, S14]
mutants:
  space: both
  ids: [`+benign+`, ctl-boundary-payment-currency]
designs: [C]
`, Options{Workers: 2})
	finished(t, err)
	var r reports.Results
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, ResultsFile)), &r); err != nil {
		t.Fatal(err)
	}
	for _, m := range r.Mutants {
		if m.ID == benign && (m.Status != reports.StatusFlaggedBenign || m.HarmfulRuns != 0 || len(m.DetectedBy) == 0) {
			t.Errorf("%s: status %s, %d harmful runs, detected by %v; want flagged_benign, 0, [C]", benign, m.Status, m.HarmfulRuns, m.DetectedBy)
		}
	}
	for _, h := range r.DetectionByMutantHarmful {
		if h.Build == benign && (h.Harmful != 0 || h.Detected != 0 || h.BenignDetected == 0) {
			t.Errorf("harmful view of %s: %+v; want no harmful trial, no detection, benign flags apart", benign, h)
		}
	}
}
