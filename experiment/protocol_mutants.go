package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/baton-lab/baton/input"
	"github.com/baton-lab/baton/mutants"
	"github.com/baton-lab/baton/reports"
)

// Mutant spaces a protocol may run (mutants.space).
const (
	// SpaceCatalogue runs the catalogue's hand-written mutants (the
	// default).
	SpaceCatalogue = "catalogue"
	// SpaceGenerated runs the mission's generated space (every operator
	// at every site, whole or sampled per class), with the catalogue's
	// hand-written control mutants as the run's validity gate.
	SpaceGenerated = "generated"
	// SpaceBoth runs the catalogue's mutants and the generated space.
	SpaceBoth = "both"
)

// Spaces lists the mutant spaces, in documentation order.
var Spaces = []string{SpaceCatalogue, SpaceGenerated, SpaceBoth}

// GeneratedList is where a run folder keeps the exact list of the
// generated mutants it ran, as a catalogue file.
const GeneratedList = InputsDir + "/mutants.generated.yaml"

// space returns the protocol's mutant space, "catalogue" when unset.
func (s MutantSelection) space() string {
	if s.Space == "" {
		return SpaceCatalogue
	}
	return s.Space
}

// generated reports whether the protocol runs the generated space.
func (s MutantSelection) generated() bool { return s.space() != SpaceCatalogue }

// checkSpace checks the generated-space keys: a known space, a sample
// size of 0 or more, and no sample size or seed without the generated
// space (an error, not a silent no-op).
func checkSpace(d *input.Decoder, m MutantSelection) {
	if m.Space != "" {
		d.OneOf("mutants.space", "space", m.Space, Spaces)
	}
	d.Check(m.PerClass >= 0, "mutants.per_class", "%d: want 0 (the whole space) or more", m.PerClass)
	if m.generated() {
		return
	}
	for _, k := range []string{"mutants.per_class", "mutants.seed"} {
		d.Check(!d.Has(k), k, "only with mutants.space %s or %s (space is %s)", SpaceGenerated, SpaceBoth, m.space())
	}
}

// resolveSpace adds the generated space to the catalogue's builds when
// the protocol asks for it: for "generated" only the catalogue's control
// mutants stay (the run's validity gate), for "both" all of them. The
// catalogue hash then covers the exact list too.
func (pl *plan) resolveSpace(muts []BuildSpec) ([]BuildSpec, error) {
	p := pl.proto
	if !p.Mutants.generated() {
		return muts, nil
	}
	if pl.stack.Space == nil {
		return nil, p.errorf("mutants.space", "%s: this stack has no generated space", p.Mutants.space())
	}
	gen, list, err := pl.stack.Space(pl.mission, p.Mutants.PerClass, p.Mutants.SampleSeed)
	if err != nil {
		return nil, p.wrapf("mutants.space", err, "generate")
	}
	var out []BuildSpec
	for _, b := range muts {
		if p.Mutants.space() == SpaceBoth || b.Info.Class == string(mutants.Control) {
			out = append(out, b)
		}
	}
	pl.generated = list
	pl.catalogueHash = HashBytes([]byte(pl.catalogueHash + "\n" + HashBytes(list)))
	return append(out, gen...), nil
}

// catalogueSource records the hand-written catalogue's file, as its
// builds' sources name it, for the mutation reports.
func (pl *plan) catalogueSource(cat string) {
	spec := pl.mission.Spec()
	if cat == CatalogueDefault {
		pl.catalogueFile, pl.catalogueData = spec.Catalogue.Name, spec.Catalogue.Data
		return
	}
	pl.catalogueFile = cat
	pl.catalogueData, _ = os.ReadFile(cat) // the loader read it already; the report shows no source if it is gone
}

// provenance is the report's account of where the mutants and contracts
// came from.
func (pl *plan) provenance() reports.Provenance {
	m := pl.proto.Mutants
	pv := reports.Provenance{Space: m.space(), Catalogue: m.Catalogue, CatalogueSHA256: pl.catalogueHash, ContractsSHA256: pl.contractsHash}
	if m.generated() {
		pv.PerClass, pv.SampleSeed, pv.List = m.PerClass, m.SampleSeed, GeneratedList
	}
	return pv
}

// mutationSources are what the mutation reports need: the catalogue
// files the builds' sources name and the scenarios, the reports' tests.
func (pl *plan) mutationSources() *reports.MutationSources {
	spec := pl.mission.Spec()
	src := &reports.MutationSources{Files: map[string][]byte{}, TestFile: "mission/" + spec.Name + "/scenarios"}
	if pl.catalogueFile != "" {
		src.Files[pl.catalogueFile] = pl.catalogueData
	}
	if pl.generated != nil {
		src.Files[mutants.GeneratedName] = pl.generated
	}
	for _, sc := range pl.scenarios {
		src.Tests = append(src.Tests, reports.MutationTest{ID: sc.ID, Name: strings.TrimSpace(sc.ID + " " + sc.Title)})
	}
	return src
}

// keepGenerated writes the exact list of the generated mutants the plan
// runs into the run folder ([GeneratedList]); the catalogue hash of the
// manifest and the input tree covers it.
func (pl *plan) keepGenerated(runDir string) error {
	if pl.generated == nil {
		return nil
	}
	dst := filepath.Join(runDir, GeneratedList)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("keep the generated mutants: %w", err)
	}
	if err := writeAtomic(dst, pl.generated); err != nil {
		return fmt.Errorf("keep the generated mutants: %w", err)
	}
	return nil
}
