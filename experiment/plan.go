package experiment

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/coordination"
	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/reports"
	"github.com/baton-lab/baton/sandbox"
)

// ObservationDesign is the design token of an observation item in item
// ids ("clean/obs/S01/3"); its Design field is "".
const ObservationDesign = "obs"

// plan is a protocol resolved against a stack: the builds (clean first),
// scenarios, designs and contracts a sweep runs, and the run environment.
type plan struct {
	proto     *Protocol
	stack     *Stack
	mission   mission.Mission
	builds    []BuildSpec
	scenarios []*mission.Scenario
	golden    [][]mission.Golden // per scenario, the clean build's; nil when the stack prepares none
	// rebased holds, per build that re-records its changed agent's
	// goldens (BuildSpec.Rebaseline), its goldens per scenario.
	rebased map[int][][]mission.Golden
	designs []designs.Design
	checker designs.ContractChecker
	level   contracts.Level
	env     mission.Env
	trials  int
	seed    uint64

	catalogueHash, scenariosHash, contractsHash string
	// generated is the catalogue file of the generated mutants the plan
	// runs (nil for the catalogue space): the run folder keeps it.
	generated []byte
	// catalogueFile is the hand-written catalogue's file as the builds'
	// sources name it, and its bytes.
	catalogueFile string
	catalogueData []byte

	// cores are the agents played by a model (models.go).
	cores *coreSet
	// coord derives the observation runs' coordination records; verdicts
	// remembers their verdicts.
	coord    *coordination.Deriver
	verdicts *verdictMemo
	// noted are the mistakes counted on the clean units the sweep
	// executed (mistakes.go).
	noted cleanNotes

	buildIdx, scenarioIdx, designIdx map[string]int
}

// slots is the number of items per (build, scenario, trial): one per design
// and the observation run (slot 0).
func (pl *plan) slots() int { return len(pl.designs) + 1 }

// units is the number of (build, scenario, trial) units.
func (pl *plan) units() int { return len(pl.builds) * len(pl.scenarios) * pl.trials }

// perBuild is the number of work items of one build.
func (pl *plan) perBuild() int { return len(pl.scenarios) * pl.trials * pl.slots() }

// total is the number of work items.
func (pl *plan) total() int { return pl.units() * pl.slots() }

// unit is one (build, scenario, trial); index orders units: builds in
// plan order (clean first), then scenarios, then trials.
type unit struct {
	index    int
	build    int
	scenario int
	trial    int // 1-based
}

func (pl *plan) unitAt(i int) unit {
	per := len(pl.scenarios) * pl.trials
	return unit{index: i, build: i / per, scenario: (i % per) / pl.trials, trial: i%pl.trials + 1}
}

func (pl *plan) unitIndex(build, scenario, trial int) int {
	return (build*len(pl.scenarios)+scenario)*pl.trials + trial - 1
}

// ItemID returns the stable id of a work item: build/design/scenario/trial,
// with design "obs" for the observation run.
func ItemID(build, design, scenario string, trial int) string {
	if design == "" {
		design = ObservationDesign
	}
	return build + "/" + design + "/" + scenario + "/" + strconv.Itoa(trial)
}

// ParseItemID splits an item id; design is "" for an observation item.
func ParseItemID(id string) (build, design, scenario string, trial int, err error) {
	parts := strings.Split(id, "/")
	if len(parts) != 4 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", 0, fmt.Errorf("item id %q: want build/design/scenario/trial", id)
	}
	trial, err = strconv.Atoi(parts[3])
	if err != nil || trial < 1 || strconv.Itoa(trial) != parts[3] {
		return "", "", "", 0, fmt.Errorf("item id %q: trial %q: want a whole number from 1", id, parts[3])
	}
	design = parts[1]
	if design == ObservationDesign {
		design = ""
	}
	return parts[0], design, parts[2], trial, nil
}

// TrialSeed returns the seed of a trial: the same for every build and
// design, so each mutated item has a clean twin under the same seed.
func TrialSeed(master uint64, scenario string, trial int) uint64 {
	return sandbox.HashSeed(master, scenario, strconv.Itoa(trial))
}

// resolve checks a protocol against a stack and returns the sweep's plan.
// path maps a path the protocol names to the file to read (the protocol's
// folder, or a run folder's copies). Errors name the protocol's file, line
// and field.
func resolve(p *Protocol, st *Stack, path func(string) string) (*plan, error) {
	pl := &plan{proto: p, stack: st, level: p.Level(), env: p.Env(), trials: p.Trials, seed: p.Seed,
		coord: coordination.NewDeriver(), verdicts: &verdictMemo{}}
	if err := st.check(); err != nil {
		return nil, err
	}
	m, ok := st.Missions.Lookup(p.Mission.Name)
	if !ok {
		return nil, p.errorf("mission.name", "%q: this baton runs %s", p.Mission.Name, st.Missions.Names())
	}
	pl.mission = m
	if spec := m.Spec(); p.Mission.Version != "" && p.Mission.Version != spec.Version {
		return nil, p.errorf("mission.version", "%q: this baton runs %s version %q", p.Mission.Version, spec.Name, spec.Version)
	}
	for _, step := range []func(path func(string) string) error{pl.resolveScenarios, pl.resolveBuilds, pl.resolveContracts, pl.resolveDesigns, pl.resolveCores} {
		if err := step(path); err != nil {
			return nil, err
		}
	}
	if err := pl.index(); err != nil {
		return nil, err
	}
	return pl, nil
}

