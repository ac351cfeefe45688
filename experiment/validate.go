package experiment

import (
	"fmt"
	"slices"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mutants"
)

// Validate loads the protocol at path (the default mission's default
// protocol when path is "") and checks it against missions exactly as a
// run would: its mission, scenarios, tags, mutants and contract files. It
// also refuses what a run would only find out after all its work
// ([checkRunnable]): no control mutant selected. It runs nothing. `baton
// protocol lock` validates before it locks, so that a protocol that could
// not run, or whose run would be discarded, is never pre-registered.
func Validate(missions *mission.Registry, path string) (*Protocol, error) {
	p, _, err := validate(path, NewStack(missions))
	return p, err
}

// validate is [Validate] against a stack, with the plan it resolved.
func validate(path string, st *Stack) (*Protocol, *plan, error) {
	if st == nil {
		return nil, nil, fmt.Errorf("validate protocol: %w", ErrNoStack)
	}
	if err := st.check(); err != nil {
		return nil, nil, err
	}
	p, err := DefaultProtocol(st.Missions)
	if err != nil {
		return nil, nil, err
	}
	if path != "" {
		if p, err = LoadProtocol(path, st.Missions); err != nil {
			return nil, nil, err
		}
	}
	pl, err := resolve(p, st, p.Path)
	if err != nil {
		return nil, nil, err
	}
	if err := checkRunnable(p, pl); err != nil {
		return nil, nil, err
	}
	return p, pl, nil
}

// checkRunnable refuses, before any work, a plan whose run the validity
// gate would discard whatever the designs do: one without a control
// mutant, since the control is what shows the harness catches a defect at
// all. (resolve already refuses an empty scenario selection and unknown
// designs.)
func checkRunnable(p *Protocol, pl *plan) error {
	for _, b := range pl.builds {
		if b.Info.Class == string(mutants.Control) {
			return nil
		}
	}
	field := "mutants.catalogue"
	switch {
	case len(p.Mutants.Classes) > 0 && !slices.Contains(p.Mutants.Classes, string(mutants.Control)):
		field = "mutants.classes"
	case len(p.Mutants.IDs) > 0:
		field = "mutants.ids"
	}
	return p.errorf(field, "selects no %s mutant: nothing would validate the harness, and the validity gate would discard the run after all its work (%d mutated builds selected)",
		mutants.Control, len(pl.builds)-1)
}
