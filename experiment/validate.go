package experiment

import "github.com/baton-lab/baton/mission"

// Validate loads the protocol at path (the default mission's default
// protocol when path is "") and checks it against missions exactly as a
// run would: its mission, scenarios, tags, mutants and contract files. It
// runs nothing. `baton protocol lock` validates before it locks, so that a
// protocol that could not run is never pre-registered.
func Validate(missions *mission.Registry, path string) (*Protocol, error) {
	p, err := DefaultProtocol(missions)
	if err != nil {
		return nil, err
	}
	if path != "" {
		if p, err = LoadProtocol(path, missions); err != nil {
			return nil, err
		}
	}
	if _, err := resolve(p, NewStack(missions), p.Path); err != nil {
		return nil, err
	}
	return p, nil
}