// paths maps the paths a protocol names to the files to read.
func paths(names []string, path func(string) string) []string {
	files := make([]string, len(names))
	for i, f := range names {
		files[i] = path(f)
	}
	return files
}

// resolveScenarios loads the mission's scenarios and the protocol's files
// and selects the plan's.
func (pl *plan) resolveScenarios(path func(string) string) error {
	p := pl.proto
	all, hash, err := pl.stack.Scenarios(pl.mission, paths(p.Scenarios.Files, path))
	if err != nil {
		return p.wrapf("scenarios.files", err, "load")
	}
	pl.scenariosHash = hash
	pl.scenarios, err = selectScenarios(p, all)
	return err
}

// resolveBuilds loads the catalogue and selects the plan's builds: clean
// first, then the selected mutants in catalogue order.
func (pl *plan) resolveBuilds(path func(string) string) error {
	p := pl.proto
	cat := p.Mutants.Catalogue
	if cat != CatalogueDefault {
		cat = path(cat)
	}
	muts, hash, err := pl.stack.Builds(pl.mission, cat, p.Mutants.Mode)
	if err != nil {
		return p.wrapf("mutants.catalogue", err, "load")
	}
	pl.catalogueHash = hash
	if muts, err = pl.resolveSpace(muts); err != nil {
		return err
	}
	pl.catalogueSource(cat)
	pl.builds = []BuildSpec{CleanBuild()}
	known := map[string]bool{}
	for _, b := range muts {
		known[b.Info.ID] = true
	}
	for i, id := range p.Mutants.IDs {
		if !known[id] {
			return p.errorf(fmt.Sprintf("mutants.ids[%d]", i), "unknown mutant %q", id)
		}
	}
	for _, b := range muts {
		if len(p.Mutants.IDs) > 0 && !slices.Contains(p.Mutants.IDs, b.Info.ID) {
			continue
		}
		if len(p.Mutants.Classes) > 0 && !slices.Contains(p.Mutants.Classes, b.Info.Class) {
			continue
		}
		if b.Info.ID == reports.CleanBuild || strings.Contains(b.Info.ID, "/") {
			return p.errorf("mutants.catalogue", "mutant id %q cannot name a build", b.Info.ID)
		}
		pl.builds = append(pl.builds, b)
	}
	return nil
}

// resolveContracts loads the contract checker.
func (pl *plan) resolveContracts(path func(string) string) error {
	p := pl.proto
	var err error
	pl.checker, pl.contractsHash, err = pl.stack.Contracts(pl.mission, paths(p.Contracts.Files, path))
	if err != nil {
		return p.wrapf("contracts.files", err, "load")
	}
	return nil
}

// resolveDesigns looks the protocol's designs up.
func (pl *plan) resolveDesigns(func(string) string) error {
	defaults := designs.Params{Inputs: pl.proto.DesignAInputs, Contracts: pl.level.String()}
	for i, id := range pl.proto.Designs {
		d, ok := pl.stack.Design(id)
		if !ok || d.Evaluate == nil {
			return pl.proto.errorf(fmt.Sprintf("designs[%d]", i), "unknown design %q", id)
		}
		pl.designs = append(pl.designs, d.With(defaults))
	}
	return nil
}

// index numbers the plan's builds, scenarios and designs; a build id
// listed twice is an error.
func (pl *plan) index() error {
	pl.buildIdx = map[string]int{}
	for i, b := range pl.builds {
		if _, dup := pl.buildIdx[b.Info.ID]; dup {
			return pl.proto.errorf("mutants.catalogue", "mutant id %q listed twice", b.Info.ID)
		}
		pl.buildIdx[b.Info.ID] = i
	}
	pl.scenarioIdx = map[string]int{}
	for i, sc := range pl.scenarios {
		pl.scenarioIdx[sc.ID] = i
	}
	pl.designIdx = map[string]int{"": 0}
	for i, d := range pl.designs {
		pl.designIdx[d.ID] = i + 1
	}
	return nil
}

// prepare records each scenario's golden expectations once, and each
// build's own where its team re-recorded them.
func (pl *plan) prepare() error {
	pl.golden = make([][]mission.Golden, len(pl.scenarios))
	if pl.stack.Golden == nil {
		return nil
	}
	for si := range pl.scenarios {
		if err := pl.prepareScenario(si, -1); err != nil {
			return err
		}
	}
	return nil
}

