package experiment

import (
	"fmt"
	"strings"

	"github.com/baton-lab/baton/contracts"
	"github.com/baton-lab/baton/designs"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mutants"
	"github.com/baton-lab/baton/reports"
	"github.com/baton-lab/baton/sandbox"
)

// DefaultStack wires baton's own packages: the reference mission and its
// scenarios, the mutant catalogue, the hand-off contracts (a protocol's
// contract files replace the default contract of each edge they cover),
// designs A-C, the sandbox's end-state check and the reports.
func DefaultStack() (*Stack, error) {
	return &Stack{
		Mission:   mission.Reference(),
		Scenarios: defaultScenarios,
		Builds:    defaultBuilds,
		Contracts: defaultContracts,
		Design:    designs.ByID,
		Golden:    designs.PrepareGolden,
		Check:     sandbox.Check,
		Write:     reports.WriteAll,
	}, nil
}

func defaultScenarios(files []string) ([]*mission.Scenario, string, error) {
	all, err := mission.DefaultScenarios()
	if err != nil {
		return nil, "", err
	}
	hash := mission.ScenariosHash()
	if len(files) > 0 {
		extra, err := mission.LoadScenarios(files...)
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

func defaultBuilds(catalogue, mode string) ([]BuildSpec, string, error) {
	var (
		cat *mutants.Catalogue
		err error
	)
	if catalogue == CatalogueDefault {
		cat, err = mutants.Default()
	} else {
		cat, err = mutants.Load(catalogue, nil, mode)
	}
	if err != nil {
		return nil, "", err
	}
	out := make([]BuildSpec, 0, len(cat.Mutants))
	for _, m := range cat.Mutants {
		out = append(out, BuildSpec{
			Info: reports.BuildInfo{
				ID: m.ID, Class: string(m.Class), Location: string(m.Location()),
				Operator: m.Operator, Description: m.Description,
			},
			Switch: m.Switch,
		})
	}
	return out, cat.Hash(), nil
}

func defaultContracts(files []string) (designs.ContractChecker, string, error) {
	set, err := contracts.Default()
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
	if set == nil {
		return nil, "", fmt.Errorf("no contracts")
	}
	return set, set.Hash(), nil
}
