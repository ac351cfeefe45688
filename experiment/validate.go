package experiment

// Validate loads the protocol at path (the embedded default when path is
// "") and checks it against the default stack exactly as a run would: its
// scenarios, tags, mutants, contract files and mission. It runs nothing.
// `baton protocol lock` validates before it locks, so that a protocol that
// could not run is never pre-registered.
func Validate(path string) (*Protocol, error) {
	p := DefaultProtocol()
	if path != "" {
		var err error
		if p, err = LoadProtocol(path); err != nil {
			return nil, err
		}
	}
	st, err := DefaultStack()
	if err != nil {
		return nil, err
	}
	if _, err := resolve(p, st, p.Path); err != nil {
		return nil, err
	}
	return p, nil
}
