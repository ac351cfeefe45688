package experiment

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/baton-lab/baton/reports"
)

// A run of a locked protocol runs it as registered. Options that change a
// setting of the protocol (Trials, Seed) are overrides: on a locked
// protocol they are refused unless Options.Deviate gives the reason, and
// then each is recorded as a [reports.Deviation] in the manifest and at the
// top of every report.

// overrides applies opt's overrides to p and returns each setting they
// change, with its protocol value and the value the run uses (the reason
// is left for the caller).
func overrides(p *Protocol, opt Options) ([]reports.Deviation, error) {
	if opt.Trials < 0 {
		return nil, fmt.Errorf("trials %d: want at least 1", opt.Trials)
	}
	var out []reports.Deviation
	if opt.Trials > 0 && opt.Trials != p.Trials {
		out = append(out, reports.Deviation{Setting: "trials", Locked: strconv.Itoa(p.Trials), Ran: strconv.Itoa(opt.Trials)})
		p.Trials = opt.Trials
	}
	if opt.Seed != nil && *opt.Seed != p.Seed {
		out = append(out, reports.Deviation{Setting: "seed", Locked: strconv.FormatUint(p.Seed, 10), Ran: strconv.FormatUint(*opt.Seed, 10)})
		p.Seed = *opt.Seed
	}
	return out, nil
}

// deviations decides whether a run may apply its overrides: freely on a
// protocol that is not locked (where Deviate has nothing to deviate from
// and is refused); on a locked one only with a reason, or when resuming a
// run whose manifest recorded the same deviations. It returns them with
// their reasons.
func deviations(path string, locked bool, devs []reports.Deviation, reason string, man *Manifest) ([]reports.Deviation, error) {
	reason = strings.TrimSpace(reason)
	switch {
	case !locked && reason != "":
		return nil, fmt.Errorf("deviate: the protocol is not locked, so there is nothing to deviate from (lock it with baton protocol lock, or drop --deviate)")
	case !locked:
		return nil, nil
	case len(devs) == 0 && reason != "":
		return nil, fmt.Errorf("deviate: no setting of the run differs from the locked protocol %s", path)
	case len(devs) == 0:
		return nil, nil
	case reason != "":
		for i := range devs {
			devs[i].Reason = reason
		}
		return devs, nil
	case man != nil && sameDeviations(man.Deviations, devs):
		return man.Deviations, nil
	}
	var list []string
	for _, d := range devs {
		list = append(list, fmt.Sprintf("--%s %s (locked: %s)", d.Setting, d.Ran, d.Locked))
	}
	return nil, fmt.Errorf("%w: %s is locked and %s change%s it; pass --deviate REASON to run anyway, recorded in the manifest and at the top of every report",
		ErrLockedOverride, path, strings.Join(list, " and "), map[bool]string{true: "s", false: ""}[len(list) == 1])
}

// sameDeviations reports whether a manifest recorded these deviations
// (reasons aside).
func sameDeviations(recorded, devs []reports.Deviation) bool {
	return slices.EqualFunc(recorded, devs, func(a, b reports.Deviation) bool {
		return a.Setting == b.Setting && a.Locked == b.Locked && a.Ran == b.Ran
	})
}

// lockState is a protocol's lock as a run read it: its tree (nil for
// none) and, for a legacy lock, the error saying so.
type lockState struct {
	tree   *InputTree
	legacy error
}

// preflight checks, before any work, everything a run can be refused for:
// the plan, what would discard the run late ([checkRunnable]), what the
// run reads against the lock (on a resume, the run folder's copies, read
// through path) and, on a resume, against the tree the run started with.
// It returns the plan and the tree.
func preflight(p *Protocol, st *Stack, path func(string) string, protocolPath string, lock lockState, runDir string, man *Manifest) (*plan, InputTree, error) {
	pl, err := resolve(p, st, path)
	if err != nil {
		return nil, InputTree{}, err
	}
	if err := checkRunnable(p, pl); err != nil {
		return nil, InputTree{}, err
	}
	tree, err := inputTree(p, pl, path)
	if err != nil {
		return nil, tree, err
	}
	if lock.tree != nil {
		if err := checkTree(protocolPath, lock.tree, lock.legacy, tree); err != nil {
			return nil, tree, err
		}
	}
	if man != nil && man.Tree.Root != "" && man.Tree.Root != tree.Root {
		return nil, tree, fmt.Errorf("%s: %w: its inputs hash to tree %s, the run started with %s (%s)", runDir, ErrProtocolChanged,
			short(tree.Root), short(man.Tree.Root), strings.Join(diffTrees(man.Tree, tree), "; "))
	}
	return pl, tree, nil
}

// annotate gives a run's results what the aggregation does not know: the
// pre-registration (locked, the inputs' hash tree, deviations) and the
// methods (mission, cores, designs).
func annotate(r *reports.Results, pl *plan, man *Manifest) {
	r.Protocol.Locked = man.Protocol.Locked
	r.Protocol.InputsSHA256 = man.Tree.Root
	r.Protocol.Deviations = slices.Clone(man.Deviations)
	r.Methods = methodsOf(pl, man.Models)
}

// methodsOf describes what a plan ran, for the reports' methods section:
// the mission and its version, each agent's core (a deterministic policy
// with the protocol's slip rates, or a model with its provenance from
// models) and each design's definition.
func methodsOf(pl *plan, models []ModelProvenance) reports.Methods {
	spec := pl.mission.Spec()
	out := reports.Methods{Mission: reports.MissionInfo{Name: spec.Name, Version: spec.Version}}
	for _, a := range spec.AgentNames() {
		if i := slices.IndexFunc(models, func(m ModelProvenance) bool { return m.Agent == string(a) }); i >= 0 {
			out.Cores = append(out.Cores, models[i].coreInfo())
			continue
		}
		c := reports.CoreInfo{Agent: string(a), Kind: reports.CorePolicy, Detail: "no slips"}
		if slips := pl.configuredSlips()[string(a)]; slips != "" {
			c.Detail = "slip rates " + slips
		}
		out.Cores = append(out.Cores, c)
	}
	for _, d := range pl.designs {
		blames := make([]string, len(d.Blames))
		for i, k := range d.Blames {
			blames[i] = k.String()
		}
		out.Designs = append(out.Designs, reports.DesignInfo{ID: d.ID, Name: d.Name, Doc: d.DocFor(spec),
			Base: d.Base, Params: d.Params.String(), Blames: blames})
	}
	return out
}
