package mutants

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/sandbox"
)

// GeneratedName is the file name of a mission's generated space, as errors,
// run folders and reports give it.
const GeneratedName = "mutants.generated.yaml"

// Space returns the generated space of spec's mission ([Generate]) as a
// catalogue, and the catalogue file it is: the mutants encoded as users
// write them and read back through [Parse], so that every entry has its
// file and line and the catalogue's hash is that file's.
func Space(spec *mission.Spec) (*Catalogue, []byte, error) {
	muts, err := Generate(spec)
	if err != nil {
		return nil, nil, err
	}
	data := Encode(muts, SpaceHeader(spec))
	c, err := Parse(GeneratedName, data, spec)
	if err != nil {
		return nil, nil, fmt.Errorf("generated space of mission %s does not read back: %w", spec.Name, err)
	}
	return c, data, nil
}

// SpaceHeader is the comment a generated catalogue file opens with.
func SpaceHeader(spec *mission.Spec) string {
	return fmt.Sprintf("The generated mutant space of mission %s %s: every operator at every site\n"+
		"where it applies (baton mutants generate). Each entry is a catalogue entry\n"+
		"like a hand-written one; its id is its operator and its site.", spec.Name, spec.Version)
}

// Sample returns, for each class, n of the catalogue's mutants of that
// class drawn without replacement (all of them when the class has n or
// fewer), in catalogue order. The draw is seeded by seed and the class
// alone, so a class's sample does not depend on the other classes, and
// the same catalogue, n and seed give the same sample on every machine.
// n < 1 returns the catalogue unchanged. The sample keeps the catalogue's
// sources.
func (c *Catalogue) Sample(n int, seed uint64) *Catalogue {
	if n < 1 {
		return c
	}
	keep := map[*Mutant]bool{}
	for _, cl := range c.classesInOrder() {
		ms := c.ByClass(cl)
		if len(ms) <= n {
			for _, m := range ms {
				keep[m] = true
			}
			continue
		}
		rng := rand.New(rand.NewPCG(sandbox.HashSeed(seed, "mutants.sample", string(cl)), 0))
		for _, i := range rng.Perm(len(ms))[:n] {
			keep[ms[i]] = true
		}
	}
	out := &Catalogue{Sources: slices.Clone(c.Sources)}
	for _, m := range c.Mutants {
		if keep[m] {
			out.Mutants = append(out.Mutants, m)
		}
	}
	return out
}

// classesInOrder lists the classes the catalogue has, known ones in
// [AllClasses] order and then any other in catalogue order.
func (c *Catalogue) classesInOrder() []Class {
	out := c.Classes()
	for _, m := range c.Mutants {
		if !slices.Contains(out, m.Class) {
			out = append(out, m.Class)
		}
	}
	return out
}