// prepareOne records one scenario's golden expectations, and build bi's
// own (replay needs no more).
func (pl *plan) prepareOne(bi, si int) error {
	pl.golden = make([][]mission.Golden, len(pl.scenarios))
	if pl.stack.Golden == nil {
		return nil
	}
	return pl.prepareScenario(si, bi)
}

// prepareScenario records scenario si's clean goldens and those of every
// build that re-records them (only build bi's when bi >= 0).
func (pl *plan) prepareScenario(si, bi int) error {
	sc := pl.scenarios[si]
	g, err := pl.stack.Golden(pl.mission, sc)
	if err != nil {
		return fmt.Errorf("prepare scenario %s: %w", sc.ID, err)
	}
	pl.golden[si] = g
	for i, b := range pl.builds {
		if b.Rebaseline == "" || bi >= 0 && i != bi {
			continue
		}
		rg, err := rebaseline(pl.mission, b, sc, g)
		if err != nil {
			return fmt.Errorf("prepare scenario %s for build %s: %w", sc.ID, b.Info.ID, err)
		}
		if pl.rebased == nil {
			pl.rebased = map[int][][]mission.Golden{}
		}
		if pl.rebased[i] == nil {
			pl.rebased[i] = make([][]mission.Golden, len(pl.scenarios))
		}
		pl.rebased[i][si] = rg
	}
	return nil
}

// goldenOf returns the goldens build bi's designs score scenario si
// against: the build's own where its team re-recorded them, else the
// clean build's.
func (pl *plan) goldenOf(bi, si int) []mission.Golden {
	if g := pl.rebased[bi]; g != nil && g[si] != nil {
		return g[si]
	}
	return pl.golden[si]
}

// selectScenarios applies the protocol's selection: the union of the listed
// ids and the scenarios carrying an included tag (all when both are empty),
// minus those carrying an excluded tag; in id order.
func selectScenarios(p *Protocol, all []*mission.Scenario) ([]*mission.Scenario, error) {
	ids := map[string]string{} // id -> where it is defined
	tags := map[string]bool{}
	for _, sc := range all {
		if strings.Contains(sc.ID, "/") {
			return nil, p.errorf("scenarios", "scenario id %q contains '/'", sc.ID)
		}
		if first, dup := ids[sc.ID]; dup {
			return nil, p.errorf("scenarios.files", "scenario id %q defined twice: in %s and in %s", sc.ID, first, sc.Source)
		}
		ids[sc.ID] = sc.Source
		for _, t := range sc.Tags {
			tags[t] = true
		}
	}
	for i, id := range p.Scenarios.IDs {
		if _, ok := ids[id]; !ok {
			return nil, p.errorf(fmt.Sprintf("scenarios.ids[%d]", i), "unknown scenario %q", id)
		}
	}
	for _, l := range []struct {
		field string
		tags  []string
	}{{"scenarios.include_tags", p.Scenarios.IncludeTags}, {"scenarios.exclude_tags", p.Scenarios.ExcludeTags}} {
		for i, t := range l.tags {
			if !tags[t] {
				return nil, p.errorf(fmt.Sprintf("%s[%d]", l.field, i), "unknown tag %q: no scenario carries it", t)
			}
		}
	}
	var out []*mission.Scenario
	for _, sc := range all {
		in := len(p.Scenarios.IDs) == 0 && len(p.Scenarios.IncludeTags) == 0
		in = in || slices.Contains(p.Scenarios.IDs, sc.ID) || anyTag(sc, p.Scenarios.IncludeTags)
		if in && !anyTag(sc, p.Scenarios.ExcludeTags) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return nil, p.errorf("scenarios", "selects no scenario")
	}
	slices.SortFunc(out, func(a, b *mission.Scenario) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

func anyTag(sc *mission.Scenario, tags []string) bool {
	for _, t := range tags {
		if slices.Contains(sc.Tags, t) {
			return true
		}
	}
	return false
}

// config returns the aggregation's configuration.
func (pl *plan) config() reports.Config {
	cfg := reports.Config{
		Protocol: reports.ProtocolInfo{
			Name: pl.proto.Name, SHA256: pl.proto.SHA256, Seed: pl.seed,
			Trials: pl.trials, ContractLevel: pl.level.String(),
		},
		CostWeights: pl.proto.CostWeights,
		Thresholds:  pl.proto.Thresholds,
		Provenance:  pl.provenance(),
	}
	for _, d := range pl.designs {
		cfg.Designs = append(cfg.Designs, d.ID)
	}
	for _, b := range pl.builds {
		cfg.Builds = append(cfg.Builds, b.Info)
	}
	for _, sc := range pl.scenarios {
		cfg.Scenarios = append(cfg.Scenarios, reports.ScenarioInfo{ID: sc.ID, Category: string(sc.Category)})
	}
	return cfg
}
