package experiment

import (
	"fmt"
	"strings"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mutants"
	"github.com/baton-lab/baton/reports"
)

// NewStack wires baton's own packages over missions: each mission's
// scenarios, its mutant catalogue (the mutants package), its hand-off
// contracts (a protocol's contract files replace the default contract of
// each edge they cover), designs A-C and the reports.
func NewStack(missions *mission.Registry) *Stack {
	return &Stack{
		Missions:  missions,
		Scenarios: missionScenarios,
		Builds:    missionBuilds,
		Space:     missionSpace,
		Contracts: missionContracts,
		Design:    designs.ByID,
		Golden:    designs.PrepareGolden,
		Write:     reports.WriteAll,
	}
}

func missionScenarios(m mission.Mission, files []string) ([]*mission.Scenario, string, error) {
	all, hash, err := m.Scenarios()
	if err != nil {
		return nil, "", err
	}
	if len(files) > 0 {
		extra, err := m.LoadScenarios(files...)
		if err != nil {
			return nil, "", err
		}
		all = append(all, extra...)
		var b strings.Builder
		b.WriteString(hash)
		for _, f := range files {
			h, err := hashPath(f)
			if err != nil {
				return nil, "", err
			}
			b.WriteString("\n" + h)
		}
		hash = HashBytes([]byte(b.String()))
	}
	return all, hash, nil
}

func missionBuilds(m mission.Mission, catalogue, mode string) ([]BuildSpec, string, error) {
	var (
		cat *mutants.Catalogue
		err error
	)
	if catalogue == CatalogueDefault {
		cat, err = mutants.Default(m.Spec())
	} else {
		cat, err = mutants.Load(catalogue, nil, mode, m.Spec())
	}
	if err != nil {
		return nil, "", err
	}
	out, err := buildSpecs(cat, reports.OriginCatalogue)
	if err != nil {
		return nil, "", err
	}
	return out, cat.Hash(), nil
}

// buildSpecs are a catalogue's mutants as builds of the origin.
func buildSpecs(cat *mutants.Catalogue, origin string) ([]BuildSpec, error) {
	var err error
	out := make([]BuildSpec, 0, len(cat.Mutants))
	for _, mu := range cat.Mutants {
		b := BuildSpec{
			Info: reports.BuildInfo{
				ID: mu.ID, Class: string(mu.Class), Location: string(mu.Location()),
				Operator: mu.Operator, Description: mu.Description, Intent: mu.Intent, Origin: origin, Source: mu.Source,
			},
			Switch: mu.Switch,
		}
		if mu.VersionChange() {
			if b.Rebaseline, err = changedAgent(mu); err != nil {
				return nil, err
			}
		}
		out = append(out, b)
	}
	return out, nil
}

// missionSpace generates m's mutant space, samples it and encodes the
// sample as the catalogue file a run folder keeps: read back, so that each
// build's source is its entry in that file.
func missionSpace(m mission.Mission, perClass int, seed uint64) ([]BuildSpec, []byte, error) {
	spec := m.Spec()
	cat, _, err := mutants.Space(spec)
	if err != nil {
		return nil, nil, err
	}
	header := mutants.SpaceHeader(spec)
	if perClass > 0 {
		header += fmt.Sprintf("\nSampled: %d per class, seed %d.", perClass, seed)
	}
	data := mutants.Encode(cat.Sample(perClass, seed).Mutants, header)
	if cat, err = mutants.Parse(mutants.GeneratedName, data, spec); err != nil {
		return nil, nil, fmt.Errorf("generated space of mission %s: %w", spec.Name, err)
	}
	out, err := buildSpecs(cat, reports.OriginGenerated)
	return out, data, err
}

// changedAgent is the agent a mutant's change is a new version of: the
// agent of a core seam, the producer of an emitter's, the consumer of a
// parser's. A transport's change (routing, de-duplication) is no agent's
// release.
func changedAgent(mu *mutants.Mutant) (mission.Agent, error) {
	op, _ := mutants.OperatorByName(mu.Operator)
	e, _ := mission.ParseEdge(mu.Edge)
	switch {
	case mu.Agent != "":
		return mission.Agent(mu.Agent), nil
	case op != nil && op.Seam == mutants.SeamEmit:
		return e.From, nil
	case op != nil && op.Seam == mutants.SeamParse:
		return e.To, nil
	}
	return "", fmt.Errorf("%s: mutant %s: intent %s: operator %s changes the transport, which no agent's team releases", mu.Source, mu.ID, mu.Intent, mu.Operator)
}

func missionContracts(m mission.Mission, files []string) (designs.ContractChecker, string, error) {
	spec := m.Spec()
	if spec.Contracts == nil {
		return nil, "", fmt.Errorf("mission %s has no contracts", spec.Name)
	}
	set, err := contracts.LoadFS(spec.Contracts, "mission/"+spec.Name+"/contracts")
	if err != nil {
		return nil, "", err
	}
	if len(files) > 0 {
		user, err := contracts.Load(files...)
		if err != nil {
			return nil, "", err
		}
		set = set.Merge(user)
	}
	return set, set.Hash(), nil
}
